//===- CommDialect.cpp - comm ops: groups syntax and verifiers ------------===//
//
// Groups are stored flat with a group size and printed nested:
// `groups = [[0, 1], [2, 3]]`. Verifiers keep: groups non-empty, equal-sized,
// disjoint (a device in two groups of one collective would deadlock).
//
//===----------------------------------------------------------------------===//
#include "dialects/comm/Comm.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/SmallSet.h"

#include "dialects/DeviceIds.h"

#include <algorithm>
#include <optional>
#include <vector>

using namespace mlir;
using namespace mlir::comm;

#include "dialects/comm/CommDialect.cpp.inc"

void CommDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/comm/CommOps.cpp.inc"
      >();
}

static ParseResult parseGroups(OpAsmParser &parser, DenseI64ArrayAttr &groups,
                               IntegerAttr &groupSize) {
  SmallVector<int64_t> flat;
  int64_t size = -1;
  auto parseGroup = [&]() -> ParseResult {
    int64_t before = flat.size();
    if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square, [&]() {
          int64_t id;
          if (parser.parseInteger(id))
            return failure();
          flat.push_back(id);
          return success();
        }))
      return failure();
    int64_t n = flat.size() - before;
    if (size >= 0 && n != size)
      return parser.emitError(parser.getCurrentLocation(),
                              "comm_all_reduce_c1/comm_all_gather_c1/comm_all_slice_c1/"
                              "comm_reduce_scatter_c1/comm_all_to_all_c1: "
                              "groups must all have ")
             << size << " members, but one has " << n;
    size = n;
    return success();
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square, parseGroup))
    return failure();
  groups = parser.getBuilder().getDenseI64ArrayAttr(flat);
  groupSize = parser.getBuilder().getI64IntegerAttr(size < 0 ? 0 : size);
  return success();
}

static void printGroups(OpAsmPrinter &p, Operation *, DenseI64ArrayAttr groups,
                        IntegerAttr groupSize) {
  int64_t size = groupSize.getInt();
  ArrayRef<int64_t> flat = groups.asArrayRef();
  p << "[";
  for (int64_t g = 0; size > 0 && g * size < static_cast<int64_t>(flat.size()); ++g) {
    if (g)
      p << ", ";
    p << "[";
    llvm::interleaveComma(flat.slice(g * size, size), p);
    p << "]";
  }
  p << "]";
}

// Pairs are stored flat (source, target, source, target, ...) and printed
// nested: `pairs = [[0, 1], [1, 0]]`.
static ParseResult parsePairs(OpAsmParser &parser, DenseI64ArrayAttr &pairs) {
  SmallVector<int64_t> flat;
  auto parsePair = [&]() -> ParseResult {
    int64_t source, target;
    if (parser.parseLSquare() || parser.parseInteger(source) || parser.parseComma() ||
        parser.parseInteger(target) || parser.parseRSquare())
      return failure();
    flat.push_back(source);
    flat.push_back(target);
    return success();
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square, parsePair))
    return failure();
  pairs = parser.getBuilder().getDenseI64ArrayAttr(flat);
  return success();
}

static void printPairs(OpAsmPrinter &p, Operation *, DenseI64ArrayAttr pairs) {
  ArrayRef<int64_t> flat = pairs.asArrayRef();
  p << "[";
  for (size_t i = 0; i + 1 < flat.size(); i += 2)
    p << (i ? ", " : "") << "[" << flat[i] << ", " << flat[i + 1] << "]";
  p << "]";
}

static LogicalResult verifyGroups(Operation *op, StringRef label, ArrayRef<int64_t> flat,
                                  int64_t size) {
  if (size <= 0 || flat.empty())
    return op->emitOpError(label) << ": groups must be non-empty";
  if (flat.size() % size != 0)
    return op->emitOpError(label) << ": " << flat.size()
                                  << " device ids do not split into groups of " << size;
  for (int64_t id : flat)
    if (id < 0)
      return op->emitOpError(label) << ": device id " << id << " is negative";
  if (std::optional<int64_t> id = shardc::repeatedDeviceId(flat.vec()))
    return op->emitOpError(label) << ": device " << *id << " appears in two groups";
  return success();
}

LogicalResult AllReduceOp::verify() {
  if (failed(verifyGroups(*this, "comm_all_reduce_c1", getGroups(), getGroupSize())))
    return failure();
  if (getOperand().getType() != getType())
    return emitOpError("comm_all_reduce_c2: operand type ")
           << getOperand().getType() << " differs from result type " << getType();
  return success();
}

static LogicalResult verifyConcat(Operation *op, StringRef label, int64_t dim,
                                  RankedTensorType small, RankedTensorType big, int64_t n) {
  if (dim < 0 || dim >= small.getRank() || small.getRank() != big.getRank())
    return op->emitOpError(label) << ": dim " << dim << " is out of range";
  for (int64_t d = 0; d < small.getRank(); ++d) {
    int64_t want = d == dim ? small.getDimSize(d) * n : small.getDimSize(d);
    if (big.getDimSize(d) != want)
      return op->emitOpError(label) << ": expected dim " << d << " of the gathered type to be "
                                    << want << ", got " << big.getDimSize(d);
  }
  if (small.getElementType() != big.getElementType())
    return op->emitOpError(label) << ": element types differ";
  return success();
}

LogicalResult AllGatherOp::verify() {
  if (failed(verifyGroups(*this, "comm_all_gather_c1", getGroups(), getGroupSize())))
    return failure();
  return verifyConcat(*this, "comm_all_gather_c2", getDim(),
                      cast<RankedTensorType>(getOperand().getType()),
                      cast<RankedTensorType>(getType()), getGroupSize());
}

LogicalResult AllSliceOp::verify() {
  if (failed(verifyGroups(*this, "comm_all_slice_c1", getGroups(), getGroupSize())))
    return failure();
  return verifyConcat(*this, "comm_all_slice_c2", getDim(), cast<RankedTensorType>(getType()),
                      cast<RankedTensorType>(getOperand().getType()), getGroupSize());
}

LogicalResult ReduceScatterOp::verify() {
  if (failed(verifyGroups(*this, "comm_reduce_scatter_c1", getGroups(), getGroupSize())))
    return failure();
  return verifyConcat(*this, "comm_reduce_scatter_c2", getDim(),
                      cast<RankedTensorType>(getType()),
                      cast<RankedTensorType>(getOperand().getType()), getGroupSize());
}

LogicalResult AllToAllOp::verify() {
  if (failed(verifyGroups(*this, "comm_all_to_all_c1", getGroups(), getGroupSize())))
    return failure();
  auto in = cast<RankedTensorType>(getOperand().getType());
  auto out = cast<RankedTensorType>(getType());
  int64_t split = getSplitDim(), concat = getConcatDim(), n = getGroupSize();
  if (in.getRank() != out.getRank())
    return emitOpError("comm_all_to_all_c2: operand and result ranks differ");
  for (int64_t d : {split, concat})
    if (d < 0 || d >= in.getRank())
      return emitOpError("comm_all_to_all_c2: dim ") << d << " is out of range";
  if (split == concat)
    return emitOpError("comm_all_to_all_c2: split_dim and concat_dim are both ") << split;
  if (in.getDimSize(split) % n != 0)
    return emitOpError("comm_all_to_all_c2: split dim ")
           << split << " of size " << in.getDimSize(split) << " does not split into " << n
           << " pieces";
  for (int64_t d = 0; d < in.getRank(); ++d) {
    int64_t want = d == split    ? in.getDimSize(d) / n
                   : d == concat ? in.getDimSize(d) * n
                                 : in.getDimSize(d);
    if (out.getDimSize(d) != want)
      return emitOpError("comm_all_to_all_c2: expected dim ")
             << d << " of the result to be " << want << ", got " << out.getDimSize(d);
  }
  if (in.getElementType() != out.getElementType())
    return emitOpError("comm_all_to_all_c2: element types differ");
  return success();
}

LogicalResult CollectivePermuteOp::verify() {
  ArrayRef<int64_t> flat = getPairs();
  if (flat.empty())
    return emitOpError("comm_collective_permute_c1: pairs must be non-empty");
  if (flat.size() % 2 != 0)
    return emitOpError("comm_collective_permute_c1: pairs has an odd number of ids");
  for (int64_t id : flat)
    if (id < 0)
      return emitOpError("comm_collective_permute_c1: device id ") << id << " is negative";
  for (auto [first, role] : {std::pair{size_t(0), "source"}, std::pair{size_t(1), "target"}}) {
    std::vector<int64_t> ids(flat.size() / 2);
    for (size_t i = 0; i < ids.size(); ++i)
      ids[i] = flat[2 * i + first];
    if (std::optional<int64_t> id = shardc::repeatedDeviceId(std::move(ids)))
      return emitOpError("comm_collective_permute_c1: device ") << *id << " is a " << role
                                                                << " twice";
  }
  if (getOperand().getType() != getType())
    return emitOpError("comm_collective_permute_c2: operand type ")
           << getOperand().getType() << " differs from result type " << getType();
  return success();
}

LogicalResult DeviceValueOp::verify() {
  if (getValues().empty())
    return emitOpError("comm_device_value_c1: the per-device table is empty");
  if (getType().getRank() != 0)
    return emitOpError("comm_device_value_c1: the result must be a rank-0 tensor, not ")
           << getType();
  return success();
}

#define GET_OP_CLASSES
#include "dialects/comm/CommOps.cpp.inc"
