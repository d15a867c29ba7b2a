//===- Pipeline.cpp - the compiler, phase by phase -------------------------===//
//
// Runs the phases of passes/Pipelines.h one pass manager each, stopping
// where `emit` asks, and reads the report at the boundary where it is exact:
// placements, collectives and memory after partitioning, before types go
// local (compiler/report/). Then the CPU target turns the local program into
// an object.
//
//===----------------------------------------------------------------------===//
#include "compiler/pipeline/Pipeline.h"

#include "compiler/registration/RegisterUpstream.h"
#include "compiler/report/MemoryEstimate.h"
#include "compiler/report/ReadCollectives.h"
#include "compiler/report/ReadOverlap.h"
#include "compiler/report/ReadSignature.h"
#include "compiler/targets/CpuTarget.h"
#include "compiler/targets/gpu/GpuTarget.h"
#include "dialects/garray/GArray.h"
#include "passes/Pipelines.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <functional>

using namespace mlir;
using mlir::garray::locationText;

namespace shardc {

std::optional<Phase> parsePhase(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<Phase>>(name)
      .Case("global", Phase::Global)
      .Case("propagated", Phase::Propagated)
      .Case("partitioned", Phase::Partitioned)
      .Case("local", Phase::Local)
      .Case("llvm", Phase::LLVM)
      .Case("gpu", Phase::Gpu)
      .Case("ptx", Phase::Ptx)
      .Default(std::nullopt);
}

void registerCompilerDialects(DialectRegistry &registry) {
  registerUpstreamDialects(registry);
  garray::registerShardcDialects(registry);
}

namespace {

/// Runs the passes `build` adds, timed as `phase` under `timing` when given.
LogicalResult run(ModuleOp module, TimingScope *timing, llvm::StringRef phase,
                  llvm::function_ref<void(OpPassManager &)> build) {
  PassManager pm(module.getContext());
  // Idempotent; without it applyPassManagerCLOptions fails silently for hosts
  // that never registered the pass-manager options.
  registerPassManagerCLOptions();
  if (failed(applyPassManagerCLOptions(pm)))
    return failure();
  build(pm);
  TimingScope scope = timing ? timing->nest(phase) : TimingScope();
  if (timing)
    pm.enableTiming(scope);
  return pm.run(module);
}

/// Programs are garray ops, with func, cf and scf around them (and ops
/// that bufferize as they are: arith.constant, tensor.extract). An
/// elementwise op of another dialect on tensors (arith.addf for garray.add,
/// math.exp for garray.exp) passed propagation as an op without a rule on
/// whole values, but nothing lowers it, and bufferization failed on it with
/// "op was not bufferized". Said here, by name, with the fix.
LogicalResult checkLowerable(ModuleOp module) {
  WalkResult walked = module.walk([](Operation *op) {
    Dialect *dialect = op->getDialect();
    StringRef ns = dialect ? dialect->getNamespace() : "";
    if (llvm::is_contained({"garray", "comm"}, ns) || !op->hasTrait<OpTrait::Elementwise>())
      return WalkResult::advance();
    auto isTensor = [](Type t) { return isa<TensorType>(t); };
    if (llvm::none_of(op->getOperandTypes(), isTensor) &&
        llvm::none_of(op->getResultTypes(), isTensor))
      return WalkResult::advance();
    op->emitError("'") << op->getName()
                       << "' on tensors is not an op shardc compiles (it has no sharding rule "
                          "and no lowering); write the computation with garray ops, e.g. "
                          "garray.add for arith.addf";
    return WalkResult::interrupt();
  });
  return failure(walked.wasInterrupted());
}

/// Embeds `record` (Signature.h, artifactRecord) in the module as a
/// NUL-terminated constant with external linkage, so no pass drops it and
/// the object carries it.
void embedText(ModuleOp module, llvm::StringRef symbol, llvm::StringRef record) {
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  std::string text = record.str();
  text.push_back('\0');
  auto type = LLVM::LLVMArrayType::get(IntegerType::get(module.getContext(), 8), text.size());
  LLVM::GlobalOp::create(b, module.getLoc(), type, /*isConstant=*/true, LLVM::Linkage::External,
                         symbol, b.getStringAttr(text));
}

void embedArtifactRecord(ModuleOp module, const Signature &sig) {
  embedText(module, "__shardc_artifact_record", artifactRecord(sig));
}

/// What a standalone executable's main needs of the object (Signature.h,
/// signatureText): `shardc_signature`, and `shardc_entry`, a pointer to the
/// entry under a name that does not depend on the model.
void embedSignature(ModuleOp module, const Signature &sig) {
  embedText(module, "shardc_signature", signatureText(sig));
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto ptr = LLVM::LLVMPointerType::get(module.getContext());
  auto global = LLVM::GlobalOp::create(b, module.getLoc(), ptr, /*isConstant=*/true,
                                       LLVM::Linkage::External, "shardc_entry", Attribute());
  Block *init = b.createBlock(&global.getInitializerRegion());
  b.setInsertionPointToStart(init);
  Value entry = LLVM::AddressOfOp::create(b, module.getLoc(), ptr, sig.entry);
  LLVM::ReturnOp::create(b, module.getLoc(), entry);
}

} // namespace

/// The GPU target (GpuTarget.h): kernels, PTX assembled by ptxas, then
/// the host code and the object, with the CPU target's object emission.
std::optional<CompileResult> lowerForGpu(ModuleOp module, llvm::StringRef entry,
                                         const GpuTargetOptions &gpu,
                                         const CompileOptions &options, CompileResult result) {
  if (failed(lowerToGpuKernels(module, entry, gpu)))
    return std::nullopt;
  if (options.emit == Phase::Gpu) {
    if (options.emitStream)
      module.print(*options.emitStream);
    return result;
  }
  FailureOr<std::vector<PtxModule>> ptx = emitPtx(module, gpu);
  if (failed(ptx))
    return std::nullopt;
  if (options.emit == Phase::Ptx) {
    if (options.emitStream)
      for (const PtxModule &m : *ptx) {
        *options.emitStream << "// ---- gpu.module @" << m.name << " ----\n" << m.ptx;
        llvm::StringRef report = m.ptxasReport;
        llvm::SmallVector<llvm::StringRef> lines;
        report.trim().split(lines, '\n');
        for (llvm::StringRef line : lines)
          *options.emitStream << "// " << line << "\n";
      }
    return result;
  }
  result.signature.target = gpuTargetName(gpu.arch);
  result.signature.kernels = kernelRecords(module, *ptx);
  if (failed(lowerGpuHost(module, entry, *ptx, gpu)))
    return std::nullopt;
  embedArtifactRecord(module, result.signature);
  embedSignature(module, result.signature);
  // The host code is a few calls per kernel: compiled for any x86-64, so
  // the artifact runs on whatever CPU hosts the GPU.
  CpuTargetOptions host;
  host.cpu = "x86-64";
  host.codegenThreads = options.compileThreads;
  host.codegenPartitions = options.codegenPartitions;
  host.timing = options.timing;
  if (options.emit == Phase::LLVM) {
    FailureOr<std::string> ir = emitLLVMIR(module, host);
    if (failed(ir))
      return std::nullopt;
    if (options.emitStream)
      *options.emitStream << *ir;
    return result;
  }
  FailureOr<std::string> object = emitObject(module, host);
  if (failed(object))
    return std::nullopt;
  result.object = std::move(*object);
  return result;
}

std::optional<CompileResult> compileModule(ModuleOp module, const CompileOptions &options) {
  CompileResult result;
  auto stopHere = [&](Phase p) {
    if (options.emit != p)
      return false;
    if (options.emitStream)
      module.print(*options.emitStream);
    return true;
  };

  // Phase 0: the global program with the mesh sizes of this build:
  // composites decomposed, training steps differentiated and optimizer
  // updates written out (passes/Pipelines.h narrates each phase's passes).
  GlobalPhaseOptions global;
  global.meshSizes = options.meshSizes;
  if (failed(run(module, options.timing, "global phase",
                     [&](OpPassManager &pm) { buildGlobalPhase(pm, global); })))
    return std::nullopt;
  FailureOr<func::FuncOp> entry = findEntry(module, options.entry);
  if (failed(entry))
    return std::nullopt;
  std::string entryName = entry->getSymName().str();
  if (stopHere(Phase::Global))
    return result;

  // What the user placed (propagation then places all), for the memory
  // estimate's advice.
  UserPlaced userPlaced = readUserPlaced(module, *entry);

  // Phase 1: placements, to a fixed point; with `explain`, each value's
  // provenance as a remark.
  PropagationPhaseOptions propagation;
  propagation.explain = options.explain;
  propagation.splitIdleAxes = options.splitIdleAxes;
  propagation.shardOptimizerState = options.shardOptimizerState;
  propagation.shardStateMinElements = options.shardStateMinElements;
  if (failed(run(module, options.timing, "propagation phase",
                     [&](OpPassManager &pm) { buildPropagationPhase(pm, propagation); })))
    return std::nullopt;
  if (stopHere(Phase::Propagated))
    return result;

  // Phase 2: partitioning. The signature, the collectives and the memory
  // estimate are read right after it, where placements and byte counts are
  // exact and types still global.
  if (failed(run(module, options.timing, "partition phase", buildPartitionPhase)))
    return std::nullopt;
  if (failed(readSignature(*entry, result.signature)))
    return std::nullopt;
  readCollectives(*entry, result.signature);
  readMemory(*entry, result.signature, userPlaced);
  if (options.memoryBudget) {
    std::string over = memoryBudgetError(result.signature, *options.memoryBudget);
    if (!over.empty()) {
      if (!over.empty() && over.back() == '\n')
        over.pop_back();
      entry->emitError(over);
      return std::nullopt;
    }
  }
  result.signature.entry = entryName + kCpuEntrySuffix.str();
  if (stopHere(Phase::Partitioned))
    return result;

  // Phase 3: the local program.
  LocalPhaseOptions local;
  local.combineBytes = options.combineBytes;
  if (failed(run(module, options.timing, "local phase",
                     [&](OpPassManager &pm) { buildLocalPhase(pm, local); })))
    return std::nullopt;
  readCombined(module, entryName, result.signature);
  readOverlap(module, entryName, result.signature);
  if (stopHere(Phase::Local))
    return result;

  // Phase 4: lowering. Compute to linalg (fused and bufferized by the CPU
  // target), collectives to runtime calls, then LLVM and machine code.
  if (failed(checkLowerable(module)))
    return std::nullopt;
  if (failed(run(module, options.timing, "lowering phase", buildLoweringPhase)))
    return std::nullopt;
  if (options.gpu)
    return lowerForGpu(module, entryName, *options.gpu, options, std::move(result));
  CpuTargetOptions cpu;
  cpu.cpu = options.cpu;
  cpu.profile = options.profile;
  cpu.gpuSequential = options.gpuSequential;
  cpu.gpuTf32 = options.gpuTf32;
  cpu.codegenThreads = options.compileThreads;
  cpu.codegenPartitions = options.codegenPartitions;
  cpu.verifyEachPass = options.verifyEachPass;
  cpu.timing = options.timing;
  if (failed(lowerToLLVMDialect(module, entryName, cpu)))
    return std::nullopt;
  embedArtifactRecord(module, result.signature);
  embedSignature(module, result.signature);
  if (options.emit == Phase::LLVM) {
    FailureOr<std::string> ir = emitLLVMIR(module, cpu);
    if (failed(ir))
      return std::nullopt;
    if (options.emitStream)
      *options.emitStream << *ir;
    return result;
  }
  FailureOr<std::string> object = emitObject(module, cpu);
  if (failed(object))
    return std::nullopt;
  result.object = std::move(*object);
  return result;
}

std::optional<CompileResult>
compileText(llvm::StringRef text, llvm::StringRef bufferName, const CompileOptions &options,
            std::string &diagnostics, const std::function<void(Diagnostic &)> &observe) {
  DialectRegistry registry;
  registerModelDialects(registry);
  // One thread per context: callers often compile while ranks run as threads.
  MLIRContext ctx(registry, MLIRContext::Threading::DISABLED);
  ctx.loadAllAvailableDialects();
  ctx.printOpOnDiagnostic(false);
  llvm::raw_string_ostream diag(diagnostics);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, bufferName),
                               llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &ctx, diag);
  // Registered after the text handler, so called before it; it passes on.
  std::optional<ScopedDiagnosticHandler> observer;
  if (observe)
    observer.emplace(&ctx, [&](Diagnostic &d) {
      observe(d);
      return failure();
    });
  OwningOpRef<ModuleOp> module = parseModel(sourceMgr, ctx);
  if (!module)
    return std::nullopt;
  return compileModule(*module, options);
}

bool fileLocationOf(Location loc, std::string &file, unsigned &line, unsigned &column) {
  if (auto f = dyn_cast<FileLineColRange>(loc)) {
    file = f.getFilename().str();
    line = f.getStartLine();
    column = f.getStartColumn();
    return true;
  }
  if (auto n = dyn_cast<NameLoc>(loc))
    return fileLocationOf(n.getChildLoc(), file, line, column);
  if (auto c = dyn_cast<CallSiteLoc>(loc))
    return fileLocationOf(c.getCallee(), file, line, column) ||
           fileLocationOf(c.getCaller(), file, line, column);
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location l : fused.getLocations())
      if (fileLocationOf(l, file, line, column))
        return true;
  return false;
}

} // namespace shardc
