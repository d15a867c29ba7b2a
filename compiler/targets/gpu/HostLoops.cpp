//===- HostLoops.cpp - gpu-host-loops -------------------------------------===//
//
// Sequential host loops over buffers (scatter_add's) as one-thread kernels
// (GpuPasses.td).
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/gpu/GpuPasses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace shardc {
#define GEN_PASS_DEF_GPUHOSTLOOPS
#include "compiler/targets/gpu/GpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

/// Whether `loop` touches a buffer's elements and could run in a kernel:
/// it calls nothing, and allocates only buffers of static shape (hoisted).
bool touchesBuffers(scf::ForOp loop) {
  bool touches = false, movable = true;
  loop.walk([&](Operation *op) {
    if (isa<memref::LoadOp, memref::StoreOp, memref::CopyOp, linalg::LinalgOp>(op))
      touches = true;
    if (isa<CallOpInterface, memref::DeallocOp, scf::ForallOp>(op))
      movable = false;
    if (auto alloc = dyn_cast<memref::AllocOp>(op); alloc && !alloc.getType().hasStaticShape())
      movable = false;
  });
  return touches && movable;
}

/// The innermost extent every op of a column-parallel loop works on, or
/// nullopt. A loop is column-parallel when the only things in it that
/// write memory are linalg ops, all elementwise (parallel loops, identity
/// maps) over one static domain whose innermost extent D is at least 2,
/// each of whose operands is a view that keeps its buffer's innermost dim
/// whole (extent D at every step, so column j is column j of the buffer),
/// and the loads in it read buffers those ops do not write. Then column j
/// of every iteration touches column j only, and the columns can run on
/// different threads, each in the loop's order.
std::optional<int64_t> columnParallelExtent(scf::ForOp loop) {
  SmallVector<linalg::LinalgOp> ops;
  bool other = false;
  loop.walk([&](Operation *op) {
    if (auto l = dyn_cast<linalg::LinalgOp>(op))
      ops.push_back(l);
    else if (isa<memref::StoreOp, memref::CopyOp>(op))
      other = true;
  });
  if (other || ops.empty())
    return std::nullopt;
  SmallVector<int64_t> domain = ops.front().getStaticLoopRanges();
  if (domain.empty() || ShapedType::isDynamicShape(domain) || domain.back() < 2)
    return std::nullopt;
  const int64_t extent = domain.back();
  // The buffer under a chain of views that keep the innermost dim whole.
  auto root = [&](Value v) -> std::optional<Value> {
    while (true) {
      auto type = dyn_cast<MemRefType>(v.getType());
      if (!type || type.getRank() == 0 || type.getShape().back() != extent)
        return std::nullopt;
      if (auto sub = v.getDefiningOp<memref::SubViewOp>()) {
        if (sub.getDroppedDims().test(sub.getSourceType().getRank() - 1))
          return std::nullopt;
        v = sub.getSource();
      } else if (auto cast = v.getDefiningOp<memref::CastOp>()) {
        v = cast.getSource();
      } else {
        return v;
      }
    }
  };
  llvm::SmallPtrSet<Value, 4> written;
  for (linalg::LinalgOp op : ops) {
    if (op.getStaticLoopRanges() != domain || op.getNumParallelLoops() != op.getNumLoops() ||
        !llvm::all_of(op.getIndexingMapsArray(), [](AffineMap m) { return m.isIdentity(); }))
      return std::nullopt;
    for (OpOperand &operand : op->getOpOperands()) {
      std::optional<Value> buffer = root(operand.get());
      if (!buffer)
        return std::nullopt;
      if (op.isDpsInit(&operand))
        written.insert(*buffer);
    }
  }
  bool readsWritten = false;
  loop.walk([&](memref::LoadOp load) {
    Value v = load.getMemRef();
    while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
      v = view.getViewSource();
    readsWritten |= written.contains(v);
  });
  if (readsWritten)
    return std::nullopt;
  return extent;
}

/// A column-parallel loop (columnParallelExtent) as a kernel: one thread
/// per column of the innermost extent, 256 to a block, each running the
/// whole loop, in order, on its column. Each column's sums are the
/// one-thread loop's, in the same order.
void runByColumns(scf::ForOp loop, int64_t extent) {
  constexpr int64_t kThreads = 256;
  OpBuilder b(loop);
  Value column = shardc::buildLinearGrid(b, loop.getLoc(), extent, std::min(kThreads, extent),
                                         "by_columns");
  loop->moveBefore(b.getInsertionBlock()->getTerminator());
  // Each op on the thread's column: its tiled form at [0, ..., column]
  // of sizes [d0, ..., 1].
  SmallVector<linalg::LinalgOp> ops;
  loop.walk([&](linalg::LinalgOp op) { ops.push_back(op); });
  for (linalg::LinalgOp op : ops) {
    OpBuilder ob(op);
    SmallVector<OpFoldResult> offsets(op.getNumLoops(), ob.getIndexAttr(0)), sizes;
    for (int64_t d : op.getStaticLoopRanges())
      sizes.push_back(ob.getIndexAttr(d));
    offsets.back() = column;
    sizes.back() = ob.getIndexAttr(1);
    FailureOr<TilingResult> tiled =
        cast<TilingInterface>(op.getOperation()).getTiledImplementation(ob, offsets, sizes);
    (void)tiled; // on buffers the tiled op writes in place; nothing to replace
    op->erase();
  }
}

void wrap(scf::ForOp loop) {
  // Bufferization's temporaries in the body are fresh buffers whose old
  // contents no iteration may read, so one buffer before the loop serves
  // every iteration: a kernel allocates nothing.
  SmallVector<memref::AllocOp> allocs;
  loop.walk([&](memref::AllocOp a) { allocs.push_back(a); });
  for (memref::AllocOp a : allocs)
    a->moveBefore(loop);
  // Copies in the body run in the kernel's thread, as loops.
  SmallVector<memref::CopyOp> copies;
  loop.walk([&](memref::CopyOp c) { copies.push_back(c); });
  for (memref::CopyOp c : copies) {
    OpBuilder cb(c);
    linalg::CopyOp::create(cb, c.getLoc(), ValueRange{c.getSource()}, ValueRange{c.getTarget()});
    c.erase();
  }
  if (std::optional<int64_t> extent = columnParallelExtent(loop))
    runByColumns(loop, *extent);
  else
    shardc::runOnOneGpuThread(loop, "host_loop");
}

struct GpuHostLoops : shardc::impl::GpuHostLoopsBase<GpuHostLoops> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      // Outermost loops outside the tiles, with no results (on buffers,
      // a loop that carries values is not one of these).
      if (loop->getParentOfType<scf::ForOp>() || loop->getParentOfType<scf::ForallOp>() ||
          loop->getParentOfType<gpu::LaunchOp>() || loop.getNumResults() != 0)
        return;
      if (touchesBuffers(loop))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      wrap(loop);
  }
};

} // namespace
