//===- DotGeneralTest.cpp - dot_general on the CPU against a C++ reference -===//
//
// Every dot_general becomes transposes + a (batch_)matmul, and the CPU target
// tiles and vectorizes matmuls of f32/f64 with remainder tiles left scalar.
// These cases cover what that can get wrong: batch dims (leading and not),
// transposed operands, several contracting dims, matrix-vector and vector
// dot products, sizes that are not multiples of any tile (33x17x65), sizes
// with several cache blocks and both full and remainder register tiles
// (130x300x600), in f32, f64, i32, bf16 and f16 (16-bit floats sum in f32
// and round once: the bound below is too tight for a 16-bit accumulator,
// whose error grows with K). Each model is compiled with
// compileModule for one device (for the host CPU and for the portable
// x86-64-v2 tiles), loaded, run on a one-rank threads world and compared with
// a double-precision reference computed from the dot_general definition.
//
//===----------------------------------------------------------------------===//
#include "compiler/pipeline/Pipeline.h"
#include "compiler/targets/ObjectLoader.h"
#include "shardrt.h"
#include "tests/exec/ExecHarness.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

using Shape = std::vector<int64_t>;

struct DotCase {
  std::string name;
  Shape lhs, rhs;
  Shape lhsBatch, rhsBatch, lhsContracting, rhsContracting;
};

int64_t numel(const Shape &s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

bool contains(const Shape &dims, int64_t d) {
  for (int64_t x : dims)
    if (x == d)
      return true;
  return false;
}

Shape freeDims(size_t rank, const Shape &a, const Shape &b) {
  Shape out;
  for (int64_t d = 0; d < static_cast<int64_t>(rank); ++d)
    if (!contains(a, d) && !contains(b, d))
      out.push_back(d);
  return out;
}

/// batch ++ lhs free ++ rhs free (dot_general_c4).
Shape resultShape(const DotCase &c) {
  Shape out;
  for (int64_t d : c.lhsBatch)
    out.push_back(c.lhs[d]);
  for (int64_t d : freeDims(c.lhs.size(), c.lhsBatch, c.lhsContracting))
    out.push_back(c.lhs[d]);
  for (int64_t d : freeDims(c.rhs.size(), c.rhsBatch, c.rhsContracting))
    out.push_back(c.rhs[d]);
  return out;
}

std::string tensorType(const Shape &s, const std::string &elem) {
  std::string t = "tensor<";
  for (int64_t d : s)
    t += std::to_string(d) + "x";
  return t + elem + ">";
}

std::string list(const Shape &dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

std::string modelText(const DotCase &c, const std::string &elem) {
  std::string l = tensorType(c.lhs, elem), r = tensorType(c.rhs, elem),
              o = tensorType(resultShape(c), elem);
  return "func.func @main(%a: " + l + " {garray.name = \"a\"}, %b: " + r +
         " {garray.name = \"b\"}) -> (" + o + " {garray.name = \"c\"}) {\n" +
         "  %c = garray.dot_general %a, %b, batch = " + list(c.lhsBatch) + " x " +
         list(c.rhsBatch) + ", contracting = " + list(c.lhsContracting) + " x " +
         list(c.rhsContracting) + " : (" + l + ", " + r + ") -> " + o + "\n" +
         "  return %c : " + o + "\n}\n";
}

/// Row-major strides of `shape`.
Shape strides(const Shape &shape) {
  Shape s(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    s[d] = s[d + 1] * shape[d + 1];
  return s;
}

/// The definition, in double: for every result index and every contracting
/// index, multiply and add. Also returns Σ|lhs·rhs| per element for the
/// error bound.
template <typename T>
void reference(const DotCase &c, const std::vector<T> &a, const std::vector<T> &b,
               std::vector<double> &out, std::vector<double> &magnitude) {
  Shape result = resultShape(c);
  Shape lf = freeDims(c.lhs.size(), c.lhsBatch, c.lhsContracting);
  Shape rf = freeDims(c.rhs.size(), c.rhsBatch, c.rhsContracting);
  Shape ls = strides(c.lhs), rs = strides(c.rhs);
  Shape contracting;
  for (int64_t d : c.lhsContracting)
    contracting.push_back(c.lhs[d]);
  int64_t outCount = numel(result), kCount = numel(contracting);
  out.assign(outCount, 0.0);
  magnitude.assign(outCount, 0.0);
  Shape idx(result.size()), kidx(contracting.size());
  for (int64_t o = 0; o < outCount; ++o) {
    for (int64_t d = static_cast<int64_t>(result.size()) - 1, rest = o; d >= 0; --d) {
      idx[d] = rest % result[d];
      rest /= result[d];
    }
    int64_t lbase = 0, rbase = 0, pos = 0;
    for (size_t i = 0; i < c.lhsBatch.size(); ++i, ++pos) {
      lbase += idx[pos] * ls[c.lhsBatch[i]];
      rbase += idx[pos] * rs[c.rhsBatch[i]];
    }
    for (int64_t d : lf)
      lbase += idx[pos++] * ls[d];
    for (int64_t d : rf)
      rbase += idx[pos++] * rs[d];
    for (int64_t k = 0; k < kCount; ++k) {
      for (int64_t d = static_cast<int64_t>(contracting.size()) - 1, rest = k; d >= 0; --d) {
        kidx[d] = rest % contracting[d];
        rest /= contracting[d];
      }
      int64_t li = lbase, ri = rbase;
      for (size_t i = 0; i < kidx.size(); ++i) {
        li += kidx[i] * ls[c.lhsContracting[i]];
        ri += kidx[i] * rs[c.rhsContracting[i]];
      }
      double p = static_cast<double>(a[li]) * static_cast<double>(b[ri]);
      out[o] += p;
      magnitude[o] += std::fabs(p);
    }
  }
}

/// The CPUs each floating-point case is compiled for: the host's tiles and
/// the portable ones on the CPU target. Under :gpu_sequential_mode the
/// contraction takes the GPU recipe on either, so the portable copy would
/// only repeat the host's (and double the binary's time in LLVM).
std::vector<std::string> testedCpus() {
  if (shardc_test::gpuSequentialMode())
    return {"host"};
  return {"host", "x86-64-v2"};
}

struct Program {
  std::unique_ptr<shardc::LoadedObject> object;
  shardc::LoadedObject::EntryFn entry = nullptr;
  std::string diagnostics;
};

Program compileAndLoad(const std::string &text, const std::string &cpu) {
  Program p;
  shardc::CompileOptions options;
  options.cpu = cpu;
  // Linked with :gpu_sequential_mode: the GPU target's contraction
  // recipes (staged tiles, thread runs), their tiles run on this CPU.
  options.gpuSequential = shardc_test::gpuSequentialMode();
  options.gpuTf32 = shardc_test::gpuTf32Mode();
  options.verifyEachPass = true;
  std::optional<shardc::CompileResult> result =
      shardc::compileText(text, "dot_general.mlir", options, p.diagnostics);
  if (!result)
    return p;
  std::vector<shardc::LoadedObject::Symbol> symbols;
  for (const shardrt_symbol *s = shardrt_symbols(); s->name; ++s)
    symbols.emplace_back(s->name, s->address);
  auto loaded = shardc::LoadedObject::load(result->object, symbols);
  if (!loaded) {
    p.diagnostics += llvm::toString(loaded.takeError());
    return p;
  }
  p.object = std::move(*loaded);
  auto entry = p.object->lookup(result->signature.entry);
  if (!entry) {
    p.diagnostics += llvm::toString(entry.takeError());
    return p;
  }
  p.entry = *entry;
  return p;
}

/// Runs `entry(buffers)` as rank 0 of a one-rank threads world, as
/// `shardc run` does for a one-device mesh.
bool runOneRank(shardc::LoadedObject::EntryFn entry, std::vector<void *> &buffers,
                std::string &error) {
  struct Call {
    shardc::LoadedObject::EntryFn entry;
    void **buffers;
  } call{entry, buffers.data()};
  shardrt_world *world = shardrt_threads_create(1);
  if (!world) {
    error = shardrt_last_error();
    return false;
  }
  shardrt_status st = shardrt_threads_run(
      world,
      [](shardrt_comm *, void *user) -> int32_t {
        auto *c = static_cast<Call *>(user);
        c->entry(c->buffers);
        return 0;
      },
      &call);
  shardrt_world_destroy(world);
  if (st != SHARDRT_OK)
    error = shardrt_last_error();
  return st == SHARDRT_OK;
}

template <typename T> std::string elemName();
template <> std::string elemName<float>() { return "f32"; }
template <> std::string elemName<double>() { return "f64"; }
template <> std::string elemName<int32_t>() { return "i32"; }
template <> std::string elemName<__bf16>() { return "bf16"; }
template <> std::string elemName<_Float16>() { return "f16"; }

/// Unit roundoff of the result's one rounding to a 16-bit float, else 0.
template <typename T> double roundoff() { return 0.0; }
template <> double roundoff<__bf16>() { return std::ldexp(1.0, -8); }
template <> double roundoff<_Float16>() { return std::ldexp(1.0, -11); }

/// Rounding error per accumulation step: the element type's epsilon, f32's
/// for 16-bit floats (they accumulate in f32), 0 for integers.
template <typename T> double accumulationEps() {
  return std::is_integral<T>::value ? 0.0 : std::numeric_limits<T>::epsilon();
}
template <> double accumulationEps<__bf16>() { return std::numeric_limits<float>::epsilon(); }
template <> double accumulationEps<_Float16>() { return std::numeric_limits<float>::epsilon(); }

/// Relative error of each product from rounding its operands: with TF32
/// (gpu_tf32_mode), each f32 operand is rounded to 10 mantissa bits
/// (2^-11 relative, ties away from zero), so a product is off by up to
/// about 2^-10 of itself; 0 otherwise.
template <typename T> double operandRoundoff() {
  return std::is_same<T, float>::value && shardc_test::gpuTf32Mode()
             ? std::ldexp(1.0, -10) + std::ldexp(1.0, -22)
             : 0.0;
}

template <typename T> T draw(std::mt19937 &gen) {
  // Small integers for i32; a dyadic grid in [-1, 1) otherwise, exact in the
  // element type (steps of 2^-7 for the 16-bit floats, whose products are
  // then exact in f32).
  uint32_t bits = static_cast<uint32_t>(gen()) >> 9;
  if (std::is_integral<T>::value)
    return static_cast<T>(static_cast<int32_t>(bits % 7) - 3);
  if (roundoff<T>() != 0.0)
    return static_cast<T>(static_cast<double>(bits % 256) / 128.0 - 1.0);
  return static_cast<T>(static_cast<double>(bits) / 4194304.0 - 1.0);
}

/// "" when the compiled dot_general matches the reference, else the first
/// mismatch. Error bound: K·eps·Σ|a·b| (exact for integers), plus the
/// operands' rounding to TF32 (gpu_tf32_mode) and the final rounding of a
/// 16-bit float result.
template <typename T>
std::string check(const DotCase &c, const std::string &cpu, std::vector<T> *result = nullptr) {
  Program p = compileAndLoad(modelText(c, elemName<T>()), cpu);
  if (!p.entry)
    return "compile/load failed:\n" + p.diagnostics;
  std::mt19937 gen(42);
  std::vector<T> a(numel(c.lhs)), b(numel(c.rhs));
  for (T &v : a)
    v = draw<T>(gen);
  for (T &v : b)
    v = draw<T>(gen);
  Shape resultDims = resultShape(c);
  std::vector<T> out(numel(resultDims), static_cast<T>(-12345));
  std::vector<void *> buffers = {a.data(), b.data(), out.data()};
  std::string error;
  if (!runOneRank(p.entry, buffers, error))
    return "run failed: " + error;
  if (result)
    *result = out;
  std::vector<double> expected, magnitude;
  reference(c, a, b, expected, magnitude);
  int64_t k = 1;
  for (int64_t d : c.lhsContracting)
    k *= c.lhs[d];
  double eps = accumulationEps<T>();
  for (size_t i = 0; i < out.size(); ++i) {
    double bound = (static_cast<double>(k) * eps + operandRoundoff<T>()) * magnitude[i] +
                   roundoff<T>() * std::fabs(expected[i]);
    double got = static_cast<double>(out[i]);
    if (!(std::fabs(got - expected[i]) <= bound)) {
      std::ostringstream os;
      os << "element " << i << " of " << out.size() << ": expected " << expected[i] << ", got "
         << got << " (bound " << bound << ")";
      return os.str();
    }
  }
  return "";
}

const std::vector<DotCase> &cases() {
  static const std::vector<DotCase> all = {
      {"matmul 33x65 @ 65x17", {33, 65}, {65, 17}, {}, {}, {1}, {0}},
      {"matmul 130x600 @ 600x300 (full and remainder tiles, several cache blocks)",
       {130, 600},
       {600, 300},
       {},
       {},
       {1},
       {0}},
      {"batch 3 x (33x65 @ 65x17)", {3, 33, 65}, {3, 65, 17}, {0}, {0}, {2}, {1}},
      {"batch 2 x (40x64 @ 64x96), full tiles only", {2, 40, 64}, {2, 64, 96}, {0}, {0}, {2}, {1}},
      {"transposed lhs: (65x33)^T @ 65x17", {65, 33}, {65, 17}, {}, {}, {0}, {0}},
      {"transposed rhs: 33x65 @ (17x65)^T", {33, 65}, {17, 65}, {}, {}, {1}, {1}},
      {"batch dim in the middle", {33, 3, 65}, {65, 3, 17}, {1}, {1}, {2}, {0}},
      {"two contracting dims, swapped", {5, 7, 9}, {9, 7, 4}, {}, {}, {1, 2}, {1, 0}},
      // Operands copied into the order that keeps their innermost dim
      // innermost, then read through a transposed map.
      {"contracting dim between free dims", {5, 33, 7}, {33, 9}, {}, {}, {1}, {0}},
      {"attention scores: batch dims around the sequence (bqhd,bkhd)",
       {2, 40, 3, 24},
       {2, 36, 3, 24},
       {0, 2},
       {0, 2},
       {3},
       {3}},
      {"matrix-vector 40x64 @ 64", {40, 64}, {64}, {}, {}, {1}, {0}},
      {"vector-matrix (X^T r) 64x40, 64", {64, 40}, {64}, {}, {}, {0}, {0}},
      {"vector dot product", {100}, {100}, {}, {}, {0}, {0}},
      {"outer product (no contracting dim)", {5}, {7}, {}, {}, {}, {}},
      {"batch 2 x (70x40 @ (100x40)^T), both operands K-innermost",
       {2, 70, 40},
       {2, 100, 40},
       {0},
       {0},
       {2},
       {2}},
      // B one to four micro-panels wide: A's full panels are read where A
      // lies, unpacked; its partial last row of tiles is still packed.
      {"A read in place: 1000x288 @ 288x16 (two K blocks, a partial row of tiles)",
       {1000, 288},
       {288, 16},
       {},
       {},
       {1},
       {0}},
      {"A read in place, two panels: 300x144 @ 144x32", {300, 144}, {144, 32}, {}, {}, {1}, {0}},
      {"A read in place, four panels: 300x144 @ 144x128", {300, 144}, {144, 128}, {}, {}, {1},
       {0}},
      // Rows of A 4 KiB apart would share L1 sets: A is packed.
      {"A's rows 4 KiB apart: 200x1024 @ 1024x16", {200, 1024}, {1024, 16}, {}, {}, {1}, {0}},
      {"matmul 1030x40 @ 40x1100 (128-wide blocks, edge tiles, one K chunk short)",
       {1030, 40},
       {40, 1100},
       {},
       {},
       {1},
       {0}},
  };
  return all;
}

} // namespace

TEST_CASE("dot_general matches the reference in f32", "[exec][dot_general][f32]") {
  for (const std::string &cpu : testedCpus())
    for (const DotCase &c : cases()) {
      INFO(c.name << " on cpu " << cpu);
      CHECK(check<float>(c, cpu) == "");
    }
}

TEST_CASE("dot_general matches the reference in f64", "[exec][dot_general]") {
  for (const std::string &cpu : testedCpus())
    for (const DotCase &c : cases()) {
      INFO(c.name << " on cpu " << cpu);
      CHECK(check<double>(c, cpu) == "");
    }
}

TEST_CASE("dot_general matches the reference in i32", "[exec][dot_general]") {
  for (const DotCase &c : cases()) {
    INFO(c.name);
    CHECK(check<int32_t>(c, "host") == "");
  }
}

TEST_CASE("dot_general in bf16 and f16 sums in f32 and rounds once", "[exec][dot_general]") {
  // The host's tiles and the portable ones: both pack the 16-bit operands
  // into f32 panels for the f32 kernel.
  for (const std::string &cpu : testedCpus())
    for (const DotCase &c : cases()) {
      INFO(c.name << " on cpu " << cpu);
      CHECK(check<__bf16>(c, cpu) == "");
      CHECK(check<_Float16>(c, cpu) == "");
    }
}

TEST_CASE("f32 contractions are exact unless TF32 is asked for", "[exec][dot_general][f32]") {
  // 64 x 32 @ 32 x 64, B all ones, A's even rows 1 + 2^-11 (a TF32 tie,
  // which rounds away from zero to 1 + 2^-10) and its odd rows 1 + 2^-12
  // (below the tie: 1). Every sum is exact in f32 either way, so the
  // result tells which operands were multiplied: with TF32 (the
  // tensor-core recipe, gpu_tf32_mode) the rounded ones, else the given.
  const DotCase c{"64x32 @ 32x64", {64, 32}, {32, 64}, {}, {}, {1}, {0}};
  Program p = compileAndLoad(modelText(c, "f32"), "host");
  INFO(p.diagnostics);
  REQUIRE(p.entry);
  const double tie = std::ldexp(1.0, -11), below = std::ldexp(1.0, -12);
  std::vector<float> a(64 * 32), b(32 * 64, 1.0f), out(64 * 64, -1.0f);
  for (int64_t i = 0; i < 64; ++i)
    for (int64_t k = 0; k < 32; ++k)
      a[i * 32 + k] = static_cast<float>(1.0 + (i % 2 == 0 ? tie : below));
  std::vector<void *> buffers = {a.data(), b.data(), out.data()};
  std::string error;
  REQUIRE(runOneRank(p.entry, buffers, error));
  const bool tf32 = shardc_test::gpuTf32Mode();
  for (int64_t i = 0; i < 64; ++i) {
    double want = tf32 ? 32.0 * (i % 2 == 0 ? 1.0 + 2 * tie : 1.0)
                       : 32.0 * (1.0 + (i % 2 == 0 ? tie : below));
    INFO("row " << i << (tf32 ? " (TF32)" : " (exact f32)"));
    // The two readings differ by 2^-11 of the sum or more; f32 sums of
    // these are exact, so a tolerance far below that decides.
    CHECK(std::fabs(out[i * 64] - want) <= 1e-6 * want);
    CHECK(std::fabs(out[i * 64 + 63] - want) <= 1e-6 * want);
  }
}

TEST_CASE("GEMMs shared out over kernel threads give the same bits with 1, 2 and 3 threads",
          "[exec][dot_general][threads]") {
  // Large enough to be dispatched to the rank's kernel threads: many M
  // blocks (threads take blocks), and one M block with a wide N (threads
  // take columns of tiles, in groups that pack their own B panels; 600
  // columns leave a partial panel). Each output element is summed in the
  // same order whatever the thread count, so the results must be
  // identical, bit for bit, and match the reference.
  const std::vector<DotCase> shared = {
      {"many M blocks: 300x600 @ 600x130", {300, 600}, {600, 130}, {}, {}, {1}, {0}},
      {"many M blocks, A read in place: 1000x288 @ 288x16", {1000, 288}, {288, 16}, {}, {},
       {1}, {0}},
      {"one M block: 40x2000 @ 2000x600", {40, 2000}, {2000, 600}, {}, {}, {1}, {0}},
      {"one M block, transposed lhs: (2000x40)^T @ 2000x600", {2000, 40}, {2000, 600}, {}, {},
       {0}, {0}},
      // Aᵀ read in place (columns a whole number of panels) and B packed by
      // groups of columns, one per thread (14 or 7 columns: on 4 threads
      // 4 groups, the last short);
      // 37 rows leave a partial last panel of A, packed.
      {"one M block, transposed lhs read in place: (2000x37)^T @ 2000x224", {2000, 37},
       {2000, 224}, {}, {}, {0}, {0}},
      // 37 rows: a partial row of register tiles (MR 8 or 6), computed by
      // each column of tiles in a scratch tile of its own.
      {"one M block, partial last row: 37x2000 @ 2000x600", {37, 2000}, {2000, 600}, {}, {},
       {1}, {0}},
  };
  for (const DotCase &c : shared) {
    INFO(c.name);
    std::vector<std::vector<float>> results;
    for (const char *threads : {"1", "2", "3"}) {
      setenv("SHARDRT_THREADS", threads, 1);
      std::vector<float> out;
      CHECK(check<float>(c, "host", &out) == "");
      results.push_back(out);
    }
    unsetenv("SHARDRT_THREADS");
    for (size_t t = 1; t < results.size(); ++t) {
      INFO((t + 1) << " threads against 1");
      REQUIRE(results[t].size() == results[0].size());
      size_t differing = 0;
      for (size_t i = 0; i < results[0].size(); ++i)
        differing += results[t][i] != results[0][i];
      CHECK(differing == 0);
    }
  }
}
