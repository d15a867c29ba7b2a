//===- OutlineParallelLoops.cpp - cpu-outline-parallel-loops --------------===//
//
// Each large outermost scf.parallel becomes a function over a chunk of its
// iterations, called through a dispatch function that
// cpu-build-parallel-dispatch defines after conversion to LLVM (see
// CpuPasses.td for the pair). Chunks split one dimension; every iteration
// runs the same code it ran before, so a loop whose iterations write
// disjoint outputs computes the same values on any number of threads.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/CpuPasses.h"
#include "compiler/targets/GemmPacking.h"
#include "compiler/targets/Outlining.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"

#include <limits>

namespace shardc {
#define GEN_PASS_DEF_CPUOUTLINEPARALLELLOOPS
#include "compiler/targets/CpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

/// Trip count assumed for a loop whose bounds are not constants.
constexpr int64_t kUnknownTrips = 64;

int64_t saturatingMul(int64_t a, int64_t b) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max() / 4;
  return a > 0 && b > kMax / a ? kMax : a * b;
}

std::optional<int64_t> staticTrips(Value lb, Value ub, Value step) {
  std::optional<int64_t> l = getConstantIntValue(lb), u = getConstantIntValue(ub),
                         s = getConstantIntValue(step);
  if (!l || !u || !s || *s <= 0)
    return std::nullopt;
  return *u > *l ? (*u - *l + *s - 1) / *s : 0;
}

int64_t trips(Value lb, Value ub, Value step) {
  return staticTrips(lb, ub, step).value_or(kUnknownTrips);
}

/// What one run of `op` itself costs, in scalar operations: the lanes of
/// the widest vector it reads or writes, else 1. Counting a vector op as
/// one had kept a GEMM's packing of B (a loop over 512 rows, each 32
/// vector loads and stores of 32 floats: 2 MiB copied) on one thread.
int64_t weightOf(Operation &op) {
  int64_t lanes = 1;
  auto widen = [&](Type type) {
    if (auto vector = dyn_cast<VectorType>(type); vector && vector.hasStaticShape())
      lanes = std::max(lanes, vector.getNumElements());
  };
  for (Type type : op.getOperandTypes())
    widen(type);
  for (Type type : op.getResultTypes())
    widen(type);
  return lanes;
}

/// Operations executed by one run of `block`, loops multiplied out: a
/// rough count that only decides whether a loop is worth a dispatch.
int64_t workOf(Block &block) {
  int64_t total = 0;
  for (Operation &op : block) {
    int64_t inner = 0;
    for (Region &r : op.getRegions())
      for (Block &b : r)
        inner += workOf(b);
    int64_t times = 1;
    if (auto loop = dyn_cast<scf::ForOp>(op))
      times = trips(loop.getLowerBound(), loop.getUpperBound(), loop.getStep());
    else if (auto par = dyn_cast<scf::ParallelOp>(op))
      for (auto [lb, ub, step] :
           llvm::zip(par.getLowerBound(), par.getUpperBound(), par.getStep()))
        times = saturatingMul(times, trips(lb, ub, step));
    total += weightOf(op) + saturatingMul(times, inner);
    total = std::min(total, std::numeric_limits<int64_t>::max() / 4);
  }
  return total;
}

/// The dimension to split: the first that runs more than once.
std::optional<unsigned> splitDim(scf::ParallelOp op) {
  for (unsigned d = 0; d < op.getNumLoops(); ++d) {
    std::optional<int64_t> n =
        staticTrips(op.getLowerBound()[d], op.getUpperBound()[d], op.getStep()[d]);
    if (!n || *n >= 2)
      return d;
  }
  return std::nullopt;
}

/// Loops that must stay on the rank's own thread: ones that reduce into
/// results, sit inside another parallel loop (that one is split instead),
/// or call the runtime (collectives are per rank, not per thread).
bool mayRunOnThreads(scf::ParallelOp op) {
  if (op.getNumResults() != 0 || op->getParentOfType<scf::ParallelOp>())
    return false;
  WalkResult calls = op.walk([](func::CallOp call) {
    return call.getCallee().starts_with("shardrt_") ? WalkResult::interrupt()
                                                    : WalkResult::advance();
  });
  return !calls.wasInterrupted();
}

struct CpuOutlineParallelLoops
    : shardc::impl::CpuOutlineParallelLoopsBase<CpuOutlineParallelLoops> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    for (func::FuncOp fn : funcs) {
      if (fn.isExternal())
        continue;
      struct Loop {
        scf::ParallelOp op;
        unsigned dim;
        bool own; // on the rank's own threads only
      };
      SmallVector<Loop> loops;
      fn.walk([&](scf::ParallelOp op) {
        // The GEMM mark is read here only: dropped, it cannot keep two
        // kernels apart that are otherwise identical.
        auto gemm = op->getAttrOfType<IntegerAttr>(shardc::gemm::kLoopAttr);
        op->removeAttr(shardc::gemm::kLoopAttr);
        if (!mayRunOnThreads(op))
          return;
        std::optional<unsigned> d = splitDim(op);
        if (!d)
          return;
        int64_t work = 1;
        for (auto [lb, ub, step] : llvm::zip(op.getLowerBound(), op.getUpperBound(), op.getStep()))
          work = saturatingMul(work, trips(lb, ub, step));
        work = saturatingMul(work, workOf(*op.getBody()));
        // A large GEMM's own loops take a quarter of the bar: its packing
        // copies (a quarter of the cost model's operations) stride across
        // panels and miss the cache more than the loads and stores counted.
        // Packing a 64x128x4096 weight gradient's Aᵀ per K block (34 K
        // counted operations, 27 us) on one thread kept the other idle for
        // a fifth of the GEMM.
        int64_t bar = gemm ? minWork / 4 : minWork;
        if (work < bar)
          return;
        if (!gemm || gemm.getInt() >= gemmMinWork)
          loops.push_back({op, *d, /*own=*/false});
        else if (gemm.getInt() >= gemmOwnMinWork)
          loops.push_back({op, *d, /*own=*/true});
      });
      Operation *after = fn;
      for (auto [index, loop] : llvm::enumerate(loops))
        after = outline(fn, loop.op, loop.dim, loop.own, index, after, symbols);
    }
    inlineWrappers(module);
  }

  /// A kernel that cpu-outline-loop-nests gave a function of its own and
  /// that now holds only a dispatch (no loop left) goes back into its
  /// callers: the chunk function is what LLVM compiles once, and the
  /// wrapper would only add a call and a function to compile.
  static void inlineWrappers(ModuleOp module) {
    llvm::DenseMap<StringAttr, func::FuncOp> wrappers;
    for (auto fn : module.getOps<func::FuncOp>()) {
      if (fn.isExternal() || !fn.isPrivate() || !fn->hasAttr(shardc::kOutlinedNestAttr) ||
          !fn.getBody().hasOneBlock())
        continue;
      int calls = 0;
      bool plain = llvm::all_of(fn.getBody().front(), [&](Operation &op) {
        calls += isa<func::CallOp>(op);
        return op.getNumRegions() == 0 &&
               (isa<func::CallOp, func::ReturnOp>(op) || isMemoryEffectFree(&op));
      });
      if (plain && calls == 1)
        wrappers[fn.getSymNameAttr()] = fn;
    }
    if (wrappers.empty())
      return;
    SmallVector<func::CallOp> sites;
    module.walk([&](func::CallOp call) {
      if (wrappers.count(call.getCalleeAttr().getAttr()))
        sites.push_back(call);
    });
    for (func::CallOp call : sites) {
      func::FuncOp wrapper = wrappers.lookup(call.getCalleeAttr().getAttr());
      Block &body = wrapper.getBody().front();
      IRMapping map;
      map.map(body.getArguments(), call.getOperands());
      OpBuilder b(call);
      for (Operation &op : body.without_terminator())
        b.clone(op, map);
      call.erase();
    }
    for (auto &[name, wrapper] : wrappers)
      wrapper.erase();
  }

  /// Replaces `op` by a call of `<fn>_par<index>_dispatch(count, inputs...)`
  /// and defines `<fn>_par<index>(begin, end, inputs...)`, which runs
  /// iterations [begin, end) of dimension `d`; returns the latter. With
  /// `own`, the dispatch runs on the rank's own kernel threads only.
  Operation *outline(func::FuncOp parent, scf::ParallelOp op, unsigned d, bool own,
                     size_t index, Operation *after, SymbolTable &symbols) {
    Location loc = op.getLoc();
    shardc::NestInputs in = shardc::nestInputs(op);
    Type indexType = IndexType::get(op.getContext());
    std::string name = (parent.getSymName() + "_par" + llvm::Twine(index)).str();
    // A named, non-inlined function: what perf and --emit=llvm show.
    shardc::OutlinedFunction body = shardc::createOutlinedFunction(
        after, name, loc, TypeRange{indexType, indexType}, in, symbols);
    IRMapping &map = body.map;
    Block *entry = &body.fn.getBody().front();

    SmallVector<Type> dispatchTypes = {indexType};
    for (Value v : in.captured)
      dispatchTypes.push_back(v.getType());
    OpBuilder b(body.fn);
    b.setInsertionPointAfter(body.fn);
    auto dispatch = func::FuncOp::create(b, loc, body.fn.getSymName().str() + "_dispatch",
                                         b.getFunctionType(dispatchTypes, {}));
    dispatch.setPrivate();
    dispatch->setAttr(shardc::kParallelBodyAttr, FlatSymbolRefAttr::get(body.fn));
    if (own)
      dispatch->setAttr(shardc::kParallelOwnAttr, b.getUnitAttr());
    symbols.insert(dispatch);

    // The chunk: lb + begin·step up to min(ub, lb + end·step) in dim d.
    OpBuilder inner = OpBuilder::atBlockEnd(entry);
    Value lb = map.lookupOrDefault(op.getLowerBound()[d]);
    Value ub = map.lookupOrDefault(op.getUpperBound()[d]);
    Value step = map.lookupOrDefault(op.getStep()[d]);
    Value first = arith::AddIOp::create(
        inner, loc, lb, arith::MulIOp::create(inner, loc, entry->getArgument(0), step));
    Value last = arith::MinSIOp::create(
        inner, loc, ub,
        arith::AddIOp::create(inner, loc, lb,
                              arith::MulIOp::create(inner, loc, entry->getArgument(1), step)));
    auto chunk = cast<scf::ParallelOp>(inner.clone(*op, map));
    chunk.getLowerBoundMutable().slice(d, 1).assign(first);
    chunk.getUpperBoundMutable().slice(d, 1).assign(last);
    func::ReturnOp::create(inner, loc);

    // The call: count = ceil((ub - lb) / step) iterations of dim d.
    OpBuilder at(op);
    Value count = arith::CeilDivSIOp::create(
        at, loc, arith::SubIOp::create(at, loc, op.getUpperBound()[d], op.getLowerBound()[d]),
        op.getStep()[d]);
    SmallVector<Value> args = {count};
    llvm::append_range(args, in.captured);
    func::CallOp::create(at, loc, dispatch, args);
    op.erase();
    return dispatch;
  }
};

} // namespace
