//===- LowerLaunches.cpp - gpu-lower-launches -----------------------------===//
//
// gpu.binary -> constant global, gpu.launch_func -> shardrt_cuda_launch
// (GpuPasses.td). Runs on host code still in the func, memref and arith
// dialects; the CPU target's LLVM-dialect phase lowers the rest.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/gpu/GpuPasses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

namespace shardc {
#define GEN_PASS_DEF_GPULOWERLAUNCHES
#include "compiler/targets/gpu/GpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kLaunch = "shardrt_cuda_launch";
constexpr llvm::StringLiteral kConstant = "shardrt_cuda_constant";

/// `func.func private @name(types) -> result`, declared once.
func::FuncOp declare(ModuleOp module, llvm::StringRef name, TypeRange args, Type result) {
  if (auto fn = module.lookupSymbol<func::FuncOp>(name))
    return fn;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto fn = func::FuncOp::create(b, module.getLoc(), name,
                                 b.getFunctionType(args, result ? TypeRange(result) : TypeRange()));
  fn.setPrivate();
  return fn;
}

/// An internal constant global holding `bytes`, named `name`.
LLVM::GlobalOp byteGlobal(ModuleOp module, llvm::StringRef name, llvm::StringRef bytes) {
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto type = LLVM::LLVMArrayType::get(b.getI8Type(), bytes.size());
  auto global = LLVM::GlobalOp::create(b, module.getLoc(), type, /*isConstant=*/true,
                                       LLVM::Linkage::Internal, name, b.getStringAttr(bytes),
                                       /*alignment=*/16);
  SymbolTable(module).insert(global);
  return global;
}

struct Image {
  std::string global;
  int64_t bytes = 0;
};

/// Replaces every gpu.binary by a global of its object's bytes.
FailureOr<llvm::StringMap<Image>> embedBinaries(ModuleOp module) {
  llvm::StringMap<Image> images;
  for (auto binary : llvm::make_early_inc_range(module.getOps<gpu::BinaryOp>())) {
    auto objects = binary.getObjects();
    auto object = objects.size() == 1 ? dyn_cast<gpu::ObjectAttr>(objects[0]) : nullptr;
    if (!object)
      return binary.emitError() << "gpu-lower-launches: expected one object in gpu.binary @"
                                << binary.getSymName() << ", found " << objects.size();
    std::string bytes = object.getObject().getValue().str();
    // cuModuleLoadData reads PTX up to its NUL.
    if (object.getFormat() == gpu::CompilationTarget::Assembly)
      bytes.push_back('\0');
    Image image;
    image.global = ("__shardc_image_" + binary.getSymName()).str();
    image.bytes = static_cast<int64_t>(bytes.size());
    byteGlobal(module, image.global, bytes);
    images[binary.getSymName()] = image;
    binary.erase();
  }
  return images;
}

/// The kernel argument `v` as the value its stack slot holds.
FailureOr<Value> kernelArgument(OpBuilder &b, Location loc, Value v, ModuleOp module) {
  Type type = v.getType();
  if (auto memref = dyn_cast<MemRefType>(type)) {
    if (!memref.getLayout().isIdentity() || !memref.hasStaticShape())
      return emitError(loc) << "gpu-lower-launches: a kernel argument of type " << type
                            << " is not a dense, statically shaped buffer (gpu-sink-views "
                               "should have moved its view into the kernel)";
    auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
    Value index = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, v);
    Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
    Value ptr = LLVM::IntToPtrOp::create(b, loc, ptrType, i64);
    if (!v.getDefiningOp<memref::GetGlobalOp>())
      return ptr;
    // A constant of the program, in host memory: the device's copy.
    int64_t bytes = memref.getNumElements() *
                    static_cast<int64_t>((memref.getElementTypeBitWidth() + 7) / 8);
    Value size = arith::ConstantIntOp::create(b, loc, bytes, 64);
    func::FuncOp fn = declare(module, kConstant, {ptrType, b.getI64Type()}, ptrType);
    return func::CallOp::create(b, loc, fn, ValueRange{ptr, size}).getResult(0);
  }
  if (type.isIndex())
    return Value(arith::IndexCastOp::create(b, loc, b.getI64Type(), v));
  if (type.isIntOrFloat())
    return v;
  return emitError(loc) << "gpu-lower-launches: a kernel argument of type " << type
                        << " has no lowering";
}

LogicalResult lowerLaunch(gpu::LaunchFuncOp launch, const llvm::StringMap<Image> &images,
                          ModuleOp module, llvm::StringMap<std::string> &names) {
  Location loc = launch.getLoc();
  auto image = images.find(launch.getKernelModuleName().getValue());
  if (image == images.end())
    return launch.emitError() << "gpu-lower-launches: no gpu.binary @"
                              << launch.getKernelModuleName() << " for this launch";
  if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty() ||
      launch.hasClusterSize())
    return launch.emitError() << "gpu-lower-launches: asynchronous and cluster launches are not "
                                 "lowered (the rank's stream orders launches)";
  auto fn = launch->getParentOfType<func::FuncOp>();
  MLIRContext *ctx = launch.getContext();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  OpBuilder b(launch);
  Type i64 = b.getI64Type();

  // The kernel's name as a NUL-terminated global, shared by its launches.
  std::string kernel = launch.getKernelName().getValue().str();
  std::string key = (launch.getKernelModuleName().getValue() + "::" + kernel).str();
  std::string &nameGlobal = names[key];
  if (nameGlobal.empty()) {
    nameGlobal = "__shardc_kernel_" + std::to_string(names.size());
    byteGlobal(module, nameGlobal, kernel + std::string(1, '\0'));
  }

  // Stack slots at the function's entry, so launches in loops reuse them.
  SmallVector<Value> values;
  for (Value arg : launch.getKernelOperands()) {
    FailureOr<Value> v = kernelArgument(b, loc, arg, module);
    if (failed(v))
      return failure();
    values.push_back(*v);
  }
  OpBuilder entry = OpBuilder::atBlockBegin(&fn.getBody().front());
  Value one = LLVM::ConstantOp::create(entry, loc, i64, entry.getI64IntegerAttr(1));
  auto arrayType = LLVM::LLVMArrayType::get(ptrType, std::max<size_t>(values.size(), 1));
  Value params = LLVM::AllocaOp::create(entry, loc, ptrType, arrayType, one);
  for (auto [i, v] : llvm::enumerate(values)) {
    Value slot = LLVM::AllocaOp::create(entry, loc, ptrType, v.getType(), one);
    LLVM::StoreOp::create(b, loc, v, slot);
    Value at = LLVM::GEPOp::create(b, loc, ptrType, arrayType, params,
                                   ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)});
    LLVM::StoreOp::create(b, loc, slot, at);
  }

  auto toI64 = [&](Value v) { return arith::IndexCastOp::create(b, loc, i64, v).getResult(); };
  Value imageAddr = LLVM::AddressOfOp::create(b, loc, ptrType, image->second.global);
  Value nameAddr = LLVM::AddressOfOp::create(b, loc, ptrType, nameGlobal);
  Value bytes = arith::ConstantIntOp::create(b, loc, image->second.bytes, 64);
  Value smem = launch.getDynamicSharedMemorySize()
                   ? launch.getDynamicSharedMemorySize()
                   : arith::ConstantIntOp::create(b, loc, 0, 32).getResult();
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  SmallVector<Value> args = {imageAddr,     nameAddr,       toI64(grid.x),  toI64(grid.y),
                             toI64(grid.z), toI64(block.x), toI64(block.y), toI64(block.z),
                             smem,          params};
  args.insert(args.begin() + 1, bytes);
  SmallVector<Type> types;
  for (Value a : args)
    types.push_back(a.getType());
  func::FuncOp callee = declare(module, kLaunch, types, b.getI32Type());
  func::CallOp::create(b, loc, callee, args);
  launch.erase();
  return success();
}

struct GpuLowerLaunches : shardc::impl::GpuLowerLaunchesBase<GpuLowerLaunches> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<llvm::StringMap<Image>> images = embedBinaries(module);
    if (failed(images))
      return signalPassFailure();
    SmallVector<gpu::LaunchFuncOp> launches;
    module.walk([&](gpu::LaunchFuncOp l) { launches.push_back(l); });
    llvm::StringMap<std::string> names;
    for (gpu::LaunchFuncOp l : launches)
      if (failed(lowerLaunch(l, *images, module, names)))
        return signalPassFailure();
    // The container attribute says the module holds GPU code; it holds
    // none now.
    module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
  }
};

} // namespace
