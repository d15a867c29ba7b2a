//===- RandomPrograms.cpp - the differential tester's driver --------------===//
//
//   random_programs [--seed=N] [--programs=N] [--meshes=K] [--max-ops=N]
//                   [--program=I] [--keep=DIR] [--verbose] [--no-coverage-check]
//                   [--gpu-sequential] [--ptx=sm_90|sm_90a]
//
// For each program: generate it (Generator.h), evaluate it with the
// double-precision reference (Reference.h), then compile it with shardc for
// the 1-device mesh and K-1 random larger ones (1-D: 2, 3, 4, 5, 8 devices;
// 2-D: 2x2, 2x3, 3x2, 4x2, 2x4, 1x3, 3x1), run each on a threads world and
// compare every output with the reference and with the 1-device run.
// Floats compare within the generator's error bound for that output (its
// atol grows with the reduction lengths on the way), integers and booleans
// exactly, NaN only with NaN; replicas must agree exactly.
//
// The last lines report how often each garray op was generated and how
// often the partitioner emitted each collective; the exit status is 1 on any
// mismatch, compile error or reference error, or (unless
// --no-coverage-check) when an op or a collective kind never appeared.
// With --gpu-sequential every program is compiled with the GPU target's
// tile phase, its tiles run in index order on the CPU (docs/gpu.md), and
// checked against the same reference. With --write=DIR nothing runs: the
// programs and their inputs are written for the GPU bundle (writeCase).
// With --ptx=ARCH nothing runs: every
// program is compiled for each of its meshes to a GPU object for the arch
// (`shardc compile --target ptx`: kernels to PTX assembled by the CUDA
// toolkit's ptxas, host code lowered onto shardrt's CUDA part), and a
// program that does not compile fails, unless the
// error is the GPU target's refusal of an op it has no recipe for yet
// (counted and printed); without a toolkit the run says "skipped" and
// exits 0.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/gpu/CudaToolkit.h"
#include "tests/exec/ExecHarness.h"
#include "tests/random/Generator.h"
#include "tests/random/Printer.h"
#include "tests/random/Reference.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace shardc_random;

namespace {

struct Options {
  uint64_t seed = 1;
  int programs = 100;
  int meshes = 3;
  int maxOps = 20;
  int only = -1; // --program=N: just that one (to reproduce a failure)
  std::string keep;
  bool verbose = false;
  bool coverageCheck = true;
  std::string ptxArch; // --ptx=ARCH: compile to PTX only
  std::string write;   // --write=DIR: write the programs and inputs, run nothing
};

bool parse(int argc, char **argv, Options &o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *flag) -> const char * {
      size_t n = std::string(flag).size();
      return a.compare(0, n, flag) == 0 ? a.c_str() + n : nullptr;
    };
    if (const char *v = value("--seed="))
      o.seed = std::strtoull(v, nullptr, 10);
    else if (const char *v = value("--programs="))
      o.programs = std::atoi(v);
    else if (const char *v = value("--meshes="))
      o.meshes = std::atoi(v);
    else if (const char *v = value("--max-ops="))
      o.maxOps = std::atoi(v);
    else if (const char *v = value("--program="))
      o.only = std::atoi(v);
    else if (const char *v = value("--keep="))
      o.keep = v;
    else if (a == "--verbose")
      o.verbose = true;
    else if (a == "--no-coverage-check")
      o.coverageCheck = false;
    else if (a == "--gpu-sequential")
      shardc_test::gpuSequentialMode() = true;
    else if (const char *v = value("--ptx="))
      o.ptxArch = v;
    else if (const char *v = value("--write=")) {
      o.write = v;
      o.coverageCheck = false; // nothing is compiled, so nothing is emitted
    }
    else {
      std::fprintf(stderr, "random_programs: unknown argument '%s'\n", a.c_str());
      return false;
    }
  }
  if (o.programs < 1 || o.meshes < 1 || o.maxOps < 6) {
    std::fprintf(stderr, "random_programs: --programs and --meshes must be >= 1, --max-ops >= 6\n");
    return false;
  }
  return true;
}

/// splitmix64: one well-mixed seed per program from the run's seed.
uint64_t programSeed(uint64_t seed, uint64_t index) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + index + 1;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::vector<Array> makeInputs(const Function &main, uint64_t seed) {
  std::mt19937_64 rng(seed ^ 0x5DEECE66Dull);
  auto uniform = [&](int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
  };
  std::vector<Array> inputs;
  for (size_t i = 0; i < main.args.size(); ++i) {
    const InputDomain &d = main.argDomains[i];
    Array a{main.args[i], {}};
    double scale = std::ldexp(1.0, d.gridExp);
    for (int64_t k = 0; k < a.type.numel(); ++k)
      a.values.push_back(static_cast<double>(uniform(static_cast<int64_t>(std::ceil(d.lo * scale)),
                                                     static_cast<int64_t>(std::floor(d.hi * scale)))) /
                         scale);
    inputs.push_back(std::move(a));
  }
  return inputs;
}

std::string fmt(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

/// "" when `actual` matches `expected` within `tol` (floats; 0 = exact).
std::string compare(const std::string &what, const shardc_test::TypedArray &actual,
                    const Array &expected, double tol) {
  if (actual.dtype != runtimeName(expected.type.dtype))
    return what + ": dtype " + actual.dtype + ", expected " + runtimeName(expected.type.dtype);
  if (actual.shape != expected.type.shape || actual.values.size() != expected.values.size())
    return what + ": shape " + actual.shapeString() + ", expected " + typeText(expected.type);
  bool isF = isFloat(expected.type.dtype);
  for (size_t i = 0; i < expected.values.size(); ++i) {
    double a = actual.values[i], e = expected.values[i];
    if (std::isnan(e) || std::isnan(a)) {
      if (std::isnan(e) != std::isnan(a))
        return what + "[" + std::to_string(i) + "]: " + fmt(a) + ", expected " + fmt(e);
      continue;
    }
    double bound = isF ? 4 * tol + 1e-6 * std::fabs(e) + 1e-30 : 0;
    if (!(std::fabs(a - e) <= bound))
      return what + "[" + std::to_string(i) + "]: " + fmt(a) + ", expected " + fmt(e) +
             " (|diff| " + fmt(std::fabs(a - e)) + " > " + fmt(bound) + ")";
  }
  return "";
}

/// --write: DIR/p<index>.mlir, its inputs DIR/p<index>.<arg>.npy, and one
/// line per mesh in DIR/cases.txt: "p<index>_m<k> p<index>.mlir MESH ATOL
/// --in ARG=p<index>.<arg>.npy ...". ATOL bounds the difference between
/// two implementations that each meet the generator's tolerance (the
/// driver's bound, twice); integer outputs compare exactly anyway.
bool writeCase(const std::string &dir, int index, const std::string &text,
               const shardc_test::TypedInputs &typed, const std::vector<std::string> &meshes,
               const Generated &g) {
  std::string stem = "p" + std::to_string(index);
  std::ofstream(dir + "/" + stem + ".mlir") << text;
  std::string args;
  for (const auto &[arg, value] : typed) {
    std::string error, file = stem + "." + arg + ".npy";
    if (!shardc_test::saveNpy(dir + "/" + file, value, error)) {
      std::fprintf(stderr, "random_programs: --write: %s\n", error.c_str());
      return false;
    }
    args += " --in " + arg + "=" + file;
  }
  double tol = 0;
  for (double t : g.tolerance)
    tol = std::max(tol, t);
  std::ofstream cases(dir + "/cases.txt", std::ios::app);
  for (size_t k = 0; k < meshes.size(); ++k)
    cases << stem << "_m" << k << " " << stem << ".mlir " << meshes[k] << " "
          << 2 * (4 * tol + 1e-6) << args << "\n";
  return true;
}

Array fromTyped(const shardc_test::TypedArray &t, Dtype d) {
  return Array{Type{d, t.shape}, t.values};
}

std::vector<std::string> meshesFor(const Program &p, int count, std::mt19937_64 &rng) {
  std::vector<std::string> pool =
      p.axes.size() == 1
          ? std::vector<std::string>{"x=2", "x=3", "x=4", "x=5", "x=8"}
          : std::vector<std::string>{"x=2,y=2", "x=2,y=3", "x=3,y=2", "x=4,y=2",
                                     "x=2,y=4", "x=1,y=3", "x=3,y=1"};
  std::vector<std::string> out = {p.axes.size() == 1 ? "x=1" : "x=1,y=1"};
  while (static_cast<int>(out.size()) < count && !pool.empty()) {
    size_t k = rng() % pool.size();
    out.push_back(pool[k]);
    pool.erase(pool.begin() + static_cast<long>(k));
  }
  return out;
}

const std::vector<std::string> kCollectives = {"all_reduce", "all_gather", "all_slice",
                                               "reduce_scatter", "all_to_all",
                                               "collective_permute"};

void countCollectives(const std::string &ir, std::map<std::string, int64_t> &counts) {
  for (const std::string &c : kCollectives) {
    std::string token = "garray." + c + " ";
    for (size_t pos = ir.find(token); pos != std::string::npos; pos = ir.find(token, pos + 1))
      ++counts[c];
  }
}

/// Counts the ops of `p` whose results reach a result of main (through
/// calls): dead ops are dropped by the compiler and exercise nothing.
void countLiveOps(const Program &p, std::map<std::string, int64_t> &counts) {
  std::vector<std::vector<bool>> live(p.functions.size());
  std::vector<bool> called(p.functions.size(), false);
  called.back() = true;
  // Callees come before their callers: walk from main down.
  for (int fi = static_cast<int>(p.functions.size()) - 1; fi >= 0; --fi) {
    const Function &f = p.functions[fi];
    if (!called[fi])
      continue;
    std::vector<bool> &l = live[fi];
    l.assign(f.valueTypes.size(), false);
    for (int r : f.results)
      l[r] = true;
    for (auto op = f.ops.rbegin(); op != f.ops.rend(); ++op) {
      bool used = false;
      for (int r : op->resultIds)
        used = used || l[r];
      if (!used)
        continue;
      ++counts[op->name];
      for (int o : op->operands)
        l[o] = true;
      if (op->callee >= 0)
        called[op->callee] = true;
    }
  }
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  if (!parse(argc, argv, o))
    return 2;
  auto start = std::chrono::steady_clock::now();
  std::map<std::string, int64_t> opCounts, collectiveCounts;
  for (const char *op : generatedOps())
    opCounts[op] = 0;
  for (const std::string &c : kCollectives)
    collectiveCounts[c] = 0;
  int64_t runs = 0, mismatches = 0, compileErrors = 0, referenceErrors = 0;
  int64_t refused = 0; // --ptx: programs with an op the GPU target has no recipe for
  std::optional<shardc::GpuTargetOptions> gpu;
  if (!o.ptxArch.empty()) {
    std::optional<shardc::gpu::GpuArch> arch = shardc::gpu::parseGpuArch(o.ptxArch);
    if (!arch) {
      std::fprintf(stderr, "random_programs: --ptx=%s: expected sm_90 or sm_90a\n",
                   o.ptxArch.c_str());
      return 2;
    }
    llvm::Expected<shardc::gpu::CudaToolkit> toolkit = shardc::gpu::findCudaToolkit();
    if (!toolkit) {
      std::printf("skipped: %s\n", llvm::toString(toolkit.takeError()).c_str());
      return 0;
    }
    gpu = shardc::GpuTargetOptions{*arch, shardc::gpu::MatmulPrecision::Exact, *toolkit};
  }

  for (int index = 0; index < o.programs; ++index) {
    uint64_t seed = programSeed(o.seed, static_cast<uint64_t>(index));
    if (o.only >= 0 && index != o.only)
      continue;
    std::mt19937_64 meshRng(seed ^ 0x2545F4914F6CDD1Dull); // meshes depend on the program only
    GeneratorOptions gopt;
    gopt.maxOps = o.maxOps;
    Generated g = generate(seed, gopt);
    const Program &p = g.program;
    countLiveOps(p, opCounts);
    std::string text = printProgram(p);
    std::string name = "random-" + std::to_string(seed) + ".mlir";
    std::vector<std::string> failures;
    int64_t *category = &mismatches; // what the first failure counts as
    auto fail = [&](const std::string &why, int64_t *counter = nullptr) {
      if (failures.empty() && counter)
        category = counter;
      failures.push_back(why);
    };

    std::vector<Array> inputs = makeInputs(p.main(), seed), expected;
    try {
      expected = evaluate(p, inputs);
    } catch (const std::exception &e) {
      fail(std::string("reference: ") + e.what(), &referenceErrors);
    }
    shardc_test::TypedInputs typed;
    for (size_t i = 0; i < inputs.size(); ++i)
      typed[p.main().argNames[i]] = shardc_test::TypedArray{
          runtimeName(inputs[i].type.dtype), inputs[i].type.shape, inputs[i].values};

    std::vector<Array> oneRank;
    std::string failedMesh;
    std::vector<std::string> meshes = meshesFor(p, o.meshes, meshRng);
    if (!o.write.empty()) {
      if (!writeCase(o.write, index, text, typed, meshes, g))
        return 1;
      continue;
    }
    if (gpu) { // GPU objects only: compile for each mesh, run nothing
      for (const std::string &mesh : meshes) {
        shardc::CompileOptions options;
        options.meshSizes = mesh;
        options.gpu = gpu;
        options.verifyEachPass = true;
        std::string diagnostics;
        failedMesh = mesh;
        std::optional<shardc::CompileResult> compiled =
            shardc::compileText(text, name, options, diagnostics);
        if (compiled && compiled->object.empty()) {
          fail("GPU compile on " + mesh + " made no object", &compileErrors);
          break;
        }
        if (!compiled) {
          // A clean refusal of an op the GPU target has no recipe for yet
          // (by the tile phase, or by the host phase's check) is not a
          // failure; any other error is.
          if (diagnostics.find("kernel recipe") != std::string::npos) {
            ++refused;
            std::printf("refused program %d (seed %llu) on %s: %s", index,
                        static_cast<unsigned long long>(seed), mesh.c_str(),
                        diagnostics.substr(0, diagnostics.find('\n') + 1).c_str());
          } else {
            fail("GPU object for " + mesh + ":\n" + diagnostics, &compileErrors);
          }
          break;
        }
        ++runs;
      }
      meshes.clear();
    }
    for (const std::string &mesh : meshes) {
      if (!failures.empty())
        break;
      failedMesh = mesh;
      bool single = oneRank.empty();
      shardc_test::Compiled part =
          shardc_test::compile(text, mesh, name, shardc::Phase::Partitioned);
      if (!part.ok) {
        fail("compile for " + mesh + ":\n" + part.diagnostics, &compileErrors);
        break;
      }
      if (!single)
        countCollectives(part.emitted, collectiveCounts);
      shardc_test::TypedRunOutcome run =
          shardc_test::runTyped(shardc_test::compile(text, mesh, name), typed);
      ++runs;
      if (!run.ok) {
        fail("run on " + mesh + ": " + run.error, &compileErrors);
        break;
      }
      const Function &main = p.main();
      for (size_t k = 0; k < main.results.size() && failures.empty(); ++k) {
        const std::string &out = main.resultNames[k];
        auto it = run.outputs.find(out);
        if (it == run.outputs.end()) {
          fail("run on " + mesh + ": no output " + out);
          break;
        }
        std::string what = out + " on " + mesh;
        if (run.replicaDiffs[out] != 0)
          fail(what + ": replicas disagree by " + fmt(run.replicaDiffs[out]));
        else if (std::string m = compare(what + " vs reference", it->second, expected[k],
                                         g.tolerance[k]);
                 !m.empty())
          fail(m);
        else if (!single)
          if (std::string m = compare(what + " vs 1 device", it->second, oneRank[k],
                                      2 * g.tolerance[k]);
              !m.empty())
            fail(m);
      }
      if (single)
        for (size_t k = 0; k < main.results.size(); ++k)
          oneRank.push_back(fromTyped(run.outputs[main.resultNames[k]],
                                      main.valueTypes[main.results[k]].dtype));
    }
    if (!failures.empty()) {
      ++*category;
      std::printf("FAIL program %d (seed %llu): %s\n", index,
                  static_cast<unsigned long long>(seed), failures[0].c_str());
      if (o.verbose)
        std::printf("%s\n", text.c_str());
      if (!o.keep.empty()) {
        // A reproducer `shardc run` takes as it is: the model and its inputs.
        std::string stem = o.keep + "/random-" + std::to_string(seed);
        std::ofstream(stem + ".mlir") << text;
        std::string command = gpu ? "shardc compile " + stem + ".mlir --mesh " + failedMesh +
                                        " --target ptx --gpu " + o.ptxArch
                                  : "shardc run " + stem + ".mlir --mesh " + failedMesh;
        for (const auto &[arg, value] : typed) {
          std::string error;
          if (!shardc_test::saveNpy(stem + "." + arg + ".npy", value, error))
            std::printf("  (could not save input %s: %s)\n", arg.c_str(), error.c_str());
          command += " --in " + arg + "=" + stem + "." + arg + ".npy";
        }
        std::printf("  reproduce: %s\n", command.c_str());
      }
    } else if (o.verbose) {
      std::printf("ok   program %d (seed %llu)\n%s", index, static_cast<unsigned long long>(seed),
                  text.c_str());
      for (size_t k = 0; k < expected.size(); ++k) {
        std::printf("  // %s (tolerance %s):", p.main().resultNames[k].c_str(),
                    fmt(g.tolerance[k]).c_str());
        for (size_t i = 0; i < expected[k].values.size() && i < 8; ++i)
          std::printf(" %s", fmt(expected[k].values[i]).c_str());
        std::printf("\n");
      }
    }
    std::fflush(stdout);
  }

  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("\nops generated (live: reaching a result of main):\n");
  std::vector<std::string> missing;
  for (const auto &[op, n] : opCounts) {
    std::printf("  %-22s %8lld\n", op.c_str(), static_cast<long long>(n));
    if (n == 0)
      missing.push_back(op);
  }
  std::printf("collectives the partitioner emitted (meshes of 2 or more devices):\n");
  for (const auto &[c, n] : collectiveCounts) {
    std::printf("  %-22s %8lld\n", c.c_str(), static_cast<long long>(n));
    if (n == 0 && !gpu) // --ptx reads no partitioned IR
      missing.push_back(c);
  }
  int64_t failed = mismatches + compileErrors + referenceErrors;
  std::printf("\nrandom programs: seed %llu, %d programs, %lld runs, %lld mismatches, "
              "%lld compile/run errors, %lld reference errors, %.1f s\n",
              static_cast<unsigned long long>(o.seed), o.programs, static_cast<long long>(runs),
              static_cast<long long>(mismatches), static_cast<long long>(compileErrors),
              static_cast<long long>(referenceErrors), seconds);
  if (gpu)
    std::printf("GPU objects for %s: %lld compiles, %lld programs refused (an op without a GPU "
                "kernel recipe yet)\n",
                o.ptxArch.c_str(), static_cast<long long>(runs), static_cast<long long>(refused));
  if (o.coverageCheck && !missing.empty()) {
    std::printf("coverage: never generated or emitted:");
    for (const std::string &m : missing)
      std::printf(" %s", m.c_str());
    std::printf("\n");
    return 1;
  }
  return failed ? 1 : 0;
}
