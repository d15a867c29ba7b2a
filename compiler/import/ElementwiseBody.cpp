//===- ElementwiseBody.cpp - a scalar body applied to whole tensors -------===//
#include "compiler/import/ElementwiseBody.h"
#include "compiler/import/ImportOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace shardc::import {
namespace {

/// Whether `name` is a StableHLO op that works element by element.
bool isElementwiseOp(StringRef name) {
  static const StringRef kOps[] = {
      "stablehlo.compare",     "stablehlo.select",      "stablehlo.and",
      "stablehlo.or",          "stablehlo.not",         "stablehlo.xor",
      "stablehlo.convert",     "stablehlo.bitcast_convert", "stablehlo.negate",
      "stablehlo.abs",         "stablehlo.add",         "stablehlo.subtract",
      "stablehlo.multiply",    "stablehlo.divide",      "stablehlo.remainder",
      "stablehlo.power",       "stablehlo.maximum",     "stablehlo.minimum",
      "stablehlo.clamp",       "stablehlo.is_finite",   "stablehlo.sign",
      "stablehlo.exponential", "stablehlo.exponential_minus_one", "stablehlo.log",
      "stablehlo.log_plus_one", "stablehlo.sqrt",       "stablehlo.rsqrt",
      "stablehlo.tanh",        "stablehlo.logistic",    "stablehlo.floor",
      "stablehlo.ceil",        "stablehlo.round_nearest_even",
      "stablehlo.shift_right_arithmetic", "stablehlo.shift_right_logical",
      "stablehlo.shift_left"};
  return llvm::is_contained(kOps, name);
}

} // namespace

LogicalResult checkElementwiseBody(Operation *owner, Block &body, unsigned arguments,
                                   unsigned results, StringRef what) {
  if (body.getNumArguments() != arguments)
    return owner->emitError() << what << " takes " << body.getNumArguments()
                              << " arguments; it needs " << arguments;
  // Generic-form ops are unregistered, so the block has no known
  // terminator: the last op is the return.
  Operation *ret = &body.back();
  if (ret->getName().getStringRef() != "stablehlo.return" || ret->getNumOperands() != results)
    return owner->emitError() << what << " must return " << results << " value"
                              << (results == 1 ? "" : "s");
  for (Operation &op : llvm::make_range(body.begin(), Block::iterator(ret))) {
    StringRef name = op.getName().getStringRef();
    if (name != "stablehlo.constant" && !isElementwiseOp(name))
      return op.emitError() << what << " uses '" << name
                            << "'; shardc applies bodies built from elementwise ops, compares, "
                               "selects and constants";
  }
  return success();
}

SmallVector<Value> applyElementwiseBody(OpBuilder &b, Location loc, Block &body,
                                        ArrayRef<Value> args) {
  ArrayRef<int64_t> shape = tensorType(args[0]).getShape();
  IRMapping map;
  for (auto [arg, value] : llvm::zip(body.getArguments(), args))
    map.map(arg, value);
  Operation *ret = &body.back();
  for (Operation &op : llvm::make_range(body.begin(), Block::iterator(ret))) {
    if (op.getName().getStringRef() == "stablehlo.constant") {
      auto value = cast<DenseElementsAttr>(op.getAttr("value"));
      Value scalar = stableHloConstant(b, loc, value);
      map.map(op.getResult(0),
              stableHloBroadcastScalar(b, loc, scalar,
                                       RankedTensorType::get(shape, value.getElementType())));
      continue;
    }
    OperationState state(op.getLoc(), op.getName());
    for (Value v : op.getOperands())
      state.addOperands(map.lookup(v));
    for (Type r : op.getResultTypes())
      state.addTypes(RankedTensorType::get(shape, cast<RankedTensorType>(r).getElementType()));
    state.addAttributes(attributesOf(&op));
    map.map(op.getResults(), b.create(state)->getResults());
  }
  SmallVector<Value> out;
  for (Value v : ret->getOperands())
    out.push_back(map.lookup(v));
  return out;
}

} // namespace shardc::import
