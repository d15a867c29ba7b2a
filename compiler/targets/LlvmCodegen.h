//===- LlvmCodegen.h - LLVM IR -> optimized x86-64 object, in parallel ----===//
//
// The CPU target's last step, after translation to LLVM IR: LLVM's IR
// optimization and x86-64 code generation, which take most of a compile
// (about 60 % of a transformer training step's; `shardc compile --timing`).
// Both work one function at a time, and a model's kernels are separate
// functions, so the module is compiled in partitions on several threads:
//
//   module --SplitModule--> P partitions --bitcode--> P fresh LLVMContexts
//     --(T threads: optimize, generate code)--> P objects --lld -r--> 1 object
//
// P depends only on the module's size, never on the machine, so the object
// is the same on every machine; T (one per hardware thread by default) only
// decides how many partitions are compiled at once. The split makes every
// internal function and constant a hidden global (names unchanged), so a
// partition can call into another; that is all the object changes: a
// kernel is optimized alone
// either way (kernels are `noinline`, and are called through the runtime's
// parallel_for or with memref descriptors whose shapes are constants inside
// the kernel already). Small modules stay in one piece.
//
// No MLIR here: CpuTarget.cpp translates and times; this file compiles.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_TARGETS_LLVMCODEGEN_H
#define SHARDC_COMPILER_TARGETS_LLVMCODEGEN_H

#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace shardc {

struct LlvmCodegenOptions {
  /// LLVM CPU name and subtarget features (already resolved; not "host").
  std::string cpu, features;
  /// 0..3, for both IR optimization and code generation.
  unsigned optLevel = 3;
  /// Partitions: 0 chooses them from the module's size (partitionCountFor);
  /// 1 compiles the module whole.
  unsigned partitions = 0;
  /// Partitions compiled at once: 0 = one per hardware thread.
  unsigned threads = 0;
};

/// An x86-64 Linux target machine (PIC) for `options`' CPU and level.
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createX86TargetMachine(const LlvmCodegenOptions &options);

/// Runs LLVM's per-module default pipeline at optLevel, tuned for code
/// whose hot loops MLIR vectorized already (LlvmCodegen.cpp says how).
void optimizeModule(llvm::Module &module, llvm::TargetMachine &machine, unsigned optLevel);

/// The number of partitions a module of this size is compiled in.
unsigned partitionCountFor(const llvm::Module &module);

/// Optimizes `module` and generates one relocatable ELF object from it, in
/// partitions on threads as above. The module is consumed (split or
/// compiled in place). Errors name the step and the partition that failed.
llvm::Expected<std::string> compileToObject(std::unique_ptr<llvm::Module> module,
                                            const LlvmCodegenOptions &options);

} // namespace shardc

#endif // SHARDC_COMPILER_TARGETS_LLVMCODEGEN_H
