//===- shardc.cpp - the shardc command line -------------------------------===//
//
//   shardc compile MODEL.mlir [--mesh AXIS=N,...] [-o OUT/] [--emit=PHASE] [--report]
//   shardc run     MODEL.mlir|OUT/ [--mesh ...] --in NAME=FILE.npy ... [--out DIR/]
//                  [--steps N]  (a training loop: outputs named like inputs feed back)
//   shardc report  MODEL.mlir [--mesh ...]
//   shardc explain MODEL.mlir [--mesh ...]   (provenance remarks, collective causes)
//   shardc import  JAX.mlir [-o MODEL.mlir]  (JAX's StableHLO + Shardy, generic
//                  form, as a garray model; the other commands also read it)
//   compile, run and report take --memory-budget=BYTES (K/M/G suffixes): an
//   estimated peak per device above it is a compile error.
//   `shardc COMMAND --help` lists a command's options.
//
// Exit statuses are the ExitCode enum below (README documents them): a bad
// command line is 2, whether llvm::cl or shardc finds it. Every error names
// what the user wrote and what would fix it.
//
//===----------------------------------------------------------------------===//
#include "compiler/host/Artifact.h"
#include "compiler/host/Executor.h"
#include "compiler/host/MpiExecutor.h"
#include "compiler/tools/ExeRuntime.h"
#include "shardrt_cuda.h"
#include "compiler/pipeline/Pipeline.h"
#include "compiler/targets/gpu/CudaToolkit.h"
#include "compiler/tools/AllocatorTuning.h"
#include "dialects/garray/GArray.h"
#include "shardrt.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"


#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace {

enum class ExitCode : int {
  Ok = 0,
  Usage = 2,        // bad command line
  CompileError = 3, // the model does not compile (diagnostics say where)
  InputError = 4,   // an input file is missing, unreadable or does not fit
  RunError = 5,     // running failed (a rank failed, replicas disagree)
  OutputError = 6,  // results could not be written
};

int exitWith(ExitCode c) { return static_cast<int>(c); }

// The command line: one llvm::cl::SubCommand per command. The options live
// here, in the tool, never in the libraries, so a host program that links
// the compiler gets no options it did not ask for. LLVM's and MLIR's own
// options sit in the top-level command, which takes none, so a subcommand
// refuses them, and --help shows shardc's options only.
namespace cl = llvm::cl;

cl::OptionCategory category("shardc options");
cl::SubCommand compileCmd("compile", "Compile a model: OUT/model.o, manifest.json, report.txt");
cl::SubCommand runCmd("run", "Compile (or load OUT/) and run a model on global .npy inputs");
cl::SubCommand reportCmd("report", "Print the collectives and the per-device memory estimate");
cl::SubCommand explainCmd("explain",
                          "Print each value's sharding and its origin (remarks), and the "
                          "collectives with their causes");

cl::SubCommand importCmd("import",
                         "Convert JAX's StableHLO + Shardy program (generic op form) into a "
                         "garray model");

cl::SubCommandGroup allCmds({&compileCmd, &runCmd, &reportCmd, &explainCmd});
cl::SubCommandGroup modelCmds({&compileCmd, &runCmd, &reportCmd, &explainCmd, &importCmd});
cl::SubCommandGroup buildCmds({&compileCmd, &runCmd});
cl::SubCommandGroup budgetCmds({&compileCmd, &runCmd, &reportCmd});

// A list, so that a second model is named in the error, not just counted.
cl::list<std::string> modelArg(cl::Positional, cl::desc("<MODEL.mlir | OUT/>"),
                               cl::sub(modelCmds), cl::cat(category));
cl::list<std::string> meshArg("mesh",
                              cl::desc("mesh sizes, overriding the model's (repeatable)"),
                              cl::value_desc("AXIS=N,..."), cl::sub(allCmds), cl::cat(category));
cl::opt<std::string> entryArg("entry", cl::desc("the function to compile (default: main)"),
                              cl::value_desc("NAME"), cl::sub(allCmds), cl::cat(category));
cl::opt<std::string> emitArg("emit",
                             cl::desc("stop after a phase and print its IR: global, propagated, "
                                      "partitioned, local, llvm (cpu target), gpu or ptx (ptx "
                                      "target)"),
                             cl::value_desc("PHASE"), cl::sub(allCmds), cl::cat(category));
cl::opt<std::string> targetArg("target",
                               cl::desc("cpu (default) or ptx (NVIDIA GPUs: an object whose "
                                        "kernels run through the CUDA driver, run by a "
                                        "--exe executable; see docs/gpu.md)"),
                               cl::value_desc("TARGET"), cl::init("cpu"), cl::sub(buildCmds),
                               cl::cat(category));
cl::opt<std::string> gpuArg("gpu", cl::desc("with --target ptx: the GPU arch, sm_90 (default) or "
                                            "sm_90a"),
                            cl::value_desc("ARCH"), cl::sub(buildCmds), cl::cat(category));
cl::opt<std::string> matmulPrecisionArg(
    "matmul-precision",
    cl::desc("with --target ptx: f32 contractions in exact f32 on the SIMT cores (default: "
             "exact) or on the tensor cores with operands rounded to TF32 (tf32)"),
    cl::value_desc("exact|tf32"), cl::sub(buildCmds), cl::cat(category));
cl::opt<std::string> cpuArg("cpu",
                            cl::desc("LLVM CPU of the object: host (default) or e.g. x86-64-v2 "
                                     "to run on any x86-64"),
                            cl::value_desc("NAME"), cl::init("host"), cl::sub(buildCmds),
                            cl::cat(category));
cl::opt<std::string> budgetArg("memory-budget",
                               cl::desc("fail when the estimated peak memory per device "
                                        "exceeds it (e.g. 512M)"),
                               cl::value_desc("BYTES"), cl::sub(budgetCmds), cl::cat(category));
cl::opt<std::string> combineArg(
    "combine-bytes",
    cl::desc("combine independent all-reduces over the same device groups into one collective "
             "of at most this many bytes per device (default 4M; 0: never)"),
    cl::value_desc("BYTES"), cl::sub(budgetCmds), cl::cat(category));
cl::opt<bool> splitIdleArg(
    "split-idle-axes",
    cl::desc("also split already-split inputs over the mesh axes that no placement names, so "
             "that those axes' devices share the work instead of repeating it (default on; "
             "--split-idle-axes=false keeps the inputs replicated over them)"),
    cl::init(true), cl::sub(allCmds), cl::cat(category));
cl::opt<bool> shardStateArg(
    "shard-optimizer-state",
    cl::desc("split the optimizer update of training state (outputs fed back as inputs) that is "
             "replicated over mesh axes, of 16384 elements or more: the gradient is "
             "reduce-scattered, each device updates its part and keeps its part of the state "
             "from step to step, the new weights are gathered (ZeRO's first stage; default "
             "off)"),
    cl::init(false), cl::sub(allCmds), cl::cat(category));
cl::opt<bool> profileArg(
    "profile",
    cl::desc("time every kernel and collective: `run` prints each rank's time per kernel and "
             "per collective after the run; `compile` makes an object that `run --profile` can "
             "profile"),
    cl::sub(buildCmds), cl::cat(category));
cl::opt<std::string> profileRowsArg(
    "profile-rows",
    cl::desc("with --profile: the costliest sites each rank's table lists (default 20; 0: all)"),
    cl::value_desc("N"), cl::sub(runCmd), cl::cat(category));
cl::opt<std::string> compileThreadsArg(
    "compile-threads",
    cl::desc("threads for LLVM's optimization and code generation (default: one per hardware "
             "thread); the object is the same with any number"),
    cl::value_desc("N"), cl::sub(buildCmds), cl::cat(category));
cl::opt<bool> timingArg("timing",
                        cl::desc("print the compile's time per phase and per pass (wall "
                                 "clock) to standard error"),
                        cl::sub(buildCmds), cl::cat(category));
cl::opt<bool> quietArg("quiet", cl::desc("print only errors"), cl::sub(buildCmds),
                       cl::cat(category));
cl::opt<bool> exeArg("exe",
                     cl::desc("compile: also link OUT/<entry>, a standalone executable of the "
                              "model (no LLVM, MLIR or MPI needed to run it; it takes "
                              "--in/--out/--steps as `run` does). run: run the model as that "
                              "executable, as it is deployed (GPU models always run so). Needs "
                              "a C++ driver ($CXX or c++)"),
                     cl::sub(compileCmd), cl::sub(runCmd), cl::cat(category));
cl::opt<std::string> outDirArg("o", cl::desc("the artifact folder (default: out)"),
                               cl::value_desc("OUT/"), cl::sub(compileCmd), cl::cat(category));
cl::opt<std::string> importOutArg("o",
                                  cl::desc("the garray model to write (default: standard output)"),
                                  cl::value_desc("MODEL.mlir"), cl::sub(importCmd),
                                  cl::cat(category));
cl::opt<bool> reportArg("report", cl::desc("also print the report"), cl::sub(compileCmd),
                        cl::cat(category));
cl::opt<bool> explainShardingArg("explain-sharding",
                                 cl::desc("emit each value's sharding and origin as remarks"),
                                 cl::sub(compileCmd), cl::cat(category));
cl::list<std::string> inArg("in", cl::desc("a global input array (one per argument)"),
                            cl::value_desc("NAME=FILE.npy"), cl::sub(runCmd), cl::cat(category));
cl::opt<std::string> runOutArg("out", cl::desc("write every output to DIR/<name>.npy"),
                               cl::value_desc("DIR/"), cl::sub(runCmd), cl::cat(category));
cl::opt<std::string> stepsArg("steps",
                              cl::desc("run N steps, feeding each output named like an "
                                       "argument back into it and printing `loss` (or "
                                       "`<path>.loss`) each step"),
                              cl::value_desc("N"), cl::sub(runCmd), cl::cat(category));
cl::opt<bool> timeStepsArg("time-steps",
                           cl::desc("print each step's wall time (`step K: T ms`, also under "
                                    "--quiet): what bench/train reads"),
                           cl::sub(runCmd), cl::cat(category));
cl::opt<std::string> checkReplicasArg(
    "check-replicas",
    cl::desc("with --steps, when to gather the state (outputs fed back) and check that its "
             "replicas agree: `last` (default: after the last step; the state stays on the "
             "ranks between steps) or `every` step"),
    cl::value_desc("last|every"), cl::init("last"), cl::sub(runCmd), cl::cat(category));
cl::opt<std::string> timeoutArg("timeout",
                                cl::desc("seconds a collective waits for its peers before every "
                                         "rank stops with exit 5 (default: SHARDRT_TIMEOUT_S, "
                                         "else 300)"),
                                cl::value_desc("SECONDS"), cl::sub(runCmd), cl::cat(category));
cl::opt<std::string> backendArg("backend",
                                cl::desc("threads (default: ranks as threads) or mpi (one rank "
                                         "per process, under `mpirun -np <devices>`)"),
                                cl::value_desc("NAME"), cl::init("threads"), cl::sub(runCmd),
                                cl::cat(category));

const char *kOverview =
    "shardc: an ahead-of-time SPMD compiler. A model written on global arrays\n"
    "becomes every device's program. `shardc COMMAND --help` lists a command's options.\n"
    "Exit statuses: 0 ok, 2 bad command line, 3 the model does not compile, 4 an input is\n"
    "missing or does not fit, 5 running failed, 6 outputs could not be written.\n";

struct Args {
  std::string command, model, outDir, runOut, mesh, entry, target, backend, cpu, gpu,
      matmulPrecision;
  std::optional<shardc::Phase> emit;
  bool report = false, quiet = false, explain = false, timeSteps = false, profile = false,
       exe = false, timing = false;
  std::string checkReplicas = "last";
  std::optional<int64_t> memoryBudget;
  int64_t combineBytes = int64_t(4) << 20;
  std::vector<std::pair<std::string, std::string>> inputs;
  /// `run --steps N`; unset = one step, printing every output.
  std::optional<int64_t> steps;
  /// `--profile-rows N`; 0 = every site.
  size_t profileRows = 20;
  /// `--compile-threads N`; 0 = one per hardware thread.
  unsigned compileThreads = 0;
};

int usageError(const std::string &msg) {
  llvm::errs() << "shardc: error: " << msg
               << "\nusage: shardc compile|run|report|explain|import MODEL.mlir [options]; "
                  "`shardc COMMAND --help` lists a command's options\n";
  return exitWith(ExitCode::Usage);
}

/// llvm::cl's words for a parse error, without its program-name prefix.
/// (A value-taking option given without its value never gets here: the
/// pre-scan in parseArgs names it with the value it takes.)
std::string clError(llvm::StringRef text, cl::SubCommand &sub) {
  text = text.trim();
  text.consume_front("shardc: ");
  text.consume_front(("shardc " + sub.getName() + ": ").str());
  // Some of llvm::cl's errors go to stderr directly, not to the stream.
  return text.empty() ? "the command line is not valid (see above)" : text.str();
}

/// Reads the parsed options into Args and checks what llvm::cl cannot: values
/// that must not be empty, the mesh's AXIS=N pairs, phases, byte sizes.
std::optional<Args> readArgs(int &status) {
  Args a;
  a.command = compileCmd ? "compile"
              : runCmd    ? "run"
              : reportCmd ? "report"
              : importCmd ? "import"
                          : "explain";
  auto fail = [&](const std::string &msg) {
    status = usageError(msg);
    return std::nullopt;
  };
  if (modelArg.empty() || modelArg[0].empty())
    return fail("no model given");
  a.model = modelArg[0];
  if (modelArg.size() > 1)
    return fail("unexpected argument '" + modelArg[1] + "' (the model is '" + a.model + "')");
  a.outDir = importCmd ? importOutArg : outDirArg;
  if (importOutArg.getNumOccurrences() && a.outDir.empty())
    return fail("-o needs a file name");
  a.runOut = runOutArg;
  if (outDirArg.getNumOccurrences() && a.outDir.empty())
    return fail("-o needs a folder");
  if (runOutArg.getNumOccurrences() && a.runOut.empty())
    return fail("--out needs a folder");
  a.entry = entryArg;
  if (entryArg.getNumOccurrences() && a.entry.empty())
    return fail("--entry needs a function name, e.g. --entry main");
  a.target = targetArg;
  a.cpu = cpuArg;
  a.gpu = gpuArg.getNumOccurrences() ? std::string(gpuArg) : std::string("sm_90");
  a.matmulPrecision = matmulPrecisionArg;
  a.backend = backendArg;
  a.report = reportArg;
  a.quiet = quietArg;
  a.exe = exeArg;
  a.timeSteps = timeStepsArg;
  a.profile = profileArg;
  a.timing = timingArg;
  a.checkReplicas = checkReplicasArg;
  a.explain = explainShardingArg;
  if (emitArg.getNumOccurrences()) {
    a.emit = shardc::parsePhase(emitArg);
    if (!a.emit)
      return fail("--emit=" + emitArg + " is not a phase (global, propagated, partitioned, "
                                        "local, llvm, gpu or ptx)");
  }
  if (stepsArg.getNumOccurrences()) {
    int64_t n = 0;
    if (llvm::StringRef(stepsArg).getAsInteger(10, n) || n < 1)
      return fail("--steps " + stepsArg + ": expected a positive number of steps");
    a.steps = n;
  }
  if (profileRowsArg.getNumOccurrences()) {
    unsigned n = 0;
    if (llvm::StringRef(profileRowsArg).getAsInteger(10, n))
      return fail("--profile-rows " + profileRowsArg +
                  ": expected a number of rows (0: every site)");
    if (!a.profile)
      return fail("--profile-rows " + profileRowsArg + " needs --profile");
    a.profileRows = n == 0 ? SIZE_MAX : n;
  }
  if (compileThreadsArg.getNumOccurrences()) {
    unsigned n = 0;
    if (llvm::StringRef(compileThreadsArg).getAsInteger(10, n) || n < 1 || n > 1024)
      return fail("--compile-threads " + compileThreadsArg +
                  ": expected a number of threads from 1 to 1024");
    a.compileThreads = n;
  }
  if (timeoutArg.getNumOccurrences()) {
    double seconds = 0;
    if (llvm::StringRef(timeoutArg).getAsDouble(seconds) || !(seconds > 0) ||
        !std::isfinite(seconds))
      return fail("--timeout " + timeoutArg + ": expected a positive number of seconds");
    // The runtime reads its collective timeout from the environment.
    setenv("SHARDRT_TIMEOUT_S", timeoutArg.c_str(), /*overwrite=*/1);
  }
  if (budgetArg.getNumOccurrences()) {
    int64_t bytes;
    if (!shardc::parseByteSize(budgetArg, bytes))
      return fail("--memory-budget=" + budgetArg +
                  ": expected a positive byte count such as 1048576, 512K, 64M or 2G");
    a.memoryBudget = bytes;
  }
  if (combineArg.getNumOccurrences()) {
    int64_t bytes = 0;
    if (combineArg != "0" && !shardc::parseByteSize(combineArg, bytes))
      return fail("--combine-bytes=" + combineArg +
                  ": expected 0 or a positive byte count such as 65536, 512K or 4M");
    a.combineBytes = bytes;
  }
  for (const std::string &v : inArg) {
    size_t eq = v.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == v.size())
      return fail("--in " + v + ": expected NAME=FILE.npy");
    a.inputs.emplace_back(v.substr(0, eq), v.substr(eq + 1));
  }
  // --mesh: AXIS=N pairs, each axis once, sizes positive; no empty entry
  // (a stray comma or an empty value is a typo, not "no change").
  a.mesh = llvm::join(meshArg, ",");
  std::vector<std::string> seen;
  llvm::SmallVector<llvm::StringRef> pairs;
  if (meshArg.getNumOccurrences())
    llvm::StringRef(a.mesh).split(pairs, ',', -1, /*KeepEmpty=*/true);
  for (llvm::StringRef pair : pairs) {
    if (pair.trim().empty())
      return fail("--mesh '" + a.mesh +
                  "' has an empty entry; expected AXIS=N pairs separated by commas, "
                  "e.g. --mesh data=2,model=4");
    auto [axis, size] = pair.split('=');
    long long n;
    if (axis.trim().empty() || size.trim().getAsInteger(10, n) || n < 1)
      return fail("--mesh " + pair.str() + ": expected AXIS=N with N a positive integer");
    if (llvm::is_contained(seen, axis.trim().str()))
      return fail("--mesh gives axis \"" + axis.trim().str() + "\" twice");
    seen.push_back(axis.trim().str());
  }
  if (a.emit && a.command == "run" && llvm::sys::fs::is_directory(a.model))
    return fail("--emit needs a model file; '" + a.model +
                "' is a compiled directory (its IR is not kept)");
  if (a.target != "cpu" && a.target != "ptx")
    return fail("--target " + a.target + " is not a target: use cpu (the default) or ptx");
  if (a.target == "cpu" && a.emit &&
      (*a.emit == shardc::Phase::Gpu || *a.emit == shardc::Phase::Ptx))
    return fail("--emit=" + emitArg + " is a phase of --target ptx (this is --target cpu)");
  if (a.target == "cpu" && gpuArg.getNumOccurrences())
    return fail("--gpu " + gpuArg + " applies to --target ptx only (this is --target cpu)");
  if (a.target == "cpu" && matmulPrecisionArg.getNumOccurrences())
    return fail("--matmul-precision " + matmulPrecisionArg +
                " applies to --target ptx only (this is --target cpu)");
  if (matmulPrecisionArg.getNumOccurrences() &&
      !shardc::gpu::parseMatmulPrecision(matmulPrecisionArg))
    return fail("--matmul-precision " + matmulPrecisionArg +
                " is not a choice: use exact (f32 contractions in f32, the default) or tf32 "
                "(on TF32 tensor cores)");
  if (a.target == "ptx" && a.command == "run" && llvm::sys::fs::is_directory(a.model))
    return fail("--target applies when compiling; '" + a.model +
                "' is a compiled directory, which runs on the target it was compiled for");
  if (a.target == "ptx" && cpuArg.getNumOccurrences())
    return fail("--cpu " + cpuArg + " applies to --target cpu only (this is --target ptx)");
  if (a.checkReplicas != "last" && a.checkReplicas != "every")
    return fail("--check-replicas " + a.checkReplicas +
                " is not a choice: use `last` (check the state's replicas after the last step) "
                "or `every` (after every step)");
  if (a.backend != "threads" && a.backend != "mpi")
    return fail("--backend " + a.backend +
                " is not available: `shardc run` runs ranks as threads (--backend threads) or "
                "one per MPI process (--backend mpi, under mpirun)");
  status = 0;
  return a;
}

/// Parses the command line; nullopt with `status` set when there is nothing
/// to run (help printed, or a usage error reported).
std::optional<Args> parseArgs(int argc, char **argv, int &status) {
  if (argc < 2)
    return status = usageError("no command given"), std::nullopt;
  llvm::StringRef command = argv[1];
  if (!command.starts_with("-") &&
      !llvm::is_contained({"compile", "run", "report", "explain", "import"}, command))
    return status = usageError("unknown command '" + command.str() + "'"), std::nullopt;
  cl::SetVersionPrinter(
      [](llvm::raw_ostream &os) { os << "shardc (LLVM and MLIR " LLVM_VERSION_STRING ")\n"; });
  cl::HideUnrelatedOptions(category, cl::SubCommand::getTopLevel());
  for (cl::SubCommand *sub : modelCmds.getSubCommands())
    cl::HideUnrelatedOptions(category, *sub);
  cl::SubCommand *sub = &cl::SubCommand::getTopLevel();
  for (cl::SubCommand *s : modelCmds.getSubCommands())
    if (command == s->getName())
      sub = s;
  // An option that takes a value, given last or followed by another option,
  // is a value forgotten: say so with the value it takes (llvm::cl would
  // take the next option as the value, or report it past `Errs`).
  auto &options = cl::getRegisteredOptions(*sub);
  for (int i = 2; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (!arg.starts_with("-") || arg.contains('='))
      continue;
    auto it = options.find(arg.ltrim('-'));
    if (it == options.end() || it->second->getValueExpectedFlag() != cl::ValueRequired)
      continue;
    if (i + 1 == argc || llvm::StringRef(argv[i + 1]).starts_with("--")) {
      std::string value = it->second->ValueStr.str();
      return status = usageError(arg.str() + " needs a value" +
                                 (value.empty() ? "" : " (" + value + ")")),
             std::nullopt;
    }
  }
  std::string errors;
  llvm::raw_string_ostream errs(errors);
  if (!cl::ParseCommandLineOptions(argc, argv, kOverview, &errs))
    return status = usageError(clError(errors, *sub)), std::nullopt;
  // LLVM's and MLIR's options live in the top-level command; llvm::cl still
  // accepts them after a subcommand, so refuse them here: they are not
  // shardc's, and some would change the output silently.
  for (auto &entry : cl::getRegisteredOptions(cl::SubCommand::getTopLevel())) {
    cl::Option *o = entry.second;
    if (o->getNumOccurrences() && !llvm::is_contained(o->Categories, &category))
      return status = usageError("unknown option '--" + entry.first.str() + "'"),
             std::nullopt;
  }
  if (!compileCmd && !runCmd && !reportCmd && !explainCmd && !importCmd)
    return status = usageError("no command given"), std::nullopt;
  return readArgs(status);
}

/// A compiled model: from source now, or read back from an OUT/ directory.
struct Model {
  shardc::Signature signature;
  std::string object;
};

/// Reads and parses `a.model` into `ctx` (importing JAX's StableHLO form);
/// null with `status` set on error, reported through `sourceMgr`'s handler.
mlir::OwningOpRef<mlir::ModuleOp> parseSource(const Args &a, mlir::MLIRContext &ctx,
                                              llvm::SourceMgr &sourceMgr, int &status) {
  std::string error;
  auto file = mlir::openInputFile(a.model, &error);
  if (!file) {
    llvm::errs() << "shardc: error: cannot read model '" << a.model << "': " << error << "\n";
    status = exitWith(ExitCode::InputError);
    return nullptr;
  }
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module = shardc::parseModel(sourceMgr, ctx);
  if (!module)
    status = exitWith(ExitCode::CompileError);
  return module;
}

/// `shardc import`: the garray model a StableHLO file becomes, printed.
int runImport(const Args &a) {
  mlir::DialectRegistry registry;
  shardc::registerModelDialects(registry);
  mlir::MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  ctx.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &ctx);
  int status = 0;
  mlir::OwningOpRef<mlir::ModuleOp> module = parseSource(a, ctx, sourceMgr, status);
  if (!module)
    return status;
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, mlir::OpPrintingFlags().enableDebugInfo(false));
  if (a.outDir.empty()) {
    llvm::outs() << text;
    return 0;
  }
  // Written whole or not at all: a temporary file renamed into place.
  if (llvm::Error err = llvm::writeToOutput(a.outDir, [&](llvm::raw_ostream &out) {
        out << text;
        return llvm::Error::success();
      })) {
    llvm::errs() << "shardc: error: cannot write '" << a.outDir
                 << "': " << llvm::toString(std::move(err)) << "\n";
    return exitWith(ExitCode::OutputError);
  }
  return 0;
}

/// --target ptx: the arch and the toolkit (exit 3 when either is wrong, as
/// an unknown --cpu is). Sets `gpu` for the compile.
bool checkGpuTarget(const Args &a, int &status, shardc::GpuTargetOptions &gpu) {
  status = exitWith(ExitCode::CompileError);
  if (!shardc::gpu::parseGpuArch(a.gpu)) {
    llvm::errs() << "shardc: error: --gpu " << a.gpu << " is not a GPU arch shardc compiles for: "
                 << shardc::gpu::acceptedArchs() << " (NVIDIA Hopper)\n";
    return false;
  }
  llvm::Expected<shardc::gpu::CudaToolkit> toolkit = shardc::gpu::findCudaToolkit();
  if (!toolkit) {
    llvm::errs() << "shardc: error: --target ptx: " << llvm::toString(toolkit.takeError())
                 << "\n";
    return false;
  }
  gpu.arch = *shardc::gpu::parseGpuArch(a.gpu);
  gpu.toolkit = *toolkit;
  if (!a.matmulPrecision.empty())
    gpu.matmulPrecision = *shardc::gpu::parseMatmulPrecision(a.matmulPrecision);
  status = 0;
  return true;
}

std::optional<Model> compileSource(const Args &a, int &status) {
  mlir::DialectRegistry registry;
  shardc::registerModelDialects(registry); // parseModel adds the compiler's
  mlir::MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  // Diagnostics point at the user's source; a dump of the op adds only noise.
  ctx.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &ctx);
  mlir::OwningOpRef<mlir::ModuleOp> module = parseSource(a, ctx, sourceMgr, status);
  if (!module)
    return std::nullopt;
  // Every --mesh axis must be an axis of a mesh in the model.
  llvm::SmallVector<llvm::StringRef> pairs;
  llvm::StringRef(a.mesh).split(pairs, ',', -1, false);
  for (llvm::StringRef pair : pairs) {
    llvm::StringRef axis = pair.split('=').first.trim();
    bool found = false;
    std::string known;
    module->walk([&](mlir::garray::MeshOp mesh) {
      found |= mesh.axisIndex(axis) >= 0;
      for (mlir::Attribute name : mesh.getAxes())
        known += (known.empty() ? "\"" : ", \"") +
                 mlir::cast<mlir::StringAttr>(name).str() + "\" (@" + mesh.getSymName().str() +
                 ")";
    });
    if (!found) {
      llvm::errs() << "shardc: error: --mesh names axis \"" << axis << "\", but the model's "
                   << (known.empty() ? "has no garray.mesh" : "mesh axes are " + known) << "\n";
      status = exitWith(ExitCode::Usage);
      return std::nullopt;
    }
  }
  shardc::GpuTargetOptions gpu;
  if (a.target == "ptx" && !checkGpuTarget(a, status, gpu))
    return std::nullopt;
  shardc::CompileOptions options;
  if (a.target == "ptx" && (!a.emit || *a.emit >= shardc::Phase::LLVM))
    options.gpu = gpu;
  options.meshSizes = a.mesh;
  options.cpu = a.cpu;
  options.compileThreads = a.compileThreads;
  options.entry = a.entry;
  options.emit = a.emit;
  options.emitStream = &llvm::outs();
  options.explain = a.explain || a.command == "explain";
  options.memoryBudget = a.memoryBudget;
  options.combineBytes = a.combineBytes;
  options.splitIdleAxes = splitIdleArg;
  options.shardOptimizerState = shardStateArg;
  options.profile = a.profile;
  // The tree is printed when `timer` goes, after the compile: parsing is
  // not in it (it is quick, and the model is parsed before the options are
  // known).
  mlir::DefaultTimingManager timer;
  timer.setEnabled(a.timing);
  mlir::TimingScope root = timer.getRootScope();
  if (a.timing)
    options.timing = &root;
  if (a.command == "explain" && !a.emit) {
    // Explaining needs the program up to partitioning, and no object.
    options.emit = shardc::Phase::Partitioned;
    options.emitStream = nullptr;
  }
  std::optional<shardc::CompileResult> result = shardc::compileModule(*module, options);
  if (!result) {
    status = exitWith(ExitCode::CompileError);
    return std::nullopt;
  }
  status = 0;
  return Model{std::move(result->signature), std::move(result->object)};
}

std::optional<Model> loadCompiled(const Args &a, int &status) {
  std::string error;
  Model m;
  if (!shardc::readArtifact(a.model, m.signature, m.object, error)) {
    llvm::errs() << "shardc: error: " << error << "\n";
    status = exitWith(ExitCode::InputError);
    return std::nullopt;
  }
  if (a.memoryBudget) {
    std::string over = shardc::memoryBudgetError(m.signature, *a.memoryBudget);
    if (!over.empty()) {
      llvm::errs() << "shardc: error: " << a.model << ": " << over;
      status = exitWith(ExitCode::CompileError);
      return std::nullopt;
    }
  }
  // A compiled directory is for one mesh; --mesh may only restate it.
  llvm::SmallVector<llvm::StringRef> pairs;
  llvm::StringRef(a.mesh).split(pairs, ',', -1, false);
  for (llvm::StringRef pair : pairs) {
    auto [axis, size] = pair.split('=');
    bool matches = false;
    for (size_t i = 0; i < m.signature.mesh.axes.size(); ++i)
      matches |= m.signature.mesh.axes[i] == axis.trim() &&
                 std::to_string(m.signature.mesh.sizes[i]) == size.trim().str();
    if (!matches) {
      llvm::errs() << "shardc: error: " << a.model << " was compiled for mesh "
                   << m.signature.mesh.str() << ", not " << pair
                   << "; recompile the model with --mesh " << pair << "\n";
      status = exitWith(ExitCode::Usage);
      return std::nullopt;
    }
  }
  status = 0;
  return m;
}

std::string formatValue(const shardrt_array &a, int64_t i) {
  char buf[64];
  switch (a.dtype) {
  case SHARDRT_F32: std::snprintf(buf, sizeof buf, "%.7g", static_cast<const float *>(a.data)[i]); break;
  case SHARDRT_F64: std::snprintf(buf, sizeof buf, "%.15g", static_cast<const double *>(a.data)[i]); break;
  case SHARDRT_I64: std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(static_cast<const int64_t *>(a.data)[i])); break;
  case SHARDRT_I32: std::snprintf(buf, sizeof buf, "%d", static_cast<const int32_t *>(a.data)[i]); break;
  case SHARDRT_I8: std::snprintf(buf, sizeof buf, "%d", static_cast<const int8_t *>(a.data)[i]); break;
  case SHARDRT_BOOL: std::snprintf(buf, sizeof buf, "%s", static_cast<const uint8_t *>(a.data)[i] ? "true" : "false"); break;
  case SHARDRT_U8: std::snprintf(buf, sizeof buf, "%u", static_cast<unsigned>(static_cast<const uint8_t *>(a.data)[i])); break;
  case SHARDRT_I16: std::snprintf(buf, sizeof buf, "%d", static_cast<const int16_t *>(a.data)[i]); break;
  case SHARDRT_U16: std::snprintf(buf, sizeof buf, "%u", static_cast<unsigned>(static_cast<const uint16_t *>(a.data)[i])); break;
  case SHARDRT_U32: std::snprintf(buf, sizeof buf, "%u", static_cast<const uint32_t *>(a.data)[i]); break;
  case SHARDRT_U64: std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(static_cast<const uint64_t *>(a.data)[i])); break;
  case SHARDRT_F16:
  case SHARDRT_BF16: {
    // Printed as the float they hold, with the digits that tell 16-bit
    // values apart.
    llvm::APFloat v(a.dtype == SHARDRT_F16 ? llvm::APFloat::IEEEhalf() : llvm::APFloat::BFloat(),
                    llvm::APInt(16, static_cast<const uint16_t *>(a.data)[i]));
    std::snprintf(buf, sizeof buf, "%.5g", static_cast<double>(v.convertToFloat()));
    break;
  }
  default: std::snprintf(buf, sizeof buf, "?"); break;
  }
  return buf;
}

/// NumPy-like printing, eliding the middle of long arrays.
void printArray(llvm::raw_ostream &os, const std::string &name, const shardrt_array &a) {
  os << name << " = ";
  int64_t n = shardrt_array_numel(&a);
  if (a.rank == 0) {
    os << formatValue(a, 0) << "\n";
    return;
  }
  std::function<void(int, int64_t)> rec = [&](int dim, int64_t offset) {
    int64_t stride = 1;
    for (int d = dim + 1; d < a.rank; ++d)
      stride *= a.shape[d];
    os << "[";
    for (int64_t i = 0; i < a.shape[dim]; ++i) {
      if (a.shape[dim] > 8 && i == 3) {
        os << "..., ";
        i = a.shape[dim] - 3;
      }
      if (dim + 1 == a.rank)
        os << formatValue(a, offset + i);
      else
        rec(dim + 1, offset + i * stride);
      if (i + 1 < a.shape[dim])
        os << ", ";
    }
    os << "]";
  };
  (void)n;
  rec(0, 0);
  os << "\n";
}

int runCompile(const Args &a) {
  int status;
  std::optional<Model> m = compileSource(a, status);
  if (m && a.command == "explain" && !a.emit) {
    llvm::outs() << shardc::formatCollectiveReasons(m->signature);
    return 0;
  }
  if (!m || a.emit)
    return status;
  if (a.report || a.command == "report")
    llvm::outs() << shardc::formatReport(m->signature);
  if (a.command == "report")
    return 0;
  std::string out = a.outDir.empty() ? "out" : a.outDir, error;
  // The executable is linked before anything is written, so a failed link
  // leaves nothing behind.
  std::string program, programPath;
  if (a.exe) {
    programPath = out + "/" + (a.entry.empty() ? std::string("main") : a.entry);
    if (!shardc::linkExecutable(m->object, program, error)) {
      llvm::errs() << "shardc: error: " << error << "\n";
      return exitWith(ExitCode::CompileError);
    }
  }
  if (!shardc::writeArtifact(out, m->signature, m->object, error)) {
    llvm::errs() << "shardc: error: " << error << "\n";
    return exitWith(ExitCode::OutputError);
  }
  if (a.exe) {
    // Whole or not at all: a temporary file renamed into place.
    if (llvm::Error err = llvm::writeToOutput(programPath, [&](llvm::raw_ostream &os) {
          os << program;
          return llvm::Error::success();
        })) {
      llvm::errs() << "shardc: error: cannot write '" << programPath
                   << "': " << llvm::toString(std::move(err)) << "\n";
      return exitWith(ExitCode::OutputError);
    }
    llvm::sys::fs::setPermissions(programPath, llvm::sys::fs::all_read |
                                                   llvm::sys::fs::all_exe |
                                                   llvm::sys::fs::owner_write);
  }
  if (!a.quiet)
    llvm::outs() << "wrote " << out << "/model.o, " << out << "/manifest.json, " << out
                 << "/report.txt" << (a.exe ? ", " + programPath : std::string()) << " (mesh "
                 << m->signature.mesh.str() << ", " << m->signature.collectives.size()
                 << " collectives)\n";
  return 0;
}

/// Writes every output to DIR/<name>.npy, all or nothing: the files go to a
/// fresh folder inside DIR first and are renamed into place only when every
/// one was written, so a failed run leaves no new or half-written .npy. Each
/// name is checked again (a manifest can be edited): it must stay in DIR.
bool writeOutputs(const std::string &dir, const shardc::ArraySet &outputs, std::string &error) {
  namespace fs = llvm::sys::fs;
  for (const std::string &name : outputs.names)
    if (std::string why = shardc::valueNameProblem(name); !why.empty()) {
      error = "output '" + name + "' cannot be written to " + dir + ": " + why;
      return false;
    }
  if (std::error_code ec = fs::create_directories(dir)) {
    error = "cannot create '" + dir + "': " + ec.message();
    return false;
  }
  // createUniqueDirectory puts a relative prefix under the system's temp
  // directory: stage next to the outputs, by an absolute path.
  llvm::SmallString<128> prefix(dir);
  if (std::error_code ec = fs::make_absolute(prefix)) {
    error = "cannot write in '" + dir + "': " + ec.message();
    return false;
  }
  llvm::sys::path::append(prefix, ".shardc-partial");
  llvm::SmallString<128> staging;
  if (std::error_code ec = fs::createUniqueDirectory(prefix, staging)) {
    error = "cannot write in '" + dir + "': " + ec.message();
    return false;
  }
  auto staged = [&](size_t o) { return (staging + "/" + outputs.names[o] + ".npy").str(); };
  auto cleanUp = [&] {
    for (size_t o = 0; o < outputs.names.size(); ++o)
      fs::remove(staged(o));
    fs::remove(staging);
  };
  for (size_t o = 0; o < outputs.names.size(); ++o)
    if (shardrt_npy_write(staged(o).c_str(), &outputs.arrays[o]) != SHARDRT_OK) {
      error = "writing " + dir + "/" + outputs.names[o] + ".npy: " + shardrt_last_error();
      cleanUp();
      return false;
    }
  for (size_t o = 0; o < outputs.names.size(); ++o) {
    std::string final = dir + "/" + outputs.names[o] + ".npy";
    if (std::error_code ec = fs::rename(staged(o), final)) {
      error = "cannot move " + outputs.names[o] + ".npy into '" + dir + "': " + ec.message();
      cleanUp();
      return false;
    }
  }
  fs::remove(staging);
  return true;
}

/// Runs `m` as its standalone executable (runtime/exe): linked into a
/// temporary file, given the run's inputs, output folder, steps and
/// quietness, and its exit status passed on (the same statuses as run's).
/// A GPU artifact always runs this way: the standalone main is the host
/// program of the GPU target (ranks bound to GPUs, state kept on them,
/// collectives over NCCL or staged, steps replayed as CUDA graphs).
int runAsExecutable(const Args &a, const Model &m) {
  const bool gpu = m.signature.target != "cpu-x86_64";
  auto refuse = [&](const std::string &flag) {
    llvm::errs() << "shardc: error: " << flag << " is not available when the model runs as its "
                 << "standalone executable"
                 << (gpu ? " (as a GPU model always does: " + m.signature.target + ")"
                         : std::string(" (--exe)"))
                 << "\n";
    return exitWith(ExitCode::Usage);
  };
  if (a.backend == "mpi")
    return refuse("--backend mpi");
  if (a.profile)
    return refuse("--profile");
  if (a.timeSteps)
    return refuse("--time-steps");
  if (a.checkReplicas == "every")
    return refuse("--check-replicas every");
  if (gpu && shardrt_cuda_init() != SHARDRT_OK) {
    llvm::errs() << "shardc: error: " << shardrt_last_error() << "; this model was compiled "
                 << "for the GPU (" << m.signature.target
                 << "); --target cpu compiles it for this machine's CPUs\n";
    return exitWith(ExitCode::RunError);
  }
  std::string program, error;
  if (!shardc::linkExecutable(m.object, program, error)) {
    llvm::errs() << "shardc: error: " << error << "\n";
    return exitWith(ExitCode::CompileError);
  }
  llvm::SmallString<128> path;
  int fd = -1;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile("shardc-run", "", fd, path)) {
    llvm::errs() << "shardc: error: cannot create a temporary file: " << ec.message() << "\n";
    return exitWith(ExitCode::RunError);
  }
  struct Remove {
    llvm::SmallString<128> &path;
    ~Remove() { llvm::sys::fs::remove(path); }
  } remove{path};
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << program;
    if (os.has_error()) {
      llvm::errs() << "shardc: error: cannot write '" << path << "'\n";
      return exitWith(ExitCode::RunError);
    }
  }
  llvm::sys::fs::setPermissions(path, llvm::sys::fs::owner_all);
  std::vector<std::string> args = {path.str().str()};
  for (const auto &[given, file] : a.inputs) {
    // `argK` names the K-th argument unless an argument is called that, as
    // for an in-process run.
    std::string name = given;
    unsigned k;
    llvm::StringRef n(given);
    bool real = llvm::any_of(m.signature.inputs, [&](auto &t) { return t.name == given; });
    if (!real && n.consume_front("arg") && !n.getAsInteger(10, k) &&
        k < m.signature.inputs.size())
      name = std::string(m.signature.inputs[k].name);
    args.push_back("--in=" + name + "=" + file);
  }
  if (!a.runOut.empty())
    args.push_back("--out=" + a.runOut);
  if (a.steps)
    args.push_back("--steps=" + std::to_string(*a.steps));
  if (a.quiet)
    args.push_back("--quiet");
  std::vector<llvm::StringRef> argv(args.begin(), args.end());
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(path, argv, std::nullopt, {}, /*SecondsToWait=*/0,
                                     /*MemoryLimit=*/0, &message);
  if (rc < 0) {
    llvm::errs() << "shardc: error: the standalone executable did not run: " << message << "\n";
    return exitWith(ExitCode::RunError);
  }
  return rc;
}

int runRun(const Args &a) {
  int status;
  std::optional<Model> m = llvm::sys::fs::is_directory(a.model) ? loadCompiled(a, status)
                                                                : compileSource(a, status);
  if (!m || a.emit)
    return status;
  if (m->signature.target != "cpu-x86_64" || a.exe)
    return runAsExecutable(a, *m);
  shardc::releaseCompilerMemory();
  shardc::ArraySet inputs;
  for (const auto &input : a.inputs) {
    std::string name = input.first;
    const std::string &path = input.second;
    // `argK` names the K-th argument, whatever its name, unless an argument
    // is called that: positional names always work.
    unsigned k;
    llvm::StringRef n(name);
    bool real = llvm::any_of(m->signature.inputs, [&](auto &t) { return t.name == name; });
    if (!real && n.consume_front("arg") && !n.getAsInteger(10, k) &&
        k < m->signature.inputs.size())
      name = std::string(m->signature.inputs[k].name);
    if (inputs.find(name)) {
      llvm::errs() << "shardc: error: --in " << name << " is given twice\n";
      return exitWith(ExitCode::Usage);
    }
    shardrt_array arr{};
    if (shardrt_npy_read(path.c_str(), &arr) != SHARDRT_OK) {
      llvm::errs() << "shardc: error: --in " << name << "=" << path << ": "
                   << shardrt_last_error() << "\n";
      return exitWith(ExitCode::InputError);
    }
    inputs.add(name, arr);
  }
  if (std::string e = shardc::checkInputs(m->signature, inputs); !e.empty()) {
    llvm::errs() << "shardc: error: " << e << "\n";
    return exitWith(ExitCode::InputError);
  }
  shardc::RunResult result;
  std::string error;
  // A loop in which nothing feeds back repeats its first step: say so.
  if (a.steps && *a.steps > 1) {
    shardc::Feedback feedback;
    if (shardc::planFeedback(m->signature, feedback, error) && feedback.outputToInput.empty())
      llvm::errs() << "shardc: warning: no output is named like an argument, so nothing feeds "
                      "back: each of the "
                   << *a.steps
                   << " steps runs on the same inputs (a JAX step's state feeds back when it "
                      "is donated: export with donate_argnums)\n";
    error.clear();
  }
  // Replicas of every gathered output must agree (replicated weights must
  // stay one global parameter): the state's after the last step (or every
  // step, --check-replicas=every), the other outputs' every step; with
  // --steps the loss is printed as it goes.
  int lossIndex = -1;
  // The loss is the output named `loss`, or `<path>.loss` in a program
  // imported from JAX (a pytree result such as {"loss": ...}).
  for (size_t o = 0; o < m->signature.outputs.size(); ++o)
    if (lossIndex < 0 && (m->signature.outputs[o].name == "loss" ||
                          llvm::StringRef(m->signature.outputs[o].name).ends_with(".loss")))
      lossIndex = static_cast<int>(o);
  // Under MPI every process runs its own rank; rank 0 speaks for the job.
  bool mpi = a.backend == "mpi";
  int32_t rank = 0;
  std::unique_ptr<shardc::RankGroup> group = shardc::threadsRankGroup(m->signature);
  if (mpi) {
    group = shardc::mpiRankGroup(m->signature, error);
    if (!group) {
      llvm::errs() << "shardc: error: " << error << "\n";
      shardc::finishMpi();
      return exitWith(ExitCode::RunError);
    }
    rank = static_cast<int32_t>(group->devices[0]);
  }
  group->profile = a.profile;
  bool replicasDisagree = false;
  auto stepStart = std::chrono::steady_clock::now();
  auto afterStep = [&](int64_t step, const shardc::RunResult &r) {
    if (a.timeSteps && rank == 0) {
      // From the end of the previous step: run, gather what this step
      // gathers, check its replicas (the first step also scatters).
      auto now = std::chrono::steady_clock::now();
      llvm::outs() << "step " << step + 1 << ": "
                   << llvm::format("%.3f",
                                   std::chrono::duration<double, std::milli>(now - stepStart)
                                       .count())
                   << " ms\n";
      stepStart = now;
    }
    for (size_t o = 0; o < m->signature.outputs.size(); ++o)
      if (r.replicaDiffs[o] != 0) {
        // Every MPI rank sees the same gathered outputs and stops alike.
        if (rank == 0)
          llvm::errs() << "shardc: error: "
                       << (a.steps ? "step " + std::to_string(step + 1) + ": " : "")
                       << shardc::replicaDisagreement(m->signature.outputs[o].name,
                                                      r.replicaDiffs[o])
                       << "\n";
        replicasDisagree = true;
        return false;
      }
    if (a.steps && !a.quiet && rank == 0 && lossIndex >= 0)
      printArray(llvm::outs(), "step " + std::to_string(step + 1) + ": loss",
                 r.outputs.arrays[lossIndex]);
    return true;
  };
  shardc::ReplicaCheck check =
      a.checkReplicas == "every" ? shardc::ReplicaCheck::Every : shardc::ReplicaCheck::Last;
  if (!shardc::runSteps(m->signature, m->object, inputs, a.steps.value_or(1), check, afterStep,
                        result, error, *group)) {
    if (!replicasDisagree)
      llvm::errs() << "shardc: error: " << (mpi ? "rank " + std::to_string(rank) + ": " : "")
                   << error << "\n";
    if (mpi)
      shardc::finishMpi();
    return exitWith(ExitCode::RunError);
  }
  // The steps are done: give the buffers they kept for reuse back.
  shardrt_buffer_cache_release();
  std::vector<shardc::RankProfile> profiles;
  if (a.profile && !group->allProfiles(profiles, error)) {
    llvm::errs() << "shardc: error: " << error << "\n";
    if (mpi)
      shardc::finishMpi();
    return exitWith(ExitCode::RunError);
  }
  if (mpi) {
    shardc::finishMpi();
    if (rank != 0)
      return 0;
  }
  if (!a.runOut.empty()) {
    std::string error;
    if (!writeOutputs(a.runOut, result.outputs, error)) {
      llvm::errs() << "shardc: error: " << error << "\n";
      return exitWith(ExitCode::OutputError);
    }
  }
  if (!a.quiet) {
    llvm::outs() << "ran " << (a.steps ? std::to_string(*a.steps) + " steps " : std::string())
                 << "on " << m->signature.mesh.deviceCount() << " ranks (mesh "
                 << m->signature.mesh.str() << ", " << (mpi ? "mpi" : "threads") << ")\n";
    if (a.steps)
      llvm::outs() << "final outputs:\n";
    for (size_t o = 0; o < result.outputs.names.size(); ++o)
      printArray(llvm::outs(), result.outputs.names[o], result.outputs.arrays[o]);
    if (!a.runOut.empty())
      llvm::outs() << "wrote " << result.outputs.names.size() << " outputs to " << a.runOut
                   << "/\n";
  }
  if (a.profile) {
    // Also under --quiet: it is what was asked for.
    llvm::outs() << "profile: time per kernel and collective call site, per rank\n";
    // Times are wall clock on the rank's thread: where ranks outnumber the
    // cores, a site's time also counts the slices the scheduler gave other
    // ranks, and a wait in all_reduce_done is often a peer not yet run.
    int64_t ranks = m->signature.mesh.deviceCount();
    int32_t cores = shardrt_cpus_available();
    if (!mpi && ranks > cores)
      llvm::outs() << "note: " << ranks << " ranks share " << cores
                   << " cores: each time below includes the time its rank waited for a core, "
                      "and a wait for an all-reduce is often a peer that had none; profile "
                      "on at least as many cores as ranks to time the kernels alone\n";
    // Ranks without kernel threads of their own run chunks of each
    // other's loops while they wait (runtime/src/SharedLoops.h).
    if (!mpi && shardrt_threads_share_loops(ranks))
      llvm::outs() << "note: a rank waiting in a collective runs chunks of its peers' "
                      "parallel loops, so a collective's time includes that work "
                      "(SHARDRT_SHARE_LOOPS=0 turns it off)\n";
    for (const shardc::RankProfile &p : profiles)
      llvm::outs() << shardc::formatProfile(group->profileSites, p, a.profileRows);
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  shardc::tuneAllocatorForCompiling();
  int status = 0;
  std::optional<Args> args = parseArgs(argc, argv, status);
  if (!args)
    return status;
  if (args->command == "run")
    return runRun(*args);
  if (args->command == "import")
    return runImport(*args);
  return runCompile(*args);
}
