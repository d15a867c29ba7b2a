//===- CpuTarget.cpp - Tensor program -> LLVM dialect -> x86-64 object ----===//
//
// lowerToLLVMDialect runs three steps:
//   1. C++: wrap the tensor entry in a function on memrefs (one per input and
//      per result) that materializes each result into its output buffer.
//   2. The narrated MLIR pipeline in cpuLoweringPipeline(): tensor-level
//      fusion, bufferization, deallocation, loops, LLVM dialect.
//   3. C++: check that everything reached the LLVM dialect and that no
//      unexpected external symbol appeared, then add the `void**` entry that
//      unpacks the buffer array into memref descriptors.
// emitLLVMIR / emitObject translate to LLVM IR, optimize with LLVM's default
// pipeline and (for objects) run x86-64 code generation, all in process and,
// for large modules, in partitions on several threads (LlvmCodegen.h).
//
// Invariants: every failure is reported as an MLIR diagnostic on the module
// (or the offending op) and returned as failure(); the entry ABI is the one
// documented in CpuTarget.h.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/CpuTarget.h"

#include "compiler/registration/RegisterUpstream.h"
#include "compiler/targets/CpuPasses.h"
#include "compiler/targets/LlvmCodegen.h"
#include "compiler/targets/gpu/GpuPasses.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Target/LLVMIR/LLVMTranslationInterface.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"

#include <memory>
#include <mutex>
#include <optional>

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kBodySuffix = "_shardc_body";
constexpr llvm::StringLiteral kTargetTriple = "x86_64-unknown-linux-gnu";

//===----------------------------------------------------------------------===//
// The pipeline, as narrated code
//===----------------------------------------------------------------------===//

/// Collects pass names into a textual pipeline anchored on builtin.module.
class PipelineText {
public:
  PipelineText &add(llvm::StringRef pass) {
    passes.push_back(pass.str());
    return *this;
  }
  /// The passes, comma-separated.
  std::string list() const {
    std::string text;
    llvm::raw_string_ostream os(text);
    llvm::interleave(passes, os, ", ");
    return text;
  }
  std::string str() const { return "builtin.module(" + list() + ")"; }

private:
  std::vector<std::string> passes;
};

/// Register and cache tiles of the GEMM recipe (cpu-tile-and-vectorize-matmul)
/// per vector ISA; the first row whose feature the target CPU has wins.
/// Register tile: `tileRows` x `tileVectors` vector registers of
/// accumulators, leaving registers for one row of B and a broadcast of A
/// (AVX-512 has 32 vector registers, AVX2/SSE 16). Cache blocks: M, N, K in
/// elements; M is a multiple of tileRows so blocks split into full tiles.
/// K unroll: copies of the K step per iteration of a full tile's K loop
/// (the loop's own instructions were a tenth of the 6x16 AVX2 kernel's).
/// Measured with bench/kernels (bench/README.md). A K block of 512 halves
/// the passes over C against 256 (the 2048^3 GEMM reloads C 4 times, not
/// 8); the M block keeps A's block, mc x 512 f32, well inside L2: 384 KiB
/// on AVX-512 cores (1-2 MiB of L2), 192 KiB on AVX2 ones (Zen 3 has 512
/// KiB). On an AVX-512 Xeon that moved the square and MLP forms from
/// 0.87-1.00x of OpenBLAS to 0.97-1.07x, and the same forms as AVX2 code
/// (--cpu x86-64-v3, against OpenBLAS's Haswell kernel) from 0.75-0.97x
/// to 0.86-1.05x.
struct GemmTuning {
  const char *feature; // LLVM subtarget feature, "" = any x86-64
  int64_t vectorBits, tileRows, tileVectors, mc, nc, kc, unrollK;
};
constexpr GemmTuning kGemmTunings[] = {
    {"+avx512f", 512, 8, 2, 192, 4096, 512, 4},
    {"+avx2", 256, 6, 2, 96, 4096, 512, 4},
    {"", 128, 6, 2, 144, 4096, 256, 4},
};

std::string gemmPassText(const GemmTuning &t) {
  return llvm::formatv("cpu-tile-and-vectorize-matmul{{vector-bits={0} tile-rows={1} "
                       "tile-vectors={2} cache-tiles={3},{4},{5} unroll-k={6}}",
                       t.vectorBits, t.tileRows, t.tileVectors, t.mc, t.nc, t.kc, t.unrollK)
      .str();
}

/// The tensor phase, which the GPU target runs too (tensorPhasePasses).
/// `cpuKernels`: what follows compiles the kernels for the CPU; the GPU
/// target's tile phase wants kernels of one result and masks of i1.
void addTensorPhase(PipelineText &p, bool cpuKernels) {
  // The entry is called exactly once, from the buffer wrapper. Inlining it (and
  // private tensor helpers) lets bufferization write results straight into the
  // caller's output buffers instead of returning fresh allocations to copy.
  p.add("inline");
  // Drop the entry and helpers that inlining left unreferenced, so they are not
  // bufferized and compiled for nothing.
  p.add("symbol-dce");
  // Elementwise fusion only understands linalg.generic; named ops (fill,
  // transpose, ...) must be generic first. Unlike upstream
  // linalg-generalize-named-ops this keeps matmul/batch_matmul named, so
  // fusion cannot fold producers into them and the GEMM recipe below still
  // finds them.
  p.add("cpu-generalize-named-ops");
  // Chains of elementwise ops become one generic: one loop nest, and no
  // intermediate tensors (so no malloc/free) between them; a very long
  // chain becomes several, so that fusing costs time linear in its length.
  // On the CPU a producer of several uses also fuses into its first
  // consumer, which then writes both results.
  // A producer whose inputs a consumer reads anyway is recomputed there
  // rather than written and read back.
  p.add(cpuKernels ? "cpu-fuse-elementwise-ops"
                   : "cpu-fuse-elementwise-ops{fuse-several-uses=false "
                     "recompute-from-inputs=false}");
  // Masks left between kernels are stored as bytes, so that the loops
  // writing and reading them vectorize.
  if (cpuKernels)
    p.add("cpu-widen-boolean-tensors");
  // Long float sums into a scalar (a loss's mean) as partial sums side by
  // side, then a sum of those: accurate like a tree, and vectorized.
  if (cpuKernels)
    p.add("cpu-split-long-reductions");
  // Give generics that are really fill/copy/elementwise ops their names back.
  // Contractions stay generic: upstream linalg-specialize-generic-ops (LLVM
  // 22) drops a transposed operand's map when it makes them
  // linalg.matmul/batch_matmul (attention's q·kᵀ came out wrong), see
  // CpuPasses.td.
  p.add("cpu-specialize-generic-ops");
  // Tidy fused bodies and fold constants before bufferization analyses them;
  // CSE merges duplicate tensor.empty/constants the fusion left behind.
  p.add("canonicalize");
  p.add("cse");
}

/// The LLVM-dialect phase, which the GPU target's host code runs too
/// (llvmDialectPhasePasses).
void addLlvmDialectPhase(PipelineText &p) {
  // Subviews/casts -> explicit offset/stride arithmetic that
  // finalize-memref-to-llvm can lower (it emits affine.apply) ...
  p.add("expand-strided-metadata");
  // ... and affine.apply (plus any affine op) -> arith.
  p.add("lower-affine");
  // arith ops without a direct LLVM counterpart (ceildivsi, floordivsi, ...),
  // and bf16 <-> f32 as integer shifts and round-to-nearest-even.
  p.add("arith-expand{include-bf16=true}");
  // vector.fma/load/store/broadcast -> LLVM vector ops and intrinsics; before
  // finalize-memref-to-llvm, whose memref descriptors it uses.
  p.add("convert-vector-to-llvm");
  // math ops with LLVM intrinsics (exp, log, sqrt, tanh, pow, ...): LLVM can
  // vectorize them and calls libm where it has to.
  p.add("convert-math-to-llvm");
  // The remaining math ops (erf, ...) as plain libm calls; emits func.call, so
  // it must run before convert-func-to-llvm.
  p.add("convert-math-to-libm");
  // memref.alloc -> malloc, memref.dealloc -> free, load/store -> GEP,
  // memref.global -> llvm.mlir.global.
  p.add("finalize-memref-to-llvm");
  // Scalar arithmetic (including the index math of the passes above).
  p.add("convert-arith-to-llvm");
  // index dialect ops that canonicalization/tiling patterns may introduce.
  p.add("convert-index-to-llvm");
  // ub.poison (from canonicalization, vectorization) -> llvm.mlir.poison.
  p.add("convert-ub-to-llvm");
  // func.func/call -> llvm.func/call with the default memref descriptor
  // convention, which the `void**` entry unpacks. Declarations on !llvm.ptr /
  // i64 / i32 become plain C calls (shardrt_*).
  p.add("convert-func-to-llvm");
  // The dispatch functions of cpu-outline-parallel-loops: pack the
  // arguments, call shardrt_parallel_for with a task that unpacks them.
  p.add("cpu-build-parallel-dispatch");
  // Branches from convert-scf-to-cf.
  p.add("convert-cf-to-llvm");
  // The type-conversion casts between the steps above now cancel out.
  p.add("reconcile-unrealized-casts");
}

std::string buildCpuPipeline(const GemmTuning &gemm, const shardc::CpuTargetOptions &options) {
  bool profile = options.profile;
  PipelineText p;
  // ---- Tensor phase: the program is still values; rewrite it while that is
  // ---- cheap and analyzable.
  addTensorPhase(p, /*cpuKernels=*/!options.gpuSequential);
  // CSE may have merged the fill/empty that two ops start from; the next pass
  // would then put both in one output buffer. Make each destination chain
  // private again, or mark its result for a plain copy.
  // Tests of the GPU target: its tile phase (elementwise ops into mapped
  // foralls), then, once bufferized, the tiles run in index order; the rest
  // of this pipeline compiles them like any loop nest.
  if (options.gpuSequential) {
    p.add("gpu-split-reductions");
    p.add(options.gpuTf32 ? "gpu-tile-and-fuse{tf32=1}" : "gpu-tile-and-fuse");
  }
  p.add("cpu-guard-empty-tensor-elimination");
  // A tensor.empty that is only materialized into an output buffer is replaced
  // by that buffer, so the producing op writes the output in place.
  p.add("eliminate-empty-tensors");
  // Tensors -> buffers in one analysis over the whole module.
  //  - bufferize-function-boundaries: helpers that were not inlined get memref
  //    signatures;
  //  - identity-layout-map: those memrefs stay dense (no strided layouts).
  p.add("one-shot-bufferize{bufferize-function-boundaries "
        "function-boundary-type-conversion=identity-layout-map}");
  if (options.gpuSequential) {
    // As the GPU target's tile pipeline (GpuTarget.cpp) up to its kernels.
    p.add("canonicalize");
    p.add("gpu-host-loops");
    p.add("gpu-copy-kernels");
    p.add("gpu-stage-contractions{workgroup-memory=0}");
    p.add("gpu-block-reductions{workgroup-memory=0}");
    p.add("gpu-stage-transposes{workgroup-memory=0}");
    p.add("gpu-vectorize-threads");
    p.add("gpu-sequential-forall");
  }
  // Remove self-copies and dead allocations bufferization may leave.
  p.add("canonicalize");

  // ---- Buffer phase: make memory management explicit.
  // Free every allocation (bufferization temporaries and memref.alloc written
  // in the input, e.g. communication scratch buffers) on every path;
  // ownership-based, so aliased buffers are freed exactly once.
  // (upstream's buffer-deallocation-pipeline, with fresh allocations split
  // off their block's dealloc before the simplification compares them)
  p.add("expand-realloc{emit-deallocs=false}");
  p.add("canonicalize");
  p.add("ownership-based-buffer-deallocation");
  p.add("canonicalize");
  p.add("cpu-split-fresh-deallocs");
  p.add("buffer-deallocation-simplification");
  p.add("bufferization-lower-deallocations");
  p.add("cse");
  p.add("canonicalize");
  // Lower bufferization.clone that deallocation may introduce (alloc + copy).
  p.add("convert-bufferization-to-memref");
  // Copies into/out of strided subviews (concatenation, all-gather assembly)
  // would become calls to MLIR's runtime function `memrefCopy`, an undefined
  // symbol in our object; make them linalg.copy loops instead.
  p.add("cpu-lower-strided-copies");

  // ---- Loop phase.
  // A function of many kernels (an unrolled scan's steps) gives each its
  // own function now (a matmul with the fill and consumer the GEMM recipe
  // takes in), and kernels that are the same up to their operands' offsets
  // become one, so that the passes below, the GEMM recipe first, lower (and
  // LLVM compiles) each distinct kernel once. Not when profiling, which
  // times each call site under a kernel of its own.
  if (!profile) {
    p.add("cpu-outline-loop-nests");
    p.add("cpu-generalize-kernel-offsets");
    p.add("cpu-merge-identical-functions");
  }
  // Matmuls: cache blocks, register tiles, vector FMAs with the accumulator
  // in registers (the recipe is in CpuPasses.td). Runs on buffers so the
  // accumulator hoisting is a read/write pair on one memref.
  p.add(gemmPassText(gemm));
  // Each buffer freed right after its last use, not when the step ends;
  // after the recipe, which finds a matmul's epilogue among the ops that
  // follow it.
  p.add("cpu-free-after-last-use");
  // Reductions whose outer loop reduces (column sums) get their parallel
  // dims split into chunks outermost, for the kernel threads.
  p.add("cpu-parallelize-leading-reductions");
  // Linalg on buffers -> loop nests over memref.load/store (what the recipe
  // left: elementwise nests, reductions, packing copies), with the outer
  // parallel dims as scf.parallel and the rest as scf.for in the op's order.
  // LLVM's loop vectorizer vectorizes the elementwise nests at O2+.
  p.add("convert-linalg-to-parallel-loops");
  // Vector transfers the recipe left above rank 1 -> loops of 1-D transfers.
  p.add("convert-vector-to-scf{full-unroll=true}");
  // math.fpowi/ipowi would become llvm.powi, i.e. a call to libgcc's
  // __powisf2; outline a software implementation instead (libc/libm only).
  p.add("convert-math-to-funcs");
  // LLVM has no structured control flow.
  // A function of many kernels (one loop nest each, between collectives)
  // would cost LLVM more than linear time: past 64 nests, each nest becomes
  // a no_inline function of its own.
  // Large parallel loops run on the rank's kernel threads: each becomes a
  // chunk function called through shardrt_parallel_for (defined below, once
  // arguments are LLVM values).
  p.add("cpu-outline-parallel-loops");
  // Profiling times kernels by their calls: every nest gets a function.
  p.add(profile ? "cpu-outline-loop-nests{min-nests=0}" : "cpu-outline-loop-nests");
  // One copy of each kernel, however often the model repeats it. Not when
  // profiling, where each call site is reported under its own kernel name.
  if (profile)
    p.add("cpu-instrument-profile");
  else {
    // Kernels that differ only in where their operands start (an unrolled
    // scan's steps, each on its slice of one buffer) become identical.
    p.add("cpu-generalize-kernel-offsets");
    p.add("cpu-merge-identical-functions");
  }
  p.add("convert-scf-to-cf");
  // x86-64 has no bf16 arithmetic, and LLVM's fallback rounds f32 -> bf16 by
  // calling __truncsfbf2, which libgcc 12 lacks: the object would not load.
  // Compute 16-bit float math and bf16 arithmetic in f32 instead; the
  // roundings back to bf16 become integer ops in arith-expand below.
  p.add("math-extend-to-supported-types{target-type=f32}");
  p.add("arith-emulate-unsupported-floats{source-types=bf16 target-type=f32}");
  // exp and tanh as arithmetic the loop vectorizer vectorizes, instead
  // of a libm call per lane (after the extension above, so that 16-bit
  // floats, computed in f32, get them too).
  p.add("cpu-approximate-math");
  // Roundings to bf16 as vector integer code, before arith-expand would
  // write them in a form x86 scalarizes.
  p.add("cpu-round-to-bf16");
  // Float max/min as LLVM intrinsics, not arith-expand's compare and
  // select, so that row maxima vectorize.
  p.add("cpu-min-max-to-intrinsics");

  addLlvmDialectPhase(p);
  // What is left of a very long function (an unrolled scan's step: calls,
  // allocations, collectives) in segments of bounded size, which LLVM
  // compiles in linear time and on several threads.
  p.add("cpu-outline-body-segments");
  return p.str();
}

//===----------------------------------------------------------------------===//
// The target CPU
//===----------------------------------------------------------------------===//

void initializeX86Target() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
  });
}

/// An LLVM CPU name and feature string, with "host" replaced by what this
/// machine reports.
struct ResolvedCpu {
  std::string name;
  std::string features; // "+avx2,-avx512f,..." for the host, "" for a named CPU
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget;
};

/// The CPU `options` names, or nullopt with `error` set when LLVM does not
/// know it.
std::optional<ResolvedCpu> resolveCpu(const shardc::CpuTargetOptions &options, std::string &error) {
  initializeX86Target();
  llvm::Triple triple(kTargetTriple);
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target) {
    error = "x86-64 target unavailable in this LLVM: " + error;
    return std::nullopt;
  }
  ResolvedCpu cpu;
  cpu.name = options.cpu;
  if (llvm::StringRef(options.cpu) == shardc::kHostCpu) {
    cpu.name = llvm::sys::getHostCPUName().str();
    // The host's own feature list, not just the CPU model's: a VM may hide
    // features (e.g. AVX-512) that the model name implies.
    llvm::SubtargetFeatures features;
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      features.AddFeature(feature.getKey(), feature.getValue());
    cpu.features = features.getString();
  }
  // LLVM only warns on stderr about an unknown CPU and then ignores it; make
  // it an error instead (checked with the generic CPU, which never warns).
  std::unique_ptr<llvm::MCSubtargetInfo> generic(
      target->createMCSubtargetInfo(triple, /*CPU=*/"", /*Features=*/""));
  if (!generic || !generic->isCPUStringValid(cpu.name)) {
    error = "unknown x86-64 CPU '" + options.cpu +
            "' (expected an `llc -mcpu` name such as x86-64-v2 or skylake, or " +
            std::string(shardc::kHostCpu) + ")";
    return std::nullopt;
  }
  cpu.subtarget.reset(target->createMCSubtargetInfo(triple, cpu.name, cpu.features));
  return cpu;
}

FailureOr<ResolvedCpu> resolveCpu(ModuleOp module, const shardc::CpuTargetOptions &options) {
  std::string error;
  std::optional<ResolvedCpu> cpu = resolveCpu(options, error);
  if (!cpu) {
    module.emitError() << error;
    return failure();
  }
  return std::move(*cpu);
}

const GemmTuning &gemmTuningFor(const llvm::MCSubtargetInfo &subtarget) {
  for (const GemmTuning &t : kGemmTunings)
    if (!*t.feature || subtarget.checkFeatures(t.feature))
      return t;
  return kGemmTunings[std::size(kGemmTunings) - 1];
}

//===----------------------------------------------------------------------===//
// Step 1: the tensor entry behind a function on memrefs
//===----------------------------------------------------------------------===//

/// Checks one entry argument/result type; returns its buffer type.
FailureOr<MemRefType> bufferTypeFor(func::FuncOp entry, Type type, llvm::StringRef what,
                                    unsigned index) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  auto fail = [&]() {
    return entry.emitError() << what << " #" << index << " of @" << entry.getSymName()
                             << " has type " << type;
  };
  if (!tensor) {
    fail() << "; the CPU entry takes and returns only ranked tensors (use tensor<T> for "
              "scalars)";
    return failure();
  }
  if (!tensor.hasStaticShape()) {
    fail() << "; the CPU entry needs static shapes";
    return failure();
  }
  if (!tensor.getElementType().isIntOrFloat()) {
    fail() << "; entry buffers hold only integer or float elements (use i64 for index)";
    return failure();
  }
  if (tensor.getEncoding()) {
    fail() << "; tensor encodings are not supported at the CPU entry";
    return failure();
  }
  return MemRefType::get(tensor.getShape(), tensor.getElementType());
}

/// Adds `func.func @<entry>_shardc_body(inputs..., outputs...)` on memrefs:
/// inputs become tensors through `to_tensor restrict` (read-only), the entry
/// is called, and each result is materialized into its output memref
/// (`restrict writable`), which copies a result that aliases an input or
/// another result. Makes the entry private. Returns the buffer types in
/// `void**` order.
FailureOr<SmallVector<MemRefType>> addBufferWrapper(ModuleOp module, llvm::StringRef entryName) {
  auto entry = module.lookupSymbol<func::FuncOp>(entryName);
  if (!entry) {
    module.emitError() << "CPU entry @" << entryName
                       << " not found: expected a func.func with that name in the module";
    return failure();
  }
  if (entry.isExternal()) {
    entry.emitError() << "CPU entry @" << entryName << " is a declaration; it needs a body";
    return failure();
  }
  for (llvm::StringRef suffix :
       {llvm::StringRef(shardc::kCpuEntrySuffix), llvm::StringRef(kBodySuffix)}) {
    std::string name = (entryName + suffix).str();
    if (Operation *clash = module.lookupSymbol(name)) {
      clash->emitError() << "symbol @" << name
                         << " already exists; the CPU target generates it for entry @" << entryName;
      return failure();
    }
  }

  FunctionType entryType = entry.getFunctionType();
  SmallVector<MemRefType> buffers;
  for (auto [i, type] : llvm::enumerate(entryType.getInputs())) {
    FailureOr<MemRefType> buffer = bufferTypeFor(entry, type, "argument", i);
    if (failed(buffer)) return failure();
    buffers.push_back(*buffer);
  }
  for (auto [i, type] : llvm::enumerate(entryType.getResults())) {
    FailureOr<MemRefType> buffer = bufferTypeFor(entry, type, "result", i);
    if (failed(buffer)) return failure();
    buffers.push_back(*buffer);
  }

  MLIRContext *ctx = module.getContext();
  Location loc = entry.getLoc();
  OpBuilder b(ctx);
  b.setInsertionPointAfter(entry);
  SmallVector<Type> argTypes(buffers.begin(), buffers.end());
  auto body = func::FuncOp::create(b, loc, (entryName + kBodySuffix).str(),
                                   FunctionType::get(ctx, argTypes, {}));
  Block *block = body.addEntryBlock();
  b.setInsertionPointToStart(block);

  unsigned numInputs = entryType.getNumInputs();
  SmallVector<Value> inputs;
  for (auto [i, type] : llvm::enumerate(entryType.getInputs()))
    inputs.push_back(bufferization::ToTensorOp::create(b, loc, type, block->getArgument(i),
                                                       /*restrict=*/true, /*writable=*/false));
  auto call = func::CallOp::create(b, loc, entry, inputs);
  for (auto [i, result] : llvm::enumerate(call.getResults()))
    bufferization::MaterializeInDestinationOp::create(b, loc, /*result=*/Type(), result,
                                                      block->getArgument(numInputs + i),
                                                      /*restrict=*/true, /*writable=*/true);
  func::ReturnOp::create(b, loc);
  entry.setPrivate();
  return buffers;
}

//===----------------------------------------------------------------------===//
// Step 3: checks and the `void**` entry
//===----------------------------------------------------------------------===//

/// Every op must be in the LLVM dialect now, or translation fails later with a
/// less helpful message.
LogicalResult checkFullyLowered(ModuleOp module) {
  Operation *leftover = nullptr;
  module.walk([&](Operation *op) {
    if (op == module.getOperation() || isa_and_nonnull<LLVM::LLVMDialect>(op->getDialect()))
      return WalkResult::advance();
    leftover = op;
    return WalkResult::interrupt();
  });
  if (!leftover) return success();
  leftover->emitError() << "'" << leftover->getName()
                        << "' was not lowered to the LLVM dialect by the CPU pipeline";
  return failure();
}

/// libc/libm functions the lowering may call (malloc/free from memref.alloc,
/// memcpy/memset from copies and fills, libm from math-to-libm).
bool isLibcOrLibmFunction(llvm::StringRef name) {
  static const llvm::StringSet<> kLibc = {"malloc", "free",    "aligned_alloc", "calloc",
                                          "memcpy", "memmove", "memset"};
  static const llvm::StringSet<> kLibm = {
      "acos", "acosh", "asin",  "asinh",    "atan",      "atan2", "atanh",    "cbrt",
      "ceil", "cos",   "cosh",  "erf",      "erfc",      "exp",   "exp2",     "expm1",
      "fabs", "floor", "fma",   "fmod",     "hypot",     "log",   "log10",    "log1p",
      "log2", "pow",   "rint",  "round",    "roundeven", "sin",   "sinh",     "sqrt",
      "tan",  "tanh",  "trunc", "copysign", "fmax",      "fmin",  "nearbyint"};
  if (kLibc.contains(name) || kLibm.contains(name)) return true;
  return name.ends_with("f") && kLibm.contains(name.drop_back());
}

/// Buffers come from shardrt's buffer cache instead of malloc/free
/// (shardrt.h, Buffers): finalize-memref-to-llvm lowers every memref.alloc
/// and dealloc to calls of malloc and free, which are renamed here. A step
/// run in a loop then maps and faults in its large intermediates once, not
/// on every call. Both are renamed together, so every block goes back to
/// the allocator that made it.
LogicalResult useRuntimeBuffers(ModuleOp module) {
  for (auto [from, to] : {std::pair<llvm::StringRef, llvm::StringRef>{"malloc", "shardrt_buffer_alloc"},
                          {"free", "shardrt_buffer_free"}}) {
    auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(from);
    if (!fn)
      continue;
    if (module.lookupSymbol(to)) {
      fn.emitError() << "the input declares @" << to << ", which the CPU lowering reserves";
      return failure();
    }
    if (failed(SymbolTable::replaceAllSymbolUses(fn, StringAttr::get(module.getContext(), to),
                                                 module)))
      return failure();
    SymbolTable::setSymbolName(fn, to);
  }
  return success();
}

/// The object may only import what the input declared (runtime functions),
/// what the lowering itself calls (the kernel thread pool's
/// shardrt_parallel_for and shardrt_loop_chunks, the buffer allocator, the
/// profiling probes), and
/// libc/libm. A lowering that introduces anything else (e.g. MLIR's
/// `memrefCopy` from libmlir_c_runner_utils) would produce an object that
/// does not load; say so now, naming the symbol.
LogicalResult checkExternalSymbols(ModuleOp module, const llvm::StringSet<> &declaredByInput) {
  LogicalResult result = success();
  for (auto fn : module.getOps<LLVM::LLVMFuncOp>()) {
    if (!fn.isExternal() || declaredByInput.contains(fn.getName()) ||
        fn.getName() == "shardrt_parallel_for" || fn.getName() == "shardrt_parallel_for_own" ||
        fn.getName() == "shardrt_loop_chunks" || fn.getName() == "shardrt_buffer_alloc" ||
        fn.getName() == "shardrt_buffer_free" || fn.getName() == "shardrt_profile_begin" ||
        fn.getName() == "shardrt_profile_end" || isLibcOrLibmFunction(fn.getName()))
      continue;
    fn.emitError() << "the CPU lowering introduced a call to @" << fn.getName()
                   << ", which is neither libc/libm nor declared by the input module; the "
                      "object would have an unresolvable symbol";
    result = failure();
  }
  return result;
}

/// Adds `llvm.func @<entry>_shardc(%buffers: !llvm.ptr)`: loads buffers[i] and
/// passes it to the body as a memref descriptor (allocated = aligned = the
/// pointer, offset 0, static sizes, row-major strides).
LogicalResult addPointerArrayEntry(ModuleOp module, llvm::StringRef entryName,
                                   ArrayRef<MemRefType> buffers) {
  std::string bodyName = (entryName + kBodySuffix).str();
  auto body = module.lookupSymbol<LLVM::LLVMFuncOp>(bodyName);
  if (!body || body.isExternal()) {
    module.emitError() << "CPU lowering lost the buffer wrapper @" << bodyName;
    return failure();
  }
  MLIRContext *ctx = module.getContext();
  auto ptrTy = LLVM::LLVMPointerType::get(ctx);
  auto i64Ty = IntegerType::get(ctx, 64);

  // The descriptor convention of convert-func-to-llvm, checked rather than
  // assumed: (ptr allocated, ptr aligned, i64 offset, i64 sizes[r], i64 strides[r]).
  SmallVector<Type> expected;
  for (MemRefType type : buffers) {
    expected.append({ptrTy, ptrTy, i64Ty});
    expected.append(2 * type.getRank(), i64Ty);
  }
  ArrayRef<Type> params = body.getFunctionType().getParams();
  if (params != ArrayRef<Type>(expected)) {
    body.emitError() << "unexpected memref calling convention after convert-func-to-llvm: "
                     << params.size() << " parameters, expected " << expected.size();
    return failure();
  }

  // Only the `void**` entry is exported; private definitions (the body, helpers
  // that were not inlined, the deallocation helper) stay internal so objects of
  // several programs can be linked together.
  body.setLinkage(LLVM::Linkage::Internal);
  for (auto fn : module.getOps<LLVM::LLVMFuncOp>()) {
    if (!fn.isExternal() && fn.isPrivate()) fn.setLinkage(LLVM::Linkage::Internal);
    // cpu-outline-loop-nests marks its functions; convert-func-to-llvm
    // keeps the mark but has no way to carry `no_inline` itself.
    if (fn->removeAttr(shardc::kOutlinedNestAttr)) fn.setNoInline(true);
    if (auto params = fn->getAttrOfType<DenseI64ArrayAttr>(shardc::kNoAliasParamsAttr)) {
      for (int64_t param : params.asArrayRef())
        fn.setArgAttr(param, LLVM::LLVMDialect::getNoAliasAttrName(), UnitAttr::get(ctx));
      fn->removeAttr(shardc::kNoAliasParamsAttr);
    }
  }

  Location loc = body.getLoc();
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto entryType = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), ArrayRef<Type>{ptrTy});
  auto entry =
      LLVM::LLVMFuncOp::create(b, loc, (entryName + shardc::kCpuEntrySuffix).str(), entryType);
  Block *block = entry.addEntryBlock(b);
  b.setInsertionPointToStart(block);

  llvm::DenseMap<int64_t, Value> constants;
  auto constant = [&](int64_t v) {
    Value &c = constants[v];
    if (!c) c = LLVM::ConstantOp::create(b, loc, i64Ty, b.getI64IntegerAttr(v));
    return c;
  };
  Value array = block->getArgument(0);
  SmallVector<Value> args;
  for (auto [i, type] : llvm::enumerate(buffers)) {
    Value slot = LLVM::GEPOp::create(b, loc, ptrTy, ptrTy, array,
                                     ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
    Value ptr = LLVM::LoadOp::create(b, loc, ptrTy, slot);
    args.append({ptr, ptr, constant(0)});
    ArrayRef<int64_t> shape = type.getShape();
    for (int64_t size : shape) args.push_back(constant(size));
    SmallVector<int64_t> strides(shape.size(), 1);
    for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
      strides[d] = strides[d + 1] * shape[d + 1];
    for (int64_t stride : strides) args.push_back(constant(stride));
  }
  LLVM::CallOp::create(b, loc, body, args);
  LLVM::ReturnOp::create(b, loc, ValueRange());
  return success();
}

} // namespace

std::string shardc::llvmDialectPhasePasses() {
  PipelineText p;
  addLlvmDialectPhase(p);
  return p.list();
}

FailureOr<SmallVector<MemRefType>> shardc::addEntryBufferWrapper(ModuleOp module,
                                                                 llvm::StringRef entry) {
  return addBufferWrapper(module, entry);
}

LogicalResult shardc::addEntryPointerArray(ModuleOp module, llvm::StringRef entry,
                                           ArrayRef<MemRefType> buffers) {
  return addPointerArrayEntry(module, entry, buffers);
}

std::string shardc::tensorPhasePasses() {
  PipelineText p;
  addTensorPhase(p, /*cpuKernels=*/false);
  return p.list();
}

std::string shardc::cpuLoweringPipeline(const CpuTargetOptions &options) {
  std::string error;
  std::optional<ResolvedCpu> cpu = resolveCpu(options, error);
  const GemmTuning &portable = kGemmTunings[std::size(kGemmTunings) - 1];
  return buildCpuPipeline(cpu ? gemmTuningFor(*cpu->subtarget) : portable, options);
}

LogicalResult shardc::lowerToLLVMDialect(ModuleOp module, llvm::StringRef entry,
                                         const CpuTargetOptions &options) {
  MLIRContext *ctx = module.getContext();
  // The caller's context may lack some dialect or external model the pipeline
  // needs (a missing model fails late and obscurely); add them all.
  DialectRegistry registry;
  registerUpstreamDialects(registry);
  ctx->appendDialectRegistry(registry);
  ctx->loadDialect<bufferization::BufferizationDialect, func::FuncDialect, LLVM::LLVMDialect>();
  registerUpstreamPasses();
  static std::once_flag cpuPassesOnce;
  std::call_once(cpuPassesOnce, [] {
    registerCpuTargetPasses();
    registerGpuTargetPasses();
  });

  llvm::StringSet<> declaredByInput;
  for (auto fn : module.getOps<func::FuncOp>())
    if (fn.isExternal()) declaredByInput.insert(fn.getSymName());
  for (auto fn : module.getOps<LLVM::LLVMFuncOp>())
    if (fn.isExternal()) declaredByInput.insert(fn.getName());

  FailureOr<ResolvedCpu> cpu = resolveCpu(module, options);
  if (failed(cpu)) return failure();
  std::string pipeline = buildCpuPipeline(gemmTuningFor(*cpu->subtarget), options);
  FailureOr<SmallVector<MemRefType>> buffers = addBufferWrapper(module, entry);
  if (failed(buffers)) return failure();

  // Parse into a fresh OpPassManager: parsing "builtin.module(...)" into a
  // module-anchored PassManager would nest it and silently run nothing.
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  FailureOr<OpPassManager> parsed = parsePassPipeline(pipeline, errorStream);
  if (failed(parsed)) {
    module.emitError() << "internal error: the CPU pipeline does not parse (a pass is "
                          "missing from registerUpstreamPasses?): "
                       << errors;
    return failure();
  }
  PassManager pm(ctx);
  static_cast<OpPassManager &>(pm) = std::move(*parsed);
  // --mlir-print-ir-after-all, --mlir-timing, ... from the tool's command line.
  // applyPassManagerCLOptions fails unless the options are registered;
  // registering is idempotent (a ManagedStatic) and harmless in programs that
  // never parse them.
  registerPassManagerCLOptions();
  if (failed(applyPassManagerCLOptions(pm))) {
    module.emitError() << "invalid pass manager command-line options";
    return failure();
  }
  TimingScope timing =
      options.timing ? options.timing->nest("CPU target: to the LLVM dialect") : TimingScope();
  if (options.timing)
    pm.enableTiming(timing);
  else
    applyDefaultTimingPassManagerCLOptions(pm);
  // Verifying after each of the pipeline's ~45 passes took half of its time
  // on a training step (docs/decisions.md); the IR is verified once at the
  // end instead, and tests verify each pass.
  pm.enableVerifier(options.verifyEachPass);
  if (failed(pm.run(module))) {
    module.emitError() << "CPU lowering of @" << entry << " failed";
    return failure();
  }
  if (!options.verifyEachPass && failed(verify(module))) {
    module.emitError() << "internal error: the CPU lowering of @" << entry
                       << " produced invalid IR (compile with verifyEachPass to find the pass)";
    return failure();
  }

  if (failed(checkFullyLowered(module)) || failed(useRuntimeBuffers(module)) ||
      failed(checkExternalSymbols(module, declaredByInput)))
    return failure();
  return addPointerArrayEntry(module, entry, *buffers);
}

//===----------------------------------------------------------------------===//
// LLVM IR and object emission
//===----------------------------------------------------------------------===//

namespace {

/// Makes sure translateModuleToLLVMIR finds its interfaces, whatever the
/// caller registered in the context.
void ensureTranslationRegistered(MLIRContext &ctx) {
  auto hasTranslation = [&](Dialect *dialect) {
    return dialect && dialect->getRegisteredInterface<LLVMTranslationDialectInterface>();
  };
  if (!hasTranslation(ctx.getLoadedDialect("builtin"))) registerBuiltinDialectTranslation(ctx);
  if (!hasTranslation(ctx.getLoadedDialect("llvm"))) registerLLVMDialectTranslation(ctx);
}

/// A module translated to LLVM IR (not yet optimized), and how to compile it.
struct Translated {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  shardc::LlvmCodegenOptions codegen;
  std::unique_ptr<llvm::TargetMachine> machine; // for the whole module
};

FailureOr<Translated> translate(ModuleOp module, const shardc::CpuTargetOptions &options) {
  FailureOr<ResolvedCpu> cpu = resolveCpu(module, options);
  if (failed(cpu))
    return failure();
  Translated out;
  out.codegen.cpu = cpu->name;
  out.codegen.features = cpu->features;
  out.codegen.optLevel = options.optLevel;
  out.codegen.partitions = options.codegenPartitions;
  out.codegen.threads = options.codegenThreads;
  auto machine = shardc::createX86TargetMachine(out.codegen);
  if (!machine) {
    module.emitError() << llvm::toString(machine.takeError());
    return failure();
  }
  out.machine = std::move(*machine);

  ensureTranslationRegistered(*module.getContext());
  TimingScope translating =
      options.timing ? options.timing->nest("translation to LLVM IR") : TimingScope();
  out.context = std::make_unique<llvm::LLVMContext>();
  out.module = translateModuleToLLVMIR(module, *out.context, "shardc");
  if (!out.module) {
    module.emitError() << "translation to LLVM IR failed (is the module fully in the LLVM "
                          "dialect? run lowerToLLVMDialect first)";
    return failure();
  }
  out.module->setTargetTriple(out.machine->getTargetTriple());
  out.module->setDataLayout(out.machine->createDataLayout());
  // Record the CPU in the IR too, so the text is self-describing and the IR
  // optimizer's cost model sees the same CPU as code generation.
  for (llvm::Function &fn : *out.module) {
    if (fn.isDeclaration())
      continue;
    if (!fn.hasFnAttribute("target-cpu"))
      fn.addFnAttr("target-cpu", cpu->name);
    if (!cpu->features.empty() && !fn.hasFnAttribute("target-features"))
      fn.addFnAttr("target-features", cpu->features);
  }

  std::string verifyErrors;
  llvm::raw_string_ostream verifyStream(verifyErrors);
  if (llvm::verifyModule(*out.module, &verifyStream)) {
    module.emitError() << "translated LLVM IR is invalid: " << verifyErrors;
    return failure();
  }
  return out;
}

} // namespace

FailureOr<std::string> shardc::emitLLVMIR(ModuleOp module, const CpuTargetOptions &options) {
  FailureOr<Translated> translated = translate(module, options);
  if (failed(translated)) return failure();
  TimingScope optimizing =
      options.timing ? options.timing->nest("LLVM IR optimization") : TimingScope();
  optimizeModule(*translated->module, *translated->machine, options.optLevel);
  std::string text;
  llvm::raw_string_ostream os(text);
  translated->module->print(os, /*AAW=*/nullptr);
  return text;
}

FailureOr<std::string> shardc::emitObject(ModuleOp module, const CpuTargetOptions &options) {
  FailureOr<Translated> translated = translate(module, options);
  if (failed(translated)) return failure();
  unsigned partitions = translated->codegen.partitions
                            ? translated->codegen.partitions
                            : partitionCountFor(*translated->module);
  translated->codegen.partitions = partitions;
  TimingScope compiling =
      options.timing ? options.timing->nest(llvm::formatv("LLVM IR optimization and code "
                                                          "generation ({0} partition{1})",
                                                          partitions, partitions == 1 ? "" : "s")
                                                .str())
                     : TimingScope();
  llvm::Expected<std::string> object =
      compileToObject(std::move(translated->module), translated->codegen);
  if (!object) {
    module.emitError() << "LLVM code generation failed: " << llvm::toString(object.takeError());
    return failure();
  }
  return std::move(*object);
}
