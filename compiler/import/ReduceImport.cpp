//===- ReduceImport.cpp - stablehlo.reduce by the meaning of its body -----===//
//
// A StableHLO reduce carries its combiner as a region. The importer accepts
// the two families JAX emits and refuses every other body:
//
//   - one operand, a body of one op on its two arguments (add, multiply,
//     maximum, minimum; and/or on i1) -> garray.reduce of that kind. An init
//     that is not the kind's identity is combined with the result afterwards
//     (`op(init, reduce(x))`), so any init keeps its meaning.
//
//   - two operands (x, iota along the reduced dim), inits (the kind's
//     identity, 0), a body of compares, and/or/not and selects
//     -> garray.argmax / argmin (and reduce max / min for the value result).
//     Such a body's results depend only on how its four arguments order, so
//     evaluating it on one representative of every ordering (NaNs, ties and
//     equal indices included) proves what it computes. lax.argmax's
//     NaN-aware body passes; a body that ignores NaNs, or picks the later
//     index on ties, does not. One freedom is allowed: when both values are
//     NaN the body may keep either index, which is what lax.argmax's body
//     does (XLA visits elements in order, so the first NaN wins there, as
//     it does in garray).
//
//===----------------------------------------------------------------------===//
#include "compiler/import/ImportOps.h"
#include "compiler/import/StableHloAttrText.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::garray;

namespace shardc::import {

bool isSplat(Value v, double want) {
  if (auto b = v.getDefiningOp<BroadcastInDimOp>())
    return isSplat(b.getOperand(), want);
  auto c = v.getDefiningOp<ConstantOp>();
  auto dense = c ? dyn_cast<DenseElementsAttr>(c.getValue()) : DenseElementsAttr();
  if (!dense || !dense.isSplat())
    return false;
  Type t = dense.getElementType();
  if (isa<FloatType>(t))
    return dense.getSplatValue<APFloat>().convertToDouble() == want;
  if (t.isInteger(1))
    return dense.getSplatValue<bool>() == (want != 0);
  if (auto it = dyn_cast<IntegerType>(t))
    return static_cast<double>(dense.getSplatValue<APInt>().getSExtValue()) == want;
  return false;
}

namespace {

/// The identity of `kind` on element type `t` (as a double), or nullopt.
std::optional<double> identity(ReductionKind kind, Type t) {
  bool isFloat = isa<FloatType>(t);
  auto it = dyn_cast<IntegerType>(t);
  if (!isFloat && !it)
    return std::nullopt;
  unsigned bits = it ? it.getWidth() : 0;
  double inf = std::numeric_limits<double>::infinity();
  switch (kind) {
  case ReductionKind::sum:
    return 0.0;
  case ReductionKind::prod:
    return 1.0;
  case ReductionKind::max:
    if (isFloat)
      return -inf;
    return bits == 1 ? 0.0 : -std::ldexp(1.0, bits - 1);
  case ReductionKind::min:
    if (isFloat)
      return inf;
    return bits == 1 ? 1.0 : std::ldexp(1.0, bits - 1) - 1;
  }
  return std::nullopt;
}

Value reduceOf(OpEmitter &e, ReductionKind kind, Value x, ArrayRef<int64_t> dims, Type type) {
  return ReduceOp::create(e.b, e.loc, type, ReductionKindAttr::get(e.b.getContext(), kind), x,
                          e.b.getDenseI64ArrayAttr(dims), UnitAttr());
}

} // namespace

std::optional<ReductionKind> combinerKind(Block &body, Type element) {
  if (body.getNumArguments() != 2 || body.getOperations().size() != 2)
    return std::nullopt;
  Operation &op = body.front();
  Operation *ret = &body.back();
  if (ret->getName().getStringRef() != "stablehlo.return" || ret->getNumOperands() != 1 ||
      op.getNumResults() != 1 || ret->getOperand(0) != op.getResult(0) ||
      op.getNumOperands() != 2 || op.getNumRegions() != 0 || !attributesOf(&op).empty())
    return std::nullopt;
  Value a = body.getArgument(0), b = body.getArgument(1);
  if (!((op.getOperand(0) == a && op.getOperand(1) == b) ||
        (op.getOperand(0) == b && op.getOperand(1) == a)))
    return std::nullopt;
  StringRef name = op.getName().getStringRef();
  if (name == "stablehlo.add")
    return ReductionKind::sum;
  if (name == "stablehlo.multiply")
    return ReductionKind::prod;
  if (name == "stablehlo.maximum" || (name == "stablehlo.or" && element.isInteger(1)))
    return ReductionKind::max;
  if (name == "stablehlo.minimum" || (name == "stablehlo.and" && element.isInteger(1)))
    return ReductionKind::min;
  return std::nullopt;
}

namespace {

/// Evaluates a body of compares, boolean ops and selects on scalar
/// arguments; nullopt when it holds anything else.
std::optional<SmallVector<double>> evaluate(Block &body, ArrayRef<double> args) {
  llvm::DenseMap<Value, double> env;
  for (auto [arg, v] : llvm::zip(body.getArguments(), args))
    env[arg] = v;
  auto get = [&](Value v) -> std::optional<double> {
    auto it = env.find(v);
    return it == env.end() ? std::nullopt : std::optional<double>(it->second);
  };
  for (Operation &op : body) {
    StringRef name = op.getName().getStringRef();
    SmallVector<double> in;
    for (Value v : op.getOperands()) {
      std::optional<double> x = get(v);
      if (!x)
        return std::nullopt;
      in.push_back(*x);
    }
    if (name == "stablehlo.return")
      return in;
    if (op.getNumResults() != 1 || op.getNumRegions() != 0)
      return std::nullopt;
    double r;
    if (name == "stablehlo.compare" && in.size() == 2) {
      std::string text, error;
      llvm::raw_string_ostream os(text);
      if (Attribute d = op.getAttr("comparison_direction"))
        d.print(os);
      std::optional<std::string> dir = parseStableHloEnum(text, "comparison_direction", error);
      if (!dir)
        return std::nullopt;
      double x = in[0], y = in[1];
      if (*dir == "EQ") r = x == y;
      else if (*dir == "NE") r = x != y;
      else if (*dir == "LT") r = x < y;
      else if (*dir == "LE") r = x <= y;
      else if (*dir == "GT") r = x > y;
      else if (*dir == "GE") r = x >= y;
      else return std::nullopt;
    } else if (name == "stablehlo.and" && in.size() == 2) {
      r = in[0] != 0 && in[1] != 0;
    } else if (name == "stablehlo.or" && in.size() == 2) {
      r = in[0] != 0 || in[1] != 0;
    } else if (name == "stablehlo.xor" && in.size() == 2) {
      r = (in[0] != 0) != (in[1] != 0);
    } else if (name == "stablehlo.not" && in.size() == 1) {
      r = in[0] == 0;
    } else if (name == "stablehlo.select" && in.size() == 3) {
      r = in[0] != 0 ? in[1] : in[2];
    } else {
      return std::nullopt;
    }
    env[op.getResult(0)] = r;
  }
  return std::nullopt;
}

/// Whether a two-operand body is the (value, index) combiner of argmax
/// (`max`) or argmin, on every ordering of its arguments.
bool isArgCombiner(Block &body, bool max, bool floatValues) {
  if (body.getNumArguments() != 4)
    return false;
  // Boolean ops on i1 only: a bitwise `and` of two indices is no ordering.
  for (Operation &op : body) {
    StringRef name = op.getName().getStringRef();
    if ((name == "stablehlo.and" || name == "stablehlo.or" || name == "stablehlo.xor" ||
         name == "stablehlo.not") &&
        !llvm::all_of(op.getOperandTypes(),
                      [](Type t) { return getElementTypeOrSelf(t).isInteger(1); }))
      return false;
  }
  double nan = std::nan("");
  const double values[][2] = {{1, 2}, {2, 1}, {1, 1}, {nan, 1}, {1, nan}, {nan, nan}};
  const double indices[][2] = {{0, 1}, {1, 0}, {0, 0}};
  auto same = [](double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); };
  for (auto &v : values) {
    if (!floatValues && (std::isnan(v[0]) || std::isnan(v[1])))
      continue;
    for (auto &i : indices) {
      std::optional<SmallVector<double>> r = evaluate(body, {v[0], i[0], v[1], i[1]});
      if (!r || r->size() != 2)
        return false;
      double gotV = (*r)[0], gotI = (*r)[1];
      bool nanA = std::isnan(v[0]), nanB = std::isnan(v[1]);
      if (nanA && nanB) {
        if (!std::isnan(gotV) || (gotI != i[0] && gotI != i[1]))
          return false;
        continue;
      }
      double wantV, wantI;
      if (nanA || nanB) {
        wantV = nan;
        wantI = nanA ? i[0] : i[1];
      } else if (v[0] == v[1]) {
        wantV = v[0];
        wantI = std::min(i[0], i[1]);
      } else {
        bool first = max ? v[0] > v[1] : v[0] < v[1];
        wantV = first ? v[0] : v[1];
        wantI = first ? i[0] : i[1];
      }
      if (!same(gotV, wantV) || gotI != wantI)
        return false;
    }
  }
  return true;
}

FailureOr<Values> importArgReduce(Operation *op, OpEmitter &e, ArrayRef<int64_t> dims) {
  Value x = op->getOperand(0), idx = op->getOperand(1);
  Value initV = op->getOperand(2), initI = op->getOperand(3);
  Block &body = op->getRegion(0).front();
  Type element = tensorType(x).getElementType();
  auto refuse = [&](const Twine &why) {
    return op->emitError() << "a two-operand reduce is imported only as argmax or argmin "
                              "(lax.argmax / lax.argmin): "
                           << why;
  };
  if (dims.size() != 1)
    return refuse("it must reduce one dimension, not " + Twine(dims.size()));
  auto iota = idx.getDefiningOp<IotaOp>();
  if (!iota || iota.getDim() != static_cast<uint64_t>(dims[0]) ||
      tensorType(idx).getShape() != tensorType(x).getShape())
    return refuse("its second operand must be an iota along the reduced dimension " +
                  Twine(dims[0]));
  if (!isSplat(initI, 0))
    return refuse("the index init must be 0");
  bool floatValues = isa<FloatType>(element);
  for (bool max : {true, false}) {
    ReductionKind kind = max ? ReductionKind::max : ReductionKind::min;
    std::optional<double> id = identity(kind, element);
    if (!id || !isSplat(initV, *id) || !isArgCombiner(body, max, floatValues))
      continue;
    Values results;
    Type valueType = op->getResult(0).getType(), indexType = op->getResult(1).getType();
    results.push_back(op->getResult(0).use_empty()
                          ? Value()
                          : reduceOf(e, kind, x, dims, valueType));
    auto dim = e.b.getI64IntegerAttr(dims[0]);
    results.push_back(max ? ArgMaxOp::create(e.b, e.loc, indexType, x, dim).getResult()
                          : ArgMinOp::create(e.b, e.loc, indexType, x, dim).getResult());
    return results;
  }
  return refuse("its body and inits are not those of a NaN-aware argmax or argmin (value init "
                "-inf or +inf, index init 0, NaN counted as the extreme, ties to the lower "
                "index)");
}

} // namespace

FailureOr<Values> importReduce(Operation *op, OpEmitter &e) {
  std::optional<SmallVector<int64_t>> dims = readI64Array(op, "dimensions");
  if (!dims)
    return failure();
  unsigned n = op->getNumResults();
  if (op->getNumRegions() != 1 || !llvm::hasSingleElement(op->getRegion(0)) ||
      op->getNumOperands() != 2 * n || n == 0)
    return op->emitError() << "'stablehlo.reduce' needs one body and an init per operand";
  Block &body = op->getRegion(0).front();
  for (BlockArgument arg : body.getArguments()) {
    auto t = dyn_cast<RankedTensorType>(arg.getType());
    if (!t || t.getRank() != 0)
      return op->emitError() << "the reduce body's arguments must be scalar tensors";
  }
  if (n == 2)
    return importArgReduce(op, e, *dims);
  if (n != 1)
    return op->emitError() << "a reduce of " << n << " operands is not supported (one operand, "
                              "or two for argmax/argmin)";
  Value x = op->getOperand(0), init = op->getOperand(1);
  Type element = tensorType(x).getElementType();
  std::optional<ReductionKind> kind = combinerKind(body, element);
  if (!kind)
    return op->emitError() << "this reduce body is not supported: the importer maps a body of "
                              "one add, multiply, maximum or minimum (and/or on i1) of its two "
                              "arguments";
  Type resultType = op->getResult(0).getType();
  // A reduce over no dims (`jnp.sum(x, axis=())`, `jnp.unique(size=)`)
  // combines each element with the init alone: no garray reduction.
  Value r = dims->empty() ? x : reduceOf(e, *kind, x, *dims, resultType);
  std::optional<double> id = identity(*kind, element);
  if (id && isSplat(init, *id) && !dims->empty())
    return Values{r};
  // Any other init is one more operand of the combiner.
  Value initFull = e.broadcastScalar(init, resultType);
  StringRef combine = *kind == ReductionKind::sum    ? "garray.add"
                      : *kind == ReductionKind::prod ? "garray.mul"
                      : *kind == ReductionKind::max  ? "garray.max"
                                                     : "garray.min";
  OperationState state(e.loc, combine);
  state.addOperands({r, initFull});
  state.addTypes(resultType);
  return Values{e.b.create(state)->getResult(0)};
}

} // namespace shardc::import
