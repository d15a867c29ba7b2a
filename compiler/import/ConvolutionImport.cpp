//===- ConvolutionImport.cpp - stablehlo.convolution as slices and dots ---===//
//
// garray has no convolution; a convolution is a sum of matrix products, and
// the importer writes it as one. With the operands in canonical layout
// (lhs [B, S..., C], kernel [W..., C, F]), zero-padded and dilated:
//
//   out[b, o, f] = sum over w, c of  lhs[b, o·stride + w·rhs_dilation, c] · k[w, c, f]
//
// which is one matrix product of stacked slices (im2col), either
//   - per window position w (a "tap"): the strided slices of lhs, [B, O..., C]
//     each, stacked into [B, O..., T, C] and contracted over (T, C) with k
//     viewed as [T, C, F]; or
//   - per output position o: the slices of lhs, [B, W..., C] each, stacked
//     into [B, P, W..., C] and contracted with all of k over (W..., C), P
//     then unfolded into O...,
// whichever stacks fewer slices: a forward 3x3 convolution has 9 taps, its
// kernel gradient (a convolution whose window is the whole image) 9
// output positions. One product with K = T·C keeps a GEMM's micro-kernel
// busy where T products with K = C (3 input channels, say) would not; the
// stack is a dim of its own so that channels sharded over the mesh stay
// sharded. A stack larger than kMaxStackBytes is built and multiplied in
// chunks whose products are summed. Padding and lhs_dilation (the gradient
// of a strided convolution: zeros between neighbours) are padded as
// stablehlo.pad pads (padGeneral, WindowImport.cpp). Feature groups (depthwise convolutions) and
// batch groups (their kernel gradients) become a group dim that every
// product is batched over (dot_general batch dims), so a group dim sharded
// over the mesh stays sharded. Refused with an error: window reversal, and
// a convolution that would stack more than kMaxSlices slices.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/ImportOps.h"
#include "compiler/import/StableHloAttrText.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::garray;

namespace shardc::import {
namespace {

constexpr int64_t kMaxSlices = 1024;
// The most bytes (of the global array) one stacked operand takes; more
// slices than fit are stacked in chunks whose products are summed.
constexpr int64_t kMaxStackBytes = int64_t(64) << 20;

/// One operand's (or the result's) layout: where the batch/input-feature
/// dim, the feature/output-feature dim and each spatial dim lie.
struct Layout {
  int64_t first = -1, second = -1; // b and f (lhs, result) or i and o (kernel)
  SmallVector<int64_t> spatial;
};

/// Reads "[b, 0, 1, f]" style lists from `#stablehlo.conv<LHSxRHS->OUT>`.
std::optional<std::array<Layout, 3>> parseDimensionNumbers(StringRef text, std::string &error) {
  size_t open = text.find('<'), close = text.rfind('>');
  if (!text.starts_with("#stablehlo.conv<") || close == StringRef::npos ||
      text.contains("raw")) {
    error = "expected #stablehlo.conv<[...]x[...]->[...]>, got " + text.str();
    return std::nullopt;
  }
  StringRef body = text.slice(open + 1, close);
  std::array<Layout, 3> out;
  const char *letters[3] = {"bf", "io", "bf"};
  for (int part = 0; part < 3; ++part) {
    size_t l = body.find('['), r = body.find(']');
    if (l == StringRef::npos || r == StringRef::npos || r < l) {
      error = "malformed dimension numbers " + text.str();
      return std::nullopt;
    }
    SmallVector<StringRef> tokens;
    body.slice(l + 1, r).split(tokens, ',');
    body = body.drop_front(r + 1);
    Layout &layout = out[part];
    for (auto [pos, token] : llvm::enumerate(tokens)) {
      token = token.trim();
      unsigned spatial;
      if (token.size() == 1 && token[0] == letters[part][0]) {
        layout.first = pos;
      } else if (token.size() == 1 && token[0] == letters[part][1]) {
        layout.second = pos;
      } else if (!token.getAsInteger(10, spatial)) {
        if (layout.spatial.size() <= spatial)
          layout.spatial.resize(spatial + 1, -1);
        layout.spatial[spatial] = pos;
      } else {
        error = "unknown dimension '" + token.str() + "' in " + text.str();
        return std::nullopt;
      }
    }
    if (layout.first < 0 || layout.second < 0 || llvm::is_contained(layout.spatial, -1)) {
      error = "incomplete dimension numbers " + text.str();
      return std::nullopt;
    }
  }
  if (out[0].spatial.size() != out[1].spatial.size() ||
      out[0].spatial.size() != out[2].spatial.size()) {
    error = "operands with different numbers of spatial dims in " + text.str();
    return std::nullopt;
  }
  return out;
}

/// An optional array attribute, `fill` repeated `n` times when absent.
std::optional<SmallVector<int64_t>> arrayOr(Operation *op, StringRef name, size_t n,
                                            int64_t fill) {
  if (!op->getAttr(name))
    return SmallVector<int64_t>(n, fill);
  std::optional<SmallVector<int64_t>> v = readI64Array(op, name);
  if (v && v->size() != n) {
    op->emitError() << "`" << name << "` has " << v->size() << " entries for " << n
                    << " spatial dims";
    return std::nullopt;
  }
  return v;
}

class ConvEmitter {
public:
  explicit ConvEmitter(OpEmitter &e) : e(e) {}

  Value transpose(Value x, ArrayRef<int64_t> perm) { return transposed(e, x, perm); }

  Value reshape(Value x, ArrayRef<int64_t> shape) {
    return e.reshape(x, RankedTensorType::get(shape, tensorType(x).getElementType()));
  }

  Value slice(Value x, ArrayRef<int64_t> start, ArrayRef<int64_t> limit,
              ArrayRef<int64_t> stride) {
    return stridedSlice(e, x, start, limit, stride);
  }

  /// `x` with `low`/`high` zeros around each spatial dim (negative: that
  /// many cut) and `interior` zeros between neighbours along it, in one pad
  /// (padGeneral); dims before `spatial0` and after the spatial ones as
  /// they are.
  Value padSpatial(Value x, int64_t spatial0, ArrayRef<int64_t> low, ArrayRef<int64_t> high,
                   ArrayRef<int64_t> interior) {
    int64_t rank = tensorType(x).getRank();
    SmallVector<int64_t> lo(rank, 0), hi(rank, 0), in(rank, 0);
    for (size_t i = 0; i < low.size(); ++i) {
      lo[spatial0 + i] = low[i];
      hi[spatial0 + i] = high[i];
      in[spatial0 + i] = interior[i] - 1;
    }
    if (llvm::all_of(lo, [](int64_t v) { return v == 0; }) &&
        llvm::all_of(hi, [](int64_t v) { return v == 0; }) &&
        llvm::all_of(in, [](int64_t v) { return v == 0; }))
      return x;
    Value zero = e.splat(RankedTensorType::get({}, tensorType(x).getElementType()), 0.0);
    return padGeneral(e, x, zero, lo, hi, in);
  }

  /// dot_general with batch dims `lb`/`rb` and contracting dims `lc`/`rc`:
  /// [batch..., lhs free..., rhs free...].
  Value dot(Value lhs, Value rhs, ArrayRef<int64_t> lb, ArrayRef<int64_t> rb,
            ArrayRef<int64_t> lc, ArrayRef<int64_t> rc, Type element) {
    RankedTensorType l = tensorType(lhs), r = tensorType(rhs);
    SmallVector<int64_t> shape;
    for (int64_t d : lb)
      shape.push_back(l.getDimSize(d));
    for (int64_t d = 0; d < l.getRank(); ++d)
      if (!llvm::is_contained(lc, d) && !llvm::is_contained(lb, d))
        shape.push_back(l.getDimSize(d));
    for (int64_t d = 0; d < r.getRank(); ++d)
      if (!llvm::is_contained(rc, d) && !llvm::is_contained(rb, d))
        shape.push_back(r.getDimSize(d));
    return DotGeneralOp::create(e.b, e.loc, RankedTensorType::get(shape, element), lhs, rhs,
                                e.b.getDenseI64ArrayAttr(lb), e.b.getDenseI64ArrayAttr(rb),
                                e.b.getDenseI64ArrayAttr(lc), e.b.getDenseI64ArrayAttr(rc));
  }

  Value concatenate(ArrayRef<Value> parts, int64_t dim) {
    if (parts.size() == 1)
      return parts[0];
    RankedTensorType t = tensorType(parts[0]);
    SmallVector<int64_t> shape(t.getShape());
    shape[dim] = 0;
    for (Value p : parts)
      shape[dim] += tensorType(p).getDimSize(dim);
    return ConcatenateOp::create(e.b, e.loc, RankedTensorType::get(shape, t.getElementType()),
                                 parts, e.b.getI64IntegerAttr(dim));
  }

  OpEmitter &e;
};

/// Where a canonical operand keeps its dims (file comment): lhs spatial
/// dims at `spatial0`.., the contracted features last, and, when grouped,
/// the group dim at `group` (the kernel is then [W..., C, G, Fg]).
struct Canonical {
  int64_t spatial0 = 1;
  int64_t group = -1; // -1: not grouped, kernel [W..., C, F]
};

/// Slices of `lhs` stacked on a new dim at `at`: [.., N, ..] with N the
/// number of parts, each part `x` first given a unit dim there.
Value stack(ConvEmitter &c, ArrayRef<Value> parts, int64_t at) {
  SmallVector<Value> unit;
  for (Value x : parts) {
    SmallVector<int64_t> shape(tensorType(x).getShape());
    shape.insert(shape.begin() + at, 1);
    unit.push_back(c.reshape(x, shape));
  }
  return c.concatenate(unit, at);
}

/// How many of `count` slices of `sliceBytes` each one stacked operand
/// takes: all of them up to kMaxStackBytes, else as few equal chunks as keep
/// each under it (at least one slice a chunk).
int64_t chunkSize(int64_t count, int64_t sliceBytes) {
  int64_t chunks = std::max<int64_t>(1, (count * sliceBytes + kMaxStackBytes - 1) / kMaxStackBytes);
  chunks = std::min(chunks, count);
  return (count + chunks - 1) / chunks;
}

/// The convolution of canonical `lhs` and kernel `k` (padded and dilated):
/// [X..., O..., F], X the lhs dims before the spatial ones other than the
/// group dim (file comment). Slices are stacked into one operand (im2col)
/// so that one dot_general contracts the stack dim with the features (per
/// tap) or the window with the features (per output position): a GEMM with
/// K = taps·C rather than taps GEMMs with K = C. Each product is batched
/// over the groups: a grouped convolution stays one product, and a group
/// dim sharded over the mesh stays sharded; contracted channels sharded
/// over the mesh stay sharded too (the stack is a dim of its own).
Value convolveCanonical(ConvEmitter &c, Value lhs, Value k, Canonical at,
                        ArrayRef<int64_t> strides, ArrayRef<int64_t> rhsDilation,
                        ArrayRef<int64_t> outSpatial, Type element) {
  RankedTensorType lt = tensorType(lhs), kt = tensorType(k);
  int64_t n = outSpatial.size(), rank = lt.getRank(), last = rank - 1;
  bool grouped = at.group >= 0;
  ArrayRef<int64_t> window = kt.getShape().take_front(n);
  int64_t taps = 1, positions = 1;
  for (int64_t i = 0; i < n; ++i) {
    taps *= window[i];
    positions *= outSpatial[i];
  }
  int64_t elementBytes = std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8);
  // lhs sliced over its spatial dims only, at multi-index `index` (row-major
  // number `flat` below `bounds`): from index[i]·origin[i] on, count[i]
  // elements step[i] apart.
  auto spatialSlice = [&](int64_t flat, ArrayRef<int64_t> bounds, ArrayRef<int64_t> origin,
                          ArrayRef<int64_t> count, ArrayRef<int64_t> step) {
    SmallVector<int64_t> start(rank, 0), limit(lt.getShape()), stride(rank, 1);
    for (int64_t i = n - 1; i >= 0; --i) {
      int64_t d = at.spatial0 + i, index = flat % bounds[i];
      flat /= bounds[i];
      start[d] = index * origin[i];
      limit[d] = start[d] + (count[i] - 1) * step[i] + 1;
      stride[d] = step[i];
    }
    return c.slice(lhs, start, limit, stride);
  };
  auto sliceBytes = [&](ArrayRef<int64_t> spatial) {
    int64_t bytes = elementBytes * lt.getNumElements();
    for (int64_t i = 0; i < n; ++i)
      bytes = bytes / std::max<int64_t>(1, lt.getDimSize(at.spatial0 + i)) * spatial[i];
    return bytes;
  };
  // Products have the dims [G?, X..., O..., Fg].
  Value out;
  if (taps <= positions) {
    // lhs stacked [.., O..., T, C] (T before the features), kernel
    // [W..., C, (G,) F] viewed as [T, C, (G,) F]: contract (T, C).
    SmallVector<int64_t> kShape = {taps};
    llvm::append_range(kShape, kt.getShape().drop_front(n));
    Value kTaps = c.reshape(k, kShape);
    int64_t chunk = chunkSize(taps, sliceBytes(outSpatial));
    SmallVector<int64_t> batchL, batchR;
    if (grouped) {
      batchL.push_back(at.group);
      batchR.push_back(2);
    }
    for (int64_t t0 = 0; t0 < taps; t0 += chunk) {
      int64_t t1 = std::min(taps, t0 + chunk);
      SmallVector<Value> parts;
      for (int64_t t = t0; t < t1; ++t)
        parts.push_back(spatialSlice(t, window, rhsDilation, outSpatial, strides));
      Value stacked = stack(c, parts, last);
      SmallVector<int64_t> kStart(kShape.size(), 0), kLimit(kShape), kStride(kShape.size(), 1);
      kStart[0] = t0;
      kLimit[0] = t1;
      Value kPart = t1 - t0 == taps ? kTaps : c.slice(kTaps, kStart, kLimit, kStride);
      Value product = c.dot(stacked, kPart, batchL, batchR, {last, last + 1}, {0, 1}, element);
      out = out ? c.e.add(out, product) : product;
    }
  } else {
    // lhs stacked [.., P, W..., C] (P before the spatial dims), kernel
    // [W..., C, (G,) F]: contract (W..., C), then P -> O....
    SmallVector<int64_t> contractL, contractR;
    for (int64_t i = 0; i < n; ++i) {
      contractL.push_back(at.spatial0 + 1 + i);
      contractR.push_back(i);
    }
    contractL.push_back(last + 1);
    contractR.push_back(n);
    SmallVector<int64_t> batchL, batchR;
    if (grouped) {
      batchL.push_back(at.group < at.spatial0 ? at.group : at.group + 1);
      batchR.push_back(n + 1);
    }
    int64_t chunk = chunkSize(positions, sliceBytes(window));
    SmallVector<Value> pieces;
    for (int64_t p0 = 0; p0 < positions; p0 += chunk) {
      int64_t p1 = std::min(positions, p0 + chunk);
      SmallVector<Value> parts;
      for (int64_t p = p0; p < p1; ++p)
        parts.push_back(spatialSlice(p, outSpatial, strides, window, rhsDilation));
      Value stacked = stack(c, parts, at.spatial0);
      pieces.push_back(c.dot(stacked, k, batchL, batchR, contractL, contractR, element));
    }
    // [G?, X..., P, Fg] -> [G?, X..., O..., Fg]
    Value joined = c.concatenate(pieces, tensorType(pieces.front()).getRank() - 2);
    SmallVector<int64_t> shape(tensorType(joined).getShape().drop_back(2));
    llvm::append_range(shape, outSpatial);
    shape.push_back(tensorType(joined).getShape().back());
    out = c.reshape(joined, shape);
  }
  if (!grouped)
    return out;
  // [G, X..., O..., Fg] -> [X..., O..., G, Fg] -> [X..., O..., G·Fg]
  RankedTensorType ot = tensorType(out);
  int64_t r = ot.getRank();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(1, r - 1));
  perm.append({0, r - 1});
  out = c.transpose(out, perm);
  SmallVector<int64_t> shape(tensorType(out).getShape().drop_back(2));
  shape.push_back(ot.getDimSize(0) * ot.getDimSize(r - 1));
  return c.reshape(out, shape);
}

} // namespace

FailureOr<Values> importConvolution(Operation *op, OpEmitter &e) {
  std::optional<std::string> text = readAttrText(op, "dimension_numbers");
  if (!text)
    return failure();
  std::string error;
  std::optional<std::array<Layout, 3>> dims = parseDimensionNumbers(*text, error);
  if (!dims)
    return op->emitError() << "dimension_numbers: " << error;
  auto [lhsLayout, kLayout, outLayout] = *dims;
  size_t n = lhsLayout.spatial.size();
  std::optional<int64_t> featureGroups = op->getAttr("feature_group_count")
                                             ? readI64(op, "feature_group_count")
                                             : std::optional<int64_t>(1);
  std::optional<int64_t> batchGroups = op->getAttr("batch_group_count")
                                           ? readI64(op, "batch_group_count")
                                           : std::optional<int64_t>(1);
  auto strides = arrayOr(op, "window_strides", n, 1);
  auto lhsDilation = arrayOr(op, "lhs_dilation", n, 1);
  auto rhsDilation = arrayOr(op, "rhs_dilation", n, 1);
  if (!featureGroups || !batchGroups || !strides || !lhsDilation || !rhsDilation)
    return failure();
  if (*featureGroups != 1 && *batchGroups != 1)
    return op->emitError() << "feature_group_count " << *featureGroups
                           << " and batch_group_count " << *batchGroups
                           << ": at most one of them may exceed 1";
  if (auto reversal = op->getAttrOfType<DenseBoolArrayAttr>("window_reversal"))
    if (llvm::is_contained(reversal.asArrayRef(), true))
      return op->emitError() << "window_reversal is not supported";
  for (ArrayRef<int64_t> a : {ArrayRef<int64_t>(*strides), ArrayRef<int64_t>(*lhsDilation),
                              ArrayRef<int64_t>(*rhsDilation)})
    if (llvm::any_of(a, [](int64_t v) { return v < 1; }))
      return op->emitError() << "window strides and dilations must be positive";
  SmallVector<int64_t> low, high;
  if (failed(readPadding(op, n, low, high)))
    return failure();

  Value lhs = op->getOperand(0), k = op->getOperand(1);
  RankedTensorType resultType = tensorType(op->getResult(0));
  Type element = resultType.getElementType();
  for (Value *v : {&lhs, &k}) {
    RankedTensorType t = tensorType(*v);
    if (t.getElementType() == element)
      continue;
    if (!ConvertOp::isExact(t.getElementType(), element))
      return op->emitError() << "a convolution of " << t.getElementType() << " giving " << element
                             << " is not supported: converting " << t.getElementType()
                             << " to " << element << " loses values";
    *v = e.convert(*v, RankedTensorType::get(t.getShape(), element));
  }

  ConvEmitter c(e);
  // Canonical layouts: lhs [B, S..., C], kernel [W..., C, F].
  SmallVector<int64_t> lhsPerm = {lhsLayout.first};
  llvm::append_range(lhsPerm, lhsLayout.spatial);
  lhsPerm.push_back(lhsLayout.second);
  SmallVector<int64_t> kPerm(kLayout.spatial);
  kPerm.append({kLayout.first, kLayout.second});
  lhs = c.transpose(lhs, lhsPerm);
  k = c.transpose(k, kPerm);
  lhs = c.padSpatial(lhs, 1, low, high, *lhsDilation);
  RankedTensorType lt = tensorType(lhs), kt = tensorType(k);
  // Groups: feature groups split the input features (and the kernel's
  // output features), batch groups the batch (and the same); each group is
  // a convolution of its own, joined along the output features.
  bool byBatch = *batchGroups > 1;
  int64_t groups = byBatch ? *batchGroups : *featureGroups;
  int64_t split = byBatch ? 0 : n + 1; // the lhs dim the groups split
  int64_t channels = lt.getDimSize(n + 1), features = kt.getDimSize(n + 1);
  if (groups < 1 || lt.getDimSize(split) % groups != 0 || features % groups != 0 ||
      kt.getDimSize(n) * (byBatch ? 1 : groups) != channels)
    return op->emitError() << (byBatch ? "batch_group_count " : "feature_group_count ")
                           << groups << " does not evenly divide the operand's "
                           << (byBatch ? "batch of " : "features, ") << lt.getDimSize(split)
                           << (byBatch ? "" : ",") << " and the kernel's " << features
                           << " output features";
  SmallVector<int64_t> outSpatial;
  int64_t taps = 1, positions = 1;
  for (size_t i = 0; i < n; ++i) {
    int64_t span = (kt.getDimSize(i) - 1) * (*rhsDilation)[i] + 1;
    outSpatial.push_back(lt.getDimSize(i + 1) < span
                             ? 0
                             : (lt.getDimSize(i + 1) - span) / (*strides)[i] + 1);
    taps *= kt.getDimSize(i);
    positions *= outSpatial.back();
  }
  if (std::min(taps, positions) > kMaxSlices || positions == 0 || taps == 0) {
    auto list = [](ArrayRef<int64_t> v) {
      std::string out;
      llvm::raw_string_ostream os(out);
      os << "[";
      llvm::interleaveComma(v, os);
      os << "]";
      return out;
    };
    return op->emitError() << "this convolution (window " << list(kt.getShape().take_front(n))
                           << ", output " << list(outSpatial)
                           << ") would stack " << std::min(taps, positions)
                           << " slices of its input, one per window tap or output position; "
                              "shardc imports convolutions of at most "
                           << kMaxSlices << " (and a non-empty window and output)";
  }
  // Grouped: lhs [G, B/G, P..., C] (batch groups) or [B, P..., G, C/G]
  // (feature groups), kernel [W..., Cin, G, F/G].
  Canonical at;
  if (groups > 1) {
    SmallVector<int64_t> shape(lt.getShape());
    if (byBatch) {
      shape[0] /= groups;
      shape.insert(shape.begin(), groups);
      at = Canonical{2, 0};
    } else {
      shape[n + 1] /= groups;
      shape.insert(shape.begin() + n + 1, groups);
      at = Canonical{1, static_cast<int64_t>(n) + 1};
    }
    lhs = c.reshape(lhs, shape);
    SmallVector<int64_t> kShape(kt.getShape().drop_back());
    kShape.append({groups, features / groups});
    k = c.reshape(k, kShape);
  }
  Value out =
      convolveCanonical(c, lhs, k, at, *strides, *rhsDilation, outSpatial, element);
  // [B, O..., F] -> the result's layout.
  SmallVector<int64_t> outPerm(n + 2);
  outPerm[outLayout.first] = 0;
  outPerm[outLayout.second] = n + 1;
  for (size_t i = 0; i < n; ++i)
    outPerm[outLayout.spatial[i]] = i + 1;
  out = c.transpose(out, outPerm);
  if (out.getType() != resultType)
    return op->emitError() << "internal error: the convolution came out as " << out.getType()
                           << ", not " << resultType;
  return Values{out};
}

} // namespace shardc::import
