//===- LlvmCodegen.cpp - LLVM IR -> optimized x86-64 object, in parallel --===//
#include "compiler/targets/LlvmCodegen.h"

#include "compiler/targets/MergeObjects.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/SplitModule.h"

#include <algorithm>
#include <atomic>
#include <numeric>
#include <thread>
#include <vector>

namespace {

constexpr llvm::StringLiteral kTargetTriple = "x86_64-unknown-linux-gnu";

/// Instructions per partition, and at most this many partitions. A
/// transformer training step's module (about 32k instructions, its largest
/// function 7k) compiles in 15 partitions, an MLP step's in 4; a
/// partition's fixed cost (bitcode round trip, a target machine, its share
/// of the merge) is a few milliseconds against 25-50 ms of work. Several
/// partitions per thread balance the threads: SplitModule sizes partitions
/// by whole functions, and with 4k instructions per partition the MLP's
/// two were uneven (LLVM 0.51-0.64 s against 0.35-0.44 s with four, on
/// 2 threads).
constexpr size_t kInstructionsPerPartition = 2048;
constexpr unsigned kMaxPartitions = 16;

llvm::Error failure(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<std::string> generateObject(llvm::Module &module, llvm::TargetMachine &machine) {
  llvm::SmallString<0> bytes;
  llvm::raw_svector_ostream os(bytes);
  llvm::legacy::PassManager codegen;
  if (machine.addPassesToEmitFile(codegen, os, /*DwoOut=*/nullptr,
                                  llvm::CodeGenFileType::ObjectFile))
    return failure("the x86-64 target cannot emit object files");
  codegen.run(module);
  return std::string(bytes.str());
}

/// Optimizes and compiles `module` whole, with a target machine of its own.
llvm::Expected<std::string> compileWhole(llvm::Module &module,
                                         const shardc::LlvmCodegenOptions &options) {
  auto machine = shardc::createX86TargetMachine(options);
  if (!machine)
    return machine.takeError();
  shardc::optimizeModule(module, **machine, options.optLevel);
  return generateObject(module, **machine);
}

/// Compiles one partition, given as bitcode, in a context of its own (a
/// context is used by one thread at a time).
llvm::Expected<std::string> compilePartition(llvm::StringRef bitcode, size_t index,
                                             const shardc::LlvmCodegenOptions &options) {
  llvm::LLVMContext context;
  std::string name = "partition " + std::to_string(index);
  auto module = llvm::parseBitcodeFile(llvm::MemoryBufferRef(bitcode, name), context);
  if (!module)
    return failure("reading " + name + " back: " + llvm::toString(module.takeError()));
  auto object = compileWhole(**module, options);
  if (!object)
    return failure(name + ": " + llvm::toString(object.takeError()));
  return object;
}

bool definesAnything(const llvm::Module &module) {
  auto defined = [](const llvm::GlobalValue &v) { return !v.isDeclaration(); };
  return llvm::any_of(module.functions(), defined) || llvm::any_of(module.globals(), defined);
}

} // namespace

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
shardc::createX86TargetMachine(const LlvmCodegenOptions &options) {
  if (options.optLevel > 3)
    return failure("optLevel " + llvm::Twine(options.optLevel) +
                   " is out of range 0..3");
  llvm::Triple triple(kTargetTriple);
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return failure("no x86-64 target in this LLVM: " + error);
  static const llvm::CodeGenOptLevel kLevels[] = {
      llvm::CodeGenOptLevel::None, llvm::CodeGenOptLevel::Less, llvm::CodeGenOptLevel::Default,
      llvm::CodeGenOptLevel::Aggressive};
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, options.cpu, options.features, llvm::TargetOptions(), llvm::Reloc::PIC_,
      std::nullopt, kLevels[options.optLevel]));
  if (!machine)
    return failure("could not create an x86-64 target machine for CPU " + options.cpu);
  return machine;
}

void shardc::optimizeModule(llvm::Module &module, llvm::TargetMachine &machine,
                            unsigned optLevel) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = optLevel >= 2;
  // No loop unrolling. The kernels that need straight-line code get it from
  // MLIR (the GEMM's register tile and packing copies are vector code, and
  // the recipe unrolls its full tiles' K loops itself: unroll-k), and
  // LLVM's vectorizer still interleaves the loops it vectorizes. Unrolling
  // the rest (static-shape loop nests, fully or by the micro-op buffer, each
  // copy with its own alias checks) tripled the code and the compile time
  // (73.7k against 22.1k lines of IR for the bench's transformer step) for
  // no measured gain (bench/kernels, bench/train; compile --timing shows
  // where a compile's time goes).
  tuning.LoopUnrolling = false;
  // Nor SLP vectorization: the code that wants vectors is vector code
  // already, and the SLP vectorizer took a tenth of LLVM's time on a
  // training step for no measured gain.
  tuning.SLPVectorization = false;
  llvm::PassBuilder builder(&machine, tuning);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  static const llvm::OptimizationLevel kIrLevels[] = {
      llvm::OptimizationLevel::O0, llvm::OptimizationLevel::O1, llvm::OptimizationLevel::O2,
      llvm::OptimizationLevel::O3};
  llvm::ModulePassManager mpm =
      optLevel == 0 ? builder.buildO0DefaultPipeline(llvm::OptimizationLevel::O0)
                    : builder.buildPerModuleDefaultPipeline(kIrLevels[std::min(optLevel, 3u)]);
  mpm.run(module, mam);
}

unsigned shardc::partitionCountFor(const llvm::Module &module) {
  size_t instructions = 0;
  for (const llvm::Function &fn : module)
    instructions += fn.getInstructionCount();
  return static_cast<unsigned>(
      std::clamp<size_t>(instructions / kInstructionsPerPartition, 1, kMaxPartitions));
}

llvm::Expected<std::string> shardc::compileToObject(std::unique_ptr<llvm::Module> module,
                                                    const LlvmCodegenOptions &options) {
  unsigned partitions = options.partitions ? options.partitions : partitionCountFor(*module);
  if (partitions <= 1)
    return compileWhole(*module, options);

  // Each partition leaves as bitcode, to be read into a context of its own.
  std::vector<llvm::SmallString<0>> bitcode;
  llvm::SplitModule(*module, partitions, [&](std::unique_ptr<llvm::Module> part) {
    if (!definesAnything(*part))
      return;
    llvm::raw_svector_ostream os(bitcode.emplace_back());
    llvm::WriteBitcodeToFile(*part, os);
  });
  module.reset();

  // Largest first, so the last partitions to start are short ones.
  std::vector<size_t> order(bitcode.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return bitcode[a].size() > bitcode[b].size(); });
  std::vector<std::string> objects(bitcode.size());
  std::vector<std::string> errors(bitcode.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t k; (k = next.fetch_add(1)) < order.size();) {
      size_t i = order[k];
      auto object = compilePartition(bitcode[i].str(), i, options);
      if (object)
        objects[i] = std::move(*object);
      else
        errors[i] = llvm::toString(object.takeError());
    }
  };
  unsigned threads = options.threads ? options.threads : std::thread::hardware_concurrency();
  threads = std::clamp<unsigned>(threads, 1, std::max<unsigned>(bitcode.size(), 1));
  std::vector<std::thread> helpers;
  for (unsigned t = 1; t < threads; ++t)
    helpers.emplace_back(work);
  work();
  for (std::thread &helper : helpers)
    helper.join();

  for (const std::string &error : errors)
    if (!error.empty())
      return failure(error);
  return mergeRelocatableObjects(objects);
}
