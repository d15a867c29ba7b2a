//===- HostLoops.cpp - gpu-host-loops -------------------------------------===//
//
// Sequential host loops over buffers (scatter_add's) as one-thread kernels
// (GpuPasses.td).
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/gpu/GpuPasses.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

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
  shardc::runOnOneGpuThread(loop);
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
