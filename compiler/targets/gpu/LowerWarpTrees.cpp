//===- LowerWarpTrees.cpp - gpu-lower-warp-trees ---------------------------===//
//
// A block tree's last five steps, left as warp code by gpu-block-reductions
// (a halving of 32 partials), as warp shuffles (GpuPasses.td).
//
// Invariant: lane 0 combines the partials in exactly the pairs and operand
// order of the halving, so a kernel computes the total the sequential fork
// computes; every lane ends with lane 0's total.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/gpu/GpuPasses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace shardc {
#define GEN_PASS_DEF_GPULOWERWARPTREES
#include "compiler/targets/gpu/GpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

constexpr int64_t kWarpSize = 32;

/// One halving step: the op combining `lo` (elements [0, s)) with `hi`
/// ([s, 2s)).
struct Step {
  Operation *combine;
  Value lo, hi;
};

/// The halving of 32 partials that starts at `read`, if it is one: five
/// steps, then the one element left extracted.
struct Halving {
  vector::TransferReadOp read;
  SmallVector<Step> steps;
  vector::ExtractOp total;
};

int64_t offsetOf(vector::ExtractStridedSliceOp slice) {
  return cast<IntegerAttr>(slice.getOffsets()[0]).getInt();
}

std::optional<Halving> matchHalving(vector::TransferReadOp read) {
  VectorType type = read.getVectorType();
  if (type.getRank() != 1 || type.getDimSize(0) != kWarpSize || !shardc::isWorkgroupMemRef(read.getBase().getType()) ||
      !read.getPermutationMap().isMinorIdentity() || read.getMask())
    return std::nullopt;
  Halving h{read, {}, nullptr};
  Value run = read.getResult();
  for (int64_t half = kWarpSize / 2; half >= 1; half /= 2) {
    SmallVector<vector::ExtractStridedSliceOp> parts;
    for (Operation *user : run.getUsers())
      if (auto slice = dyn_cast<vector::ExtractStridedSliceOp>(user))
        parts.push_back(slice);
      else
        return std::nullopt;
    if (parts.size() != 2)
      return std::nullopt;
    if (offsetOf(parts[0]) != 0)
      std::swap(parts[0], parts[1]);
    auto [lo, hi] = std::pair(parts[0], parts[1]);
    if (offsetOf(lo) != 0 || offsetOf(hi) != half || lo.getType().getDimSize(0) != half ||
        hi.getType().getDimSize(0) != half || !lo->hasOneUse() || !hi->hasOneUse())
      return std::nullopt;
    Operation *combine = *lo->getUsers().begin();
    if (combine != *hi->getUsers().begin() || combine->getNumOperands() != 2 ||
        combine->getNumResults() != 1 || combine->getNumRegions() != 0)
      return std::nullopt;
    h.steps.push_back({combine, lo.getResult(), hi.getResult()});
    run = combine->getResult(0);
  }
  if (!run.hasOneUse())
    return std::nullopt;
  h.total = dyn_cast<vector::ExtractOp>(*run.getUsers().begin());
  if (!h.total)
    return std::nullopt;
  return h;
}

/// `x` from the lane `mode` and `offset` name: a 32-bit shuffle
/// (narrower values extended and truncated back, exactly), or a 64-bit
/// one (two 32-bit shuffles in NVVM).
Value shuffle(RewriterBase &rw, Location loc, Value x, int32_t offset, gpu::ShuffleMode mode) {
  Type type = x.getType();
  unsigned bits = type.getIntOrFloatBitWidth();
  Value wide = x;
  if (bits < 32)
    wide = isa<FloatType>(type) ? Value(arith::ExtFOp::create(rw, loc, rw.getF32Type(), x))
                                : Value(arith::ExtUIOp::create(rw, loc, rw.getI32Type(), x));
  Value moved = gpu::ShuffleOp::create(rw, loc, wide, offset, kWarpSize, mode).getShuffleResult();
  if (bits >= 32)
    return moved;
  return isa<FloatType>(type) ? Value(arith::TruncFOp::create(rw, loc, type, moved))
                              : Value(arith::TruncIOp::create(rw, loc, type, moved));
}

void rewrite(RewriterBase &rw, Halving h) {
  Location loc = h.read.getLoc();
  rw.setInsertionPoint(h.read);
  Type elem = h.read.getVectorType().getElementType();
  SmallVector<Value> indices(h.read.getIndices());
  Value lane = gpu::LaneIdOp::create(rw, loc, /*upper_bound=*/nullptr);
  indices.back() = arith::AddIOp::create(rw, loc, indices.back(), lane);
  Value x = memref::LoadOp::create(rw, loc, h.read.getBase(), indices);
  for (const Step &step : h.steps) {
    int64_t half = cast<VectorType>(step.lo.getType()).getDimSize(0);
    Value theirs = shuffle(rw, loc, x, static_cast<int32_t>(half), gpu::ShuffleMode::DOWN);
    IRMapping map;
    map.map(step.lo, x);
    map.map(step.hi, theirs);
    Operation *scalar = rw.clone(*step.combine, map);
    scalar->getResult(0).setType(elem);
    x = scalar->getResult(0);
  }
  Value total = shuffle(rw, loc, x, 0, gpu::ShuffleMode::IDX);
  rw.replaceAllUsesWith(h.total.getResult(), total);
  rw.eraseOp(h.total);
  for (const Step &step : llvm::reverse(h.steps)) {
    rw.eraseOp(step.combine);
    rw.eraseOp(step.lo.getDefiningOp());
    rw.eraseOp(step.hi.getDefiningOp());
  }
  rw.eraseOp(h.read);
}

struct GpuLowerWarpTrees : shardc::impl::GpuLowerWarpTreesBase<GpuLowerWarpTrees> {
  void runOnOperation() override {
    IRRewriter rw(&getContext());
    for (Operation *region : shardc::warpCodeRegions(getOperation())) {
      SmallVector<Halving> halvings;
      region->walk([&](vector::TransferReadOp read) {
        if (std::optional<Halving> h = matchHalving(read))
          halvings.push_back(*h);
      });
      if (halvings.empty())
        continue;
      for (Halving &h : halvings)
        rewrite(rw, h);
      shardc::inlineWarpCode(rw, region);
    }
  }
};

} // namespace
