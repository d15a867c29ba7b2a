//===- ShapeOps.cpp - verifiers of ops that move or make shape ------------===//
//
// Messages start with the constraint label from GArrayShapeOps.td.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "dialects/garray/VerifyUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::garray;

//===----------------------------------------------------------------------===//
// broadcast_in_dim
//===----------------------------------------------------------------------===//

LogicalResult BroadcastInDimOp::verify() {
  auto in = cast<RankedTensorType>(getOperand().getType());
  auto out = cast<RankedTensorType>(getType());
  ArrayRef<int64_t> dims = getDims();
  if (static_cast<int64_t>(dims.size()) != in.getRank())
    return emitOpError("broadcast_in_dim_c1: dims has ")
           << dims.size() << " entries but the operand has rank " << in.getRank();
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (d < 0 || d >= out.getRank())
      return emitOpError("broadcast_in_dim_c2: dims[")
             << i << "] = " << d << " is out of range for a result of rank " << out.getRank();
    if (i > 0 && d <= dims[i - 1])
      return emitOpError("broadcast_in_dim_c2: dims must be strictly increasing, but dims[")
             << i << "] = " << d << " follows " << dims[i - 1];
    if (in.getDimSize(i) != 1 && in.getDimSize(i) != out.getDimSize(d))
      return emitOpError("broadcast_in_dim_c3: operand dim ")
             << i << " has size " << in.getDimSize(i) << " but result dim " << d
             << " has size " << out.getDimSize(d) << "; sizes must match or the operand's be 1";
  }
  if (in.getElementType() != out.getElementType())
    return emitOpError("broadcast_in_dim_c4: element types differ: ")
           << in.getElementType() << " vs " << out.getElementType();
  return success();
}


//===----------------------------------------------------------------------===//
// reshape
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  auto in = cast<RankedTensorType>(getOperand().getType());
  auto out = cast<RankedTensorType>(getType());
  if (in.getNumElements() != out.getNumElements())
    return emitOpError("reshape_c1: the operand ")
           << in << " has " << in.getNumElements() << " elements but the result " << out
           << " has " << out.getNumElements();
  if (in.getElementType() != out.getElementType())
    return emitOpError("reshape_c2: element types differ: ")
           << in.getElementType() << " vs " << out.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// transpose
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::verify() {
  auto in = cast<RankedTensorType>(getOperand().getType());
  auto out = cast<RankedTensorType>(getType());
  ArrayRef<int64_t> perm = getPermutation();
  if (static_cast<int64_t>(perm.size()) != in.getRank())
    return emitOpError("transpose_c1: permutation has ")
           << perm.size() << " entries but the operand has rank " << in.getRank();
  llvm::SmallSet<int64_t, 8> seen;
  if (failed(checkDimList(*this, "transpose_c1", "permutation", perm, in.getRank(), seen)))
    return failure();
  if (out.getRank() != in.getRank())
    return emitOpError("transpose_c2: the result has rank ")
           << out.getRank() << " but the operand has rank " << in.getRank();
  for (auto [i, p] : llvm::enumerate(perm))
    if (out.getDimSize(i) != in.getDimSize(p))
      return emitOpError("transpose_c2: result dim ")
             << i << " has size " << out.getDimSize(i) << " but operand dim " << p
             << " (permutation[" << i << "]) has size " << in.getDimSize(p);
  if (in.getElementType() != out.getElementType())
    return emitOpError("transpose_c3: element types differ: ")
           << in.getElementType() << " vs " << out.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// slice
//===----------------------------------------------------------------------===//

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

LogicalResult SliceOp::verify() {
  auto in = cast<RankedTensorType>(getOperand().getType());
  auto out = cast<RankedTensorType>(getType());
  ArrayRef<int64_t> start = getStart(), limit = getLimit(), strides = getStrides();
  for (auto [name, list] : {std::pair<StringRef, ArrayRef<int64_t>>{"start", start},
                            {"limit", limit},
                            {"strides", strides}})
    if (static_cast<int64_t>(list.size()) != in.getRank())
      return emitOpError("slice_c1: ")
             << name << " has " << list.size() << " entries but the operand has rank "
             << in.getRank();
  for (int64_t d = 0; d < in.getRank(); ++d) {
    int64_t size = in.getDimSize(d);
    if (start[d] < 0 || start[d] >= limit[d] || limit[d] > size)
      return emitOpError("slice_c2: dim ")
             << d << " has start " << start[d] << " and limit " << limit[d]
             << ", but 0 <= start < limit <= " << size << " (its size) must hold";
    if (strides[d] <= 0)
      return emitOpError("slice_c3: dim ") << d << " has stride " << strides[d]
                                           << "; strides must be positive";
  }
  if (out.getRank() != in.getRank())
    return emitOpError("slice_c4: the result has rank ")
           << out.getRank() << " but the operand has rank " << in.getRank();
  for (int64_t d = 0; d < in.getRank(); ++d) {
    int64_t want = ceilDiv(limit[d] - start[d], strides[d]);
    if (out.getDimSize(d) != want)
      return emitOpError("slice_c4: result dim ")
             << d << " has size " << out.getDimSize(d) << " but " << start[d] << ":"
             << limit[d] << ":" << strides[d] << " selects " << want << " elements";
  }
  if (in.getElementType() != out.getElementType())
    return emitOpError("slice_c5: element types differ: ")
           << in.getElementType() << " vs " << out.getElementType();
  return success();
}

/// Whether dim `d` is kept whole: the only kind of dim a sharding may split
/// (FactorRules.cpp), so the only one whose extent differs between devices.
bool SliceOp::keepsWholeDim(int64_t d) {
  auto in = cast<RankedTensorType>(getOperand().getType());
  return getStart()[d] == 0 && getStrides()[d] == 1 && getLimit()[d] == in.getDimSize(d);
}

// A sharded dim is a whole one (start 0, stride 1), so only its limit names a
// global extent: it becomes the local size. Every other dim is unchanged.
LogicalResult SliceOp::localizeAttributes() {
  auto out = cast<RankedTensorType>(getType());
  SmallVector<int64_t> limit(getLimit());
  for (int64_t d = 0; d < out.getRank(); ++d) {
    if (out.getDimSize(d) == ceilDiv(limit[d] - getStart()[d], getStrides()[d]))
      continue;
    if (getStart()[d] != 0 || getStrides()[d] != 1)
      return emitOpError("internal: dim ")
             << d << " is sliced (start " << getStart()[d] << ", stride " << getStrides()[d]
             << ") but has a local extent of " << out.getDimSize(d)
             << "; only whole dims may be sharded";
    limit[d] = out.getDimSize(d);
  }
  setLimit(limit);
  return success();
}

//===----------------------------------------------------------------------===//
// pad
//===----------------------------------------------------------------------===//

LogicalResult PadOp::verify() {
  auto in = cast<RankedTensorType>(getOperand().getType());
  auto value = cast<RankedTensorType>(getPaddingValue().getType());
  auto out = cast<RankedTensorType>(getType());
  ArrayRef<int64_t> low = getLow(), high = getHigh();
  if (static_cast<int64_t>(low.size()) != in.getRank() ||
      static_cast<int64_t>(high.size()) != in.getRank())
    return emitOpError("pad_c1: low has ")
           << low.size() << " and high " << high.size()
           << " entries but the operand has rank " << in.getRank();
  for (int64_t d = 0; d < in.getRank(); ++d)
    if (low[d] < 0 || high[d] < 0)
      return emitOpError("pad_c2: dim ")
             << d << " has low " << low[d] << " and high " << high[d]
             << "; padding must be non-negative (use garray.slice to cut)";
  if (out.getRank() != in.getRank())
    return emitOpError("pad_c3: the result has rank ")
           << out.getRank() << " but the operand has rank " << in.getRank();
  for (int64_t d = 0; d < in.getRank(); ++d)
    if (out.getDimSize(d) != low[d] + in.getDimSize(d) + high[d])
      return emitOpError("pad_c3: result dim ")
             << d << " has size " << out.getDimSize(d) << " but " << low[d] << " + "
             << in.getDimSize(d) << " + " << high[d] << " = "
             << low[d] + in.getDimSize(d) + high[d];
  if (value.getRank() != 0)
    return emitOpError("pad_c4: the padding value must be a rank-0 tensor, not ") << value;
  if (value.getElementType() != in.getElementType() ||
      out.getElementType() != in.getElementType())
    return emitOpError("pad_c4: element types differ: operand ")
           << in.getElementType() << ", padding value " << value.getElementType()
           << ", result " << out.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// concatenate
//===----------------------------------------------------------------------===//

// %c = garray.concatenate %a, %b, dim = 0 : (T0, T1) -> R
ParseResult ConcatenateOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::UnresolvedOperand> inputs;
  bool sawDim = false;
  do {
    if (succeeded(parser.parseOptionalKeyword("dim"))) {
      sawDim = true;
      break;
    }
    if (parser.parseOperand(inputs.emplace_back()))
      return failure();
  } while (succeeded(parser.parseOptionalComma()));
  int64_t dim = 0;
  llvm::SMLoc typeLoc;
  FunctionType type;
  if (!sawDim)
    return parser.emitError(parser.getCurrentLocation(), "expected ', dim = <dimension>'");
  if (parser.parseEqual() || parser.parseInteger(dim) ||
      parser.parseOptionalAttrDict(result.attributes) || parser.parseColon() ||
      parser.getCurrentLocation(&typeLoc) || parser.parseType(type) ||
      parser.resolveOperands(inputs, type.getInputs(), typeLoc, result.operands))
    return failure();
  result.addAttribute(getDimAttrName(result.name), parser.getBuilder().getI64IntegerAttr(dim));
  result.addTypes(type.getResults());
  return success();
}

void ConcatenateOp::print(OpAsmPrinter &p) {
  p << ' ';
  if (!getInputs().empty())
    p << getInputs() << ", ";
  p << "dim = " << getDim();
  p.printOptionalAttrDict((*this)->getAttrs(), {getDimAttrName()});
  p << " : ";
  p.printFunctionalType(getInputs().getTypes(), getOperation()->getResultTypes());
}

LogicalResult ConcatenateOp::verify() {
  auto out = cast<RankedTensorType>(getType());
  if (getInputs().empty())
    return emitOpError("concatenate_c1: at least one operand is needed");
  int64_t rank = out.getRank();
  int64_t dim = getDim();
  for (auto [i, v] : llvm::enumerate(getInputs())) {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getRank() != rank)
      return emitOpError("concatenate_c1: operand #")
             << i << " has rank " << t.getRank() << " but the result has rank " << rank;
  }
  if (dim < 0 || dim >= rank)
    return emitOpError("concatenate_c1: dim ") << dim << " is out of range for rank " << rank;
  int64_t total = 0;
  for (auto [i, v] : llvm::enumerate(getInputs())) {
    auto t = cast<RankedTensorType>(v.getType());
    for (int64_t d = 0; d < rank; ++d)
      if (d != dim && t.getDimSize(d) != out.getDimSize(d))
        return emitOpError("concatenate_c2: operand #")
               << i << " has size " << t.getDimSize(d) << " in dim " << d
               << " but the result has " << out.getDimSize(d);
    total += t.getDimSize(dim);
  }
  if (out.getDimSize(dim) != total)
    return emitOpError("concatenate_c3: the result has size ")
           << out.getDimSize(dim) << " in dim " << dim << " but the operands add up to "
           << total;
  for (auto [i, v] : llvm::enumerate(getInputs())) {
    Type e = cast<RankedTensorType>(v.getType()).getElementType();
    if (e != out.getElementType())
      return emitOpError("concatenate_c4: operand #")
             << i << " has element type " << e << " but the result has "
             << out.getElementType();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// reverse
//===----------------------------------------------------------------------===//

LogicalResult ReverseOp::verify() {
  llvm::SmallSet<int64_t, 8> seen;
  return checkDimList(*this, "reverse_c1", "reversed", getDims(),
                      cast<RankedTensorType>(getType()).getRank(), seen);
}

//===----------------------------------------------------------------------===//
// shift
//===----------------------------------------------------------------------===//

LogicalResult ShiftOp::verify() {
  auto in = cast<RankedTensorType>(getOperand().getType());
  auto fill = cast<RankedTensorType>(getFill().getType());
  int64_t dim = getDim(), offset = getOffset();
  if (dim < 0 || dim >= in.getRank())
    return emitOpError("shift_c1: dim ") << dim << " is out of range for an operand of rank "
                                        << in.getRank();
  if (offset <= -in.getDimSize(dim) || offset >= in.getDimSize(dim))
    return emitOpError("shift_c1: offset ")
           << offset << " moves every element of dim " << dim << " (size "
           << in.getDimSize(dim) << ") out; |offset| must be less than the size";
  if (getType() != in)
    return emitOpError("shift_c2: the result type ") << getType() << " differs from the operand's "
                                                     << in;
  if (fill.getRank() != 0 || fill.getElementType() != in.getElementType())
    return emitOpError("shift_c3: fill must be a rank-0 tensor of ")
           << in.getElementType() << ", not " << fill;
  return success();
}
// iota
//===----------------------------------------------------------------------===//

LogicalResult IotaOp::verify() {
  auto out = cast<RankedTensorType>(getType());
  int64_t dim = getDim();
  if (out.getRank() < 1 || dim < 0 || dim >= out.getRank())
    return emitOpError("iota_c1: dim ") << dim << " is out of range for a result of rank "
                                       << out.getRank();
  Type elem = out.getElementType();
  if (elem.isInteger(1))
    return emitOpError("iota_c2: the element type must be a float or an integer wider than i1");
  // The largest index, size - 1, must survive the conversion exactly (an f16
  // iota of 4096 would repeat indices; an i8 iota of 300 would wrap).
  int64_t last = out.getDimSize(dim) - 1;
  bool exact;
  if (auto f = dyn_cast<FloatType>(elem)) {
    llvm::APFloat v(static_cast<double>(last));
    bool lost = false;
    v.convert(f.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven, &lost);
    // All integers up to 2^precision are exact (and then so is every index
    // below `last`) unless `last` overflows the type.
    unsigned precision = llvm::APFloat::semanticsPrecision(f.getFloatSemantics());
    exact = !lost && !v.isInfinity() && (precision >= 62 || last <= (int64_t(1) << precision));
  } else {
    unsigned w = elem.getIntOrFloatBitWidth();
    exact = w > 64 || last <= static_cast<int64_t>((uint64_t(1) << (w - 1)) - 1);
  }
  if (!exact)
    return emitOpError("iota_c3: the indices 0..")
           << last << " along dim " << dim << " are not all exactly representable in " << elem;
  return success();
}
