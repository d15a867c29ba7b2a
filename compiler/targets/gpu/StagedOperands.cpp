//===- StagedOperands.cpp - a contraction's operands into shared tiles ----===//
//
// StagedOperands.h says what this writes and why its arithmetic is as it is.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/gpu/StagedOperands.h"

#include "compiler/targets/gpu/BlockProgram.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using shardc::gpu::kThreads;
using shardc::gpu::loadIf;
using shardc::gpu::OperandStaging;
using shardc::gpu::Staged;

int64_t shardc::gpu::bytesOf(Type elem) {
  return llvm::divideCeil(elem.getIntOrFloatBitWidth(), 8);
}

Value shardc::gpu::zeroOf(OpBuilder &b, Location loc, Type elem) {
  return arith::ConstantOp::create(b, loc, elem, b.getZeroAttr(elem));
}

namespace {

using shardc::gpu::bytesOf;
using shardc::gpu::zeroOf;

Value index(OpBuilder &b, Location loc, int64_t v) {
  return shardc::gpu::indexConstant(b, loc, v);
}

/// `v` (f32) rounded to TF32 (10 mantissa bits) to nearest, ties away from
/// zero, as cvt.rna.tf32.f32 does: mma.sync on TF32 would otherwise drop
/// the 13 low bits. Infinities stay; a NaN stays a NaN (quieted, so that
/// dropping its low bits cannot make it an infinity). `v` may be a vector
/// of f32, rounded element by element.
Value roundToTf32(OpBuilder &b, Location loc, Value v) {
  auto vector = dyn_cast<VectorType>(v.getType());
  Type i32 = vector ? Type(vector.clone(b.getI32Type())) : Type(b.getI32Type());
  auto constant = [&](uint32_t x) -> Value {
    TypedAttr bits = b.getI32IntegerAttr(static_cast<int32_t>(x));
    if (vector)
      bits = DenseElementsAttr::get(cast<ShapedType>(i32), bits);
    return arith::ConstantOp::create(b, loc, i32, bits);
  };
  Value bits = arith::BitcastOp::create(b, loc, i32, v);
  Value isNan = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                      arith::AndIOp::create(b, loc, bits, constant(0x7fffffff)),
                                      constant(0x7f800000));
  // addui_extended, not arith.addi: in a kernel this runs in the tensor
  // cores' warp code, where upstream's mma rewriting would take an
  // arith.addi for a matrix op. Its carry joins the NaN test (only a NaN's
  // bits carry out), which keeps the canonicalizer from making it addi.
  auto rounded = arith::AddUIExtendedOp::create(b, loc, bits, constant(0x00001000));
  Value source = arith::SelectOp::create(
      b, loc, arith::OrIOp::create(b, loc, isNan, rounded.getOverflow()),
      arith::OrIOp::create(b, loc, bits, constant(0x00400000)), rounded.getSum());
  return arith::BitcastOp::create(b, loc, v.getType(),
                                  arith::AndIOp::create(b, loc, source, constant(0xffffe000)));
}

/// The affine expression (of the thread t, dim 0) of the first element
/// of thread t's piece r: a run of `step` elements, or one element.
AffineExpr pieceStart(OpBuilder &b, int64_t r, int64_t step) {
  return (b.getAffineDimExpr(0) + r * kThreads) * step;
}

} // namespace

Value OperandStaging::vectorReadable(OpBuilder &b, OpOperand *operand, unsigned loop) {
  Location loc = c.op.getLoc();
  auto type = cast<MemRefType>(operand->get().getType());
  AffineMap map = c.op.getMatchingIndexingMap(operand);
  unsigned innermost = map.getDimPosition(map.getNumResults() - 1);
  const int64_t bytes = bytesOf(type.getElementType());
  if ((innermost != c.k && innermost != loop) || 16 % bytes != 0 || bytes == 16)
    return Value();
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, operand->get());
  Value pointer = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, operand->get());
  auto multipleOf = [&](Value v, int64_t n) -> Value {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                 arith::RemUIOp::create(b, loc, v, index(b, loc, n)),
                                 index(b, loc, 0));
  };
  Value first = arith::AddIOp::create(
      b, loc, pointer,
      arith::MulIOp::create(b, loc, meta.getOffset(), index(b, loc, bytes)));
  Value ok = multipleOf(first, 16);
  ValueRange strides = meta.getStrides();
  for (size_t d = 0; d < strides.size(); ++d) {
    Value good = d + 1 == strides.size()
                     ? Value(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, strides[d],
                                                   index(b, loc, 1)))
                     : multipleOf(strides[d], 16 / bytes);
    ok = arith::AndIOp::create(b, loc, ok, good);
  }
  return ok;
}

bool OperandStaging::kFastest(const Staged &x) {
  AffineMap map = c.op.getMatchingIndexingMap(x.operand);
  return map.getDimPosition(map.getNumResults() - 1) == c.k;
}

int64_t OperandStaging::runWidth(const Staged &x) {
  return 16 / bytesOf(cast<MemRefType>(x.shared.getType()).getElementType());
}

bool OperandStaging::byRuns(const Staged &x) {
  const int64_t width = runWidth(x), fast = kFastest(x) ? c.bk : x.tile;
  return x.readable && fast % width == 0 && (c.bk * x.tile / kThreads) % width == 0;
}

std::pair<Value, Value> OperandStaging::chunkPosition(OpBuilder &b, const Staged &x, Value t,
                                                      AffineExpr e) {
  Location loc = c.op.getLoc();
  const int64_t fast = kFastest(x) ? c.bk : x.tile;
  auto apply = [&](AffineExpr expr) -> Value {
    return affine::AffineApplyOp::create(b, loc, AffineMap::get(1, 0, expr), ValueRange{t});
  };
  Value kk = apply(kFastest(x) ? e % fast : e.floorDiv(fast));
  Value mn = apply(kFastest(x) ? e.floorDiv(fast) : e % fast);
  return {kk, mn};
}

SmallVector<Value> OperandStaging::fetch(OpBuilder &b, Value t, Value k0, Value kc,
                                         const Staged &x) {
  Location loc = c.op.getLoc();
  Type elem = cast<MemRefType>(x.shared.getType()).getElementType();
  Value zero = zeroOf(b, loc, elem);
  const bool runs = byRuns(x);
  const int64_t step = runs ? runWidth(x) : 1, share = c.bk * x.tile / kThreads;
  // Element e's place in the operand and whether it lies inside.
  auto element = [&](AffineExpr e) -> std::pair<SmallVector<Value>, Value> {
    auto [kk, mn] = chunkPosition(b, x, t, e);
    Value inside = arith::AndIOp::create(
        b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, kk, kc),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, mn, x.extent));
    SmallVector<Value> ivs(c.op.getNumLoops(), index(b, loc, 0));
    ivs[x.loop] = mn;
    AffineExpr d0 = b.getAffineDimExpr(0), d1 = b.getAffineDimExpr(1);
    ivs[c.k] = affine::AffineApplyOp::create(b, loc, AffineMap::get(2, 0, d0 + d1),
                                             ValueRange{kk, k0});
    return {c.at(x.operand, ivs), inside};
  };
  SmallVector<Value> pieces;
  for (int64_t r = 0; r < share / step; ++r) {
    AffineExpr e = pieceStart(b, r, step);
    Value v;
    if (!runs) {
      auto [at, inside] = element(e);
      v = loadIf(b, loc, inside, x.operand->get(), at, zero);
    } else {
      SmallVector<std::pair<SmallVector<Value>, Value>> xs;
      for (int64_t j = 0; j < step; ++j)
        xs.push_back(element(e + j));
      // A run stays in one row of the chunk, so its ends bound it.
      Value whole = arith::AndIOp::create(
          b, loc, x.readable,
          arith::AndIOp::create(b, loc, xs.front().second, xs.back().second));
      auto vectorType = VectorType::get({step}, elem);
      auto read = scf::IfOp::create(
          b, loc, whole,
          [&](OpBuilder &then, Location l) {
            Value w = vector::LoadOp::create(then, l, vectorType, x.operand->get(),
                                             xs.front().first, /*nontemporal=*/false,
                                             llvm::MaybeAlign(16));
            scf::YieldOp::create(then, l, w);
          },
          [&](OpBuilder &otherwise, Location l) {
            SmallVector<Value> parts;
            for (auto &[at, inside] : xs)
              parts.push_back(loadIf(otherwise, l, inside, x.operand->get(), at, zero));
            scf::YieldOp::create(
                otherwise, l,
                Value(vector::FromElementsOp::create(otherwise, l, vectorType, parts)));
          });
      v = read.getResult(0);
    }
    pieces.push_back(c.mma && elem.isF32() ? roundToTf32(b, loc, v) : v);
  }
  return pieces;
}

void OperandStaging::deposit(OpBuilder &b, Value t, ArrayRef<Value> pieces, const Staged &x) {
  Location loc = c.op.getLoc();
  auto sharedType = cast<MemRefType>(x.shared.getType());
  const int64_t step = byRuns(x) ? runWidth(x) : 1;
  const bool rowStores = x.kRows != kFastest(x) &&
                         (sharedType.getShape().back() * bytesOf(sharedType.getElementType())) %
                                 16 ==
                             0;
  auto at = [&](std::pair<Value, Value> position) -> SmallVector<Value> {
    auto [kk, mn] = position;
    return x.kRows ? SmallVector<Value>{kk, mn} : SmallVector<Value>{mn, kk};
  };
  for (auto [r, v] : llvm::enumerate(pieces)) {
    AffineExpr e = pieceStart(b, static_cast<int64_t>(r), step);
    if (step == 1) {
      memref::StoreOp::create(b, loc, v, x.shared, at(chunkPosition(b, x, t, e)));
    } else if (rowStores) {
      vector::StoreOp::create(b, loc, v, x.shared, at(chunkPosition(b, x, t, e)),
                              /*nontemporal=*/false, llvm::MaybeAlign(16));
    } else {
      for (int64_t j = 0; j < step; ++j)
        memref::StoreOp::create(b, loc, vector::ExtractOp::create(b, loc, v, j), x.shared,
                                at(chunkPosition(b, x, t, e + j)));
    }
  }
}
