//===- UnrollWhile.cpp - stablehlo.while with a known trip count, unrolled ===//
//
// garray has no loops. A stablehlo.while whose trip count is known when
// importing is what lax.fori_loop and lax.scan with static bounds lower
// to: a counter that starts at a constant, is compared with a constant (or
// a loop-invariant carried constant) in the condition, and is stepped by a
// constant in the body. Such a loop is unrolled before the import: the
// body's ops are copied once per iteration, in order, each copy reading the
// previous one's results, and the loop's results are the last copy's. The
// condition only serves to count the iterations.
//
//   %r:2 = stablehlo.while(%c0, %h)   cond: %i < 3   body: (%i + 1, f(%h, %i))
//   ->  %h1 = f(%h, %c0); %h2 = f(%h1, %c1); %h3 = f(%h2, %c2)   (%r#1 = %h3)
//
// Calls in the copies are inlined (transitively): JAX puts a scan's step in
// a private function, and a gradient accumulated over the iterations then
// stays one pending sum, reduced once after the loop, instead of being
// reduced at every copy's function boundary.
//
// A loop of another form, or of more than kMaxTrips iterations or
// kMaxCopiedOps copied ops, is an error naming what is supported.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/ImportOps.h"
#include "compiler/import/StableHloAttrText.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;

namespace shardc::import {
namespace {

constexpr int64_t kMaxTrips = 4096;
constexpr int64_t kMaxCopiedOps = 200000;

/// The value of a scalar integer `stablehlo.constant`, or nullopt.
std::optional<int64_t> constantInt(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def || def->getName().getStringRef() != "stablehlo.constant")
    return std::nullopt;
  auto value = def->getAttrOfType<DenseIntElementsAttr>("value");
  if (!value || value.getNumElements() != 1)
    return std::nullopt;
  return (*value.getValues<APInt>().begin()).getSExtValue();
}

/// The block argument `v` is, or -1.
int64_t argIndex(Value v, Block &block) {
  auto arg = dyn_cast<BlockArgument>(v);
  return arg && arg.getOwner() == &block ? static_cast<int64_t>(arg.getArgNumber()) : -1;
}

struct TripCount {
  int64_t counter = -1; // which carried value counts
  int64_t trips = 0;
  int64_t init = 0, stride = 0;
};

/// The trip count of `loop` (file comment), or an error on `loop`.
FailureOr<TripCount> tripCount(Operation *loop) {
  auto fail = [&](const Twine &why) {
    return loop->emitError()
           << "'stablehlo.while' is imported only when its trip count is known when importing "
              "(a counter starting at a constant, compared with a constant, stepped by a "
              "constant: lax.fori_loop and lax.scan with static bounds); here "
           << why;
  };
  if (loop->getNumRegions() != 2 || !llvm::hasSingleElement(loop->getRegion(0)) ||
      !llvm::hasSingleElement(loop->getRegion(1)))
    return fail("the loop does not have one-block condition and body regions");
  Block &cond = loop->getRegion(0).front(), &body = loop->getRegion(1).front();
  // The last op ends each region (a stablehlo.return; unregistered ops are
  // not known to MLIR as terminators).
  Operation *condReturn = &cond.back();
  Operation *compare =
      condReturn->getNumOperands() == 1 ? condReturn->getOperand(0).getDefiningOp() : nullptr;
  if (!compare || compare->getName().getStringRef() != "stablehlo.compare")
    return fail("the condition is not one compare");
  std::optional<std::string> dirText = readAttrText(compare, "comparison_direction");
  std::string error;
  std::optional<std::string> dir =
      dirText ? parseStableHloEnum(*dirText, "comparison_direction", error) : std::nullopt;
  if (!dir)
    return failure();
  // The bound: a constant, or a carried value the body passes on unchanged
  // whose initial value is a constant.
  Operation *bodyReturn = &body.back();
  auto bound = [&](Value v) -> std::optional<int64_t> {
    if (std::optional<int64_t> c = constantInt(v))
      return c;
    int64_t k = argIndex(v, cond);
    if (k < 0 || argIndex(bodyReturn->getOperand(k), body) != k)
      return std::nullopt;
    return constantInt(loop->getOperand(k));
  };
  TripCount tc;
  std::optional<int64_t> limit;
  bool counterLeft = true;
  for (int side = 0; side < 2 && tc.counter < 0; ++side) {
    int64_t k = argIndex(compare->getOperand(side), cond);
    std::optional<int64_t> other = bound(compare->getOperand(1 - side));
    if (k >= 0 && other && argIndex(bodyReturn->getOperand(k), body) != k) {
      tc.counter = k;
      limit = other;
      counterLeft = side == 0;
    }
  }
  if (tc.counter < 0)
    return fail("the condition does not compare a carried counter with a constant");
  std::optional<int64_t> init = constantInt(loop->getOperand(tc.counter));
  if (!init)
    return fail("the counter does not start at a constant");
  Operation *step = bodyReturn->getOperand(tc.counter).getDefiningOp();
  std::optional<int64_t> stride;
  if (step && step->getName().getStringRef() == "stablehlo.add")
    for (int side = 0; side < 2 && !stride; ++side)
      if (argIndex(step->getOperand(side), body) == tc.counter)
        stride = constantInt(step->getOperand(1 - side));
  if (!stride)
    return fail("the body does not add a constant to the counter");
  auto holds = [&](int64_t i) {
    int64_t a = counterLeft ? i : *limit, b = counterLeft ? *limit : i;
    if (*dir == "LT")
      return a < b;
    if (*dir == "LE")
      return a <= b;
    if (*dir == "GT")
      return a > b;
    if (*dir == "GE")
      return a >= b;
    if (*dir == "NE")
      return a != b;
    return a == b;
  };
  for (int64_t i = *init; holds(i); i += *stride)
    if (++tc.trips > kMaxTrips)
      return fail("it runs more than " + Twine(kMaxTrips) + " iterations");
  tc.init = *init;
  tc.stride = *stride;
  return tc;
}

LogicalResult unroll(Operation *loop, SymbolTable &symbols) {
  FailureOr<TripCount> tc = tripCount(loop);
  if (failed(tc))
    return failure();
  Block &body = loop->getRegion(1).front();
  int64_t bodyOps = 0;
  body.walk([&](Operation *) { ++bodyOps; });
  if (tc->trips * bodyOps > kMaxCopiedOps)
    return loop->emitError() << "unrolling this 'stablehlo.while' (" << tc->trips
                             << " iterations of " << bodyOps << " ops) would copy more than "
                             << kMaxCopiedOps << " ops";
  OpBuilder b(loop);
  SmallVector<Value> carried(loop->getOperands());
  // Each copy reads its iteration's counter as a literal constant, so that
  // indices computed from it are constants to the importer too.
  auto counterAt = [&](int64_t t) {
    auto type = cast<RankedTensorType>(loop->getOperand(tc->counter).getType());
    return stableHloConstant(
        b, loop->getLoc(),
        DenseElementsAttr::get(type, APInt(type.getElementTypeBitWidth(),
                                           tc->init + t * tc->stride, /*isSigned=*/true)));
  };
  for (int64_t t = 0; t < tc->trips; ++t) {
    carried[tc->counter] = counterAt(t);
    IRMapping map;
    map.map(body.getArguments(), carried);
    for (Operation &op : body) {
      if (&op == &body.back())
        break;
      auto call = dyn_cast<func::CallOp>(b.clone(op, map));
      if (!call)
        continue;
      // The copy is replaced: later copies must read what replaced it.
      SmallVector<Value> inlined = inlineCall(call, symbols);
      for (auto [result, value] : llvm::zip(op.getResults(), inlined))
        map.map(result, value);
    }
    for (auto [i, v] : llvm::enumerate(body.back().getOperands()))
      carried[i] = map.lookupOrDefault(v);
  }
  carried[tc->counter] = counterAt(tc->trips);
  for (auto [result, value] : llvm::zip(loop->getResults(), carried))
    result.replaceAllUsesWith(value);
  loop->erase();
  return success();
}

} // namespace

LogicalResult unrollStaticWhileLoops(ModuleOp module) {
  // Inner loops first, so an outer body copies unrolled code.
  SymbolTable symbols(module);
  for (Operation *loop : opsNamed(module, "stablehlo.while"))
    if (failed(unroll(loop, symbols)))
      return failure();
  return success();
}

} // namespace shardc::import
