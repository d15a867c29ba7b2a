//===- CheckKernels.cpp - gpu-check-kernels -------------------------------===//
//
// The kernel phase's gate (GpuPasses.td): what ptxas accepts but would run
// wrongly (a per-thread "shared" buffer, a malloc per thread) or could not
// be launched by the host's bare-pointer convention.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/gpu/GpuPasses.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace shardc {
#define GEN_PASS_DEF_GPUCHECKKERNELS
#include "compiler/targets/gpu/GpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

LogicalResult checkKernel(gpu::GPUFuncOp kernel) {
  for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes())) {
    auto memref = dyn_cast<MemRefType>(type);
    bool ok = memref ? memref.hasStaticShape() && memref.getLayout().isIdentity()
                     : type.isIntOrIndexOrFloat();
    if (!ok)
      return kernel.emitError() << "gpu-check-kernels: argument #" << i << " of kernel @"
                                << kernel.getName() << " has type " << type
                                << ", which the host cannot pass as a bare pointer or scalar";
  }
  WalkResult r = kernel.walk([&](Operation *op) {
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      op->emitError() << "gpu-check-kernels: a memref.alloc in kernel @" << kernel.getName()
                      << (shardc::isWorkgroupMemRef(alloc.getType())
                              ? " in workgroup memory would be a per-thread buffer (make it a "
                                "workgroup attribution)"
                              : " would be a malloc per thread");
      return WalkResult::interrupt();
    }
    if (auto alloca = dyn_cast<memref::AllocaOp>(op); alloca && shardc::isWorkgroupMemRef(alloca.getType())) {
      op->emitError() << "gpu-check-kernels: a memref.alloca in workgroup memory in kernel @"
                      << kernel.getName()
                      << " would be a per-thread buffer (make it a workgroup attribution)";
      return WalkResult::interrupt();
    }
    if (isa<func::CallOp>(op)) {
      op->emitError() << "gpu-check-kernels: kernel @" << kernel.getName()
                      << " calls a function; kernels call nothing";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

struct GpuCheckKernels : shardc::impl::GpuCheckKernelsBase<GpuCheckKernels> {
  void runOnOperation() override {
    for (auto module : getOperation().getOps<gpu::GPUModuleOp>())
      for (auto kernel : module.getOps<gpu::GPUFuncOp>())
        if (kernel.isKernel() && failed(checkKernel(kernel)))
          return signalPassFailure();
  }
};

} // namespace
