//===- shardc-opt.cpp - mlir-opt over shardc's dialects and passes --------===//
//
// The driver lit tests use: every shardc dialect and pass, plus the upstream
// dialects and passes the pipelines use, registered selectively.
//
//===----------------------------------------------------------------------===//
#include "compiler/registration/RegisterUpstream.h"
#include "compiler/tools/AllocatorTuning.h"
#include "compiler/targets/CpuPasses.h"
#include "compiler/targets/gpu/GpuPasses.h"
#include "dialects/garray/GArray.h"
#include "passes/Passes.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  shardc::tuneAllocatorForCompiling();
  mlir::DialectRegistry registry;
  shardc::registerUpstreamDialects(registry);
  mlir::garray::registerShardcDialects(registry);
  // The GPU target's tests hold #nvvm.target attributes on gpu.binary ops.
  registry.insert<mlir::NVVM::NVVMDialect>();
  shardc::registerUpstreamPasses();
  shardc::registerAllShardcPasses();
  shardc::registerCpuTargetPasses();
  shardc::registerGpuTargetPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "shardc optimizer driver\n", registry));
}
