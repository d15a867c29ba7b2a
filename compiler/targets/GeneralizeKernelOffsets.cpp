//===- GeneralizeKernelOffsets.cpp - cpu-generalize-kernel-offsets --------===//
//
// An outlined kernel's memref arguments take dynamic offsets (see
// CpuPasses.td), so that kernels which differ only in where their operands
// start in a larger buffer become the same function and merge.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/CpuPasses.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Hashing.h"

namespace shardc {
#define GEN_PASS_DEF_CPUGENERALIZEKERNELOFFSETS
#include "compiler/targets/CpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

/// `type` with a dynamic offset, or null when its layout is not strided or
/// its offset is dynamic already.
MemRefType withDynamicOffset(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || ShapedType::isDynamic(offset))
    return {};
  auto layout = StridedLayoutAttr::get(type.getContext(), ShapedType::kDynamic, strides);
  return MemRefType::get(type.getShape(), type.getElementType(), layout, type.getMemorySpace());
}

/// Whether `to` is `from` but for a dynamic offset.
bool sameButOffset(MemRefType from, MemRefType to) {
  return to && withDynamicOffset(from) == to;
}

/// Ops that read or write through a memref operand whatever its offset, and
/// whose results do not depend on its type.
bool usesAnyOffset(Operation *op) {
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    return linalgOp->getNumResults() == 0;
  return isa<memref::LoadOp, memref::StoreOp, memref::DimOp, memref::PrefetchOp,
             memref::ExtractStridedMetadataOp, vector::LoadOp, vector::StoreOp,
             vector::TransferReadOp, vector::TransferWriteOp, vector::MaskedLoadOp,
             vector::MaskedStoreOp>(op);
}

/// The type of `view`'s result once its source has type `source`, or null
/// when it would differ from the current one in more than the offset.
MemRefType retyped(Operation *view, MemRefType source) {
  auto old = cast<MemRefType>(view->getResult(0).getType());
  MemRefType type;
  if (auto subview = dyn_cast<memref::SubViewOp>(view))
    type = memref::SubViewOp::inferRankReducedResultType(
        old.getShape(), source, subview.getStaticOffsets(), subview.getStaticSizes(),
        subview.getStaticStrides());
  else if (auto collapse = dyn_cast<memref::CollapseShapeOp>(view))
    type = memref::CollapseShapeOp::computeCollapsedType(source,
                                                         collapse.getReassociationIndices());
  else if (auto expand = dyn_cast<memref::ExpandShapeOp>(view))
    type = memref::ExpandShapeOp::computeExpandedType(source, old.getShape(),
                                                      expand.getReassociationIndices())
               .value_or(MemRefType());
  return type && (type == old || sameButOffset(old, type)) ? type : MemRefType();
}

/// The new types of `value` (now of type `type`) and of every view derived
/// from it, in order; false when some use would not take the new type.
bool planRetyping(Value value, MemRefType type,
                  SmallVectorImpl<std::pair<Value, MemRefType>> &plan) {
  plan.push_back({value, type});
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (usesAnyOffset(user))
      continue;
    if (!isa<memref::SubViewOp, memref::CollapseShapeOp, memref::ExpandShapeOp>(user) ||
        use.getOperandNumber() != 0)
      return false;
    MemRefType result = retyped(user, type);
    if (!result || !planRetyping(user->getResult(0), result, plan))
      return false;
  }
  return true;
}

/// `type`, with a dynamic offset if it is a memref with a static one.
Type offsetErased(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  MemRefType general = memref ? withDynamicOffset(memref) : MemRefType();
  return general ? general : type;
}

/// A hash of `fn`'s arguments and body in which memref types count without
/// their offsets: functions that differ only in those hash alike.
llvm::hash_code offsetFreeHash(func::FuncOp fn) {
  llvm::hash_code h = llvm::hash_value(fn.getNumArguments());
  for (Type t : fn.getArgumentTypes())
    h = llvm::hash_combine(h, offsetErased(t));
  fn.getBody().walk([&](Operation *op) {
    h = llvm::hash_combine(h, op->getName(), op->getRawDictionaryAttrs(), op->hashProperties(),
                           op->getNumOperands(), op->getNumRegions());
    for (Type t : op->getResultTypes())
      h = llvm::hash_combine(h, offsetErased(t));
  });
  return h;
}

struct CpuGeneralizeKernelOffsets
    : shardc::impl::CpuGeneralizeKernelOffsetsBase<CpuGeneralizeKernelOffsets> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Who calls what: a kernel is called by func.call, a parallel loop's
    // chunk function through its dispatch declaration (same arguments
    // after the chunk's leading begin and end).
    llvm::DenseMap<StringAttr, SmallVector<func::CallOp>> callers;
    module.walk([&](func::CallOp call) {
      callers[call.getCalleeAttr().getAttr()].push_back(call);
    });
    llvm::DenseMap<StringAttr, func::FuncOp> dispatchOf;
    for (auto fn : module.getOps<func::FuncOp>())
      if (auto body = fn->getAttrOfType<FlatSymbolRefAttr>(shardc::kParallelBodyAttr))
        dispatchOf[body.getAttr()] = fn;

    // Only kernels with a twin that differs at most in offsets are retyped:
    // for the others a dynamic offset would cost index arithmetic and merge
    // nothing.
    auto candidate = [](func::FuncOp fn) {
      return !fn.isExternal() && fn.isPrivate() && fn->hasAttr(shardc::kOutlinedNestAttr);
    };
    SmallVector<std::pair<func::FuncOp, llvm::hash_code>> kernels;
    llvm::DenseMap<llvm::hash_code, int> twins;
    for (auto fn : module.getOps<func::FuncOp>())
      if (candidate(fn)) {
        kernels.push_back({fn, offsetFreeHash(fn)});
        ++twins[kernels.back().second];
      }
    for (auto [fn, hash] : kernels) {
      if (twins[hash] < 2)
        continue;
      func::FuncOp dispatch = dispatchOf.lookup(fn.getSymNameAttr());
      // A chunk function's first two arguments are its iteration range.
      unsigned leading = dispatch ? 2 : 0;
      for (BlockArgument arg : fn.getArguments().drop_front(leading)) {
        auto type = dyn_cast<MemRefType>(arg.getType());
        MemRefType general = type ? withDynamicOffset(type) : MemRefType();
        SmallVector<std::pair<Value, MemRefType>> plan;
        if (!general || !planRetyping(arg, general, plan))
          continue;
        for (auto [value, newType] : plan)
          value.setType(newType);
        unsigned i = arg.getArgNumber();
        castOperand(callers.lookup(fn.getSymNameAttr()), i, general);
        if (dispatch) {
          castOperand(callers.lookup(dispatch.getSymNameAttr()), i - leading + 1, general);
          retypeInput(dispatch, i - leading + 1, general);
        }
      }
      fn.setFunctionType(FunctionType::get(
          &getContext(), fn.getBody().front().getArgumentTypes(), fn.getResultTypes()));
    }
  }

  /// Passes operand `i` of every call in `calls` as `type`.
  static void castOperand(ArrayRef<func::CallOp> calls, unsigned i, MemRefType type) {
    for (func::CallOp call : calls) {
      OpBuilder b(call);
      Value cast = memref::CastOp::create(b, call.getLoc(), type, call.getOperand(i));
      call->setOperand(i, cast);
    }
  }

  static void retypeInput(func::FuncOp decl, unsigned i, Type type) {
    SmallVector<Type> inputs(decl.getArgumentTypes());
    inputs[i] = type;
    decl.setFunctionType(FunctionType::get(decl.getContext(), inputs, {}));
  }
};

} // namespace
