//===- BuildParallelDispatch.cpp - cpu-build-parallel-dispatch ------------===//
//
// Defines, in the LLVM dialect, the dispatch functions that
// cpu-outline-parallel-loops declared (CpuPasses.td): after
// convert-func-to-llvm every argument is a plain LLVM value (memref
// descriptors are expanded into pointers and integers), so a dispatch packs
// its arguments into a stack struct and hands the runtime a task that
// unpacks them and calls the chunk function:
//
//   dispatch(count, a...) { ctx = {a...}; shardrt_parallel_for(count, task, &ctx) }
//     (shardrt_parallel_for_own for a declaration marked shardc.parallel_own)
//   task(ctx, begin, end) { body(begin, end, ctx->a...) }
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/CpuPasses.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"

namespace shardc {
#define GEN_PASS_DEF_CPUBUILDPARALLELDISPATCH
#include "compiler/targets/CpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

struct CpuBuildParallelDispatch
    : shardc::impl::CpuBuildParallelDispatchBase<CpuBuildParallelDispatch> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<LLVM::LLVMFuncOp> dispatches;
    module.walk([&](LLVM::LLVMFuncOp fn) {
      if (fn->hasAttr(shardc::kParallelBodyAttr))
        dispatches.push_back(fn);
    });
    if (dispatches.empty())
      return;
    MLIRContext *ctx = &getContext();
    OpBuilder b(ctx);
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto i64 = IntegerType::get(ctx, 64);
    auto voidType = LLVM::LLVMVoidType::get(ctx);
    // The runtime's entry, declared on first use.
    auto runtimeLoop = [&](StringRef name) {
      auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
      if (!fn) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToEnd(module.getBody());
        fn = LLVM::LLVMFuncOp::create(b, module.getLoc(), name,
                                      LLVM::LLVMFunctionType::get(voidType, {i64, ptr, ptr}));
      }
      return fn;
    };
    // One task per body: dispatches of one body (cpu-merge-identical-functions
    // merges identical bodies, but not their dispatches when only one is
    // marked shardc.parallel_own) share its task, whose frame is the same.
    llvm::DenseMap<StringAttr, LLVM::LLVMFuncOp> tasks;
    for (LLVM::LLVMFuncOp dispatch : dispatches) {
      auto bodyName = dispatch->getAttrOfType<FlatSymbolRefAttr>(shardc::kParallelBodyAttr);
      auto body = bodyName ? module.lookupSymbol<LLVM::LLVMFuncOp>(bodyName) : nullptr;
      LLVM::LLVMFunctionType type = dispatch.getFunctionType();
      if (!body || !dispatch.isExternal() || type.getNumParams() < 1 ||
          body.getFunctionType().getNumParams() != type.getNumParams() + 1) {
        dispatch.emitError() << "cpu-build-parallel-dispatch: malformed dispatch declaration";
        return signalPassFailure();
      }
      Location loc = dispatch.getLoc();
      ArrayRef<Type> inputs = type.getParams().drop_front();
      auto frame = LLVM::LLVMStructType::getLiteral(ctx, inputs);
      auto field = [&](Value base, int32_t i) {
        return LLVM::GEPOp::create(b, loc, ptr, frame, base, ArrayRef<LLVM::GEPArg>{0, i});
      };

      // task(ctx, begin, end): unpack, call the chunk.
      LLVM::LLVMFuncOp &task = tasks[bodyName.getAttr()];
      if (!task) {
        b.setInsertionPointAfter(body);
        task = LLVM::LLVMFuncOp::create(b, loc, (bodyName.getValue() + "_task").str(),
                                        LLVM::LLVMFunctionType::get(voidType, {ptr, i64, i64}),
                                        LLVM::Linkage::Internal);
        Block *taskEntry = task.addEntryBlock(b);
        b.setInsertionPointToStart(taskEntry);
        SmallVector<Value> args = {taskEntry->getArgument(1), taskEntry->getArgument(2)};
        for (auto [i, t] : llvm::enumerate(inputs))
          args.push_back(LLVM::LoadOp::create(
              b, loc, t, field(taskEntry->getArgument(0), static_cast<int32_t>(i))));
        LLVM::CallOp::create(b, loc, body, args);
        LLVM::ReturnOp::create(b, loc, ValueRange{});
      }

      // dispatch(count, a...): pack, hand to the runtime.
      LLVM::LLVMFuncOp parallelFor = runtimeLoop(dispatch->hasAttr(shardc::kParallelOwnAttr)
                                                     ? "shardrt_parallel_for_own"
                                                     : "shardrt_parallel_for");
      dispatch->removeAttr(shardc::kParallelBodyAttr);
      dispatch->removeAttr(shardc::kParallelOwnAttr);
      dispatch.setLinkage(LLVM::Linkage::Internal);
      Block *entry = dispatch.addEntryBlock(b);
      b.setInsertionPointToStart(entry);
      Value one = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(1));
      Value frameAddr = LLVM::AllocaOp::create(b, loc, ptr, frame, one);
      for (auto [i, arg] : llvm::enumerate(entry->getArguments().drop_front()))
        LLVM::StoreOp::create(b, loc, arg, field(frameAddr, static_cast<int32_t>(i)));
      Value taskAddr = LLVM::AddressOfOp::create(b, loc, task);
      LLVM::CallOp::create(b, loc, parallelFor,
                           ValueRange{entry->getArgument(0), taskAddr, frameAddr});
      LLVM::ReturnOp::create(b, loc, ValueRange{});
    }
  }
};

} // namespace
