//===- CommLowerToRuntime.cpp - comm ops → shardrt C ABI calls ------------===//
//
// An all_reduce or reduce_scatter is started right after its operand is
// computed and finished just before its result is first read
// (shardrt_*_start/_done), so independent work overlaps the reduction
// (Passes.td).
// Each collective copies its operand into a fresh buffer (one-shot
// bufferization usually writes the producer straight into it), passes raw
// pointers to the runtime, and reads the result back through a `restrict`
// to_tensor, so the buffer is this value's only view. Device groups become
// private constant globals. The runtime's signatures are those of
// runtime/include/shardrt.h; ranks call them in the same order (SPMD).
//
//===----------------------------------------------------------------------===//
#include "dialects/comm/Comm.h"
#include "dialects/garray/RuntimeTypes.h"
#include "passes/Passes.h"
#include "passes/collectives/Overlap.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace shardc {
#define GEN_PASS_DEF_COMMLOWERTORUNTIME
#include "passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using mlir::garray::runtimeDtype;
using mlir::garray::runtimeReduceOp;

namespace {

/// `shape` seen as [outer, inner] around `dim`: the product of the dims
/// before it and of it and the dims after it, as the runtime's collectives
/// take their buffers (shardrt.h).
std::pair<int64_t, int64_t> splitAt(ArrayRef<int64_t> shape, int64_t dim) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
    (d < dim ? outer : inner) *= shape[d];
  return {outer, inner};
}

class RuntimeCalls {
public:
  explicit RuntimeCalls(ModuleOp module) : module(module), ctx(module.getContext()) {}

  LogicalResult lower(Operation *op) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    auto in = cast<RankedTensorType>(op->getOperand(0).getType());
    auto out = cast<RankedTensorType>(op->getResult(0).getType());
    std::optional<shardrt_dtype> dtype = runtimeDtype(in.getElementType());
    if (!dtype)
      return op->emitError("the runtime has no collective for element type ")
             << in.getElementType();
    auto groupsOp = [&](auto c) {
      return std::make_tuple(pointerTo(b, loc, groupsGlobal(c.getGroups())),
                             i64(b, loc, c.getNumGroups()), i64(b, loc, c.getGroupSize()));
    };
    // A buffer of the result's local type, for the runtime to write.
    auto allocOut = [&] {
      return memref::AllocOp::create(b, loc, MemRefType::get(out.getShape(), out.getElementType()))
          .getResult();
    };
    Value result;
    // A collective of zero elements moves nothing: every rank runs the same
    // local program, so every rank skips it (and tensor.extract_slice
    // rejects an offset into a dim of size 0).
    if (out.getNumElements() == 0) {
      result = tensor::EmptyOp::create(b, loc, out.getShape(), out.getElementType());
    } else if (auto c = dyn_cast<comm::AllReduceOp>(op)) {
      Value buf = copyToBuffer(b, loc, c.getOperand());
      auto [groups, numGroups, groupSize] = groupsOp(c);
      SmallVector<Value> args = {pointerTo(b, loc, buf), i64(b, loc, in.getNumElements()),
                                 i32(b, loc, *dtype), i32(b, loc, runtimeReduceOp(c.getKind())),
                                 groups, numGroups, groupSize};
      result = reduction(b, loc, op, "shardrt_all_reduce", args, {}, out, buf);
    } else if (auto c = dyn_cast<comm::AllGatherOp>(op)) {
      Value src = copyToBuffer(b, loc, c.getOperand());
      Value dst = allocOut();
      auto [outer, inner] = splitAt(in.getShape(), c.getDim());
      auto [groups, numGroups, groupSize] = groupsOp(c);
      call(b, loc, "shardrt_all_gather",
           {pointerTo(b, loc, src), pointerTo(b, loc, dst), i64(b, loc, outer), i64(b, loc, inner),
            i32(b, loc, *dtype), groups, numGroups, groupSize});
      result = toTensor(b, loc, out, dst);
    } else if (auto c = dyn_cast<comm::AllSliceOp>(op)) {
      result = slice(b, loc, c, out);
    } else if (auto c = dyn_cast<comm::ReduceScatterOp>(op)) {
      // The runtime views the input as [outer, group * inner], the output as
      // [outer, inner], with `inner` counted on the output's shape.
      Value src = copyToBuffer(b, loc, c.getOperand());
      Value dst = allocOut();
      auto [outer, inner] = splitAt(out.getShape(), c.getDim());
      auto [groups, numGroups, groupSize] = groupsOp(c);
      SmallVector<Value> args = {pointerTo(b, loc, src), pointerTo(b, loc, dst),
                                 i64(b, loc, outer), i64(b, loc, inner), i32(b, loc, *dtype),
                                 i32(b, loc, runtimeReduceOp(c.getKind())), groups, numGroups,
                                 groupSize};
      // done names both buffers again: that use is what keeps `src`, read
      // by peers until then, allocated that long.
      result = reduction(b, loc, op, "shardrt_reduce_scatter", args, {src, dst}, out, dst);
    } else if (auto c = dyn_cast<comm::AllToAllOp>(op)) {
      // A piece is the operand with split_dim divided by the group size; the
      // runtime sees the operand as [split_outer, group, split_inner] and the
      // result as [concat_outer, group, concat_inner] (shardrt.h).
      Value src = copyToBuffer(b, loc, c.getOperand());
      Value dst = allocOut();
      SmallVector<int64_t> piece(in.getShape());
      piece[c.getSplitDim()] /= c.getGroupSize();
      auto [splitOuter, splitInner] = splitAt(piece, c.getSplitDim());
      auto [concatOuter, concatInner] = splitAt(piece, c.getConcatDim());
      auto [groups, numGroups, groupSize] = groupsOp(c);
      call(b, loc, "shardrt_all_to_all",
           {pointerTo(b, loc, src), pointerTo(b, loc, dst), i64(b, loc, splitOuter),
            i64(b, loc, splitInner), i64(b, loc, concatOuter), i64(b, loc, concatInner),
            i32(b, loc, *dtype), groups, numGroups, groupSize});
      result = toTensor(b, loc, out, dst);
    } else if (auto c = dyn_cast<comm::CollectivePermuteOp>(op)) {
      Value src = copyToBuffer(b, loc, c.getOperand());
      Value dst = allocOut();
      Value pairs = pointerTo(b, loc, groupsGlobal(c.getPairs()));
      call(b, loc, "shardrt_collective_permute",
           {pointerTo(b, loc, src), pointerTo(b, loc, dst), i64(b, loc, in.getNumElements()),
            i32(b, loc, *dtype), pairs, i64(b, loc, c.getNumPairs())});
      result = toTensor(b, loc, out, dst);
    } else {
      return success();
    }
    op->getResult(0).replaceAllUsesWith(result);
    op->erase();
    return success();
  }

  /// comm.device_value: the table entry at this device's rank, as a rank-0
  /// tensor of the result's element type.
  LogicalResult lowerDeviceValue(comm::DeviceValueOp op) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value v = deviceEntry(b, loc, op.getValues(), "__shardc_device_value");
    Type elem = op.getType().getElementType();
    if (isa<FloatType>(elem))
      v = arith::SIToFPOp::create(b, loc, elem, v);
    else if (elem.getIntOrFloatBitWidth() < 64)
      v = arith::TruncIOp::create(b, loc, elem, v);
    Value t = tensor::FromElementsOp::create(b, loc, op.getType(), ValueRange{v});
    op.getResult().replaceAllUsesWith(t);
    op.erase();
    return success();
  }

  /// This device's entry of `table` (i64), via the runtime's rank.
  Value deviceEntry(OpBuilder &b, Location loc, ArrayRef<int64_t> table, StringRef prefix) {
    Value global = this->global(b, loc, table, prefix);
    Value rank = call(b, loc, "shardrt_rank", {}, b.getI64Type());
    Value rankIndex = arith::IndexCastOp::create(b, loc, b.getIndexType(), rank);
    return memref::LoadOp::create(b, loc, global, ValueRange{rankIndex});
  }

  /// all_reduce and reduce_scatter as start/done pairs (the pass's `async`
  /// option).
  bool async = true;

private:
  /// The runtime reduction `name` of `op` with `args`, its result read from
  /// `resultBuf`: one blocking call, or (async) `name`_start here and
  /// `name`_done(request, pointers to `doneBuffers`) just before the first
  /// op that reads the result (else right after the start), so that what
  /// lies between runs while the reduction is under way.
  Value reduction(OpBuilder &b, Location loc, Operation *op, StringRef name,
                  ArrayRef<Value> args, ArrayRef<Value> doneBuffers, RankedTensorType out,
                  Value resultBuf) {
    if (!async) {
      call(b, loc, name, args);
      return toTensor(b, loc, out, resultBuf);
    }
    Value request = call(b, loc, (name + "_start").str(), args, b.getI64Type());
    OpBuilder at(ctx);
    if (Operation *user = shardc::firstUseInBlock(op->getResult(0), op->getBlock()))
      at.setInsertionPoint(user);
    else
      at.setInsertionPointAfterValue(request);
    SmallVector<Value> doneArgs = {request};
    for (Value buf : doneBuffers)
      doneArgs.push_back(pointerTo(at, loc, buf));
    call(at, loc, (name + "_done").str(), doneArgs);
    return toTensor(at, loc, out, resultBuf);
  }

  Value i64(OpBuilder &b, Location loc, int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
  }
  Value i32(OpBuilder &b, Location loc, int32_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  }

  Value copyToBuffer(OpBuilder &b, Location loc, Value tensor) {
    auto t = cast<RankedTensorType>(tensor.getType());
    Value buf = memref::AllocOp::create(b, loc, MemRefType::get(t.getShape(), t.getElementType()));
    auto m = bufferization::MaterializeInDestinationOp::create(b, loc, TypeRange{}, tensor, buf);
    m.setRestrict(true);
    m.setWritable(true);
    return buf;
  }

  Value toTensor(OpBuilder &b, Location loc, RankedTensorType type, Value buf) {
    return bufferization::ToTensorOp::create(b, loc, type, buf, /*restrict=*/true,
                                             /*writable=*/true);
  }

  Value pointerTo(OpBuilder &b, Location loc, Value memref) {
    Value index = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
    Value asInt = arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
    return LLVM::IntToPtrOp::create(b, loc, LLVM::LLVMPointerType::get(ctx), asInt);
  }

  /// A constant global holding `values` (deduplicated), read as a memref.
  Value global(OpBuilder &b, Location loc, ArrayRef<int64_t> values, StringRef prefix) {
    std::vector<int64_t> key(values.begin(), values.end());
    auto [it, inserted] = globals.try_emplace(key, "");
    auto type = MemRefType::get({static_cast<int64_t>(values.size())}, b.getI64Type());
    if (inserted) {
      it->second = (prefix + "_" + std::to_string(globals.size() - 1)).str();
      OpBuilder mb = OpBuilder::atBlockBegin(module.getBody());
      auto tensorType = RankedTensorType::get(type.getShape(), b.getI64Type());
      memref::GlobalOp::create(mb, loc, it->second, mb.getStringAttr("private"), type,
                               DenseIntElementsAttr::get(tensorType, values),
                               /*constant=*/true, /*alignment=*/IntegerAttr());
    }
    return memref::GetGlobalOp::create(b, loc, type, it->second);
  }

  Value groupsGlobal(ArrayRef<int64_t> flat) {
    OpBuilder b(ctx);
    b.setInsertionPoint(currentOp);
    return global(b, currentOp->getLoc(), flat, "__shardc_groups");
  }

  // Device at position p of its group keeps block p of the dim: the position
  // comes from a per-device table indexed by the runtime's rank.
  Value slice(OpBuilder &b, Location loc, comm::AllSliceOp c, RankedTensorType out) {
    int64_t maxId = 0;
    for (int64_t id : c.getGroups())
      maxId = std::max(maxId, id);
    SmallVector<int64_t> position(maxId + 1, 0);
    for (int64_t g = 0; g < c.getNumGroups(); ++g)
      for (auto [p, id] : llvm::enumerate(c.getGroup(g)))
        position[id] = p;
    Value p = deviceEntry(b, loc, position, "__shardc_position");
    Value pIndex = arith::IndexCastOp::create(b, loc, b.getIndexType(), p);
    Value block = arith::ConstantIndexOp::create(b, loc, out.getDimSize(c.getDim()));
    Value offset = arith::MulIOp::create(b, loc, pIndex, block);
    SmallVector<OpFoldResult> offsets(out.getRank(), b.getIndexAttr(0));
    offsets[c.getDim()] = offset;
    SmallVector<OpFoldResult> sizes, strides(out.getRank(), b.getIndexAttr(1));
    for (int64_t s : out.getShape())
      sizes.push_back(b.getIndexAttr(s));
    return tensor::ExtractSliceOp::create(b, loc, out, c.getOperand(), offsets, sizes, strides);
  }

  Value call(OpBuilder &b, Location loc, StringRef name, ArrayRef<Value> args,
             Type resultType = {}) {
    if (!resultType)
      resultType = b.getI32Type();
    if (!module.lookupSymbol<func::FuncOp>(name)) {
      OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
      SmallVector<Type> types;
      for (Value a : args)
        types.push_back(a.getType());
      auto decl = func::FuncOp::create(mb, loc, name, mb.getFunctionType(types, {resultType}));
      decl.setPrivate();
    }
    return func::CallOp::create(b, loc, name, TypeRange{resultType}, args).getResult(0);
  }

public:
  Operation *currentOp = nullptr;

private:
  ModuleOp module;
  MLIRContext *ctx;
  std::map<std::vector<int64_t>, std::string> globals;
};

struct LowerCommToRuntime : shardc::impl::CommLowerToRuntimeBase<LowerCommToRuntime> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<comm::AllReduceOp, comm::AllGatherOp, comm::AllSliceOp, comm::DeviceValueOp,
              comm::ReduceScatterOp, comm::AllToAllOp, comm::CollectivePermuteOp>(op))
        ops.push_back(op);
    });
    // An asynchronous collective starts as soon as its operand is ready:
    // right after the op that defines it. Moved last to first, so that
    // collectives ready at the same point keep their order.
    if (async)
      for (Operation *op : llvm::reverse(ops))
        if (isa<comm::AllReduceOp, comm::ReduceScatterOp>(op))
          if (Operation *def = shardc::definitionInBlock(op->getOperand(0), op->getBlock()))
            op->moveAfter(def);
    RuntimeCalls calls(getOperation());
    calls.async = async;
    for (Operation *op : ops) {
      calls.currentOp = op;
      LogicalResult ok = isa<comm::DeviceValueOp>(op)
                             ? calls.lowerDeviceValue(cast<comm::DeviceValueOp>(op))
                             : calls.lower(op);
      if (failed(ok))
        return signalPassFailure();
    }
  }
};
} // namespace
