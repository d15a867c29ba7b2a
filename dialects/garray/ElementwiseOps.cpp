//===- ElementwiseOps.cpp - verifiers of elementwise ops ------------------===//
//
// Messages start with the constraint label from GArrayElementwiseOps.td.
// (add/sub/... need none beyond SameOperandsAndResultType.)
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "dialects/garray/VerifyUtils.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::garray;

