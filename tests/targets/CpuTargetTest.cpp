//===- CpuTargetTest.cpp - CPU back end: lower, emit, load, run -----------===//
//
// End-to-end tests of compiler/targets: each case parses a small tensor-level
// module, lowers it with lowerToLLVMDialect, emits an x86-64 object, loads it
// with LoadedObject and runs `<entry>_shardc(void**)` against a C++ reference,
// once and from four threads at once. The buffer allocator the lowering
// calls (shardrt_buffer_alloc/free) is routed through counting wrappers in the
// symbol table, so leaks and unfused intermediates show up as numbers. One TU on purpose: MLIR headers are expensive to compile.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/CpuTarget.h"
#include "compiler/registration/RegisterUpstream.h"
#include "compiler/targets/ObjectLoader.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <set>
#include <thread>
#include <vector>

namespace {

//===----------------------------------------------------------------------===//
// Functions the generated code imports through the symbol table
//===----------------------------------------------------------------------===//

std::atomic<long> gMallocs{0};
std::atomic<long> gFrees{0};

void *countingMalloc(int64_t size) {
  gMallocs.fetch_add(1);
  return std::malloc(static_cast<size_t>(size));
}
void countingFree(void *ptr) {
  if (ptr) gFrees.fetch_add(1);
  std::free(ptr);
}

/// The comm-lowering pattern's stand-in: works in place on the buffer it is
/// given, buf[i] = buf[i] * 10 + i, and returns the count it saw.
int32_t testCallback(float *buf, int64_t count) {
  for (int64_t i = 0; i < count; ++i) buf[i] = buf[i] * 10.0f + static_cast<float>(i);
  return static_cast<int32_t>(count);
}

/// A one-rank shardrt_all_reduce: checks every argument the generated code
/// passes (including the device-group table from memref.global), adds 1000 so
/// the test can see it ran, returns 0 on success and 7 on a bad argument.
int32_t fakeAllReduce(void *buf, int64_t count, int32_t dtype, int32_t op, const int64_t *groups,
                      int64_t numGroups, int64_t groupSize) {
  bool ok = count == 4 && dtype == 0 && op == 0 && numGroups == 1 && groupSize == 4 &&
            groups[0] == 0 && groups[1] == 1 && groups[2] == 2 && groups[3] == 3;
  if (!ok) return 7;
  auto *f = static_cast<float *>(buf);
  for (int64_t i = 0; i < count; ++i) f[i] += 1000.0f;
  return 0;
}

/// The GEMM recipe cuts a one-block GEMM's columns into one group per chunk
/// of the rank's loops; two groups, run in turn (these objects' loops are
/// too small to dispatch), must compute what one would.
int64_t twoLoopChunks() { return 2; }

std::vector<shardc::LoadedObject::Symbol> symbolTable() {
  return {{"shardrt_buffer_alloc", reinterpret_cast<void *>(&countingMalloc)},
          {"shardrt_loop_chunks", reinterpret_cast<void *>(&twoLoopChunks)},
          {"shardrt_buffer_free", reinterpret_cast<void *>(&countingFree)},
          {"test_callback", reinterpret_cast<void *>(&testCallback)},
          {"shardrt_all_reduce", reinterpret_cast<void *>(&fakeAllReduce)}};
}

//===----------------------------------------------------------------------===//
// Compiling and loading
//===----------------------------------------------------------------------===//

struct Program {
  std::string lowered; // the module in the LLVM dialect, printed
  std::string object;
  std::unique_ptr<shardc::LoadedObject> loaded;
  shardc::LoadedObject::EntryFn entry = nullptr;
};

/// Context with shardc's dialects; diagnostics go to `diagnostics`.
struct TestContext {
  mlir::MLIRContext context;
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler;

  TestContext()
      : context(makeRegistry()), handler(&context, [this](mlir::Diagnostic &d) {
          llvm::raw_string_ostream os(diagnostics);
          os << d << "\n";
          for (mlir::Diagnostic &note : d.getNotes()) os << "  note: " << note << "\n";
          return mlir::success();
        }) {
    // Keep failure messages short: no dump of the whole module per error.
    context.printOpOnDiagnostic(false);
  }

  static mlir::DialectRegistry makeRegistry() {
    mlir::DialectRegistry registry;
    shardc::registerUpstreamDialects(registry);
    return registry;
  }
};

Program build(const char *source, const char *entry) {
  TestContext t;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &t.context);
  INFO(t.diagnostics);
  REQUIRE(module);
  bool lowered = mlir::succeeded(shardc::lowerToLLVMDialect(*module, entry));
  INFO(t.diagnostics);
  REQUIRE(lowered);
  Program p;
  llvm::raw_string_ostream os(p.lowered);
  module->print(os);
  mlir::FailureOr<std::string> object = shardc::emitObject(*module, shardc::CpuTargetOptions());
  INFO(t.diagnostics);
  REQUIRE(mlir::succeeded(object));
  p.object = std::move(*object);
  auto loaded = shardc::LoadedObject::load(p.object, symbolTable());
  if (!loaded) FAIL("load: " << llvm::toString(loaded.takeError()));
  p.loaded = std::move(*loaded);
  auto fn = p.loaded->lookup(std::string(entry) + "_shardc");
  if (!fn) FAIL("lookup: " << llvm::toString(fn.takeError()));
  p.entry = *fn;
  return p;
}

size_t countOccurrences(const std::string &text, const std::string &needle) {
  size_t n = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1))
    ++n;
  return n;
}

/// Undefined symbols of an ELF object.
std::set<std::string> undefinedSymbols(const std::string &object) {
  std::set<std::string> names;
  auto buffer = llvm::MemoryBuffer::getMemBuffer(object, "object", false);
  auto file = llvm::object::ObjectFile::createObjectFile(buffer->getMemBufferRef());
  if (!file) {
    FAIL("not an object: " << llvm::toString(file.takeError()));
    return names;
  }
  for (const llvm::object::SymbolRef &symbol : (*file)->symbols()) {
    auto flags = symbol.getFlags();
    auto name = symbol.getName();
    if (!flags || !name) {
      FAIL("unreadable symbol: " << llvm::toString(flags.takeError())
                                 << llvm::toString(name.takeError()));
      return names;
    }
    if ((*flags & llvm::object::SymbolRef::SF_Undefined) && !name->empty())
      names.insert(name->str());
  }
  return names;
}

/// The object may import libc/libm, runtime functions and the test's own
/// externals, nothing else (no libgcc/compiler-rt helpers, no MLIR runtime).
bool isAllowedImport(const std::string &name) {
  static const std::set<std::string> kLibcLibm = {
      "malloc", "free", "aligned_alloc", "memcpy", "memmove", "memset", "expf",   "exp",
      "logf",   "log",  "tanhf",         "tanh",   "erff",    "erf",    "sqrtf",  "sqrt",
      "powf",   "pow",  "exp2f",         "log2f",  "sinf",    "cosf",   "log1pf", "expm1f"};
  return kLibcLibm.count(name) || name.rfind("shardrt_", 0) == 0 || name.rfind("test_", 0) == 0;
}

/// Runs `body(thread)` on four threads at once and waits.
void onFourThreads(const std::function<void(int)> &body) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back(body, t);
  for (std::thread &thread : threads) thread.join();
}

bool near(float actual, float expected) {
  return std::fabs(actual - expected) <= 1e-4f + 1e-5f * std::fabs(expected);
}

std::vector<float> iota(size_t n, float scale, float offset) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = offset + scale * static_cast<float>(i % 17) - 0.03f * static_cast<float>(i);
  return v;
}

size_t countMismatches(const std::vector<float> &actual, const std::vector<float> &expected) {
  size_t bad = 0;
  for (size_t i = 0; i < actual.size(); ++i) bad += !near(actual[i], expected[i]);
  return bad;
}

//===----------------------------------------------------------------------===//
// Programs
//===----------------------------------------------------------------------===//

// d = a @ b + c, s[i] = sum_j d[i, j]; shapes deliberately not square or powers
// of two so a wrong stride or transposition shows.
const char *kMatmulSource = R"mlir(
func.func @mm(%a: tensor<5x7xf32>, %b: tensor<7x3xf32>, %c: tensor<5x3xf32>)
    -> (tensor<5x3xf32>, tensor<5xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<5x3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<5x3xf32>) -> tensor<5x3xf32>
  %m = linalg.matmul ins(%a, %b : tensor<5x7xf32>, tensor<7x3xf32>)
                     outs(%f : tensor<5x3xf32>) -> tensor<5x3xf32>
  %e2 = tensor.empty() : tensor<5x3xf32>
  %d = linalg.add ins(%m, %c : tensor<5x3xf32>, tensor<5x3xf32>)
                  outs(%e2 : tensor<5x3xf32>) -> tensor<5x3xf32>
  %e3 = tensor.empty() : tensor<5xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<5xf32>) -> tensor<5xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%d : tensor<5x3xf32>) outs(%f3 : tensor<5xf32>) {
    ^bb0(%x: f32, %acc: f32):
      %r = arith.addf %x, %acc : f32
      linalg.yield %r : f32
  } -> tensor<5xf32>
  return %d, %s : tensor<5x3xf32>, tensor<5xf32>
}
)mlir";

// z = exp(x * y) + tanh(x) + erf(x) + sqrt(|y|) + log(|y| + 1) + x^3 + y as four elementwise
// ops (generic, named linalg.exp, generic with math ops incl. fpowi, named linalg.add).
const char *kChainSource = R"mlir(
#id = affine_map<(i, j) -> (i, j)>
func.func @chain(%x: tensor<3x5xf32>, %y: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %e = tensor.empty() : tensor<3x5xf32>
  %p = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<3x5xf32>, tensor<3x5xf32>) outs(%e : tensor<3x5xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %r = arith.mulf %a, %b : f32
      linalg.yield %r : f32
  } -> tensor<3x5xf32>
  %ex = linalg.exp ins(%p : tensor<3x5xf32>) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %q = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %x, %y : tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>) outs(%e : tensor<3x5xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
      %t = math.tanh %b : f32
      %f = math.erf %b : f32
      %ab = math.absf %c : f32
      %s = math.sqrt %ab : f32
      %one = arith.constant 1.0 : f32
      %ab1 = arith.addf %ab, %one : f32
      %l = math.log %ab1 : f32
      %r0 = arith.addf %a, %t : f32
      %r1 = arith.addf %r0, %f : f32
      %r2 = arith.addf %r1, %s : f32
      %r3 = arith.addf %r2, %l : f32
      %three = arith.constant 3 : i32
      %cube = math.fpowi %b, %three : f32, i32
      %r4 = arith.addf %r3, %cube : f32
      linalg.yield %r4 : f32
  } -> tensor<3x5xf32>
  %z = linalg.add ins(%q, %y : tensor<3x5xf32>, tensor<3x5xf32>) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  return %z : tensor<3x5xf32>
}
)mlir";

// A rank-0 input and a rank-0 result: scale * sum(x * y).
const char *kScalarSource = R"mlir(
func.func @dot(%x: tensor<6xf32>, %y: tensor<6xf32>, %scale: tensor<f32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %d = linalg.dot ins(%x, %y : tensor<6xf32>, tensor<6xf32>) outs(%f : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>],
                       iterator_types = []}
      ins(%d, %scale : tensor<f32>, tensor<f32>) outs(%e : tensor<f32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %m = arith.mulf %a, %b : f32
      linalg.yield %m : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}
)mlir";

// Results that alias an input, each other, and another input.
const char *kAliasSource = R"mlir(
func.func @alias(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>)
    -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %e = tensor.empty() : tensor<2x3xf32>
  %s = linalg.add ins(%x, %y : tensor<2x3xf32>, tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %x, %s, %s, %y : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
)mlir";

// The communication-lowering pattern: compute into a memref.alloc'd buffer via
// materialize_in_destination, pass its pointer to external C functions (one
// with a device-group table from memref.global), read it back via to_tensor.
const char *kCommSource = R"mlir(
memref.global "private" constant @groups : memref<1x4xi64> = dense<[[0, 1, 2, 3]]>
func.func private @test_callback(!llvm.ptr, i64) -> i32
func.func private @shardrt_all_reduce(!llvm.ptr, i64, i32, i32, !llvm.ptr, i64, i64) -> i32
#id = affine_map<(i) -> (i)>
func.func @comm(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<2xi32>) {
  %e = tensor.empty() : tensor<4xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%a: f32, %o: f32):
      %r = arith.addf %a, %a : f32
      linalg.yield %r : f32
  } -> tensor<4xf32>
  %buf = memref.alloc() : memref<4xf32>
  bufferization.materialize_in_destination %t in restrict writable %buf
      : (tensor<4xf32>, memref<4xf32>) -> ()
  %p = memref.extract_aligned_pointer_as_index %buf : memref<4xf32> -> index
  %pi = arith.index_cast %p : index to i64
  %ptr = llvm.inttoptr %pi : i64 to !llvm.ptr
  %n = arith.constant 4 : i64
  %s1 = func.call @test_callback(%ptr, %n) : (!llvm.ptr, i64) -> i32
  %g = memref.get_global @groups : memref<1x4xi64>
  %gp = memref.extract_aligned_pointer_as_index %g : memref<1x4xi64> -> index
  %gpi = arith.index_cast %gp : index to i64
  %gptr = llvm.inttoptr %gpi : i64 to !llvm.ptr
  %f32 = arith.constant 0 : i32
  %sum = arith.constant 0 : i32
  %ng = arith.constant 1 : i64
  %gs = arith.constant 4 : i64
  %s2 = func.call @shardrt_all_reduce(%ptr, %n, %f32, %sum, %gptr, %ng, %gs)
      : (!llvm.ptr, i64, i32, i32, !llvm.ptr, i64, i64) -> i32
  %back = bufferization.to_tensor %buf restrict : memref<4xf32> to tensor<4xf32>
  %y = linalg.add ins(%back, %x : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %status = tensor.from_elements %s1, %s2 : tensor<2xi32>
  return %y, %status : tensor<4xf32>, tensor<2xi32>
}
)mlir";

// Concatenation along the minor dimension: bufferizes to copies into strided
// subviews, which must not become calls to MLIR's `memrefCopy`.
const char *kConcatSource = R"mlir(
func.func @cat(%x: tensor<2x2xf32>, %y: tensor<2x3xf32>) -> tensor<2x5xf32> {
  %e = tensor.empty() : tensor<2x5xf32>
  %a = tensor.insert_slice %x into %e[0, 0][2, 2][1, 1] : tensor<2x2xf32> into tensor<2x5xf32>
  %b = tensor.insert_slice %y into %a[0, 2][2, 3][1, 1] : tensor<2x3xf32> into tensor<2x5xf32>
  return %b : tensor<2x5xf32>
}
)mlir";

//===----------------------------------------------------------------------===//
// References
//===----------------------------------------------------------------------===//

void referenceMatmul(const std::vector<float> &a, const std::vector<float> &b,
                     const std::vector<float> &c, std::vector<float> &d, std::vector<float> &s) {
  d.assign(15, 0.0f);
  s.assign(5, 0.0f);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 3; ++j) {
      float acc = 0.0f;
      for (int k = 0; k < 7; ++k) acc += a[i * 7 + k] * b[k * 3 + j];
      d[i * 3 + j] = acc + c[i * 3 + j];
      s[i] += d[i * 3 + j];
    }
}

std::vector<float> referenceChain(const std::vector<float> &x, const std::vector<float> &y) {
  std::vector<float> z(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    z[i] = std::exp(x[i] * y[i]) + std::tanh(x[i]) + std::erf(x[i]) + std::sqrt(std::fabs(y[i])) +
           std::log(std::fabs(y[i]) + 1.0f) + x[i] * x[i] * x[i] + y[i];
  return z;
}

} // namespace

//===----------------------------------------------------------------------===//
// Tests
//===----------------------------------------------------------------------===//

TEST_CASE("matmul + add + row reduction runs and matches the reference", "[cpu]") {
  Program p = build(kMatmulSource, "mm");
  for (const std::string &name : undefinedSymbols(p.object)) {
    INFO("undefined symbol " << name);
    CHECK(isAllowedImport(name));
  }

  std::vector<float> a = iota(35, 0.25f, -1.0f), b = iota(21, -0.5f, 2.0f),
                     c = iota(15, 0.1f, 0.5f);
  std::vector<float> d, s;
  referenceMatmul(a, b, c, d, s);

  std::vector<float> outD(15, NAN), outS(5, NAN);
  void *buffers[] = {a.data(), b.data(), c.data(), outD.data(), outS.data()};
  long mallocs = gMallocs, frees = gFrees;
  p.entry(buffers);
  CHECK(countMismatches(outD, d) == 0);
  CHECK(countMismatches(outS, s) == 0);
  CHECK(gMallocs - mallocs == gFrees - frees);

  std::atomic<size_t> bad{0};
  onFourThreads([&](int) {
    for (int iter = 0; iter < 200; ++iter) {
      std::vector<float> od(15, NAN), os(5, NAN);
      void *bufs[] = {a.data(), b.data(), c.data(), od.data(), os.data()};
      p.entry(bufs);
      bad += countMismatches(od, d) + countMismatches(os, s);
    }
  });
  CHECK(bad == 0);
  CHECK(gMallocs - mallocs == gFrees - frees);
}

TEST_CASE("elementwise chain with math ops is fused into the output buffer", "[cpu]") {
  Program p = build(kChainSource, "chain");
  // Fusion + empty-tensor elimination: the four ops write the output buffer
  // directly, with no intermediate allocation at all.
  INFO(p.lowered);
  CHECK(countOccurrences(p.lowered, "llvm.call @shardrt_buffer_alloc") == 0);
  for (const std::string &name : undefinedSymbols(p.object)) {
    INFO("undefined symbol " << name);
    CHECK(isAllowedImport(name));
  }

  std::vector<float> x = iota(15, 0.07f, -0.5f), y = iota(15, -0.11f, 0.9f);
  std::vector<float> expected = referenceChain(x, y);
  long mallocs = gMallocs;
  std::atomic<size_t> bad{0};
  onFourThreads([&](int) {
    for (int iter = 0; iter < 200; ++iter) {
      std::vector<float> z(15, NAN);
      void *bufs[] = {x.data(), y.data(), z.data()};
      p.entry(bufs);
      bad += countMismatches(z, expected);
    }
  });
  CHECK(bad == 0);
  CHECK(gMallocs - mallocs == 0);
}

TEST_CASE("rank-0 input and result", "[cpu]") {
  Program p = build(kScalarSource, "dot");
  std::vector<float> x = iota(6, 0.5f, -1.0f), y = iota(6, 0.25f, 0.75f);
  float scale = -1.5f;
  float expected = 0.0f;
  for (int i = 0; i < 6; ++i) expected += x[i] * y[i];
  expected *= scale;

  std::atomic<size_t> bad{0};
  onFourThreads([&](int) {
    for (int iter = 0; iter < 200; ++iter) {
      float out = NAN;
      float s = scale;
      void *bufs[] = {x.data(), y.data(), &s, &out};
      p.entry(bufs);
      bad += !near(out, expected);
    }
  });
  CHECK(bad == 0);
}

TEST_CASE("results that alias inputs or each other are copied into their buffers", "[cpu]") {
  Program p = build(kAliasSource, "alias");
  std::vector<float> x = iota(6, 1.0f, 0.0f), y = iota(6, -2.0f, 10.0f);
  const std::vector<float> x0 = x, y0 = y;
  std::vector<float> sum(6);
  for (int i = 0; i < 6; ++i) sum[i] = x[i] + y[i];

  std::atomic<size_t> bad{0};
  onFourThreads([&](int) {
    for (int iter = 0; iter < 200; ++iter) {
      std::vector<float> o0(6, NAN), o1(6, NAN), o2(6, NAN), o3(6, NAN);
      void *bufs[] = {x.data(), y.data(), o0.data(), o1.data(), o2.data(), o3.data()};
      p.entry(bufs);
      bad += countMismatches(o0, x0) + countMismatches(o1, sum) + countMismatches(o2, sum) +
             countMismatches(o3, y0);
    }
  });
  CHECK(bad == 0);
  // Inputs are read-only for the generated code.
  CHECK(countMismatches(x, x0) == 0);
  CHECK(countMismatches(y, y0) == 0);
}

TEST_CASE("external C calls on an alloc'd buffer (the comm-lowering pattern)", "[cpu]") {
  Program p = build(kCommSource, "comm");
  // Plain C calls, one per external, with the declared signature.
  INFO(p.lowered);
  CHECK(countOccurrences(p.lowered, "llvm.call @test_callback(") == 1);
  CHECK(countOccurrences(p.lowered, "llvm.call @shardrt_all_reduce(") == 1);
  std::set<std::string> imports = undefinedSymbols(p.object);
  CHECK(imports.count("shardrt_all_reduce") == 1);
  CHECK(imports.count("test_callback") == 1);
  for (const std::string &name : imports) {
    INFO("undefined symbol " << name);
    CHECK(isAllowedImport(name));
  }

  std::vector<float> x = {1.5f, -2.0f, 0.25f, 3.0f};
  std::vector<float> expected(4);
  for (int i = 0; i < 4; ++i) expected[i] = (2.0f * x[i]) * 10.0f + i + 1000.0f + x[i];

  long mallocs = gMallocs, frees = gFrees;
  std::atomic<size_t> bad{0};
  onFourThreads([&](int) {
    // Each thread looks the entry up itself: lookup is thread-safe too.
    auto fn = p.loaded->lookup("comm_shardc");
    if (!fn) {
      llvm::consumeError(fn.takeError());
      ++bad;
      return;
    }
    for (int iter = 0; iter < 200; ++iter) {
      std::vector<float> y(4, NAN);
      int32_t status[2] = {-1, -1};
      void *bufs[] = {x.data(), y.data(), status};
      (*fn)(bufs);
      bad += countMismatches(y, expected) + (status[0] != 4) + (status[1] != 0);
    }
  });
  CHECK(bad == 0);
  // The alloc'd buffer (and any temporaries) are freed on every call.
  CHECK(gMallocs - mallocs >= 800);
  CHECK(gMallocs - mallocs == gFrees - frees);
}

TEST_CASE("concatenation through strided copies needs no MLIR runtime", "[cpu]") {
  Program p = build(kConcatSource, "cat");
  CHECK(countOccurrences(p.lowered, "memrefCopy") == 0);
  for (const std::string &name : undefinedSymbols(p.object)) {
    INFO("undefined symbol " << name);
    CHECK(isAllowedImport(name));
  }
  std::vector<float> x = {1, 2, 3, 4}, y = {5, 6, 7, 8, 9, 10};
  std::vector<float> expected = {1, 2, 5, 6, 7, 3, 4, 8, 9, 10};
  std::atomic<size_t> bad{0};
  onFourThreads([&](int) {
    for (int iter = 0; iter < 200; ++iter) {
      std::vector<float> z(10, NAN);
      void *bufs[] = {x.data(), y.data(), z.data()};
      p.entry(bufs);
      bad += countMismatches(z, expected);
    }
  });
  CHECK(bad == 0);
}

TEST_CASE("emitLLVMIR returns optimized IR that defines the entry", "[cpu]") {
  TestContext t;
  auto module = mlir::parseSourceString<mlir::ModuleOp>(kMatmulSource, &t.context);
  REQUIRE(module);
  REQUIRE(mlir::succeeded(shardc::lowerToLLVMDialect(*module, "mm")));
  shardc::CpuTargetOptions options;
  options.cpu = "skylake";
  mlir::FailureOr<std::string> ir = shardc::emitLLVMIR(*module, options);
  INFO(t.diagnostics);
  REQUIRE(mlir::succeeded(ir));
  CHECK_THAT(*ir, Catch::Contains("define void @mm_shardc(ptr"));
  CHECK_THAT(*ir, Catch::Contains("\"target-cpu\"=\"skylake\""));
  // The body is internal and inlined at O3; only the entry is exported.
  CHECK_THAT(*ir, !Catch::Contains("define void @mm_shardc_body"));
  // -O0 keeps the body as a separate internal function.
  options.optLevel = 0;
  mlir::FailureOr<std::string> o0 = shardc::emitLLVMIR(*module, options);
  REQUIRE(mlir::succeeded(o0));
  CHECK_THAT(*o0, Catch::Contains("define internal void @mm_shardc_body("));
}

TEST_CASE("the GEMM tiles follow the target CPU's vector width", "[cpu][gemm]") {
  auto pipelineFor = [](const std::string &cpu) {
    shardc::CpuTargetOptions options;
    options.cpu = cpu;
    return shardc::cpuLoweringPipeline(options);
  };
  CHECK_THAT(pipelineFor("skylake-avx512"),
             Catch::Contains("cpu-tile-and-vectorize-matmul{vector-bits=512 tile-rows=8"));
  CHECK_THAT(pipelineFor("x86-64-v3"),
             Catch::Contains("cpu-tile-and-vectorize-matmul{vector-bits=256 tile-rows=6"));
  CHECK_THAT(pipelineFor("x86-64-v2"),
             Catch::Contains("cpu-tile-and-vectorize-matmul{vector-bits=128 tile-rows=6"));
  // "host" resolves to this machine; whatever it is, the pipeline has the
  // recipe and the vector lowering.
  CHECK_THAT(pipelineFor("host"), Catch::Contains("cpu-tile-and-vectorize-matmul{"));
  CHECK_THAT(pipelineFor("host"), Catch::Contains("convert-vector-to-llvm"));
}

TEST_CASE("the default CPU is the host, with its features", "[cpu]") {
  TestContext t;
  auto module = mlir::parseSourceString<mlir::ModuleOp>(kMatmulSource, &t.context);
  REQUIRE(module);
  REQUIRE(mlir::succeeded(shardc::lowerToLLVMDialect(*module, "mm")));
  mlir::FailureOr<std::string> ir = shardc::emitLLVMIR(*module, shardc::CpuTargetOptions());
  INFO(t.diagnostics);
  REQUIRE(mlir::succeeded(ir));
  CHECK_THAT(*ir, Catch::Contains("\"target-cpu\"=\"" + llvm::sys::getHostCPUName().str() + "\""));
  CHECK_THAT(*ir, Catch::Contains("\"target-features\"=\"+"));
}

TEST_CASE("errors are diagnostics, not crashes", "[cpu][errors]") {
  SECTION("unknown entry") {
    TestContext t;
    auto module = mlir::parseSourceString<mlir::ModuleOp>(kAliasSource, &t.context);
    REQUIRE(module);
    CHECK(mlir::failed(shardc::lowerToLLVMDialect(*module, "nope")));
    CHECK_THAT(t.diagnostics, Catch::Contains("CPU entry @nope not found"));
  }
  SECTION("dynamic shape at the entry") {
    TestContext t;
    auto module = mlir::parseSourceString<mlir::ModuleOp>(R"mlir(
      func.func @dyn(%x: tensor<?xf32>) -> tensor<?xf32> { return %x : tensor<?xf32> }
    )mlir",
                                                          &t.context);
    REQUIRE(module);
    CHECK(mlir::failed(shardc::lowerToLLVMDialect(*module, "dyn")));
    CHECK_THAT(t.diagnostics, Catch::Contains("argument #0 of @dyn has type 'tensor<?xf32>'"));
    CHECK_THAT(t.diagnostics, Catch::Contains("static shapes"));
  }
  SECTION("generated name already taken") {
    TestContext t;
    auto module = mlir::parseSourceString<mlir::ModuleOp>(R"mlir(
      func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> { return %x : tensor<2xf32> }
      func.func private @f_shardc()
    )mlir",
                                                          &t.context);
    REQUIRE(module);
    CHECK(mlir::failed(shardc::lowerToLLVMDialect(*module, "f")));
    CHECK_THAT(t.diagnostics, Catch::Contains("symbol @f_shardc already exists"));
  }
  SECTION("unknown CPU and bad opt level") {
    TestContext t;
    auto module = mlir::parseSourceString<mlir::ModuleOp>(kAliasSource, &t.context);
    REQUIRE(module);
    REQUIRE(mlir::succeeded(shardc::lowerToLLVMDialect(*module, "alias")));
    shardc::CpuTargetOptions options;
    options.cpu = "pentium-9000";
    CHECK(mlir::failed(shardc::emitObject(*module, options)));
    CHECK_THAT(t.diagnostics, Catch::Contains("unknown x86-64 CPU 'pentium-9000'"));
    options = shardc::CpuTargetOptions();
    options.optLevel = 4;
    CHECK(mlir::failed(shardc::emitLLVMIR(*module, options)));
    CHECK_THAT(t.diagnostics, Catch::Contains("optLevel 4 is out of range"));
  }
  SECTION("emitting a module that is not in the LLVM dialect") {
    TestContext t;
    auto module = mlir::parseSourceString<mlir::ModuleOp>(kAliasSource, &t.context);
    REQUIRE(module);
    CHECK(mlir::failed(shardc::emitObject(*module, shardc::CpuTargetOptions())));
    CHECK_THAT(t.diagnostics, Catch::Contains("translation to LLVM IR failed"));
  }
}

TEST_CASE("loader errors name the problem", "[loader][errors]") {
  TestContext t;
  auto module = mlir::parseSourceString<mlir::ModuleOp>(kCommSource, &t.context);
  REQUIRE(module);
  REQUIRE(mlir::succeeded(shardc::lowerToLLVMDialect(*module, "comm")));
  mlir::FailureOr<std::string> object = shardc::emitObject(*module, shardc::CpuTargetOptions());
  REQUIRE(mlir::succeeded(object));

  SECTION("an import that nobody provides") {
    std::vector<shardc::LoadedObject::Symbol> symbols = {
        {"shardrt_all_reduce", reinterpret_cast<void *>(&fakeAllReduce)}};
    auto loaded = shardc::LoadedObject::load(*object, symbols);
    REQUIRE(!loaded);
    CHECK_THAT(llvm::toString(loaded.takeError()), Catch::Contains("test_callback"));
  }
  SECTION("bad symbol tables") {
    std::vector<shardc::LoadedObject::Symbol> symbols = symbolTable();
    symbols.push_back({"test_callback", reinterpret_cast<void *>(&testCallback)});
    auto duplicate = shardc::LoadedObject::load(*object, symbols);
    REQUIRE(!duplicate);
    CHECK_THAT(llvm::toString(duplicate.takeError()), Catch::Contains("'test_callback' twice"));
    auto null = shardc::LoadedObject::load(*object, {{"shardrt_all_reduce", nullptr}});
    REQUIRE(!null);
    CHECK_THAT(llvm::toString(null.takeError()), Catch::Contains("null address"));
  }
  SECTION("bytes that are not an object") {
    auto loaded = shardc::LoadedObject::load("definitely not ELF", symbolTable());
    REQUIRE(!loaded);
    CHECK_THAT(llvm::toString(loaded.takeError()), Catch::Contains("not a loadable object"));
  }
  SECTION("unknown entry name") {
    auto loaded = shardc::LoadedObject::load(*object, symbolTable());
    if (!loaded) FAIL(llvm::toString(loaded.takeError()));
    auto fn = (*loaded)->lookup("nope_shardc");
    REQUIRE(!fn);
    CHECK_THAT(llvm::toString(fn.takeError()), Catch::Contains("nope_shardc"));
  }
}
