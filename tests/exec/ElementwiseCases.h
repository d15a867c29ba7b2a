//===- ElementwiseCases.h - elementwise ops as data, with references -*- C++ -*-===//
//
// The execution tests of the elementwise family read every op from one table:
// its mnemonic, the element types it admits, the input ranges worth drawing
// from, and a double-precision reference with the semantics the op's
// description promises (XLA's integer division, saturating float→int
// conversion, NaN-propagating max/min, ...). The tests build one small model
// per case, so a failure names the op, the dtype, the placement and the rank
// count.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TESTS_EXEC_ELEMENTWISECASES_H
#define SHARDC_TESTS_EXEC_ELEMENTWISECASES_H

#include "tests/exec/ExecHarness.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace shardc_test {

/// shardrt dtype names in the order the tests cover them.
extern const std::vector<std::string> kAllDtypes; // f32 f64 f16 bf16 i32 i64 bool

bool isFloatDtype(const std::string &dtype);
/// "bool" -> "i1"; others are spelled the same in MLIR.
std::string mlirElement(const std::string &dtype);
/// tensor<8x4xf32>
std::string tensorType(const std::vector<int64_t> &shape, const std::string &dtype);

/// Reference of one element; `dtype` is the operands' dtype (values are
/// already representable in it). Integer results may be out of range: the
/// caller wraps them with roundToDtype.
using Reference = std::function<double(const std::vector<double> &args, const std::string &dtype)>;

enum class Kinds { Any, Float, Number, Integer }; // as the op's `_c2`

struct OpCase {
  std::string op; // mnemonic: "add"
  int arity;      // 1, 2 or 3 (clamp)
  Kinds kinds;
  double lo, hi;   // float operands are drawn from [lo, hi)
  double lo2, hi2; // rhs, for binary ops
  Reference reference;

  bool admits(const std::string &dtype) const;
};

/// Every same-typed elementwise op (compare, select and convert are tested
/// on their own).
const std::vector<OpCase> &elementwiseCases();
const OpCase &caseFor(const std::string &op);

/// Per-element tolerance for results of `dtype` (0 for integers: they are
/// exact). Floats allow a few ulps: 16-bit floats compute in f32 and round
/// once per op.
Tolerance toleranceFor(const std::string &dtype);

/// Random operand values: floats uniform in [lo, hi) rounded to `dtype`, then
/// `edges` written over the first elements (NaN, ±inf, ±0 for floats);
/// integers uniform in [lo, hi) (so negative and zero values appear); bool
/// 0/1 at random.
TypedArray randomOperand(Rng &rng, const std::string &dtype, const std::vector<int64_t> &shape,
                         double lo, double hi, const std::vector<double> &edges = {});

/// Float edge values to put first in an operand (rotated by `shift`).
std::vector<double> floatEdges(int shift = 0);

/// Applies `reference` elementwise and rounds to `resultDtype`.
TypedArray applyReference(const Reference &reference, const std::vector<TypedArray> &args,
                          const std::string &resultDtype);

/// Integer limits of a dtype ("i32" -> [-2^31, 2^31 - 1]), as doubles.
double intMin(const std::string &dtype);
double intMax(const std::string &dtype);

/// Reference of `garray.convert` from values of `from` to `to`.
double convertReference(double v, const std::string &from, const std::string &to);

//===----------------------------------------------------------------------===//
// Model text
//===----------------------------------------------------------------------===//

struct ModelArg {
  std::string name; // garray.name, also the SSA name
  std::string type; // tensor<8x4xf32>
  std::string spec; // P("data", None); "" for unannotated
};

struct ModelResult {
  std::string name;  // garray.name
  std::string value; // SSA value returned, without %
  std::string type;
};

/// A model on mesh ["data" = 4]: `@main(args) -> results { body; return }`.
std::string elementwiseModel(const std::vector<ModelArg> &args,
                             const std::vector<ModelResult> &results,
                             const std::string &body);

/// P(...) splitting dimension `dim` of a rank-`rank` array over "data".
std::string specOnDim(int64_t rank, int64_t dim);
/// P(None, ..., None): replicated and closed.
std::string replicatedSpec(int64_t rank);

} // namespace shardc_test

#endif
