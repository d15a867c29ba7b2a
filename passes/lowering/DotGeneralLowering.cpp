//===- DotGeneralLowering.cpp - dot_general → (batch_)matmul --------------===//
//
// Every dot_general becomes one named contraction over ([B,] M, N, K):
//
//   lhs  ─transpose→ [batch..., lhs free..., contracting...] ─reshape→ [B,] M, K
//   rhs  ─transpose→ [batch..., contracting..., rhs free...] ─reshape→ [B,] K, N
//   linalg.matmul / linalg.batch_matmul over a zero-filled accumulator
//   result ─reshape→ [batch..., lhs free..., rhs free...]
//
// except that an operand already lying as [batch..., contracting..., lhs
// free...] (A transposed) or [batch..., rhs free..., contracting...] (B
// transposed) is only reshaped, to [B,] K, M or [B,] N, K, and the named op
// reads it through a transposed indexing map.
//
// A dot_general whose only use transposes it into [batch..., rhs free...,
// lhs free...] is the same contraction with its operands swapped, and is
// lowered so (no transpose of the result).
//
// Why few forms: back ends tune one kernel and read A and B in either
// orientation by packing them (the CPU target's GEMM recipe copies both into
// micro-panels anyway, so reading a transposed operand costs nothing extra).
// A transpose is emitted only where the operand's dims are in neither order
// (contracting dims interleaved with free dims, or batch dims not leading),
// paying one O(size of operand) copy before an O(M·N·K) contraction; it
// goes to the order that keeps the operand's innermost dim innermost when
// one of the two does, so that it copies rows. The
// reshapes only regroup dims in row-major order, which is free (a view)
// after bufferization.
//
// Invariants: the named ops compute Σ_k lhs·rhs with arith.mulf/addf (or
// muli/addi) in the element type, as the generic form did, except that
// bf16 and f16 products are summed in f32 and rounded once to the element
// type at the end (`ins(bf16, bf16) outs(f32)`, then arith.truncf), as XLA
// does on CPUs: a 16-bit accumulator loses the sum after a few hundred
// terms, and an f32 one lets back ends run their f32 kernels on operands
// widened while they are packed (docs/decisions.md). i1 keeps the
// generic form: linalg.matmul would turn mul/add on i1 into and/or, which
// would change what dot_general computes on booleans. Dynamic shapes keep it
// too (the reshapes here are static).
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "passes/lowering/ContractionMaps.h"
#include "passes/lowering/LoweringPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#include <numeric>

using namespace mlir;
using namespace mlir::garray;

namespace {

/// The dims of a rank-`rank` operand listed in neither `a` nor `b`, ascending.
SmallVector<int64_t> freeDims(int64_t rank, ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(a, d) && !llvm::is_contained(b, d))
      dims.push_back(d);
  return dims;
}

int64_t product(ArrayRef<int64_t> shape, ArrayRef<int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims)
    p *= shape[d];
  return p;
}

bool isIdentity(ArrayRef<int64_t> perm) {
  for (auto [i, d] : llvm::enumerate(perm))
    if (d != static_cast<int64_t>(i))
      return false;
  return true;
}

/// `value` with its dims permuted by `perm` (result dim i = source dim
/// perm[i]); the value itself when `perm` is the identity.
Value transposeIfNeeded(OpBuilder &b, Location loc, Value value, ArrayRef<int64_t> perm) {
  if (isIdentity(perm))
    return value;
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape;
  for (int64_t d : perm)
    shape.push_back(type.getDimSize(d));
  Value init = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
  return linalg::TransposeOp::create(b, loc, value, init, perm).getResult()[0];
}

/// Regroups a static row-major tensor into `shape` (same element count)
/// through a 1-D (or, for one element, a rank-0) intermediate: both steps are
/// views after bufferization, and canonicalization folds the pair when a
/// direct collapse or expand exists.
Value reshape(OpBuilder &b, Location loc, Value value, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  Type elem = type.getElementType();
  auto allDims = [](int64_t rank) {
    ReassociationIndices group(rank);
    std::iota(group.begin(), group.end(), 0);
    return SmallVector<ReassociationIndices>{group};
  };
  Value flat = value;
  if (type.getRank() != 1)
    flat = type.getRank() == 0
               ? Value(tensor::ExpandShapeOp::create(b, loc, RankedTensorType::get({1}, elem),
                                                     value, ArrayRef<ReassociationIndices>{}))
               : Value(tensor::CollapseShapeOp::create(b, loc, value, allDims(type.getRank())));
  if (shape.size() == 1)
    return flat;
  auto target = RankedTensorType::get(shape, elem);
  if (shape.empty())
    return tensor::CollapseShapeOp::create(b, loc, target, flat,
                                           ArrayRef<ReassociationIndices>{});
  return tensor::ExpandShapeOp::create(b, loc, target, flat, allDims(shape.size()));
}

/// `value` (an f32 tensor) rounded elementwise to the float type `elem`.
Value roundTo(OpBuilder &b, Location loc, Value value, Type elem) {
  auto type = cast<RankedTensorType>(value.getType());
  Value init = tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, value), elem);
  SmallVector<AffineMap> maps(2, b.getMultiDimIdentityMap(type.getRank()));
  SmallVector<utils::IteratorType> iterators(type.getRank(), utils::IteratorType::parallel);
  return linalg::GenericOp::create(b, loc, TypeRange{init.getType()}, ValueRange{value},
                                   ValueRange{init}, maps, iterators,
                                   [&](OpBuilder &nb, Location nloc, ValueRange args) {
                                     linalg::YieldOp::create(
                                         nb, nloc,
                                         arith::TruncFOp::create(nb, nloc, elem, args[0])
                                             .getResult());
                                   })
      .getResult(0);
}

/// The general form, kept for i1 and for dynamic shapes (which the CPU entry
/// rejects anyway), accumulating into `init`'s element type: one
/// linalg.generic whose
/// loops are the result dims (batch, lhs free, rhs free) then the
/// contracting dims.
Value lowerToGeneric(DotGeneralOp op, PatternRewriter &rewriter, Value init) {
  auto lhs = cast<RankedTensorType>(op.getLhs().getType());
  auto rhs = cast<RankedTensorType>(op.getRhs().getType());
  auto out = cast<RankedTensorType>(init.getType());
  MLIRContext *ctx = rewriter.getContext();
  int64_t numResultDims = out.getRank();
  int64_t numLoops = numResultDims + op.getLhsContracting().size();
  SmallVector<AffineExpr> l(lhs.getRank()), r(rhs.getRank()), o;
  int64_t next = 0;
  for (auto [ld, rd] : llvm::zip(op.getLhsBatch(), op.getRhsBatch()))
    l[ld] = r[rd] = getAffineDimExpr(next++, ctx);
  int64_t k = numResultDims;
  for (auto [ld, rd] : llvm::zip(op.getLhsContracting(), op.getRhsContracting()))
    l[ld] = r[rd] = getAffineDimExpr(k++, ctx);
  for (auto &e : l)
    if (!e)
      e = getAffineDimExpr(next++, ctx);
  for (auto &e : r)
    if (!e)
      e = getAffineDimExpr(next++, ctx);
  for (int64_t d = 0; d < numResultDims; ++d)
    o.push_back(getAffineDimExpr(d, ctx));
  SmallVector<AffineMap> maps = {AffineMap::get(numLoops, 0, l, ctx),
                                 AffineMap::get(numLoops, 0, r, ctx),
                                 AffineMap::get(numLoops, 0, o, ctx)};
  SmallVector<utils::IteratorType> iters(numResultDims, utils::IteratorType::parallel);
  iters.append(op.getLhsContracting().size(), utils::IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      rewriter, op.getLoc(), TypeRange{out}, ValueRange{op.getLhs(), op.getRhs()},
      ValueRange{init}, maps, iters, [&](OpBuilder &b, Location loc, ValueRange a) {
        Type acc = a[2].getType();
        bool isFloat = isa<FloatType>(acc);
        auto widen = [&](Value v) {
          return v.getType() == acc ? v : arith::ExtFOp::create(b, loc, acc, v).getResult();
        };
        Value prod = isFloat ? Value(arith::MulFOp::create(b, loc, widen(a[0]), widen(a[1])))
                             : Value(arith::MulIOp::create(b, loc, a[0], a[1]));
        Value sum = isFloat ? Value(arith::AddFOp::create(b, loc, a[2], prod))
                            : Value(arith::AddIOp::create(b, loc, a[2], prod));
        linalg::YieldOp::create(b, loc, sum);
      });
  return generic.getResult(0);
}

/// The transpose that is `op`'s only use when it puts the rhs free dims
/// before the lhs free dims (batch dims staying first): the result of the
/// same contraction with its operands swapped. Autodiff writes a weight
/// gradient of `y = x·W` as `(dyᵀ·x)ᵀ`; the contraction itself reads
/// either operand in either layout, so the transpose, a pass over the
/// gradient, is not needed.
TransposeOp swappingTranspose(DotGeneralOp op) {
  if (!op->hasOneUse())
    return {};
  auto transpose = dyn_cast<TransposeOp>(*op->getUsers().begin());
  if (!transpose)
    return {};
  int64_t batch = op.getLhsBatch().size();
  int64_t lhsFree = cast<RankedTensorType>(op.getLhs().getType()).getRank() - batch -
                    static_cast<int64_t>(op.getLhsContracting().size());
  int64_t rank = cast<RankedTensorType>(op.getType()).getRank();
  SmallVector<int64_t> swapped = llvm::to_vector(llvm::seq<int64_t>(0, batch));
  llvm::append_range(swapped, llvm::seq<int64_t>(batch + lhsFree, rank));
  llvm::append_range(swapped, llvm::seq<int64_t>(batch, batch + lhsFree));
  if (lhsFree == 0 || lhsFree == rank - batch || transpose.getPermutation() != ArrayRef(swapped))
    return {};
  return transpose;
}

struct LowerDotGeneral : OpRewritePattern<DotGeneralOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DotGeneralOp op, PatternRewriter &rewriter) const override {
    auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
    auto rhsType = cast<RankedTensorType>(op.getRhs().getType());
    auto out = cast<RankedTensorType>(op.getType());
    Location loc = op.getLoc();
    Type elem = out.getElementType();
    // 16-bit floats accumulate in f32 (see the header).
    Type accElem = isa<BFloat16Type, Float16Type>(elem) ? rewriter.getF32Type() : elem;
    Value zero = arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(accElem));
    auto finish = [&](Value product) {
      return accElem == elem ? product : roundTo(rewriter, loc, product, elem);
    };
    if (elem.isInteger(1) || !lhsType.hasStaticShape() || !rhsType.hasStaticShape() ||
        !out.hasStaticShape()) {
      Value init = shardc::createFilled(rewriter, loc, out.clone(accElem), zero);
      rewriter.replaceOp(op, finish(lowerToGeneric(op, rewriter, init)));
      return success();
    }

    ArrayRef<int64_t> lhsBatch = op.getLhsBatch(), rhsBatch = op.getRhsBatch();
    ArrayRef<int64_t> lhsContr = op.getLhsContracting(), rhsContr = op.getRhsContracting();
    SmallVector<int64_t> lhsFree = freeDims(lhsType.getRank(), lhsBatch, lhsContr);
    SmallVector<int64_t> rhsFree = freeDims(rhsType.getRank(), rhsBatch, rhsContr);

    // Contracting (and batch) dims pair up by list position, so both operands
    // order them by the lists; free dims keep their order, which is the
    // result's order.
    SmallVector<int64_t> lhsPerm(lhsBatch), rhsPerm(rhsBatch);
    llvm::append_range(lhsPerm, lhsFree);
    llvm::append_range(lhsPerm, lhsContr);
    llvm::append_range(rhsPerm, rhsContr);
    llvm::append_range(rhsPerm, rhsFree);

    ArrayRef<int64_t> lhsShape = lhsType.getShape(), rhsShape = rhsType.getShape();
    int64_t batch = product(lhsShape, lhsBatch), m = product(lhsShape, lhsFree),
            k = product(lhsShape, lhsContr), n = product(rhsShape, rhsFree);
    bool batched = !lhsBatch.empty();
    auto shape3 = [&](int64_t rows, int64_t cols) {
      return batched ? SmallVector<int64_t>{batch, rows, cols} : SmallVector<int64_t>{rows, cols};
    };

    // An operand whose dims already lie as [batch..., contracting..., free...]
    // (lhs) or [batch..., free..., contracting...] (rhs) is read as it lies
    // through a transposed map instead of being copied: back ends pack
    // operands anyway, and packing reads either layout.
    SmallVector<int64_t> lhsPermT(lhsBatch), rhsPermT(rhsBatch);
    llvm::append_range(lhsPermT, lhsContr);
    llvm::append_range(lhsPermT, lhsFree);
    llvm::append_range(rhsPermT, rhsFree);
    llvm::append_range(rhsPermT, rhsContr);
    // An operand in neither order is copied into whichever of the two keeps
    // its innermost dim innermost: that copy moves whole rows, where the
    // other would gather single elements a row apart (attention's k as
    // [b, s, h, d] goes to [b, h, s, d], read transposed, not to [b, h, d,
    // s]).
    auto transposedLayout = [](ArrayRef<int64_t> perm, ArrayRef<int64_t> permT) {
      if (isIdentity(perm))
        return false;
      if (isIdentity(permT))
        return true;
      int64_t inner = static_cast<int64_t>(perm.size()) - 1;
      return perm.back() != inner && permT.back() == inner;
    };
    bool lhsT = transposedLayout(lhsPerm, lhsPermT);
    bool rhsT = transposedLayout(rhsPerm, rhsPermT);
    Value lhs = reshape(rewriter, loc,
                        transposeIfNeeded(rewriter, loc, op.getLhs(), lhsT ? lhsPermT : lhsPerm),
                        lhsT ? shape3(k, m) : shape3(m, k));
    Value rhs = reshape(rewriter, loc,
                        transposeIfNeeded(rewriter, loc, op.getRhs(), rhsT ? rhsPermT : rhsPerm),
                        rhsT ? shape3(n, k) : shape3(k, n));
    auto accType = RankedTensorType::get(shape3(m, n), accElem);
    Value acc = shardc::createFilled(rewriter, loc, accType, zero);
    Operation *contraction =
        batched ? linalg::BatchMatmulOp::create(rewriter, loc, TypeRange{accType},
                                                ValueRange{lhs, rhs}, ValueRange{acc})
                      .getOperation()
                : linalg::MatmulOp::create(rewriter, loc, TypeRange{accType}, ValueRange{lhs, rhs},
                                           ValueRange{acc})
                      .getOperation();
    if (lhsT || rhsT)
      contraction->setAttr("indexing_maps",
                           rewriter.getAffineMapArrayAttr(shardc::contractionMaps(
                               rewriter.getContext(), batched, lhsT, rhsT)));
    rewriter.replaceOp(op, reshape(rewriter, loc, finish(contraction->getResult(0)),
                                   out.getShape()));
    return success();
  }
};
} // namespace

void shardc::swapTransposedContractions(Operation *root) {
  SmallVector<std::pair<DotGeneralOp, TransposeOp>> found;
  root->walk([&](DotGeneralOp op) {
    if (TransposeOp transpose = swappingTranspose(op))
      found.push_back({op, transpose});
  });
  IRRewriter rewriter(root->getContext());
  for (auto [op, transpose] : found) {
    rewriter.setInsertionPoint(transpose);
    auto swapped = DotGeneralOp::create(
        rewriter, op.getLoc(), transpose.getType(), op.getRhs(), op.getLhs(), op.getRhsBatch(),
        op.getLhsBatch(), op.getRhsContracting(), op.getLhsContracting());
    rewriter.replaceOp(transpose, swapped.getResult());
    rewriter.eraseOp(op);
  }
}

void shardc::populateDotGeneralLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerDotGeneral>(patterns.getContext());
}
