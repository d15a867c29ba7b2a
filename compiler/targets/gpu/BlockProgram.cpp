//===- BlockProgram.cpp - building a block's program on buffers -----------===//
//
// See BlockProgram.h.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/gpu/BlockProgram.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;

SmallVector<linalg::LinalgOp> shardc::gpu::markedTiles(Operation *root, StringRef attr) {
  SmallVector<linalg::LinalgOp> marked;
  root->walk([&](linalg::LinalgOp op) {
    if (op->hasAttr(attr))
      marked.push_back(op);
  });
  return marked;
}

bool shardc::gpu::isBlockTile(linalg::LinalgOp op) {
  return op.hasPureBufferSemantics() && op->getParentOfType<scf::ForallOp>();
}

Value shardc::gpu::indexConstant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

void shardc::gpu::threadForall(OpBuilder &b, Location loc, ArrayRef<int64_t> counts,
                               llvm::function_ref<void(OpBuilder &, ValueRange)> body) {
  MLIRContext *ctx = b.getContext();
  SmallVector<OpFoldResult> lbs, ubs, steps;
  SmallVector<Attribute> mapping;
  for (auto [i, n] : llvm::enumerate(counts)) {
    lbs.push_back(b.getIndexAttr(0));
    ubs.push_back(b.getIndexAttr(n));
    steps.push_back(b.getIndexAttr(1));
    bool isX = i + 1 == counts.size();
    mapping.push_back(mlir::gpu::GPUThreadMappingAttr::get(
        ctx, isX ? mlir::gpu::MappingId::DimX : mlir::gpu::MappingId::DimY));
  }
  auto forall = scf::ForallOp::create(b, loc, lbs, ubs, steps, ValueRange{},
                                      b.getArrayAttr(mapping));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(forall.getBody()->getTerminator());
  body(b, forall.getInductionVars());
}

void shardc::gpu::warpForall(OpBuilder &b, Location loc, int64_t count,
                             llvm::function_ref<void(OpBuilder &, Value)> body) {
  SmallVector<OpFoldResult> lbs = {b.getIndexAttr(0)}, ubs = {b.getIndexAttr(count)},
                            steps = {b.getIndexAttr(1)};
  Attribute warpX = mlir::gpu::GPUWarpMappingAttr::get(b.getContext(), mlir::gpu::MappingId::DimX);
  auto forall =
      scf::ForallOp::create(b, loc, lbs, ubs, steps, ValueRange{}, b.getArrayAttr({warpX}));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(forall.getBody()->getTerminator());
  body(b, forall.getInductionVars()[0]);
}

Value shardc::gpu::blockBuffer(OpBuilder &b, Operation *at, ArrayRef<int64_t> shape, Type elem,
                               bool workgroup) {
  OpBuilder::InsertionGuard guard(b);
  Attribute space;
  if (workgroup) {
    space = mlir::gpu::AddressSpaceAttr::get(b.getContext(), mlir::gpu::AddressSpace::Workgroup);
    b.setInsertionPoint(at);
  } else {
    b.setInsertionPointToStart(
        &at->getParentOfType<FunctionOpInterface>().getFunctionBody().front());
  }
  auto type = MemRefType::get(shape, elem, MemRefLayoutAttrInterface{}, space);
  return memref::AllocaOp::create(b, at->getLoc(), type, b.getI64IntegerAttr(16));
}

Value shardc::gpu::privateBuffer(OpBuilder &b, Operation *at, int64_t threads, int64_t count,
                                Type elem, bool kernel) {
  OpBuilder::InsertionGuard guard(b);
  if (kernel)
    b.setInsertionPoint(at);
  else
    b.setInsertionPointToStart(
        &at->getParentOfType<FunctionOpInterface>().getFunctionBody().front());
  return memref::AllocaOp::create(b, at->getLoc(),
                                  MemRefType::get({kernel ? 1 : threads, count}, elem));
}

Value shardc::gpu::privateSlot(OpBuilder &b, Location loc, Value thread, bool kernel) {
  return kernel ? indexConstant(b, loc, 0) : thread;
}

Value shardc::gpu::loadIf(OpBuilder &b, Location loc, Value cond, Value memref, ValueRange indices,
                          Value other) {
  auto ifOp = scf::IfOp::create(
      b, loc, cond,
      [&](OpBuilder &t, Location l) {
        scf::YieldOp::create(t, l, ValueRange{memref::LoadOp::create(t, l, memref, indices)});
      },
      [&](OpBuilder &e, Location l) { scf::YieldOp::create(e, l, ValueRange{other}); });
  return ifOp.getResult(0);
}
