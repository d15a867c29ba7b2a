// The main of a standalone executable: a compiled model's object linked
// with a static shardrt. It needs no LLVM, MLIR or MPI at run time.
//
//   MODEL --in NAME=FILE.npy ... [--out DIR] [--steps N] [--quiet]
//
// It reads the object's signature (`shardc_signature`), checks and scatters
// the global inputs over the mesh, runs every rank as a thread of this
// process (a GPU artifact's ranks on the visible GPUs round-robin, their
// buffers in device memory, their collectives on NCCL when each has a GPU
// of its own), feeds outputs named like an input back into
// it between steps (the buffers swap; state stays on the ranks, and on the
// devices), gathers the outputs after the last step, requires their
// replicas to agree exactly, and writes them as .npy. Exit statuses as
// `shardc run`'s: 2 command line, 4 input, 5 run, 6 output.
#include "runtime/exe/SignatureText.h"
#include "shardrt.h"
#include "shardrt_cuda.h"

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

extern "C" const char shardc_signature[];
extern "C" void (*const shardc_entry)(void **);

namespace {

using shardrt::exe::Signature;
using shardrt::exe::Tensor;

enum Exit { kOk = 0, kUsage = 2, kInput = 4, kRun = 5, kOutput = 6 };

int fail(int status, const std::string &message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return status;
}

struct Options {
  std::vector<std::pair<std::string, std::string>> inputs;
  std::string outDir;
  int64_t steps = 1;
  bool quiet = false;
};

const char *kUsageText =
    "usage: %s --in NAME=FILE.npy ... [--out DIR] [--steps N] [--quiet]\n"
    "Runs the compiled model on every rank of its mesh (a GPU model on the visible GPUs).\n"
    "Exit statuses: 0 ok, 2 bad command line, 4 bad input, 5 run failed, 6 outputs not written.\n";

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

bool parseArgs(int argc, char **argv, Options &o, std::string &error) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](std::string &out) {
      size_t eq = a.find('=');
      if (eq != std::string::npos) {
        out = a.substr(eq + 1);
        return true;
      }
      if (i + 1 >= argc)
        return false;
      out = argv[++i];
      return true;
    };
    std::string v;
    if (a == "--quiet") {
      o.quiet = true;
    } else if (a.rfind("--in", 0) == 0 && (a == "--in" || a[4] == '=')) {
      if (!value(v) || v.find('=') == std::string::npos) {
        error = "--in takes NAME=FILE.npy";
        return false;
      }
      o.inputs.emplace_back(v.substr(0, v.find('=')), v.substr(v.find('=') + 1));
    } else if (a.rfind("--out", 0) == 0 && (a == "--out" || a[5] == '=')) {
      if (!value(o.outDir)) {
        error = "--out takes a folder";
        return false;
      }
    } else if (a.rfind("--steps", 0) == 0 && (a == "--steps" || a[7] == '=')) {
      char *end = nullptr;
      if (!value(v) || (o.steps = std::strtoll(v.c_str(), &end, 10), *end != '\0') ||
          o.steps < 1) {
        error = "--steps takes a positive number";
        return false;
      }
    } else {
      error = "unknown argument '" + a + "'";
      return false;
    }
  }
  return true;
}

/// One rank's buffers in entry order (inputs, then outputs): host shards,
/// and on a GPU their device copies.
struct Rank {
  std::vector<shardrt_array> host;
  std::vector<void *> device;
};

struct Run {
  const Signature &sig;
  const Options &options;
  std::vector<Rank> ranks;
  std::vector<std::pair<size_t, size_t>> feedback; // (output, input) buffer indices
  int lossOutput = -1;                              // a replicated output named loss
  int gpus = 0;
};

/// Bytes of buffer `k` of a rank.
int64_t bytesOf(const shardrt_array &a) {
  return shardrt_array_numel(&a) * static_cast<int64_t>(shardrt_dtype_size(a.dtype));
}

void printLoss(const shardrt_array &loss, int64_t step) {
  double v = 0;
  switch (loss.dtype) {
  case SHARDRT_F32: v = *static_cast<const float *>(loss.data); break;
  case SHARDRT_F64: v = *static_cast<const double *>(loss.data); break;
  default: return;
  }
  std::printf("step %lld: loss = %.9g\n", static_cast<long long>(step), v);
  std::fflush(stdout);
}

bool envFlag(const char *name, bool fallback) {
  const char *v = std::getenv(name);
  return !v || !*v ? fallback : std::strcmp(v, "0") != 0;
}

/// A rank's step loop on a GPU, as graphs where it can be (see runRank).
class StepGraphs {
public:
  explicit StepGraphs(bool enabled) : enabled(enabled) {
    if (!enabled)
      why = "launched kernel by kernel (graphs off, or 2 steps or fewer)";
  }

  /// Runs step `step`: replays its parity's graph, captures one, or runs
  /// the entry eagerly. False when the rank failed.
  bool run(int64_t step, void **buffers) {
    const int parity = static_cast<int>(step % 2);
    if (graphs[parity] > 0)
      return shardrt_cuda_graph_launch(graphs[parity]) == SHARDRT_OK;
    if (!enabled || step == 0) {
      const int64_t waits = shardrt_cuda_host_waits();
      shardc_entry(buffers);
      if (enabled && shardrt_cuda_host_waits() != waits) {
        enabled = false;
        why = "launched kernel by kernel: the step waits for the GPU on the host (a staged "
              "collective, or a value read on the host)";
      }
      return true;
    }
    if (shardrt_cuda_capture_begin() != SHARDRT_OK)
      return false;
    shardc_entry(buffers);
    graphs[parity] = shardrt_cuda_capture_end();
    if (graphs[parity] > 0)
      return shardrt_cuda_graph_launch(graphs[parity]) == SHARDRT_OK;
    // Not captured: this step and the rest run eagerly.
    enabled = false;
    why = std::string("launched kernel by kernel: ") + shardrt_last_error();
    shardc_entry(buffers);
    return true;
  }

  void report() const {
    if (graphs[0] > 0 && graphs[1] > 0)
      std::printf("steps: replayed as CUDA graphs (captured at steps 2 and 3)\n");
    else
      std::printf("steps: %s\n", why.c_str());
    std::fflush(stdout);
  }

private:
  bool enabled;
  int64_t graphs[2] = {0, 0};
  std::string why;
};

int32_t runRank(shardrt_comm *comm, void *user) {
  Run &run = *static_cast<Run *>(user);
  const int32_t r = shardrt_comm_rank(comm);
  Rank &rank = run.ranks[static_cast<size_t>(r)];
  const bool gpu = run.sig.gpu();
  const size_t numInputs = run.sig.inputs.size();
  std::vector<void *> buffers(rank.host.size());
  if (gpu) {
    if (shardrt_cuda_bind(r % run.gpus, r) != SHARDRT_OK)
      return 1;
    if (shardrt_cuda_connect() != SHARDRT_OK) {
      shardrt_cuda_unbind();
      return 1;
    }
    if (r == 0 && !run.options.quiet) {
      std::printf("collectives: %s\n", shardrt_cuda_collectives());
      std::fflush(stdout);
    }
    for (size_t k = 0; k < rank.host.size(); ++k) {
      int64_t bytes = bytesOf(rank.host[k]);
      buffers[k] = shardrt_cuda_alloc(bytes, nullptr);
      if (!buffers[k] || shardrt_cuda_upload(buffers[k], rank.host[k].data, bytes) != SHARDRT_OK) {
        shardrt_cuda_unbind();
        return 1;
      }
    }
  } else {
    for (size_t k = 0; k < rank.host.size(); ++k)
      buffers[k] = rank.host[k].data;
  }
  // On a GPU, a step that waits for nothing on the host is captured as a
  // CUDA graph, one per parity of the step (the state buffers swap), and
  // replayed; the first step runs eagerly (it loads modules, uploads
  // constants and fills the allocator's cache) and tells whether the step
  // waits. SHARDRT_CUDA_GRAPHS=0 launches every kernel on its own.
  StepGraphs graphs(gpu && run.options.steps > 2 && envFlag("SHARDRT_CUDA_GRAPHS", true));
  for (int64_t step = 0; step < run.options.steps; ++step) {
    if (!graphs.run(step, buffers.data())) {
      shardrt_cuda_unbind();
      return 1;
    }
    if (r == 0 && step + 1 == run.options.steps && gpu && !run.options.quiet &&
        run.options.steps > 2)
      graphs.report();
    if (gpu && shardrt_cuda_synchronize() != SHARDRT_OK) {
      shardrt_cuda_unbind();
      return 1;
    }
    if (r == 0 && run.lossOutput >= 0 && !run.options.quiet && run.options.steps > 1) {
      // On the CPU the host arrays are the buffers (they swap together).
      const size_t k = numInputs + static_cast<size_t>(run.lossOutput);
      if (gpu)
        shardrt_cuda_download(rank.host[k].data, buffers[k], bytesOf(rank.host[k]));
      printLoss(rank.host[k], step + 1);
    }
    if (step + 1 < run.options.steps)
      for (auto [out, in] : run.feedback) {
        std::swap(buffers[out], buffers[in]);
        if (!gpu)
          std::swap(rank.host[out].data, rank.host[in].data);
      }
  }
  if (gpu) {
    for (size_t k = numInputs; k < rank.host.size(); ++k)
      if (shardrt_cuda_download(rank.host[k].data, buffers[k], bytesOf(rank.host[k])) !=
          SHARDRT_OK) {
        shardrt_cuda_unbind();
        return 1;
      }
    return shardrt_cuda_unbind() == SHARDRT_OK ? 0 : 1;
  }
  return 0;
}

/// Reads, checks and scatters the inputs; allocates zeroed outputs.
int prepare(Run &run, const Options &o) {
  const Signature &sig = run.sig;
  std::vector<shardrt_array> globals(sig.inputs.size());
  struct Free {
    std::vector<shardrt_array> &a;
    ~Free() {
      for (shardrt_array &x : a)
        shardrt_array_free(&x);
    }
  } freeGlobals{globals};
  std::vector<bool> given(sig.inputs.size(), false);
  for (const auto &[name, path] : o.inputs) {
    size_t k = 0;
    while (k < sig.inputs.size() && sig.inputs[k].name != name)
      ++k;
    if (k == sig.inputs.size())
      return fail(kUsage, "--in " + name + ": the model has no input of that name");
    if (given[k])
      return fail(kUsage, "--in " + name + " is given twice");
    if (shardrt_npy_read(path.c_str(), &globals[k]) != SHARDRT_OK)
      return fail(kInput, "--in " + name + "=" + path + ": " + shardrt_last_error());
    given[k] = true;
    const Tensor &t = sig.inputs[k];
    std::vector<int64_t> shape(globals[k].shape, globals[k].shape + globals[k].rank);
    if (globals[k].dtype != t.dtype || shape != t.shape)
      return fail(kInput, "--in " + name + "=" + path + " holds " +
                              shardrt_dtype_name(globals[k].dtype) + shapeText(shape) +
                              "; the model takes " + shardrt_dtype_name(t.dtype) +
                              shapeText(t.shape));
  }
  for (size_t k = 0; k < sig.inputs.size(); ++k)
    if (!given[k])
      return fail(kInput, "input '" + sig.inputs[k].name + "' (" +
                              shardrt_dtype_name(sig.inputs[k].dtype) +
                              shapeText(sig.inputs[k].shape) + ") is missing: pass --in " +
                              sig.inputs[k].name + "=FILE.npy");
  run.ranks.resize(static_cast<size_t>(sig.ranks()));
  for (int64_t d = 0; d < sig.ranks(); ++d) {
    Rank &rank = run.ranks[static_cast<size_t>(d)];
    for (size_t k = 0; k < sig.inputs.size(); ++k) {
      shardrt_placement p = sig.placement(sig.inputs[k]);
      shardrt_array local{};
      if (shardrt_scatter(&globals[k], &p, d, &local) != SHARDRT_OK)
        return fail(kInput, "scattering '" + sig.inputs[k].name + "': " + shardrt_last_error());
      rank.host.push_back(local);
    }
    for (const Tensor &t : sig.outputs) {
      shardrt_placement p = sig.placement(t);
      int64_t local[SHARDRT_MAX_RANK], offset[SHARDRT_MAX_RANK], valid[SHARDRT_MAX_RANK];
      shardrt_array a{};
      if (shardrt_local_layout(&p, t.shape.data(), d, local, offset, valid) != SHARDRT_OK ||
          shardrt_array_alloc(&a, t.dtype, static_cast<int32_t>(t.shape.size()), local) !=
              SHARDRT_OK)
        return fail(kRun, "output '" + t.name + "': " + shardrt_last_error());
      rank.host.push_back(a);
    }
  }
  // Outputs that feed an input of the same name: same dtype, shape and
  // placement, so their buffers can swap.
  for (size_t o = 0; o < sig.outputs.size(); ++o) {
    const Tensor &out = sig.outputs[o];
    if (out.name == "loss" && out.shape.empty())
      run.lossOutput = static_cast<int>(o);
    for (size_t i = 0; i < sig.inputs.size(); ++i) {
      const Tensor &in = sig.inputs[i];
      if (in.name != out.name)
        continue;
      if (in.dtype != out.dtype || in.shape != out.shape || in.dimAxes != out.dimAxes)
        return fail(kRun, "output '" + out.name + "' feeds the input of that name but differs "
                          "from it in dtype, shape or placement; the standalone executable "
                          "swaps such buffers between steps, and cannot here");
      run.feedback.emplace_back(sig.inputs.size() + o, i);
    }
  }
  return kOk;
}

int gatherAndWrite(Run &run) {
  const Signature &sig = run.sig;
  bool writing = !run.options.outDir.empty();
  if (writing)
    ::mkdir(run.options.outDir.c_str(), 0777);
  for (size_t o = 0; o < sig.outputs.size(); ++o) {
    const Tensor &t = sig.outputs[o];
    std::vector<shardrt_array> locals;
    for (Rank &rank : run.ranks)
      locals.push_back(rank.host[sig.inputs.size() + o]);
    shardrt_placement p = sig.placement(t);
    shardrt_array global{};
    double diff = 0;
    if (shardrt_gather(locals.data(), &p, t.shape.data(), t.dtype, &global, &diff) != SHARDRT_OK)
      return fail(kRun, "gathering '" + t.name + "': " + shardrt_last_error());
    if (diff != 0) {
      shardrt_array_free(&global);
      return fail(kRun, "the replicas of output '" + t.name + "' disagree (max difference " +
                            std::to_string(diff) +
                            "): a shard_map's body must make each result equal over the mesh "
                            "axes its out sharding leaves unnamed; otherwise this is a shardc "
                            "bug, please report it with the model");
    }
    if (!run.options.quiet && t.shape.empty())
      std::printf("%s = %.9g\n", t.name.c_str(),
                  t.dtype == SHARDRT_F32   ? double(*static_cast<float *>(global.data))
                  : t.dtype == SHARDRT_F64 ? *static_cast<double *>(global.data)
                                           : 0.0);
    if (writing) {
      std::string path = run.options.outDir + "/" + t.name + ".npy";
      if (shardrt_npy_write(path.c_str(), &global) != SHARDRT_OK) {
        shardrt_array_free(&global);
        return fail(kOutput, path + ": " + shardrt_last_error());
      }
    }
    shardrt_array_free(&global);
  }
  if (writing && !run.options.quiet)
    std::printf("wrote %zu outputs to %s/\n", sig.outputs.size(), run.options.outDir.c_str());
  return kOk;
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  std::string error;
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::printf(kUsageText, argv[0]);
      return kOk;
    }
  if (!parseArgs(argc, argv, options, error)) {
    std::fprintf(stderr, kUsageText, argv[0]);
    return fail(kUsage, error);
  }
  Signature sig;
  if (!shardrt::exe::parseSignature(shardc_signature, sig, error))
    return fail(kInput, error);
  Run run{sig, options, {}, {}, -1, 0};
  if (sig.gpu()) {
    if (shardrt_cuda_init() != SHARDRT_OK)
      return fail(kRun, std::string(shardrt_last_error()) + "; this model was compiled for the "
                        "GPU (" + sig.target + "); compile it with --target cpu to run on CPUs");
    run.gpus = shardrt_cuda_device_count();
  }
  int status = prepare(run, options);
  struct FreeRanks {
    Run &run;
    ~FreeRanks() {
      for (Rank &rank : run.ranks)
        for (shardrt_array &a : rank.host)
          shardrt_array_free(&a);
    }
  } freeRanks{run};
  if (status != kOk)
    return status;
  const int64_t n = sig.ranks();
  if (!options.quiet) {
    std::printf("running %s on %lld rank%s (", sig.target.c_str(), static_cast<long long>(n),
                n == 1 ? "" : "s");
    if (sig.gpu())
      std::printf("%d GPU%s)\n", run.gpus, run.gpus == 1 ? "" : "s");
    else
      std::printf("threads)\n");
  }
  shardrt_world *world = shardrt_threads_create(static_cast<int32_t>(n));
  if (!world)
    return fail(kRun, shardrt_last_error());
  shardrt_status s = shardrt_threads_run(world, runRank, &run);
  shardrt_world_destroy(world);
  if (s != SHARDRT_OK)
    return fail(kRun, shardrt_last_error());
  return gatherAndWrite(run);
}
