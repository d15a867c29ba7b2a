//===- MapForalls.cpp - gpu-map-foralls -------------------------------------===//
//
// Block-mapped foralls (the tile phase's, bufferized) become gpu.launch ops
// (GpuPasses.td). Block ids are linearized into grid x, fastest mapping
// index first (x before y before z; linear_dim_0 before linear_dim_1), so
// no grid dim limit other than x's 2^31 - 1 applies; thread-mapped foralls
// inside become the block's threads, x and y.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/gpu/GpuPasses.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace shardc {
#define GEN_PASS_DEF_GPUMAPFORALLS
#include "compiler/targets/gpu/GpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

/// The relative mapping index of each loop of `forall` (0 = fastest), when
/// every loop is mapped with attributes of type `Mapping`.
template <typename Mapping>
std::optional<SmallVector<int64_t>> mappingIndices(scf::ForallOp forall) {
  std::optional<ArrayAttr> mapping = forall.getMapping();
  if (!mapping || mapping->size() != forall.getRank())
    return std::nullopt;
  SmallVector<int64_t> indices;
  for (Attribute a : *mapping) {
    auto m = dyn_cast<Mapping>(a);
    if (!m)
      return std::nullopt;
    indices.push_back(m.getRelativeIndex());
  }
  return indices;
}

/// Static trip counts of `forall`'s loops, or nullopt.
std::optional<SmallVector<int64_t>> tripCounts(scf::ForallOp forall) {
  SmallVector<int64_t> counts;
  for (auto [lb, ub, step] : llvm::zip(forall.getStaticLowerBound(), forall.getStaticUpperBound(),
                                       forall.getStaticStep())) {
    if (ShapedType::isDynamic(lb) || ShapedType::isDynamic(ub) || ShapedType::isDynamic(step) ||
        step <= 0)
      return std::nullopt;
    counts.push_back(ub > lb ? llvm::divideCeil(ub - lb, step) : 0);
  }
  return counts;
}

Value index(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// Whether `inner` sits in `block` directly or inside scf.for loops only:
/// code every thread of the block runs alike, so a barrier after `inner`
/// is reached by all of them.
bool inBlockUniformCode(scf::ForallOp inner, scf::ForallOp block) {
  for (Operation *p = inner->getParentOp(); p != block.getOperation(); p = p->getParentOp())
    if (!p || !isa<scf::ForOp>(p))
      return false;
  return true;
}

/// The warps of a warp forall (one loop mapped to #gpu.warp<x>,
/// normalized, static), or nullopt.
std::optional<int64_t> warpCount(scf::ForallOp forall) {
  std::optional<SmallVector<int64_t>> order = mappingIndices<gpu::GPUWarpMappingAttr>(forall);
  std::optional<SmallVector<int64_t>> counts = tripCounts(forall);
  if (!order || !counts || order->size() != 1 || (*order)[0] != 0 ||
      forall.getStaticLowerBound()[0] != 0 || forall.getStaticStep()[0] != 1)
    return std::nullopt;
  return (*counts)[0];
}

constexpr int64_t kWarpSize = 32;

/// Inlines `forall`'s body before `forall` with its induction variables
/// replaced by `ivs`, dropping its (empty, bufferized) in_parallel.
void inlineBody(RewriterBase &rw, scf::ForallOp forall, ValueRange ivs) {
  Block *body = forall.getBody();
  rw.eraseOp(body->getTerminator());
  rw.inlineBlockBefore(body, forall, ivs);
  rw.eraseOp(forall);
}

LogicalResult mapBlockForall(RewriterBase &rw, scf::ForallOp forall) {
  Location loc = forall.getLoc();
  // Bufferizing a parallel_insert_slice into the buffer it was sliced from
  // leaves `memref.copy %v, %v`: nothing to do, and in a kernel it would
  // become a call to MLIR's runtime.
  SmallVector<memref::CopyOp> selfCopies;
  forall.walk([&](memref::CopyOp copy) {
    if (copy.getSource() == copy.getTarget())
      selfCopies.push_back(copy);
  });
  for (memref::CopyOp copy : selfCopies)
    rw.eraseOp(copy);
  std::optional<SmallVector<int64_t>> order = mappingIndices<gpu::GPUBlockMappingAttr>(forall);
  std::optional<SmallVector<int64_t>> counts = tripCounts(forall);
  if (!order || !counts)
    return forall.emitError() << "gpu-map-foralls: a block forall needs static bounds and one "
                                 "block mapping per loop";
  if (forall.getNumResults() != 0)
    return forall.emitError() << "gpu-map-foralls: the forall still has results; run it after "
                                 "bufferization";
  SmallVector<scf::ForallOp> threadLoops;
  forall.getBody()->walk([&](scf::ForallOp inner) { threadLoops.push_back(inner); });
  int64_t blockDims[2] = {1, 1};
  bool threadShapeSeen = false;
  int64_t warpThreads = 0;
  for (scf::ForallOp inner : threadLoops) {
    if (std::optional<int64_t> warps = warpCount(inner)) {
      if (!inBlockUniformCode(inner, forall) || (warpThreads && warpThreads != *warps * kWarpSize))
        return inner.emitError() << "gpu-map-foralls: a warp forall must sit in its block "
                                    "forall (directly or in scf.for loops), all of one count";
      warpThreads = *warps * kWarpSize;
      continue;
    }
    std::optional<SmallVector<int64_t>> tOrder = mappingIndices<gpu::GPUThreadMappingAttr>(inner);
    std::optional<SmallVector<int64_t>> tCounts = tripCounts(inner);
    if (!tOrder || !tCounts || llvm::any_of(*tOrder, [](int64_t i) { return i > 1; }) ||
        llvm::any_of(inner.getStaticLowerBound(), [](int64_t v) { return v != 0; }) ||
        llvm::any_of(inner.getStaticStep(), [](int64_t v) { return v != 1; }) ||
        !inBlockUniformCode(inner, forall))
      return inner.emitError() << "gpu-map-foralls: a thread forall must sit in its block "
                                  "forall (directly or in scf.for loops), normalized, with "
                                  "static counts mapped to thread x and y";
    int64_t dims[2] = {1, 1};
    for (auto [i, c] : llvm::zip(*tOrder, *tCounts))
      dims[i] = c;
    if (threadShapeSeen && (dims[0] != blockDims[0] || dims[1] != blockDims[1]))
      return inner.emitError() << "gpu-map-foralls: the thread foralls of one block differ in "
                                  "shape";
    blockDims[0] = dims[0];
    blockDims[1] = dims[1];
    threadShapeSeen = true;
  }
  if (warpThreads && !threadShapeSeen)
    blockDims[0] = warpThreads;
  else if (warpThreads && warpThreads != blockDims[0] * blockDims[1])
    return forall.emitError() << "gpu-map-foralls: the block's warp foralls take "
                              << warpThreads << " threads, its thread foralls "
                              << blockDims[0] * blockDims[1];
  int64_t grid = 1;
  for (int64_t c : *counts)
    grid *= c;
  if (grid == 0) { // an empty iteration space: nothing to launch
    rw.eraseOp(forall);
    return success();
  }
  if (grid > std::numeric_limits<int32_t>::max() || blockDims[0] * blockDims[1] > 1024)
    return forall.emitError() << "gpu-map-foralls: " << grid << " blocks of " << blockDims[0]
                              << "x" << blockDims[1]
                              << " threads exceed the GPU's limits (2^31 - 1 blocks, 1024 "
                                 "threads)";

  rw.setInsertionPoint(forall);
  auto launch = gpu::LaunchOp::create(rw, loc, index(rw, loc, grid), index(rw, loc, 1),
                                      index(rw, loc, 1), index(rw, loc, blockDims[0]),
                                      index(rw, loc, blockDims[1]), index(rw, loc, 1));
  // The kernel's name says what made it: <function>_<recipe>
  // (gpu-kernel-outlining makes repeated names unique).
  if (auto recipe = forall->getAttrOfType<StringAttr>(shardc::kGpuRecipeAttr))
    if (auto fn = forall->getParentOfType<FunctionOpInterface>()) {
      auto name = FlatSymbolRefAttr::get(
          rw.getContext(), (fn.getName() + "_" + recipe.getValue()).str());
      launch.setFunctionAttr(name);
    }
  Block &body = launch.getBody().front();
  rw.setInsertionPointToEnd(&body);
  auto terminator = gpu::TerminatorOp::create(rw, loc);
  rw.setInsertionPoint(terminator);
  // Block ivs: delinearize block x, fastest mapping index first.
  SmallVector<int64_t> byIndex(counts->size());
  for (auto [loop, i] : llvm::enumerate(*order))
    byIndex[i] = static_cast<int64_t>(loop);
  SmallVector<Value> ivs(counts->size());
  Value rest = launch.getBlockIds().x;
  for (int64_t loop : byIndex) {
    Value count = index(rw, loc, (*counts)[loop]);
    Value id = arith::RemUIOp::create(rw, loc, rest, count);
    rest = arith::DivUIOp::create(rw, loc, rest, count);
    Value lb = index(rw, loc, forall.getStaticLowerBound()[loop]);
    Value step = index(rw, loc, forall.getStaticStep()[loop]);
    ivs[loop] = arith::AddIOp::create(rw, loc, lb, arith::MulIOp::create(rw, loc, id, step));
  }
  // Move the block's body in, then give each thread forall the thread ids.
  Block *forallBody = forall.getBody();
  rw.eraseOp(forallBody->getTerminator());
  rw.inlineBlockBefore(forallBody, terminator, ivs);
  rw.eraseOp(forall);
  // Several thread foralls (or one in a loop) communicate through shared
  // memory: each one's writes are seen by the next only after a barrier,
  // and the next may overwrite what it read only after one too.
  bool barriers = threadLoops.size() > 1 ||
                  llvm::any_of(threadLoops, [&](scf::ForallOp inner) {
                    return inner->getParentOp() != launch.getOperation();
                  });
  for (scf::ForallOp inner : threadLoops) {
    if (barriers) {
      rw.setInsertionPointAfter(inner);
      gpu::BarrierOp::create(rw, loc);
    }
    rw.setInsertionPoint(inner);
    if (warpCount(inner)) {
      // Warp code stays in a region of its own until the kernel passes
      // that rewrite it (gpu-lower-warp-trees, gpu-lower-mma) and only it:
      // upstream's mma rewriting takes any scalar add or multiply it walks
      // over for a matrix op.
      auto warpCode = scf::ExecuteRegionOp::create(rw, loc, TypeRange{});
      warpCode.setNoInline(true);
      rw.createBlock(&warpCode.getRegion());
      rw.setInsertionPoint(scf::YieldOp::create(rw, loc));
      AffineExpr tx, ty;
      bindDims(rw.getContext(), tx, ty);
      Value warp = affine::AffineApplyOp::create(
          rw, loc, AffineMap::get(2, 0, (ty * blockDims[0] + tx).floorDiv(kWarpSize)),
          ValueRange{launch.getThreadIds().x, launch.getThreadIds().y});
      Block *body = inner.getBody();
      rw.eraseOp(body->getTerminator());
      rw.inlineBlockBefore(body, rw.getInsertionBlock(), rw.getInsertionPoint(), warp);
      rw.eraseOp(inner);
      continue;
    }
    SmallVector<Value> tids;
    for (int64_t i : *mappingIndices<gpu::GPUThreadMappingAttr>(inner))
      tids.push_back(i == 0 ? launch.getThreadIds().x : launch.getThreadIds().y);
    inlineBody(rw, inner, tids);
  }
  // Workgroup buffers the block's program made become the launch's
  // attributions: one per block, shared by its threads.
  SmallVector<memref::AllocaOp> shared;
  launch.getBody().walk([&](memref::AllocaOp alloca) {
    if (shardc::isWorkgroupMemRef(alloca.getType()))
      shared.push_back(alloca);
  });
  for (memref::AllocaOp alloca : shared) {
    BlockArgument buffer = launch.addWorkgroupAttribution(alloca.getType(), alloca.getLoc());
    rw.replaceAllUsesWith(alloca.getResult(), buffer);
    rw.eraseOp(alloca);
  }
  return success();
}

} // namespace

bool shardc::isWorkgroupMemRef(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  auto space = memref ? dyn_cast_or_null<gpu::AddressSpaceAttr>(memref.getMemorySpace()) : nullptr;
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

SmallVector<Operation *> shardc::warpCodeRegions(Operation *root) {
  SmallVector<Operation *> regions;
  root->walk([&](scf::ExecuteRegionOp op) {
    if (op.getNoInline() && op->getNumResults() == 0 && op.getRegion().hasOneBlock())
      regions.push_back(op);
  });
  return regions;
}

void shardc::inlineWarpCode(RewriterBase &rw, Operation *region) {
  Block *body = &region->getRegion(0).front();
  rw.eraseOp(body->getTerminator());
  rw.inlineBlockBefore(body, region);
  rw.eraseOp(region);
}

namespace {

struct GpuMapForalls : shardc::impl::GpuMapForallsBase<GpuMapForalls> {
  void runOnOperation() override {
    SmallVector<scf::ForallOp> blocks;
    getOperation()->walk([&](scf::ForallOp op) {
      if (!op->getParentOfType<scf::ForallOp>() && !op->getParentOfType<gpu::LaunchOp>())
        blocks.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ForallOp op : blocks)
      if (failed(mapBlockForall(rewriter, op)))
        return signalPassFailure();
  }
};

} // namespace
