//===- GpuHost.cpp - the GPU target's host code ---------------------------===//
//
// lowerGpuHost (GpuTarget.h): what runs on the CPU of a GPU artifact. The
// host code only sequences work: it allocates and frees device buffers,
// launches kernels, copies whole buffers and calls collectives, all on the
// calling rank's stream through shardrt_cuda.h. It never touches a
// buffer's elements, which is checked before lowering, while memrefs still
// say what they point to.
//
//===----------------------------------------------------------------------===//
#include "compiler/registration/RegisterUpstream.h"
#include "compiler/targets/CpuTarget.h"
#include "compiler/targets/gpu/GpuTarget.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace {

/// The buffer a view of it reads: through subviews, reshapes and casts.
Value rootBuffer(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      break;
    v = view.getViewSource();
  }
  return v;
}

/// Host memory: a constant of the program or a stack slot.
bool isHostMemory(Value memref) {
  Operation *def = rootBuffer(memref).getDefiningOp();
  return def && isa<memref::GetGlobalOp, memref::AllocaOp>(def);
}

/// A host load of one element of a device buffer (a scalar the host needs:
/// an index read after a collective, for the next op's offsets) becomes a
/// copy of that element into a stack slot and a load from the slot; the
/// host phase makes the copy a download, which waits for the rank's work.
void readScalarsFromDevice(ModuleOp module) {
  SmallVector<memref::LoadOp> loads;
  module.walk([&](memref::LoadOp load) {
    if (!isHostMemory(load.getMemRef()) && !load->getParentOfType<gpu::LaunchOp>() &&
        !load->getParentOfType<gpu::GPUModuleOp>())
      loads.push_back(load);
  });
  for (memref::LoadOp load : loads) {
    OpBuilder b(load);
    Location loc = load.getLoc();
    auto type = cast<MemRefType>(load.getMemRef().getType());
    Value element = load.getMemRef();
    if (type.getRank() > 0) {
      SmallVector<OpFoldResult> offsets(load.getIndices().begin(), load.getIndices().end());
      SmallVector<OpFoldResult> ones(type.getRank(), b.getIndexAttr(1));
      element = memref::SubViewOp::create(b, loc, element, offsets, ones, ones);
      element = memref::CollapseShapeOp::create(b, loc, element, ArrayRef<ReassociationIndices>{});
    }
    Value slot = memref::AllocaOp::create(b, loc, MemRefType::get({}, type.getElementType()));
    memref::CopyOp::create(b, loc, element, slot);
    load.replaceAllUsesWith(memref::LoadOp::create(b, loc, slot, ValueRange()).getResult());
    load.erase();
  }
}

/// Refuses host code that would read or write a device buffer's elements,
/// naming the op: a GPU artifact's buffers live on the device.
LogicalResult checkHostCode(ModuleOp module) {
  WalkResult r = module.walk([&](Operation *op) {
    auto refuse = [&](llvm::StringRef what) {
      op->emitError() << "the GPU target's host code would " << what
                      << " a device buffer here ('" << op->getName()
                      << "' outside a kernel); this op has no GPU kernel recipe yet "
                         "(docs/gpu.md); --target cpu compiles this model";
      return WalkResult::interrupt();
    };
    if (auto load = dyn_cast<memref::LoadOp>(op))
      return isHostMemory(load.getMemRef()) ? WalkResult::advance() : refuse("read");
    if (auto store = dyn_cast<memref::StoreOp>(op))
      return isHostMemory(store.getMemRef()) ? WalkResult::advance() : refuse("write");
    if (isa<vector::TransferReadOp, vector::LoadOp, vector::TransferWriteOp, vector::StoreOp>(
            op))
      return refuse("access");
    if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      // A dense copy out of a constant becomes an upload, one of a single
      // element into a stack slot a download (readScalarsFromDevice).
      auto target = cast<MemRefType>(copy.getTarget().getType());
      if (isHostMemory(copy.getTarget()) &&
          !(copy.getTarget().getDefiningOp<memref::AllocaOp>() && target.getRank() == 0))
        return refuse("copy device memory into host memory through");
      if (target.getRank() == 0)
        return WalkResult::advance();
      auto dense = [](Value v) {
        auto type = cast<MemRefType>(v.getType());
        return type.getLayout().isIdentity() && type.hasStaticShape();
      };
      if (!dense(copy.getSource()) || !dense(copy.getTarget()))
        return refuse("copy a strided view of");
    }
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

/// Each gpu.binary's object becomes the image the artifact embeds.
LogicalResult setImages(ModuleOp module, const std::vector<shardc::PtxModule> &modules,
                        const shardc::GpuTargetOptions &options) {
  for (auto binary : module.getOps<gpu::BinaryOp>()) {
    auto m = llvm::find_if(modules, [&](const shardc::PtxModule &p) {
      return p.name == binary.getSymName();
    });
    auto objects = binary.getObjects();
    auto object = objects.size() == 1 ? dyn_cast<gpu::ObjectAttr>(objects[0]) : nullptr;
    if (m == modules.end() || !object)
      return binary.emitError() << "GPU target: no assembled module for gpu.binary @"
                                << binary.getSymName() << " (an internal error)";
    llvm::Expected<std::string> image =
        shardc::gpu::moduleImage(options.toolkit, options.arch, m->ptx, m->cubin);
    if (!image)
      return binary.emitError() << "GPU target: " << llvm::toString(image.takeError());
    auto format = options.arch == shardc::gpu::GpuArch::Sm90a ? gpu::CompilationTarget::Binary
                                                              : gpu::CompilationTarget::Fatbin;
    auto imageObject =
        gpu::ObjectAttr::get(module.getContext(), object.getTarget(), format,
                             StringAttr::get(module.getContext(), *image),
                             object.getProperties(), object.getKernels());
    binary.setObjectsAttr(ArrayAttr::get(module.getContext(), {imageObject}));
  }
  return success();
}

/// The host phase, narrated.
std::string hostPipeline() {
  return std::string(
             // Images embedded, launches as shardrt_cuda_launch calls.
             "gpu-lower-launches, "
             // Free every temporary buffer (stream-ordered frees, so a
             // buffer a pending kernel reads is reused only after it).
             "buffer-deallocation-pipeline, convert-bufferization-to-memref, canonicalize, "
             "convert-scf-to-cf, ") +
         // The CPU target's LLVM-dialect phase.
         shardc::llvmDialectPhasePasses() +
         // malloc/free/memcpy/collectives on device memory.
         ", gpu-device-memory";
}

LogicalResult checkFullyLowered(ModuleOp module) {
  Operation *leftover = nullptr;
  module.walk([&](Operation *op) {
    if (op != module.getOperation() && !isa_and_nonnull<LLVM::LLVMDialect>(op->getDialect()) &&
        !leftover)
      leftover = op;
  });
  if (!leftover)
    return success();
  return leftover->emitError() << "'" << leftover->getName()
                               << "' was not lowered by the GPU target's host phase";
}

} // namespace

LogicalResult shardc::lowerGpuHost(ModuleOp module, llvm::StringRef entry,
                                   const std::vector<PtxModule> &modules,
                                   const GpuTargetOptions &options) {
  std::string bodyName = (entry + "_shardc_body").str();
  auto body = module.lookupSymbol<func::FuncOp>(bodyName);
  if (!body)
    return module.emitError() << "GPU target: the buffer wrapper @" << bodyName
                              << " is missing (an internal error)";
  SmallVector<MemRefType> buffers;
  for (Type t : body.getArgumentTypes())
    buffers.push_back(cast<MemRefType>(t));
  readScalarsFromDevice(module);
  if (failed(checkHostCode(module)) || failed(setImages(module, modules, options)))
    return failure();
  std::string errors;
  llvm::raw_string_ostream os(errors);
  PassManager pm(module.getContext());
  if (failed(parsePassPipeline(hostPipeline(), pm, os)))
    return module.emitError() << "GPU target: internal host pipeline does not parse: " << errors;
  if (failed(pm.run(module)) || failed(checkFullyLowered(module)))
    return failure();
  return addEntryPointerArray(module, entry, buffers);
}
