//===- CopyKernels.cpp - gpu-copy-kernels ---------------------------------===//
//
// Strided copies that bufferization added, as one-thread-per-element nests
// of mapped foralls (GpuPasses.td).
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/gpu/GpuPasses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace shardc {
#define GEN_PASS_DEF_GPUCOPYKERNELS
#include "compiler/targets/gpu/GpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

constexpr int64_t kThreads = 256;

bool isDense(Value v) {
  auto type = cast<MemRefType>(v.getType());
  return type.getLayout().isIdentity() && type.hasStaticShape();
}

bool readsHostMemory(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (isa<memref::GetGlobalOp>(def))
      return true;
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      return false;
    v = view.getViewSource();
  }
  return false;
}

/// Replaces `copy` by the nest; false when its shape is not static.
bool buildNest(memref::CopyOp copy) {
  auto type = cast<MemRefType>(copy.getSource().getType());
  if (!type.hasStaticShape())
    return false;
  int64_t elements = type.getNumElements();
  Location loc = copy.getLoc();
  OpBuilder b(copy);
  if (elements == 0) {
    copy.erase();
    return true;
  }
  Value linear = shardc::buildLinearGrid(b, loc, elements, kThreads, "copy");
  // Row-major indices of `linear`, innermost dim first.
  SmallVector<Value> indices(type.getRank());
  Value rest = linear;
  for (int64_t d = type.getRank() - 1; d >= 0; --d) {
    Value size = arith::ConstantIndexOp::create(b, loc, type.getDimSize(d));
    indices[d] = d == 0 ? rest : arith::RemUIOp::create(b, loc, rest, size).getResult();
    if (d > 0)
      rest = arith::DivUIOp::create(b, loc, rest, size);
  }
  Value v = memref::LoadOp::create(b, loc, copy.getSource(), indices);
  memref::StoreOp::create(b, loc, v, copy.getTarget(), indices);
  copy.erase();
  return true;
}



/// A strided copy out of a constant of the program (host memory): the
/// whole constant is first copied into a dense buffer (the host phase makes
/// that an upload), and the copy then reads the same view of that buffer.
memref::CopyOp stageConstant(memref::CopyOp copy) {
  SmallVector<Operation *> views; // from the constant out to the copy's source
  Value v = copy.getSource();
  while (!v.getDefiningOp<memref::GetGlobalOp>()) {
    Operation *view = v.getDefiningOp();
    views.push_back(view);
    v = cast<ViewLikeOpInterface>(view).getViewSource();
  }
  OpBuilder b(copy);
  Location loc = copy.getLoc();
  auto type = cast<MemRefType>(v.getType());
  Value staged = memref::AllocOp::create(b, loc, MemRefType::get(type.getShape(),
                                                                 type.getElementType()));
  memref::CopyOp::create(b, loc, v, staged);
  IRMapping map;
  map.map(v, staged);
  for (Operation *view : llvm::reverse(views))
    b.clone(*view, map);
  auto staging = memref::CopyOp::create(b, loc, map.lookup(copy.getSource()), copy.getTarget());
  copy.erase();
  return staging;
}

struct GpuCopyKernels : shardc::impl::GpuCopyKernelsBase<GpuCopyKernels> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation()->walk([&](memref::CopyOp copy) {
      if (copy->getParentOfType<scf::ForallOp>() || copy->getParentOfType<gpu::LaunchOp>())
        return;
      if (isDense(copy.getSource()) && isDense(copy.getTarget()))
        return;
      if (readsHostMemory(copy.getTarget()))
        return; // refused by the host phase
      copies.push_back(copy);
    });
    SmallVector<memref::StoreOp> stores;
    getOperation()->walk([&](memref::StoreOp store) {
      if (!store->getParentOfType<scf::ForallOp>() && !store->getParentOfType<gpu::LaunchOp>() &&
          !readsHostMemory(store.getMemRef()) &&
          !store.getMemRef().getDefiningOp<memref::AllocaOp>())
        stores.push_back(store);
    });
    // A host scalar stored into a buffer (a rank's offset as a rank-0
    // tensor) becomes the argument of a one-thread kernel.
    for (memref::StoreOp store : stores)
      shardc::runOnOneGpuThread(store, "store");
    for (memref::CopyOp &copy : copies)
      if (readsHostMemory(copy.getSource()))
        copy = stageConstant(copy);
    for (memref::CopyOp copy : copies)
      if (!buildNest(copy)) {
        copy.emitError() << "gpu-copy-kernels: a copy of dynamic shape " << copy.getSource().getType()
                         << " has no kernel";
        return signalPassFailure();
      }
  }
};

} // namespace

void shardc::setGpuRecipe(Operation *blockForall, llvm::StringRef recipe) {
  blockForall->setAttr(kGpuRecipeAttr, StringAttr::get(blockForall->getContext(), recipe));
}

Value shardc::buildLinearGrid(OpBuilder &b, Location loc, int64_t count, int64_t threads,
                              llvm::StringRef recipe) {
  MLIRContext *ctx = b.getContext();
  int64_t blocks = llvm::divideCeil(count, threads);
  auto outer = scf::ForallOp::create(
      b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(blocks)}, ValueRange(),
      b.getArrayAttr({gpu::GPUBlockMappingAttr::get(ctx, gpu::MappingId::DimX)}));
  shardc::setGpuRecipe(outer, recipe);
  b.setInsertionPointToStart(outer.getBody());
  auto inner = scf::ForallOp::create(
      b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(threads)}, ValueRange(),
      b.getArrayAttr({gpu::GPUThreadMappingAttr::get(ctx, gpu::MappingId::DimX)}));
  b.setInsertionPointToStart(inner.getBody());
  Value block = outer.getInductionVar(0), thread = inner.getInductionVar(0);
  if (blocks == 1 && threads == 1)
    return thread;
  Value item = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, block, arith::ConstantIndexOp::create(b, loc, threads)),
      thread);
  if (blocks * threads != count) {
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, item,
                                          arith::ConstantIndexOp::create(b, loc, count));
    auto guard = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
    b.setInsertionPointToStart(&guard.getThenRegion().front());
  }
  return item;
}

void shardc::runOnOneGpuThread(Operation *op, llvm::StringRef recipe) {
  OpBuilder b(op);
  buildLinearGrid(b, op->getLoc(), /*count=*/1, /*threads=*/1, recipe);
  op->moveBefore(b.getInsertionBlock()->getTerminator());
}
