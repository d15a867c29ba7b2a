//===- DeviceMemory.cpp - gpu-device-memory -------------------------------===//
//
// A GPU artifact's host code in the LLVM dialect: its buffers become device
// memory (GpuPasses.td). The host code's memory operations are few and come
// from known lowerings (finalize-memref-to-llvm's malloc/free and memcpy,
// the collectives the partitioner emits), so each is rewritten by name, and
// anything else that would touch a buffer from the host is refused.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/gpu/GpuPasses.h"
#include "compiler/targets/gpu/SourcePosition.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSet.h"

namespace shardc {
#define GEN_PASS_DEF_GPUDEVICEMEMORY
#include "compiler/targets/gpu/GpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

/// shardrt.h's collectives; each has a shardrt_cuda_ twin of the same type.
const llvm::StringSet<> kCollectives = {
    "shardrt_all_reduce",    "shardrt_all_reduce_start", "shardrt_all_reduce_done",
    "shardrt_all_gather",    "shardrt_reduce_scatter",   "shardrt_reduce_scatter_start",
    "shardrt_reduce_scatter_done", "shardrt_all_to_all", "shardrt_collective_permute"};

/// `llvm.func @name` with `type`, declared once (an existing declaration of
/// another type is an error of the caller's making, reported by the verifier).
LLVM::LLVMFuncOp declare(ModuleOp module, llvm::StringRef name, LLVM::LLVMFunctionType type) {
  if (auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return fn;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  return LLVM::LLVMFuncOp::create(b, module.getLoc(), name, type);
}

/// Host memory an address points into: a global (a constant of the
/// program) or a stack slot; traced through GEPs and through the memref
/// descriptors finalize-memref-to-llvm builds (a field extracted from a
/// chain of insertvalues is the value inserted at its position).
enum class Host { None, Global, Stack };

Host hostMemory(Value v) {
  for (int steps = 0; steps < 64; ++steps) {
    Operation *def = v.getDefiningOp();
    if (!def)
      return Host::None;
    if (isa<LLVM::AddressOfOp>(def))
      return Host::Global;
    if (isa<LLVM::AllocaOp>(def))
      return Host::Stack;
    if (auto gep = dyn_cast<LLVM::GEPOp>(def)) {
      v = gep.getBase();
      continue;
    }
    auto extract = dyn_cast<LLVM::ExtractValueOp>(def);
    if (!extract)
      return Host::None;
    Value container = extract.getContainer();
    auto insert = container.getDefiningOp<LLVM::InsertValueOp>();
    while (insert && insert.getPosition() != extract.getPosition())
      insert = insert.getContainer().getDefiningOp<LLVM::InsertValueOp>();
    if (!insert)
      return Host::None;
    v = insert.getValue();
  }
  return Host::None;
}

struct Rewriter {
  ModuleOp module;
  MLIRContext *ctx;
  LLVM::LLVMPointerType ptr;
  IntegerType i64;
  llvm::StringMap<std::string> siteGlobals;

  explicit Rewriter(ModuleOp module)
      : module(module), ctx(module.getContext()), ptr(LLVM::LLVMPointerType::get(ctx)),
        i64(IntegerType::get(ctx, 64)) {}

  /// The address of a NUL-terminated global holding `site`, or null.
  Value siteAddress(OpBuilder &b, Location loc, const std::string &site) {
    if (site.empty())
      return LLVM::ZeroOp::create(b, loc, ptr);
    std::string &name = siteGlobals[site];
    if (name.empty()) {
      name = "__shardc_site_" + std::to_string(siteGlobals.size());
      OpBuilder g = OpBuilder::atBlockBegin(module.getBody());
      std::string bytes = site + std::string(1, '\0');
      auto global = LLVM::GlobalOp::create(
          g, loc, LLVM::LLVMArrayType::get(g.getI8Type(), bytes.size()), /*isConstant=*/true,
          LLVM::Linkage::Internal, name, g.getStringAttr(bytes), /*alignment=*/1);
      SymbolTable(module).insert(global);
      name = global.getSymName().str();
    }
    return LLVM::AddressOfOp::create(b, loc, ptr, name);
  }

  LogicalResult rewrite(LLVM::CallOp call) {
    std::optional<llvm::StringRef> callee = call.getCallee();
    if (!callee)
      return success();
    OpBuilder b(call);
    Location loc = call.getLoc();
    if (*callee == "malloc" &&
        !call->getParentOfType<LLVM::LLVMFuncOp>().getName().ends_with("_shardc_body"))
      // Only the entry's body allocates tensors; a helper that allocates
      // (bufferization's deallocation helper) would use host memory.
      return call.emitError() << "gpu-device-memory: @"
                              << call->getParentOfType<LLVM::LLVMFuncOp>().getName()
                              << " allocates memory on the host, which the GPU target's host code "
                                 "may not (an internal error)";
    if (*callee == "malloc") {
      auto type = LLVM::LLVMFunctionType::get(ptr, {i64, ptr});
      auto fn = declare(module, "shardrt_cuda_alloc", type);
      auto alloc = LLVM::CallOp::create(
          b, loc, fn, ValueRange{call.getOperand(0), siteAddress(b, loc, shardc::gpu::sourcePosition(loc))});
      call.getResult().replaceAllUsesWith(alloc.getResult());
      call.erase();
      return success();
    }
    if (*callee == "free") {
      auto type = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), {ptr});
      LLVM::CallOp::create(b, loc, declare(module, "shardrt_cuda_free", type),
                           call.getOperands());
      call.erase();
      return success();
    }
    if (kCollectives.contains(*callee)) {
      auto original = module.lookupSymbol<LLVM::LLVMFuncOp>(*callee);
      auto twin = declare(module, ("shardrt_cuda_" + callee->drop_front(8)).str(),
                          original.getFunctionType());
      call.setCallee(twin.getSymName());
      return success();
    }
    if (*callee == "memrefCopy")
      return call.emitError() << "the GPU target cannot copy a strided view on the host yet "
                                 "(strided copies need a copy kernel); --target cpu compiles "
                                 "this model";
    return success();
  }

  LogicalResult rewrite(LLVM::MemcpyOp copy) {
    OpBuilder b(copy);
    auto type = LLVM::LLVMFunctionType::get(IntegerType::get(ctx, 32), {ptr, ptr, i64});
    Value bytes = copy.getLen();
    if (bytes.getType() != i64)
      bytes = LLVM::ZExtOp::create(b, copy.getLoc(), i64, bytes);
    // Out of a constant of the program (a global, in host memory): an
    // upload; into a stack slot (a scalar the host reads): a download;
    // otherwise both buffers are on the device.
    llvm::StringRef callee = hostMemory(copy.getSrc()) == Host::Global ? "shardrt_cuda_upload"
                             : hostMemory(copy.getDst()) == Host::Stack
                                 ? "shardrt_cuda_download"
                                 : "shardrt_cuda_copy";
    LLVM::CallOp::create(b, copy.getLoc(), declare(module, callee, type),
                         ValueRange{copy.getDst(), copy.getSrc(), bytes});
    copy.erase();
    return success();
  }
};

struct GpuDeviceMemory : shardc::impl::GpuDeviceMemoryBase<GpuDeviceMemory> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Rewriter rewriter(module);
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (isa<LLVM::CallOp, LLVM::MemcpyOp, LLVM::MemsetOp, LLVM::MemmoveOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      LogicalResult r = success();
      if (auto call = dyn_cast<LLVM::CallOp>(op))
        r = rewriter.rewrite(call);
      else if (auto copy = dyn_cast<LLVM::MemcpyOp>(op))
        r = rewriter.rewrite(copy);
      else
        r = op->emitError() << "the GPU target's host code may not write buffers itself ('"
                            << op->getName() << "'); fills and copies run as kernels";
      if (failed(r))
        return signalPassFailure();
    }
    // Declarations the rewrites left unused.
    for (llvm::StringRef name : {"malloc", "free"})
      if (auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
        if (SymbolTable::symbolKnownUseEmpty(fn, module))
          fn.erase();
    for (const auto &c : kCollectives)
      if (auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(c.getKey()))
        if (SymbolTable::symbolKnownUseEmpty(fn, module))
          fn.erase();
  }
};

} // namespace
