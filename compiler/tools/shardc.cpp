//===- shardc.cpp - the shardc command line -------------------------------===//
//
//   shardc compile MODEL.mlir [--mesh AXIS=N,...] [-o OUT/] [--emit=PHASE] [--report]
//   shardc run     MODEL.mlir|OUT/ [--mesh ...] --in NAME=FILE.npy ... [--out DIR/]
//                  [--steps N]  (a training loop: outputs named like inputs feed back)
//   shardc report  MODEL.mlir [--mesh ...]
//   shardc explain MODEL.mlir [--mesh ...]   (provenance remarks, collective causes)
//   compile, run and report take --memory-budget=BYTES (K/M/G suffixes): an
//   estimated peak per device above it is a compile error.
//
// Exit statuses are the ExitCode enum below (README documents them). Every
// error names what the user wrote and what would fix it.
//
//===----------------------------------------------------------------------===//
#include "compiler/host/Executor.h"
#include "compiler/host/MpiExecutor.h"
#include "compiler/pipeline/Pipeline.h"
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
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
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

const char *kUsage =
    "usage:\n"
    "  shardc compile MODEL.mlir [--mesh AXIS=N,...] [-o OUT/] [--emit=PHASE] [--report]\n"
    "  shardc run MODEL.mlir|OUT/ [--mesh AXIS=N,...] --in NAME=FILE.npy ... [--out DIR/]\n"
    "             [--steps N]  (run N steps; each output named like an argument is fed\n"
    "             back into it, the output `loss` is printed every step)\n"
    "  shardc report MODEL.mlir [--mesh AXIS=N,...]\n"
    "  shardc explain MODEL.mlir [--mesh AXIS=N,...]   (each value's sharding and its origin,\n"
    "                                                  as remarks; collectives and their causes)\n"
    "PHASE: global | propagated | partitioned | local | llvm\n"
    "options: --target cpu (default; ptx is not in this build), --backend threads (default)\n"
    "         or mpi (run: one rank per process, under `mpirun -np <devices> shardc run ...`),\n"
    "         --cpu NAME (LLVM CPU for the object: host (default) or e.g. x86-64-v2 to run\n"
    "         on any x86-64), --entry NAME, --quiet,\n"
    "         --memory-budget=BYTES (e.g. 512M: fail when the estimated peak memory per\n"
    "         device exceeds it; compile, run, report)\n";

struct Args {
  std::string command, model, outDir, runOut, mesh, entry, target = "cpu", backend = "threads",
                                                            cpu = "host";
  std::optional<shardc::Phase> emit;
  bool report = false, quiet = false, explain = false;
  bool meshGiven = false; // --mesh was passed (perhaps empty: an error)
  std::optional<int64_t> memoryBudget;
  std::vector<std::pair<std::string, std::string>> inputs;
  /// `run --steps N`; unset = one step, printing every output.
  std::optional<int64_t> steps;
};

int usageError(const std::string &msg) {
  llvm::errs() << "shardc: error: " << msg << "\n" << kUsage;
  return exitWith(ExitCode::Usage);
}

std::optional<Args> parseArgs(int argc, char **argv, int &status) {
  Args a;
  if (argc < 2) {
    status = usageError("no command given");
    return std::nullopt;
  }
  a.command = argv[1];
  if (a.command == "-h" || a.command == "--help") {
    llvm::outs() << kUsage;
    status = 0;
    return std::nullopt;
  }
  if (a.command != "compile" && a.command != "run" && a.command != "report" &&
      a.command != "explain") {
    status = usageError("unknown command '" + a.command + "'");
    return std::nullopt;
  }
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const std::string &flag) -> std::optional<std::string> {
      if (arg.rfind(flag + "=", 0) == 0)
        return arg.substr(flag.size() + 1);
      if (arg == flag) {
        if (i + 1 >= argc)
          return std::nullopt;
        return std::string(argv[++i]);
      }
      return std::nullopt;
    };
    auto flagIs = [&](const std::string &flag) {
      return arg == flag || arg.rfind(flag + "=", 0) == 0;
    };
    std::optional<std::string> v;
    for (const char *flag : {"--mesh", "-o", "--out", "--entry", "--target", "--backend",
                             "--emit", "--in", "--cpu", "--memory-budget", "--steps"})
      if (arg == flag && (i + 1 >= argc || (argv[i + 1][0] == '-' && argv[i + 1][1] == '-'))) {
        status = usageError(std::string(flag) + " needs a value");
        return std::nullopt;
      }
    if (flagIs("--mesh")) {
      if (!(v = value("--mesh")))
        break;
      a.mesh += (a.meshGiven ? "," : "") + *v;
      a.meshGiven = true;
    } else if (flagIs("-o")) {
      if (!(v = value("-o")))
        break;
      a.outDir = *v;
    } else if (flagIs("--steps")) {
      if (!(v = value("--steps")))
        break;
      int64_t n = 0;
      if (llvm::StringRef(*v).getAsInteger(10, n) || n < 1) {
        status = usageError("--steps " + *v + ": expected a positive number of steps");
        return std::nullopt;
      }
      a.steps = n;
    } else if (flagIs("--out")) {
      if (!(v = value("--out")))
        break;
      a.runOut = *v;
    } else if (flagIs("--entry")) {
      if (!(v = value("--entry")))
        break;
      if (v->empty()) {
        status = usageError("--entry needs a function name, e.g. --entry main");
        return std::nullopt;
      }
      a.entry = *v;
    } else if (flagIs("--target")) {
      if (!(v = value("--target")))
        break;
      a.target = *v;
    } else if (flagIs("--cpu")) {
      if (!(v = value("--cpu")))
        break;
      a.cpu = *v;
    } else if (flagIs("--backend")) {
      if (!(v = value("--backend")))
        break;
      a.backend = *v;
    } else if (flagIs("--emit")) {
      if (!(v = value("--emit")))
        break;
      a.emit = shardc::parsePhase(*v);
      if (!a.emit) {
        status = usageError("--emit=" + *v + " is not a phase");
        return std::nullopt;
      }
    } else if (flagIs("--memory-budget")) {
      if (!(v = value("--memory-budget")))
        break;
      int64_t bytes;
      if (!shardc::parseByteSize(*v, bytes)) {
        status = usageError("--memory-budget=" + *v +
                            ": expected a positive byte count such as 1048576, 512K, 64M or 2G");
        return std::nullopt;
      }
      a.memoryBudget = bytes;
    } else if (flagIs("--in")) {
      if (!(v = value("--in")))
        break;
      size_t eq = v->find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == v->size()) {
        status = usageError("--in " + *v + ": expected NAME=FILE.npy");
        return std::nullopt;
      }
      a.inputs.emplace_back(v->substr(0, eq), v->substr(eq + 1));
    } else if (arg == "--explain-sharding") {
      a.explain = true;
    } else if (arg == "--report") {
      a.report = true;
    } else if (arg == "--quiet") {
      a.quiet = true;
    } else if (!arg.empty() && arg[0] == '-') {
      status = usageError("unknown option '" + arg + "'");
      return std::nullopt;
    } else if (a.model.empty()) {
      a.model = arg;
    } else {
      status = usageError("unexpected argument '" + arg + "' (the model is '" + a.model + "')");
      return std::nullopt;
    }
    continue;
  }
  if (a.model.empty()) {
    status = usageError("no model given");
    return std::nullopt;
  }
  // --mesh: AXIS=N pairs, each axis once, sizes positive; no empty entry
  // (a stray comma or an empty value is a typo, not "no change").
  std::vector<std::string> seen;
  llvm::SmallVector<llvm::StringRef> pairs;
  if (a.meshGiven)
    llvm::StringRef(a.mesh).split(pairs, ',', -1, /*KeepEmpty=*/true);
  for (llvm::StringRef pair : pairs) {
    if (pair.trim().empty()) {
      status = usageError("--mesh '" + a.mesh +
                          "' has an empty entry; expected AXIS=N pairs separated by commas, "
                          "e.g. --mesh data=2,model=4");
      return std::nullopt;
    }
    auto [axis, size] = pair.split('=');
    long long n;
    if (axis.trim().empty() || size.trim().getAsInteger(10, n) || n < 1) {
      status = usageError("--mesh " + pair.str() + ": expected AXIS=N with N a positive integer");
      return std::nullopt;
    }
    if (std::find(seen.begin(), seen.end(), axis.trim().str()) != seen.end()) {
      status = usageError("--mesh gives axis \"" + axis.trim().str() + "\" twice");
      return std::nullopt;
    }
    seen.push_back(axis.trim().str());
  }
  if (a.emit && a.command == "run" && llvm::sys::fs::is_directory(a.model)) {
    status = usageError("--emit needs a model file; '" + a.model +
                        "' is a compiled directory (its IR is not kept)");
    return std::nullopt;
  }
  if (a.target != "cpu") {
    llvm::errs() << "shardc: error: --target " << a.target
                 << " is not available: this build of shardc compiles for the cpu target only\n";
    status = exitWith(ExitCode::Usage);
    return std::nullopt;
  }
  if (a.backend != "threads" && !(a.backend == "mpi" && a.command == "run")) {
    llvm::errs() << "shardc: error: --backend " << a.backend
                 << " is not available" << (a.backend == "mpi" ? " for " + a.command : "")
                 << ": `shardc run` runs ranks as threads (--backend threads) or one per MPI "
                    "process (--backend mpi, under mpirun)\n";
    status = exitWith(ExitCode::Usage);
    return std::nullopt;
  }
  status = 0;
  return a;
}

/// A compiled model: from source now, or read back from an OUT/ directory.
struct Model {
  shardc::Signature signature;
  std::string object;
};

bool readFile(const std::string &path, std::string &out) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buf)
    return false;
  out = (*buf)->getBuffer().str();
  return true;
}

std::optional<Model> compileSource(const Args &a, int &status) {
  mlir::DialectRegistry registry;
  shardc::registerCompilerDialects(registry);
  mlir::MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  // Diagnostics point at the user's source; a dump of the op adds only noise.
  ctx.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &ctx);
  std::string error;
  auto file = mlir::openInputFile(a.model, &error);
  if (!file) {
    llvm::errs() << "shardc: error: cannot read model '" << a.model << "': " << error << "\n";
    status = exitWith(ExitCode::InputError);
    return std::nullopt;
  }
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &ctx);
  if (!module) {
    status = exitWith(ExitCode::CompileError);
    return std::nullopt;
  }
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
  shardc::CompileOptions options;
  options.meshSizes = a.mesh;
  options.cpu = a.cpu;
  options.entry = a.entry;
  options.emit = a.emit;
  options.emitStream = &llvm::outs();
  options.explain = a.explain || a.command == "explain";
  options.memoryBudget = a.memoryBudget;
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
  std::string manifest, error, objectFile;
  std::string path = (llvm::Twine(a.model) + "/manifest.json").str();
  Model m;
  if (!readFile(path, manifest)) {
    llvm::errs() << "shardc: error: '" << a.model
                 << "' is a directory without manifest.json; pass a model file or a "
                    "directory written by `shardc compile -o`\n";
    status = exitWith(ExitCode::InputError);
    return std::nullopt;
  }
  if (!shardc::readManifest(manifest, m.signature, objectFile, error)) {
    llvm::errs() << "shardc: error: " << path << ": " << error << "\n";
    status = exitWith(ExitCode::InputError);
    return std::nullopt;
  }
  if (!readFile((llvm::Twine(a.model) + "/" + objectFile).str(), m.object)) {
    llvm::errs() << "shardc: error: cannot read " << a.model << "/" << objectFile << "\n";
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
  std::string out = a.outDir.empty() ? "out" : a.outDir;
  if (std::error_code ec = llvm::sys::fs::create_directories(out)) {
    llvm::errs() << "shardc: error: cannot create '" << out << "': " << ec.message() << "\n";
    return exitWith(ExitCode::OutputError);
  }
  auto write = [&](const std::string &name, const std::string &bytes) {
    std::error_code ec;
    llvm::raw_fd_ostream os(out + "/" + name, ec, llvm::sys::fs::OF_None);
    if (ec) {
      llvm::errs() << "shardc: error: cannot write " << out << "/" << name << ": "
                   << ec.message() << "\n";
      return false;
    }
    os << bytes;
    return true;
  };
  if (!write("model.o", m->object) ||
      !write("manifest.json", shardc::writeManifest(m->signature, "model.o")) ||
      !write("report.txt", shardc::formatReport(m->signature)))
    return exitWith(ExitCode::OutputError);
  if (!a.quiet)
    llvm::outs() << "wrote " << out << "/model.o, " << out << "/manifest.json, " << out
                 << "/report.txt (mesh " << m->signature.mesh.str() << ", "
                 << m->signature.collectives.size() << " collectives)\n";
  return 0;
}

int runRun(const Args &a) {
  int status;
  std::optional<Model> m = llvm::sys::fs::is_directory(a.model) ? loadCompiled(a, status)
                                                                : compileSource(a, status);
  if (!m || a.emit)
    return status;
  shardc::releaseCompilerMemory();
  shardc::ArraySet inputs;
  for (auto &[name, path] : a.inputs) {
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
  // Every step checks that replicas agree (replicated weights must stay one
  // global parameter); with --steps the loss is printed as it goes.
  int lossIndex = -1;
  for (size_t o = 0; o < m->signature.outputs.size(); ++o)
    if (m->signature.outputs[o].name == "loss")
      lossIndex = static_cast<int>(o);
  // Under MPI every process runs its own rank; rank 0 speaks for the job.
  bool mpi = a.backend == "mpi";
  int32_t rank = 0;
  shardc::StepRunner runner = shardc::runThreadsEntry;
  if (mpi) {
    if (!shardc::startMpi(m->signature, rank, error)) {
      llvm::errs() << "shardc: error: " << error << "\n";
      shardc::finishMpi();
      return exitWith(ExitCode::RunError);
    }
    runner = shardc::runMpiRank;
  }
  bool replicasDisagree = false;
  auto afterStep = [&](int64_t step, const shardc::RunResult &r) {
    for (size_t o = 0; o < m->signature.outputs.size(); ++o)
      if (r.replicaDiffs[o] != 0) {
        // Every MPI rank sees the same gathered outputs and stops alike.
        if (rank == 0)
          llvm::errs() << "shardc: error: "
                       << (a.steps ? "step " + std::to_string(step + 1) + ": " : "")
                       << "the replicas of output '" << m->signature.outputs[o].name
                       << "' disagree (max difference " << r.replicaDiffs[o]
                       << "); this is a shardc bug, please report it with the model\n";
        replicasDisagree = true;
        return false;
      }
    if (a.steps && !a.quiet && rank == 0 && lossIndex >= 0)
      printArray(llvm::outs(), "step " + std::to_string(step + 1) + ": loss",
                 r.outputs.arrays[lossIndex]);
    return true;
  };
  if (!shardc::runSteps(m->signature, m->object, inputs, a.steps.value_or(1),
                        afterStep, result, error, runner)) {
    if (!replicasDisagree)
      llvm::errs() << "shardc: error: " << (mpi ? "rank " + std::to_string(rank) + ": " : "")
                   << error << "\n";
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
    if (std::error_code ec = llvm::sys::fs::create_directories(a.runOut)) {
      llvm::errs() << "shardc: error: cannot create '" << a.runOut << "': " << ec.message()
                   << "\n";
      return exitWith(ExitCode::OutputError);
    }
    for (size_t o = 0; o < result.outputs.names.size(); ++o) {
      std::string path = a.runOut + "/" + result.outputs.names[o] + ".npy";
      if (shardrt_npy_write(path.c_str(), &result.outputs.arrays[o]) != SHARDRT_OK) {
        llvm::errs() << "shardc: error: writing " << path << ": " << shardrt_last_error()
                     << "\n";
        return exitWith(ExitCode::OutputError);
      }
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
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  shardc::tuneAllocatorForCompiling();
  mlir::registerPassManagerCLOptions();
  int status = 0;
  std::optional<Args> args = parseArgs(argc, argv, status);
  if (!args)
    return status;
  if (args->command == "run")
    return runRun(*args);
  return runCompile(*args);
}
