//===- ConvolutionImport.cpp - stablehlo.convolution as slices and dots ---===//
//
// garray has no convolution; a convolution is a sum of matrix products, and
// the importer writes it as one. With the operands in canonical layout
// (lhs [B, S..., C], kernel [W..., C, F]), zero-padded and dilated:
//
//   out[b, o, f] = sum over w, c of  lhs[b, o·stride + w·rhs_dilation, c] · k[w, c, f]
//
// which is either
//   - per window position w (a "tap"): a strided slice of lhs, [B, O..., C],
//     times k[w] ([C, F]), summed over the taps in row-major order; or
//   - per output position o: a slice of lhs, [B, W..., C], contracted with
//     all of k over (W..., C), the positions concatenated back,
// whichever makes fewer products: a forward 3x3 convolution has 9 taps,
// its kernel gradient (a convolution whose window is the whole image) 9
// output positions. Padding and lhs_dilation (the gradient of a strided
// convolution: zeros between neighbours) are padded as stablehlo.pad pads
// (padGeneral, WindowImport.cpp). Feature groups (depthwise convolutions) and
// batch groups (their kernel gradients) become a group dim that every
// product is batched over (dot_general batch dims), so a group dim sharded
// over the mesh stays sharded. Refused with an error: window reversal, and
// a convolution that would take more than kMaxProducts products.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/ImportOps.h"
#include "compiler/import/StableHloAttrText.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>

using namespace mlir;
using namespace mlir::garray;

namespace shardc::import {
namespace {

constexpr int64_t kMaxProducts = 1024;

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

  Value transpose(Value x, ArrayRef<int64_t> perm) {
    if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
      return x;
    RankedTensorType t = tensorType(x);
    SmallVector<int64_t> shape;
    for (int64_t p : perm)
      shape.push_back(t.getDimSize(p));
    return TransposeOp::create(e.b, e.loc, RankedTensorType::get(shape, t.getElementType()), x,
                               e.b.getDenseI64ArrayAttr(perm));
  }

  Value reshape(Value x, ArrayRef<int64_t> shape) {
    return e.reshape(x, RankedTensorType::get(shape, tensorType(x).getElementType()));
  }

  Value slice(Value x, ArrayRef<int64_t> start, ArrayRef<int64_t> limit,
              ArrayRef<int64_t> stride) {
    return stridedSlice(e, x, start, limit, stride);
  }

  /// `x` with `low`/`high` zeros around dim `d` (negative: that many cut),
  /// and `interior` zeros between neighbours along it (padGeneral).
  Value padDim(Value x, int64_t d, int64_t low, int64_t high, int64_t interior = 0) {
    int64_t rank = tensorType(x).getRank();
    SmallVector<int64_t> lo(rank, 0), hi(rank, 0), in(rank, 0);
    lo[d] = low;
    hi[d] = high;
    in[d] = interior;
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

/// The convolution of canonical `lhs` and kernel `k` (padded and dilated):
/// [X..., O..., F], X the lhs dims before the spatial ones other than the
/// group dim (file comment). Each product is a dot_general contracting the
/// features (and, per output position, the window), batched over the
/// groups: a grouped convolution stays one product per tap, and a group dim
/// sharded over the mesh stays sharded.
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
  SmallVector<int64_t> index(n, 0);
  // Visits every multi-index below `bounds` in row-major order.
  auto forEach = [&](ArrayRef<int64_t> bounds, llvm::function_ref<void()> body) {
    std::function<void(int64_t)> rec = [&](int64_t d) {
      if (d == n)
        return body();
      for (index[d] = 0; index[d] < bounds[d]; ++index[d])
        rec(d + 1);
    };
    rec(0);
  };
  // lhs sliced over its spatial dims only: from index[i]·origin[i] on,
  // count[i] elements step[i] apart.
  auto spatialSlice = [&](ArrayRef<int64_t> origin, ArrayRef<int64_t> count,
                          ArrayRef<int64_t> step) {
    SmallVector<int64_t> start(rank, 0), limit(lt.getShape()), stride(rank, 1);
    for (int64_t i = 0; i < n; ++i) {
      int64_t d = at.spatial0 + i;
      start[d] = index[i] * origin[i];
      limit[d] = start[d] + (count[i] - 1) * step[i] + 1;
      stride[d] = step[i];
    }
    return c.slice(lhs, start, limit, stride);
  };
  SmallVector<int64_t> batchL, batchR;
  if (grouped) {
    batchL.push_back(at.group);
    batchR.push_back(n + 1);
  }
  // Products have the dims [G?, X..., O... or none, Fg].
  Value out;
  if (taps <= positions) {
    forEach(window, [&] {
      Value part = spatialSlice(rhsDilation, outSpatial, strides);
      SmallVector<int64_t> kStart(index), kLimit, kStride(kt.getRank(), 1);
      for (int64_t i = 0; i < n; ++i)
        kLimit.push_back(index[i] + 1);
      kStart.append(kt.getRank() - n, 0);
      llvm::append_range(kLimit, kt.getShape().drop_front(n));
      Value tap = c.reshape(c.slice(k, kStart, kLimit, kStride), kt.getShape().drop_front(n));
      SmallVector<int64_t> tapBatch = grouped ? SmallVector<int64_t>{1} : SmallVector<int64_t>{};
      Value product = c.dot(part, tap, batchL, tapBatch, {last}, {0}, element);
      out = out ? c.e.add(out, product) : product;
    });
  } else {
    SmallVector<int64_t> contractL, contractR;
    for (int64_t i = 0; i < n; ++i) {
      contractL.push_back(at.spatial0 + i);
      contractR.push_back(i);
    }
    contractL.push_back(last);
    contractR.push_back(n);
    SmallVector<Value> pieces;
    forEach(outSpatial, [&] {
      Value part = spatialSlice(strides, window, rhsDilation);
      Value product = c.dot(part, k, batchL, batchR, contractL, contractR, element);
      // [G?, X..., Fg] -> [G?, X..., 1 (per spatial dim)..., Fg]
      RankedTensorType pt = tensorType(product);
      SmallVector<int64_t> shape(pt.getShape().drop_back());
      shape.append(n, 1);
      shape.push_back(pt.getShape().back());
      pieces.push_back(c.reshape(product, shape));
    });
    int64_t outSpatial0 = tensorType(pieces.front()).getRank() - 1 - n;
    for (int64_t d = n - 1; d >= 0; --d) {
      SmallVector<Value> joined;
      for (size_t i = 0; i < pieces.size(); i += outSpatial[d])
        joined.push_back(
            c.concatenate(ArrayRef<Value>(pieces).slice(i, outSpatial[d]), outSpatial0 + d));
      pieces = joined;
    }
    out = pieces.front();
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
  for (size_t i = 0; i < n; ++i) {
    lhs = c.padDim(lhs, i + 1, low[i], high[i], (*lhsDilation)[i] - 1);
  }
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
  if (std::min(taps, positions) > kMaxProducts || positions == 0 || taps == 0) {
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
                           << ") would import as " << std::min(taps, positions)
                           << " matrix products, one per window tap or output position; "
                              "shardc imports convolutions of at most "
                           << kMaxProducts << " (and a non-empty window and output)";
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
