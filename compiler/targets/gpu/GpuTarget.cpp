//===- GpuTarget.cpp - shardc's NVIDIA GPU (PTX) back end -----------------===//
//
// See GpuTarget.h. The pipelines are narrated like the CPU target's.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/gpu/GpuTarget.h"
#include "compiler/registration/RegisterUpstream.h"
#include "compiler/targets/CpuPasses.h"
#include "compiler/targets/CpuTarget.h"
#include "compiler/targets/gpu/GpuPasses.h"
#include "compiler/targets/gpu/SourcePosition.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace mlir;

namespace {

/// Dialects, target attributes and translations the GPU pipelines need,
/// added to the module's context; passes registered once per process so the
/// textual pipelines below parse.
void prepareContext(MLIRContext *ctx) {
  DialectRegistry registry;
  shardc::registerUpstreamDialects(registry);
  registry.insert<mlir::gpu::GPUDialect, NVVM::NVVMDialect>();
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  ctx->appendDialectRegistry(registry);
  static std::once_flag once;
  std::call_once(once, [] {
    shardc::registerUpstreamPasses();
    shardc::registerCpuTargetPasses();
    shardc::registerGpuTargetPasses();
    registerGpuKernelOutliningPass();
    registerGpuLaunchSinkIndexComputationsPass();
    registerConvertGpuOpsToNVVMOps();
    registerConvertNVGPUToNVVMPass();
  });
}

LogicalResult parseInto(ModuleOp module, llvm::StringRef text, OpPassManager &pm) {
  std::string error;
  llvm::raw_string_ostream os(error);
  if (failed(parsePassPipeline(text, pm, os)))
    return module.emitError() << "GPU target: internal pipeline does not parse: " << error;
  return success();
}

/// Kernels stage, part 1: on tensors, then buffers, then launches. `tf32`:
/// f32 contractions take the tensor cores too (--matmul-precision=tf32).
std::string tilePipeline(bool tf32) {
  // The CPU target's tensor phase (elementwise chains fused into one
  // generic each: one kernel each), then the tile phase: each op with a
  // recipe into block and thread foralls. Up to gpu-copy-kernels this is
  // the sequential CPU fork's pipeline pass for pass (CpuTarget.cpp), so
  // what the fork runs and tests is what becomes kernels here.
  return shardc::tensorPhasePasses() + ", gpu-split-reductions, " +
         (tf32 ? "gpu-tile-and-fuse{tf32=1}, " : "gpu-tile-and-fuse, ") +
         // Each destination chain private (CSE may have merged two), then
         // results written in place where bufferization can; function
         // arguments and results stay dense memrefs (kernels take bare
         // pointers).
         "cpu-guard-empty-tensor-elimination, eliminate-empty-tensors, "
         "one-shot-bufferize{bufferize-function-boundaries "
         "function-boundary-type-conversion=identity-layout-map}, "
         // Self-copies removed, loops no longer carry the buffers they
         // update in place; then host loops over buffers (scatter_add) and
         // the strided copies bufferization added: kernels of their own.
         "canonicalize, gpu-host-loops, gpu-copy-kernels, "
         // Contraction tiles staged through shared memory by K chunks, long
         // reductions as block trees, transposes through a shared tile.
         "gpu-stage-contractions, gpu-block-reductions, gpu-stage-transposes, "
         // A thread's run of 4 as vector loads and stores where it is
         // whole and aligned.
         "gpu-vectorize-threads, "
         // Foralls to gpu.launch (after CSE, so that the self-copies
         // bufferization leaves are copies of one value, which
         // gpu-map-foralls drops).
         "cse, gpu-map-foralls";
}

/// Part 2: what is inside each launch to loops, the views launches read
/// moved into them (kernels take bare pointers), then one gpu.module per
/// kernel.
constexpr llvm::StringLiteral kOutlinePipeline =
    "convert-linalg-to-loops, canonicalize, cse, gpu-sink-views, "
    // Constants (tile sizes, bounds) and index math on them into the
    // launches, so kernels fold them rather than take them as arguments
    // (a division by a tile size is then a shift).
    "gpu-launch-sink-index-computations, gpu-kernel-outlining, "
    // The gate: nothing that assembles but runs wrongly.
    "gpu-check-kernels";

/// Every linalg op must now sit in a kernel: the ones outside have no GPU
/// recipe yet.
LogicalResult checkEverythingInKernels(ModuleOp module) {
  WalkResult r = module.walk([&](linalg::LinalgOp op) {
    // An op over no elements touches no memory wherever it runs.
    if (op->getParentOfType<mlir::gpu::LaunchOp>() ||
        llvm::is_contained(op.getStaticLoopRanges(), 0))
      return WalkResult::advance();
    op->emitError() << "the GPU target has no kernel recipe for '" << op->getName()
                    << "' yet (docs/gpu.md, kernel recipes); --target cpu compiles this model";
    return WalkResult::interrupt();
  });
  return failure(r.wasInterrupted());
}

/// Every kernel's workgroup buffers 16-byte aligned, as the staged
/// recipes' vector loads from them claim (gpu-stage-contractions); a
/// launch cannot say so itself, its outlined kernel can.
void alignWorkgroupBuffers(ModuleOp module) {
  module.walk([](mlir::gpu::GPUFuncOp fn) {
    for (unsigned i = 0; i < fn.getNumWorkgroupAttributions(); ++i)
      fn.setWorkgroupAttributionAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                                     IntegerAttr::get(IntegerType::get(fn.getContext(), 64), 16));
  });
}

/// A kernel's block size and the op that launches it.
struct KernelLaunch {
  int64_t threads = 0;
  std::optional<Location> loc; // of the gpu.launch_func: the root op's
};

/// Per gpu.module: the threads of its kernel's blocks (known_block_size)
/// and its gpu.launch_func.
llvm::StringMap<KernelLaunch> readLaunches(ModuleOp module) {
  llvm::StringMap<KernelLaunch> launches;
  module.walk([&](mlir::gpu::LaunchFuncOp launch) {
    launches[launch.getKernelModuleName().getValue()].loc = launch.getLoc();
  });
  for (auto m : module.getOps<mlir::gpu::GPUModuleOp>())
    for (auto fn : m.getOps<mlir::gpu::GPUFuncOp>())
      if (std::optional<DenseI32ArrayAttr> block = fn.getKnownBlockSizeAttr()) {
        int64_t threads = 1;
        for (int32_t d : block->asArrayRef())
          threads *= d;
        launches[m.getSymName()].threads = threads;
      }
  return launches;
}

/// The limits of a Hopper SM that a kernel of this target can exceed: 64K
/// 32-bit registers per block, 48 KiB of static shared memory.
constexpr int64_t kRegistersPerBlock = 65536;
constexpr int64_t kStaticSharedBytes = 48 * 1024;

/// The first number before `what` in a ptxas -v line ("Used 26 registers").
std::optional<int64_t> numberBefore(llvm::StringRef line, llvm::StringRef what) {
  size_t at = line.find(what);
  if (at == llvm::StringRef::npos)
    return std::nullopt;
  llvm::StringRef head = line.take_front(at).rtrim();
  llvm::StringRef digits = head.drop_front(head.find_last_not_of("0123456789") + 1);
  int64_t v;
  if (digits.getAsInteger(10, v))
    return std::nullopt;
  return v;
}

/// Refuses a kernel whose registers x threads, or whose static shared
/// memory, exceed the arch's limits, at the op the kernel computes.
LogicalResult checkResources(const KernelLaunch &k, llvm::StringRef report,
                             shardc::gpu::GpuArch arch, ModuleOp module) {
  llvm::SmallVector<llvm::StringRef> lines;
  report.split(lines, '\n');
  for (llvm::StringRef line : lines) {
    std::optional<int64_t> registers = numberBefore(line, " registers");
    std::optional<int64_t> shared = numberBefore(line, " bytes smem");
    Location loc = k.loc ? *k.loc : module.getLoc();
    if (registers && k.threads && *registers * k.threads > kRegistersPerBlock)
      return emitError(loc) << "the GPU kernel of this op needs " << *registers
                            << " registers x " << k.threads << " threads = "
                            << *registers * k.threads << " per block, over the "
                            << kRegistersPerBlock << " of an "
                            << shardc::gpu::archName(arch) << " block";
    if (shared && *shared > kStaticSharedBytes)
      return emitError(loc) << "the GPU kernel of this op needs " << *shared
                            << " bytes of static shared memory, over the " << kStaticSharedBytes
                            << " an " << shardc::gpu::archName(arch) << " block may have";
  }
  return success();
}

} // namespace

LogicalResult shardc::lowerToGpuKernels(ModuleOp module, llvm::StringRef entry,
                                        const GpuTargetOptions &options) {
  prepareContext(module.getContext());
  if (failed(addEntryBufferWrapper(module, entry)))
    return failure();
  PassManager tile(module.getContext());
  if (failed(parseInto(module, tilePipeline(options.matmulPrecision == gpu::MatmulPrecision::Tf32),
                       tile)) ||
      failed(tile.run(module)) ||
      failed(checkEverythingInKernels(module)))
    return failure();
  PassManager outline(module.getContext());
  if (failed(parseInto(module, kOutlinePipeline, outline)) || failed(outline.run(module)))
    return failure();
  alignWorkgroupBuffers(module);
  return success();
}

FailureOr<std::vector<shardc::PtxModule>> shardc::emitPtx(ModuleOp module,
                                                          const GpuTargetOptions &options) {
  MLIRContext *ctx = module.getContext();
  prepareContext(ctx);
  // What the resource check needs once the modules are binaries: each
  // kernel's threads per block, and where it is launched (its root op).
  llvm::StringMap<KernelLaunch> launches = readLaunches(module);
  PassManager pm(ctx);
  // The arch and PTX 8.0 (CUDA 12.0 and later assemble it); O3 for LLVM's
  // NVPTX back end. libdevice is linked here when a kernel calls it.
  GpuNVVMAttachTargetOptions attach;
  attach.chip = gpu::archName(options.arch).str();
  attach.features = "+ptx80";
  attach.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(attach));
  // Inside each gpu.module: structured control flow and views to plain
  // arithmetic, then GPU, arith, math and memref ops to NVVM; memref
  // arguments as bare pointers (their shapes are static).
  OpPassManager &kernels = pm.nest<mlir::gpu::GPUModuleOp>();
  if (failed(parseInto(module,
                       // Warp code first, on structured code and its
                       // affine index math: block trees' last steps to
                       // shuffles, tensor-core tiles to mma.sync.
                       "gpu-lower-warp-trees, gpu-lower-mma, canonicalize, cse, "
                       "convert-scf-to-cf, expand-strided-metadata, lower-affine, "
                       // nvgpu before gpu: the latter leaves nvgpu ops.
                       "convert-nvgpu-to-nvvm, "
                       "convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=1}, canonicalize, cse, "
                       "reconcile-unrealized-casts",
                       kernels)))
    return failure();
  // PTX text, in process (LLVM's NVPTX back end); ptxas runs below, where
  // its report is kept.
  GpuModuleToBinaryPassOptions binary;
  binary.toolkitPath = options.toolkit.root;
  binary.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(binary));
  if (failed(pm.run(module)))
    return failure();

  std::vector<PtxModule> out;
  for (auto binaryOp : module.getOps<mlir::gpu::BinaryOp>()) {
    for (Attribute a : binaryOp.getObjects()) {
      auto object = dyn_cast<mlir::gpu::ObjectAttr>(a);
      if (!object)
        continue;
      PtxModule m;
      m.name = binaryOp.getSymName().str();
      m.ptx = object.getObject().getValue().str();
      llvm::Expected<gpu::AssembledModule> assembled =
          gpu::assemblePtx(options.toolkit, options.arch, m.ptx);
      if (!assembled)
        return binaryOp.emitError() << "GPU target: the PTX of " << m.name
                                    << " does not assemble (an internal error): "
                                    << llvm::toString(assembled.takeError());
      // libdevice is linked before PTX is printed, so a kernel module
      // declares no function: an .extern one (malloc, a missing math
      // function) would fail to load on the device.
      if (size_t at = m.ptx.find(".extern .func"); at != std::string::npos)
        return binaryOp.emitError()
               << "GPU target: the PTX of " << m.name << " calls an external function ("
               << llvm::StringRef(m.ptx).substr(at).take_until([](char c) { return c == '\n'; })
               << "), which would not load on the device (an internal error)";
      // A tensor-core kernel that assembles without mma.sync (on ldmatrix
      // fragments, for 16-bit operands) would run, slowly, on the SIMT
      // cores: refused.
      llvm::StringRef ptx(m.ptx);
      if (ptx.contains("_gemm_mma(") &&
          !(ptx.contains("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32") ||
            (ptx.contains("mma.sync.aligned.m16n8k16") && ptx.contains("ldmatrix.sync.aligned"))))
        return binaryOp.emitError() << "GPU target: the tensor-core kernel " << m.name
                                    << " has no mma.sync on ldmatrix fragments in its PTX "
                                       "(an internal error)";
      m.ptxasReport = std::move(assembled->report);
      m.cubin = std::move(assembled->cubin);
      auto launch = launches.find(m.name);
      if (launch != launches.end() &&
          failed(checkResources(launch->second, m.ptxasReport, options.arch, module)))
        return failure();
      out.push_back(std::move(m));
    }
  }
  return out;
}

std::string shardc::gpuTargetName(gpu::GpuArch arch) {
  return ("ptx-" + gpu::archName(arch)).str();
}

std::vector<shardc::KernelRecord> shardc::kernelRecords(ModuleOp module,
                                                        const std::vector<PtxModule> &modules) {
  std::vector<KernelRecord> kernels;
  llvm::StringSet<> seen;
  module.walk([&](mlir::gpu::LaunchFuncOp launch) {
    llvm::StringRef moduleName = launch.getKernelModuleName().getValue();
    if (!seen.insert(moduleName).second)
      return;
    KernelRecord k;
    k.module = moduleName.str();
    k.name = launch.getKernelName().getValue().str();
    k.location = gpu::sourcePosition(launch.getLoc());
    mlir::gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
    mlir::gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
    Value dims[6] = {grid.x, grid.y, grid.z, block.x, block.y, block.z};
    for (int i = 0; i < 6; ++i)
      (i < 3 ? k.grid[i] : k.block[i - 3]) = getConstantIntValue(dims[i]).value_or(-1);
    auto m = llvm::find_if(modules, [&](const PtxModule &p) { return p.name == moduleName; });
    if (m != modules.end()) {
      llvm::SmallVector<llvm::StringRef> lines;
      llvm::StringRef(m->ptxasReport).split(lines, '\n');
      for (llvm::StringRef line : lines) {
        if (auto v = numberBefore(line, " registers"))
          k.registers = *v;
        if (auto v = numberBefore(line, " bytes smem"))
          k.sharedBytes = *v;
        if (auto v = numberBefore(line, " bytes stack frame"))
          k.stackBytes = *v;
        if (auto v = numberBefore(line, " bytes spill stores"))
          k.spillStoreBytes = *v;
        if (auto v = numberBefore(line, " bytes spill loads"))
          k.spillLoadBytes = *v;
      }
    }
    kernels.push_back(std::move(k));
  });
  return kernels;
}
