//===- StableHloOps.cpp - the importer's op table -------------------------===//
//
// StableHLO ops whose meaning is a garray op's, one entry each. Most map
// one to one (the garray op set follows StableHLO's names and semantics);
// the few differences are bridged here, where they are visible:
//
//   - a scalar `pred` of select, or scalar bounds of clamp, are broadcast
//     (garray's elementwise ops take full-shape operands);
//   - broadcast_in_dim with unsorted dims transposes the operand first;
//   - a dot_general whose result type is wider than its operands' (bf16
//     inputs, f32 result) converts the operands first, which is exact;
//   - compare refuses UNSIGNED order on integers, which garray's compare
//     does not have (unsigned integers became signless ones, their
//     comparisons rewritten, before: UnsignedToSignless.cpp); TOTALORDER on
//     floats compares their bits as signed integers, the magnitude bits of
//     negative values flipped;
//   - optimization_barrier is dropped: it constrains XLA's scheduling, not
//     the values; so is a reduce_precision to the operand's own widths
//     (what jax.checkpoint's saving policies put on saved values).
//
// Reduce, gather and scatter have bodies or index maps to read: their own
// files, as do pad and reduce_window (WindowImport.cpp) and select_and_scatter
// (SelectAndScatterImport.cpp). erf, erfc, erf_inv and is_finite are built
// from several garray ops (SpecialFunctions.cpp), as are atan2, tan, the
// inverse trigonometric and the hyperbolic functions, cbrt, rounding away
// from zero, popcnt, count_leading_zeros and next_after
// (ElementaryFunctions.cpp); convolution from slices and dot_generals
// (ConvolutionImport.cpp), dynamic slices from slices or one-hot sums
// (DynamicSliceImport.cpp). Zero-size tensors are removed before
// (DropEmptyTensors.cpp). A while loop with a known trip count is
// unrolled before any op is imported (UnrollWhile.cpp), and a case becomes
// every branch and selects (CaseToSelect.cpp).
//
//===----------------------------------------------------------------------===//
#include "compiler/import/ImportOps.h"
#include "compiler/import/StableHloAttrText.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::garray;

namespace shardc::import {

RankedTensorType tensorType(Value v) { return cast<RankedTensorType>(v.getType()); }

Operation *createStableHlo(OpBuilder &b, Location loc, StringRef name, ValueRange operands,
                           Type result, ArrayRef<NamedAttribute> attrs) {
  OperationState state(loc, name);
  state.addOperands(operands);
  state.addTypes(result);
  state.addAttributes(attrs);
  return b.create(state);
}

Value stableHloConstant(OpBuilder &b, Location loc, DenseElementsAttr value) {
  auto type = cast<RankedTensorType>(value.getType());
  if (value.isSplat() && type.getRank() > 0 && value.getNumElements() > 1) {
    auto scalar = DenseElementsAttr::get(RankedTensorType::get({}, type.getElementType()),
                                         value.getSplatValue<Attribute>());
    return stableHloBroadcastScalar(b, loc, stableHloConstant(b, loc, scalar), type);
  }
  return createStableHlo(b, loc, "stablehlo.constant", {}, value.getType(),
                         {NamedAttribute(b.getStringAttr("value"), value)})
      ->getResult(0);
}

Value filledConstant(OpEmitter &e, RankedTensorType type, Attribute element) {
  auto scalarType = RankedTensorType::get({}, type.getElementType());
  Value scalar = ConstantOp::create(e.b, e.loc, DenseElementsAttr::get(scalarType, element));
  return type.getRank() == 0 ? scalar : e.broadcastScalar(scalar, type);
}

Value stableHloBroadcastScalar(OpBuilder &b, Location loc, Value scalar, Type type) {
  return createStableHlo(b, loc, "stablehlo.broadcast_in_dim", {scalar}, type,
                         {b.getNamedAttr("broadcast_dimensions", b.getDenseI64ArrayAttr({}))})
      ->getResult(0);
}

SmallVector<NamedAttribute> attributesOf(Operation *op) {
  SmallVector<NamedAttribute> all(op->getAttrs());
  if (auto props = dyn_cast_or_null<DictionaryAttr>(op->getPropertiesAsAttribute()))
    llvm::append_range(all, props.getValue());
  return all;
}

std::optional<SmallVector<int64_t>> readI64Array(Operation *op, StringRef name) {
  auto attr = op->getAttrOfType<DenseI64ArrayAttr>(name);
  if (!attr) {
    op->emitError() << "'" << op->getName() << "' needs an `" << name
                    << " = array<i64: ...>` attribute";
    return std::nullopt;
  }
  return llvm::to_vector(attr.asArrayRef());
}

std::optional<int64_t> readI64(Operation *op, StringRef name) {
  auto attr = op->getAttrOfType<IntegerAttr>(name);
  if (!attr || attr.getValue().getSignificantBits() > 63) {
    op->emitError() << "'" << op->getName() << "' needs an integer `" << name << "` attribute";
    return std::nullopt;
  }
  return attr.getInt();
}

std::optional<std::string> readAttrText(Operation *op, StringRef name) {
  Attribute attr = op->getAttr(name);
  if (!attr) {
    op->emitError() << "'" << op->getName() << "' needs a `" << name << "` attribute";
    return std::nullopt;
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return text;
}

Value transposed(OpEmitter &e, Value x, ArrayRef<int64_t> perm) {
  if (llvm::equal(perm, llvm::seq<int64_t>(0, static_cast<int64_t>(perm.size()))))
    return x;
  RankedTensorType t = tensorType(x);
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(t.getDimSize(p));
  return TransposeOp::create(e.b, e.loc, RankedTensorType::get(shape, t.getElementType()), x,
                             e.b.getDenseI64ArrayAttr(perm));
}

Value broadcastAnyOrder(OpEmitter &e, Value x, Type to, ArrayRef<int64_t> dimsIn) {
  SmallVector<int64_t> dims(dimsIn);
  RankedTensorType t = tensorType(x);
  SmallVector<int64_t> order = llvm::to_vector(llvm::seq<int64_t>(0, t.getRank()));
  llvm::sort(order, [&](int64_t a, int64_t b) {
    return std::make_pair(dims[a], a) < std::make_pair(dims[b], b);
  });
  if (!llvm::is_sorted(order)) {
    SmallVector<int64_t> shape, sorted;
    for (int64_t i : order) {
      shape.push_back(t.getDimSize(i));
      sorted.push_back(dims[i]);
    }
    x = TransposeOp::create(e.b, e.loc, RankedTensorType::get(shape, t.getElementType()), x,
                            e.b.getDenseI64ArrayAttr(order));
    dims = sorted;
  }
  if (x.getType() == to && llvm::equal(dims, llvm::seq<int64_t>(0, t.getRank())))
    return x;
  return BroadcastInDimOp::create(e.b, e.loc, to, x, e.b.getDenseI64ArrayAttr(dims));
}

namespace {

/// The garray op named `name` on `operands`, with the op's result type.
Value generic(Operation *op, OpEmitter &e, StringRef name, ValueRange operands) {
  OperationState state(e.loc, name);
  state.addOperands(operands);
  state.addTypes(op->getResultTypes());
  return e.b.create(state)->getResult(0);
}

template <const char *Name>
FailureOr<Values> elementwise(Operation *op, OpEmitter &e) {
  return Values{generic(op, e, Name, op->getOperands())};
}

// The one-to-one elementwise ops, by their garray names.
#define GARRAY_NAME(id, text) constexpr char id[] = "garray." text;
GARRAY_NAME(kAbs, "abs")
GARRAY_NAME(kCeil, "ceil")
GARRAY_NAME(kCos, "cos")
GARRAY_NAME(kExp, "exp")
GARRAY_NAME(kExpm1, "expm1")
GARRAY_NAME(kFloor, "floor")
GARRAY_NAME(kLog, "log")
GARRAY_NAME(kLog1p, "log1p")
GARRAY_NAME(kLogistic, "logistic")
GARRAY_NAME(kNeg, "neg")
GARRAY_NAME(kNot, "not")
GARRAY_NAME(kRound, "round")
GARRAY_NAME(kRsqrt, "rsqrt")
GARRAY_NAME(kSign, "sign")
GARRAY_NAME(kSin, "sin")
GARRAY_NAME(kSqrt, "sqrt")
GARRAY_NAME(kTanh, "tanh")
GARRAY_NAME(kAdd, "add")
GARRAY_NAME(kAnd, "and")
GARRAY_NAME(kDiv, "div")
GARRAY_NAME(kMax, "max")
GARRAY_NAME(kMin, "min")
GARRAY_NAME(kMul, "mul")
GARRAY_NAME(kOr, "or")
GARRAY_NAME(kPow, "pow")
GARRAY_NAME(kRem, "rem")
GARRAY_NAME(kSub, "sub")
GARRAY_NAME(kXor, "xor")
GARRAY_NAME(kShiftLeft, "shift_left")
GARRAY_NAME(kShiftRightArithmetic, "shift_right_arithmetic")
GARRAY_NAME(kShiftRightLogical, "shift_right_logical")
GARRAY_NAME(kBitcastConvert, "bitcast_convert")
#undef GARRAY_NAME

/// `v` broadcast to `like`'s shape when it is a scalar and `like` is not.
Value fullShape(OpEmitter &e, Value v, Value like) {
  RankedTensorType t = tensorType(v), to = tensorType(like);
  if (t.getRank() != 0 || to.getRank() == 0)
    return v;
  return e.broadcastScalar(v, RankedTensorType::get(to.getShape(), t.getElementType()));
}

FailureOr<Values> importSelect(Operation *op, OpEmitter &e) {
  Value pred = fullShape(e, op->getOperand(0), op->getResult(0));
  return Values{SelectOp::create(e.b, e.loc, op->getResult(0).getType(), pred,
                                 op->getOperand(1), op->getOperand(2))
                    .getResult()};
}

FailureOr<Values> importClamp(Operation *op, OpEmitter &e) {
  Value x = op->getOperand(1);
  Value lo = fullShape(e, op->getOperand(0), x), hi = fullShape(e, op->getOperand(2), x);
  return Values{ClampOp::create(e.b, e.loc, op->getResult(0).getType(), lo, x, hi).getResult()};
}

/// A float's bits as a signed integer that orders as IEEE 754's totalOrder
/// does (-NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN): the magnitude
/// bits of a negative value flipped, so that larger magnitudes sort lower.
Value totalOrderKey(OpEmitter &e, Value x) {
  RankedTensorType t = tensorType(x);
  unsigned width = t.getElementType().getIntOrFloatBitWidth();
  auto intType = RankedTensorType::get(t.getShape(), e.b.getIntegerType(width));
  Value bits = BitcastConvertOp::create(e.b, e.loc, intType, x);
  auto splat = [&](uint64_t v) -> Value {
    return filledConstant(e, intType, e.b.getIntegerAttr(intType.getElementType(), APInt(width, v)));
  };
  Value sign = ShiftRightArithmeticOp::create(e.b, e.loc, intType, bits, splat(width - 1));
  Value magnitude = splat((uint64_t(1) << (width - 1)) - 1);
  Value flip = AndOp::create(e.b, e.loc, intType, sign, magnitude);
  return XorOp::create(e.b, e.loc, intType, bits, flip);
}

FailureOr<Values> importCompare(Operation *op, OpEmitter &e) {
  std::string error;
  std::optional<std::string> text = readAttrText(op, "comparison_direction");
  if (!text)
    return failure();
  std::optional<std::string> dir = parseStableHloEnum(*text, "comparison_direction", error);
  std::optional<ComparisonDirection> d =
      dir ? symbolizeComparisonDirection(llvm::StringRef(*dir).lower()) : std::nullopt;
  if (!d)
    return op->emitError() << "comparison_direction: " << (dir ? "unknown direction " + *dir
                                                                : error);
  Type element = tensorType(op->getOperand(0)).getElementType();
  if (op->getAttr("compare_type")) {
    std::optional<std::string> typeText = readAttrText(op, "compare_type");
    std::optional<std::string> kind =
        typeText ? parseStableHloEnum(*typeText, "comparison_type", error) : std::nullopt;
    if (!kind)
      return op->emitError() << "compare_type: " << error;
    if (*kind == "TOTALORDER" && isa<FloatType>(element))
      return Values{e.compare(*d, totalOrderKey(e, op->getOperand(0)),
                              totalOrderKey(e, op->getOperand(1)))};
    bool ok = *kind == "NOTYPE" || (*kind == "FLOAT" && isa<FloatType>(element)) ||
              (*kind == "SIGNED" && element.isSignlessInteger()) ||
              (element.isInteger(1) && (*kind == "UNSIGNED" || *kind == "SIGNED"));
    if (!ok)
      return op->emitError() << "compare_type " << *kind << " on " << element
                             << " is not supported: garray compares floats as IEEE 754 "
                                "(FLOAT) or in total order (TOTALORDER), and integers as "
                                "signed values (SIGNED)";
  }
  return Values{e.compare(*d, op->getOperand(0), op->getOperand(1))};
}

FailureOr<Values> importConvert(Operation *op, OpEmitter &e) {
  return Values{e.convert(op->getOperand(0), op->getResult(0).getType())};
}

FailureOr<Values> importConstant(Operation *op, OpEmitter &e) {
  auto value = op->getAttrOfType<ElementsAttr>("value");
  if (!value || value.getType() != op->getResult(0).getType())
    return op->emitError() << "'stablehlo.constant' needs a `value` of its result type "
                           << op->getResult(0).getType();
  return Values{ConstantOp::create(e.b, e.loc, value).getResult()};
}

FailureOr<Values> importIota(Operation *op, OpEmitter &e) {
  std::optional<int64_t> dim = readI64(op, "iota_dimension");
  if (!dim)
    return failure();
  return Values{IotaOp::create(e.b, e.loc, op->getResult(0).getType(),
                               e.b.getI64IntegerAttr(*dim))
                    .getResult()};
}

FailureOr<Values> importBroadcast(Operation *op, OpEmitter &e) {
  std::optional<SmallVector<int64_t>> dims = readI64Array(op, "broadcast_dimensions");
  if (!dims)
    return failure();
  if (static_cast<int64_t>(dims->size()) != tensorType(op->getOperand(0)).getRank())
    return op->emitError() << "broadcast_dimensions has " << dims->size() << " entries for an "
                           << "operand of rank " << tensorType(op->getOperand(0)).getRank();
  return Values{broadcastAnyOrder(e, op->getOperand(0), op->getResult(0).getType(), *dims)};
}

FailureOr<Values> importReshape(Operation *op, OpEmitter &e) {
  return Values{
      ReshapeOp::create(e.b, e.loc, op->getResult(0).getType(), op->getOperand(0)).getResult()};
}

FailureOr<Values> importTranspose(Operation *op, OpEmitter &e) {
  std::optional<SmallVector<int64_t>> perm = readI64Array(op, "permutation");
  if (!perm)
    return failure();
  return Values{TransposeOp::create(e.b, e.loc, op->getResult(0).getType(), op->getOperand(0),
                                    e.b.getDenseI64ArrayAttr(*perm))
                    .getResult()};
}

FailureOr<Values> importSlice(Operation *op, OpEmitter &e) {
  auto start = readI64Array(op, "start_indices");
  auto limit = start ? readI64Array(op, "limit_indices") : std::nullopt;
  auto strides = limit ? readI64Array(op, "strides") : std::nullopt;
  if (!strides)
    return failure();
  return Values{SliceOp::create(e.b, e.loc, op->getResult(0).getType(), op->getOperand(0),
                                e.b.getDenseI64ArrayAttr(*start),
                                e.b.getDenseI64ArrayAttr(*limit),
                                e.b.getDenseI64ArrayAttr(*strides))
                    .getResult()};
}

FailureOr<Values> importConcatenate(Operation *op, OpEmitter &e) {
  std::optional<int64_t> dim = readI64(op, "dimension");
  if (!dim)
    return failure();
  return Values{ConcatenateOp::create(e.b, e.loc, op->getResult(0).getType(),
                                      op->getOperands(), e.b.getI64IntegerAttr(*dim))
                    .getResult()};
}

FailureOr<Values> importReverse(Operation *op, OpEmitter &e) {
  std::optional<SmallVector<int64_t>> dims = readI64Array(op, "dimensions");
  if (!dims)
    return failure();
  return Values{ReverseOp::create(e.b, e.loc, op->getResult(0).getType(), op->getOperand(0),
                                  e.b.getDenseI64ArrayAttr(*dims))
                    .getResult()};
}

FailureOr<Values> importDotGeneral(Operation *op, OpEmitter &e) {
  std::optional<std::string> text = readAttrText(op, "dot_dimension_numbers");
  if (!text)
    return failure();
  std::string error;
  std::optional<StableHloFields> dims = parseStableHloFields(*text, error);
  if (!dims || dims->kind != "dot")
    return op->emitError() << "dot_dimension_numbers: "
                           << (dims ? "expected #stablehlo.dot<...>" : error);
  for (auto &[name, _] : dims->fields)
    if (name != "lhs_batching_dimensions" && name != "rhs_batching_dimensions" &&
        name != "lhs_contracting_dimensions" && name != "rhs_contracting_dimensions")
      return op->emitError() << "dot_dimension_numbers field `" << name
                             << "` is not supported";
  // The precision config asks XLA for at least some precision; garray's
  // dot computes in the element type exactly, which satisfies every level.
  Type element = tensorType(op->getResult(0)).getElementType();
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  for (Value *v : {&lhs, &rhs}) {
    RankedTensorType t = tensorType(*v);
    if (t.getElementType() == element)
      continue;
    if (!ConvertOp::isExact(t.getElementType(), element))
      return op->emitError() << "a dot_general of " << t.getElementType() << " giving "
                             << element
                             << " is not supported: garray's dot computes in one element type, "
                                "and converting "
                             << t.getElementType() << " to " << element << " loses values";
    *v = e.convert(*v, RankedTensorType::get(t.getShape(), element));
  }
  auto arr = [&](const char *name) { return e.b.getDenseI64ArrayAttr(dims->list(name)); };
  return Values{DotGeneralOp::create(e.b, e.loc, op->getResult(0).getType(), lhs, rhs,
                                     arr("lhs_batching_dimensions"),
                                     arr("rhs_batching_dimensions"),
                                     arr("lhs_contracting_dimensions"),
                                     arr("rhs_contracting_dimensions"))
                    .getResult()};
}

/// `jax.lax.square` (jnp.var's x ** 2) arrives as CHLO's square: x * x.
FailureOr<Values> importSquare(Operation *op, OpEmitter &e) {
  return Values{e.mul(op->getOperand(0), op->getOperand(0))};
}

FailureOr<Values> importBarrier(Operation *op, OpEmitter &) {
  return Values(op->getOperands().begin(), op->getOperands().end());
}

/// reduce_precision to `exponent_bits` and `mantissa_bits` and back: the
/// identity when those are at least the operand's own (jax.checkpoint with
/// a saving policy marks each saved value so), and f32 to bf16 and back for
/// 8 and 7 (round to nearest even, as both define it). Other widths change
/// how values underflow and overflow, which no garray op spells.
FailureOr<Values> importReducePrecision(Operation *op, OpEmitter &e) {
  Value x = op->getOperand(0);
  std::optional<int64_t> exponent = readI64(op, "exponent_bits");
  std::optional<int64_t> mantissa = readI64(op, "mantissa_bits");
  if (!exponent || !mantissa)
    return failure();
  auto element = dyn_cast<FloatType>(tensorType(x).getElementType());
  if (!element)
    return op->emitError() << "'stablehlo.reduce_precision' of " << tensorType(x)
                           << " needs a float operand";
  int64_t ownMantissa = element.getFPMantissaWidth() - 1;
  int64_t ownExponent = element.getWidth() - 1 - ownMantissa;
  if (*exponent >= ownExponent && *mantissa >= ownMantissa)
    return Values{x};
  if (element.isF32() && *exponent == 8 && *mantissa == 7) {
    auto bf16 = RankedTensorType::get(tensorType(x).getShape(), e.b.getBF16Type());
    return Values{e.convert(e.convert(x, bf16), x.getType())};
  }
  return op->emitError() << "'stablehlo.reduce_precision' of " << element << " to "
                         << *exponent << " exponent and " << *mantissa
                         << " mantissa bits is not supported (only to the operand's own "
                            "widths or wider, and f32 to bfloat16's 8 and 7); convert to a "
                            "narrower float type and back instead";
}

constexpr llvm::StringLiteral kCompareAttrs[] = {"comparison_direction", "compare_type"};
constexpr llvm::StringLiteral kConstantAttrs[] = {"value"};
constexpr llvm::StringLiteral kIotaAttrs[] = {"iota_dimension"};
constexpr llvm::StringLiteral kBroadcastAttrs[] = {"broadcast_dimensions"};
constexpr llvm::StringLiteral kTransposeAttrs[] = {"permutation"};
constexpr llvm::StringLiteral kSliceAttrs[] = {"start_indices", "limit_indices", "strides"};
constexpr llvm::StringLiteral kPadAttrs[] = {"edge_padding_low", "edge_padding_high",
                                             "interior_padding"};
constexpr llvm::StringLiteral kConcatAttrs[] = {"dimension"};
constexpr llvm::StringLiteral kReducePrecisionAttrs[] = {"exponent_bits", "mantissa_bits"};
constexpr llvm::StringLiteral kReverseAttrs[] = {"dimensions"};
constexpr llvm::StringLiteral kDotAttrs[] = {"dot_dimension_numbers", "precision_config"};
constexpr llvm::StringLiteral kDynamicSliceAttrs[] = {"slice_sizes"};
constexpr llvm::StringLiteral kReduceWindowAttrs[] = {"window_dimensions", "window_strides",
                                                      "base_dilations", "window_dilations",
                                                      "padding"};
constexpr llvm::StringLiteral kSelectAndScatterAttrs[] = {"window_dimensions", "window_strides",
                                                          "padding"};
constexpr llvm::StringLiteral kConvAttrs[] = {
    "dimension_numbers", "feature_group_count", "batch_group_count", "lhs_dilation",
    "rhs_dilation", "padding", "window_strides", "window_reversal", "precision_config"};
constexpr llvm::StringLiteral kReduceAttrs[] = {"dimensions"};
constexpr llvm::StringLiteral kGatherAttrs[] = {"dimension_numbers", "slice_sizes",
                                                "indices_are_sorted"};
constexpr llvm::StringLiteral kScatterAttrs[] = {"scatter_dimension_numbers",
                                                 "indices_are_sorted", "unique_indices"};

constexpr llvm::StringLiteral kAllReduceAttrs[] = {"channel_handle", "replica_groups",
                                                   "use_global_device_ids"};
constexpr llvm::StringLiteral kAllGatherAttrs[] = {"channel_handle", "replica_groups",
                                                   "use_global_device_ids", "all_gather_dim"};
constexpr llvm::StringLiteral kReduceScatterAttrs[] = {
    "channel_handle", "replica_groups", "use_global_device_ids", "scatter_dimension"};
constexpr llvm::StringLiteral kAllToAllAttrs[] = {"channel_handle", "replica_groups",
                                                  "split_dimension", "concat_dimension",
                                                  "split_count"};
constexpr llvm::StringLiteral kCollectivePermuteAttrs[] = {"channel_handle",
                                                           "source_target_pairs"};

const OpImport kTable[] = {
    {"stablehlo.abs", {}, elementwise<kAbs>},
    {"stablehlo.ceil", {}, elementwise<kCeil>},
    {"stablehlo.cosine", {}, elementwise<kCos>},
    {"stablehlo.exponential", {}, elementwise<kExp>},
    {"stablehlo.exponential_minus_one", {}, elementwise<kExpm1>},
    {"stablehlo.floor", {}, elementwise<kFloor>},
    {"stablehlo.log", {}, elementwise<kLog>},
    {"stablehlo.log_plus_one", {}, elementwise<kLog1p>},
    {"stablehlo.logistic", {}, elementwise<kLogistic>},
    {"stablehlo.negate", {}, elementwise<kNeg>},
    {"stablehlo.not", {}, elementwise<kNot>},
    {"stablehlo.round_nearest_even", {}, elementwise<kRound>},
    {"stablehlo.rsqrt", {}, elementwise<kRsqrt>},
    {"stablehlo.sign", {}, elementwise<kSign>},
    {"stablehlo.sine", {}, elementwise<kSin>},
    {"stablehlo.sqrt", {}, elementwise<kSqrt>},
    {"stablehlo.tanh", {}, elementwise<kTanh>},
    {"stablehlo.add", {}, elementwise<kAdd>},
    {"stablehlo.and", {}, elementwise<kAnd>},
    {"stablehlo.divide", {}, elementwise<kDiv>},
    {"stablehlo.maximum", {}, elementwise<kMax>},
    {"stablehlo.minimum", {}, elementwise<kMin>},
    {"stablehlo.multiply", {}, elementwise<kMul>},
    {"stablehlo.or", {}, elementwise<kOr>},
    {"stablehlo.power", {}, elementwise<kPow>},
    {"stablehlo.remainder", {}, elementwise<kRem>},
    {"stablehlo.subtract", {}, elementwise<kSub>},
    {"stablehlo.xor", {}, elementwise<kXor>},
    {"stablehlo.shift_left", {}, elementwise<kShiftLeft>},
    {"stablehlo.shift_right_arithmetic", {}, elementwise<kShiftRightArithmetic>},
    {"stablehlo.shift_right_logical", {}, elementwise<kShiftRightLogical>},
    {"stablehlo.bitcast_convert", {}, elementwise<kBitcastConvert>},
    {"stablehlo.select", {}, importSelect},
    {"stablehlo.clamp", {}, importClamp},
    {"stablehlo.compare", kCompareAttrs, importCompare},
    {"stablehlo.convert", {}, importConvert},
    {"stablehlo.constant", kConstantAttrs, importConstant},
    {"stablehlo.iota", kIotaAttrs, importIota},
    {"stablehlo.broadcast_in_dim", kBroadcastAttrs, importBroadcast},
    {"stablehlo.reshape", {}, importReshape},
    {"stablehlo.transpose", kTransposeAttrs, importTranspose},
    {"stablehlo.slice", kSliceAttrs, importSlice},
    {"stablehlo.pad", kPadAttrs, importPad},
    {"stablehlo.concatenate", kConcatAttrs, importConcatenate},
    {"stablehlo.dynamic_slice", kDynamicSliceAttrs, importDynamicSlice},
    {"stablehlo.dynamic_update_slice", {}, importDynamicUpdateSlice},
    {"stablehlo.reverse", kReverseAttrs, importReverse},
    {"stablehlo.dot_general", kDotAttrs, importDotGeneral},
    {"stablehlo.convolution", kConvAttrs, importConvolution},
    {"stablehlo.reduce", kReduceAttrs, importReduce},
    {"stablehlo.reduce_window", kReduceWindowAttrs, importReduceWindow},
    {"stablehlo.select_and_scatter", kSelectAndScatterAttrs, importSelectAndScatter},
    {"stablehlo.gather", kGatherAttrs, importGather},
    {"stablehlo.scatter", kScatterAttrs, importScatter},
    {"stablehlo.optimization_barrier", {}, importBarrier},
    {"stablehlo.reduce_precision", kReducePrecisionAttrs, importReducePrecision},
    {"stablehlo.is_finite", {}, importIsFinite},
    {"chlo.square", {}, importSquare},
    {"stablehlo.atan2", {}, importAtan2},
    {"stablehlo.tan", {}, importTan},
    {"stablehlo.cbrt", {}, importCbrt},
    {"stablehlo.round_nearest_afz", {}, importRoundAway},
    {"stablehlo.popcnt", {}, importPopcnt},
    {"stablehlo.count_leading_zeros", {}, importCountLeadingZeros},
    {"chlo.atan", {}, importAtan},
    {"chlo.asin", {}, importAsin},
    {"chlo.acos", {}, importAcos},
    {"chlo.sinh", {}, importSinh},
    {"chlo.cosh", {}, importCosh},
    {"chlo.asinh", {}, importAsinh},
    {"chlo.acosh", {}, importAcosh},
    {"chlo.atanh", {}, importAtanh},
    {"chlo.next_after", {}, importNextAfter},
    {"chlo.erf", {}, importErf},
    {"chlo.erfc", {}, importErfc},
    {"chlo.erf_inv", {}, importErfInv},
    {"chlo.lgamma", {}, importLgamma},
    {"chlo.digamma", {}, importDigamma},
    {"chlo.zeta", {}, importZeta},
    {"chlo.polygamma", {}, importPolygamma},
    // In a shard_map's body only (ShardMapImport.cpp).
    {"stablehlo.all_reduce", kAllReduceAttrs, importAllReduce},
    {"stablehlo.all_gather", kAllGatherAttrs, importAllGather},
    {"stablehlo.reduce_scatter", kReduceScatterAttrs, importReduceScatter},
    {"stablehlo.all_to_all", kAllToAllAttrs, importAllToAll},
    {"stablehlo.collective_permute", kCollectivePermuteAttrs, importCollectivePermute},
    {"stablehlo.partition_id", {}, importPartitionId},
};

} // namespace

const OpImport *lookupOpImport(StringRef name) {
  for (const OpImport &entry : kTable)
    if (entry.name == name)
      return &entry;
  return nullptr;
}

std::string supportedOpsSummary() {
  std::string out;
  for (const OpImport &entry : kTable) {
    llvm::StringRef name = entry.name;
    name.consume_front("stablehlo."); // chlo ops keep their dialect
    out += (out.empty() ? "" : ", ") + name.str();
  }
  return "the importer maps " + out +
         ", sdy.sharding_constraint, sdy.manual_computation, func.call and func.return "
         "(docs/import.md)";
}

} // namespace shardc::import
