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
// A condition that also tests data, `i < n && err > tol` (an iterative
// solver with an iteration bound), bounds the loop by its counter alone:
// each of those iterations evaluates the whole condition on the carried
// values, and the values go on only while it holds, select(cond, next,
// current). Once it fails the values stop changing, so it keeps failing:
// the results are the loop's, at the cost of every bounded iteration.
//
//   while (i < 50 && sum(x) > 1) { i += 1; x *= 0.5 }
//   ->  c0 = 0 < 50 && sum(x) > 1; x1 = select(c0, x * 0.5, x); i1 = select(c0, 1, 0)
//       c1 = i1 < 50 && sum(x1) > 1; x2 = select(c1, x1 * 0.5, x1); ...   (50 times)
//
// A loop of another form (a condition with no counter bound), or of more
// than kMaxTrips iterations or kMaxCopiedOps copied ops, is an error naming
// what is supported.
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
  bool guarded = false; // the condition tests more than the counter
};

/// Whether `v` is a constant false (possibly broadcast).
bool isFalse(Value v) {
  Operation *def = v.getDefiningOp();
  while (def && def->getName().getStringRef() == "stablehlo.broadcast_in_dim")
    def = def->getOperand(0).getDefiningOp();
  if (!def || def->getName().getStringRef() != "stablehlo.constant")
    return false;
  auto value = def->getAttrOfType<DenseIntElementsAttr>("value");
  return value && value.getElementType().isInteger(1) && value.isSplat() &&
         !value.getSplatValue<bool>();
}

/// The compares whose conjunction `cond` is (`cond` itself when it is not
/// a stablehlo.and); `others` is set when some leaf is not a compare.
/// jnp.logical_and's operands arrive as convert(compare(b, false, NE)) of
/// a boolean `b`: that is `b`.
void conjuncts(Value cond, SmallVectorImpl<Operation *> &compares, bool &others) {
  Operation *def = cond.getDefiningOp();
  llvm::StringRef name = def ? def->getName().getStringRef() : "";
  auto isBool = [](Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t && t.getElementType().isInteger(1);
  };
  if (name == "stablehlo.and" && def->getNumOperands() == 2) {
    conjuncts(def->getOperand(0), compares, others);
    conjuncts(def->getOperand(1), compares, others);
  } else if (name == "stablehlo.convert" && isBool(def->getOperand(0)) && isBool(cond)) {
    conjuncts(def->getOperand(0), compares, others);
  } else if (name == "stablehlo.compare" && isBool(def->getOperand(0)) &&
             isFalse(def->getOperand(1)) &&
             readAttrText(def, "comparison_direction").value_or("").find("NE") !=
                 std::string::npos) {
    conjuncts(def->getOperand(0), compares, others);
  } else if (name == "stablehlo.compare") {
    compares.push_back(def);
  } else {
    others = true;
  }
}

/// The trip count of `loop` (file comment), or an error on `loop`.
FailureOr<TripCount> tripCount(Operation *loop) {
  auto fail = [&](const Twine &why) {
    return loop->emitError()
           << "'stablehlo.while' is imported only when its trip count is known when importing "
              "(a counter starting at a constant, compared with a constant, stepped by a "
              "constant: lax.fori_loop and lax.scan with static bounds, or such a bound "
              "and-ed with other tests, `(i < n) & (err > tol)`); here "
           << why;
  };
  if (loop->getNumRegions() != 2 || !llvm::hasSingleElement(loop->getRegion(0)) ||
      !llvm::hasSingleElement(loop->getRegion(1)))
    return fail("the loop does not have one-block condition and body regions");
  Block &cond = loop->getRegion(0).front(), &body = loop->getRegion(1).front();
  // The last op ends each region (a stablehlo.return; unregistered ops are
  // not known to MLIR as terminators).
  Operation *condReturn = &cond.back();
  if (condReturn->getNumOperands() != 1)
    return fail("the condition does not return one value");
  SmallVector<Operation *> compares;
  bool others = false;
  conjuncts(condReturn->getOperand(0), compares, others);
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
  Operation *compare = nullptr;
  for (Operation *candidate : compares) {
    for (int side = 0; side < 2 && tc.counter < 0; ++side) {
      int64_t k = argIndex(candidate->getOperand(side), cond);
      std::optional<int64_t> other = bound(candidate->getOperand(1 - side));
      if (k >= 0 && other && argIndex(bodyReturn->getOperand(k), body) != k) {
        tc.counter = k;
        limit = other;
        counterLeft = side == 0;
        compare = candidate;
      }
    }
    if (compare)
      break;
  }
  if (!compare)
    return fail("the condition does not compare a carried counter with a constant (bound a "
                "loop that runs until its data converge by and-ing an iteration count)");
  tc.guarded = others || compares.size() > 1;
  std::optional<std::string> dirText = readAttrText(compare, "comparison_direction");
  std::string error;
  std::optional<std::string> dir =
      dirText ? parseStableHloEnum(*dirText, "comparison_direction", error) : std::nullopt;
  if (!dir)
    return failure();
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
  // The ops of `block` but its return, copied on `args`; its return's
  // operands, mapped.
  auto copy = [&](Block &block, ValueRange args) {
    IRMapping map;
    map.map(block.getArguments(), args);
    for (Operation &op : block) {
      if (&op == &block.back())
        break;
      auto call = dyn_cast<func::CallOp>(b.clone(op, map));
      if (!call)
        continue;
      // The copy is replaced: later copies must read what replaced it.
      SmallVector<Value> inlined = inlineCall(call, symbols);
      for (auto [result, value] : llvm::zip(op.getResults(), inlined))
        map.map(result, value);
    }
    SmallVector<Value> out;
    for (Value v : block.back().getOperands())
      out.push_back(map.lookupOrDefault(v));
    return out;
  };
  Block &cond = loop->getRegion(0).front();
  for (int64_t t = 0; t < tc->trips; ++t) {
    if (!tc->guarded) {
      carried[tc->counter] = counterAt(t);
      carried = copy(body, carried);
      continue;
    }
    // The condition reads the carried values as they are (the counter
    // stops with them); the body may read its iteration's counter as a
    // constant, since its values are kept only while the counter has
    // reached exactly that.
    Value holds = copy(cond, carried).front();
    SmallVector<Value> in(carried);
    in[tc->counter] = counterAt(t);
    SmallVector<Value> next = copy(body, in);
    for (auto [i, v] : llvm::enumerate(next)) {
      if (static_cast<int64_t>(i) == tc->counter)
        v = counterAt(t + 1);
      carried[i] = createStableHlo(b, loop->getLoc(), "stablehlo.select", {holds, v, carried[i]},
                                   carried[i].getType())
                       ->getResult(0);
    }
  }
  if (!tc->guarded)
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
