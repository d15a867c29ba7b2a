//===- CompileApiTest.cpp - compileModule called as a library -------------===//
//
// A host program that embeds the compiler calls registerCompilerDialects,
// parses a model and calls compileModule — nothing else is documented in
// Pipeline.h. This binary does exactly that, without the ExecHarness and
// without mlir::registerPassManagerCLOptions() (in MLIR 22,
// applyPassManagerCLOptions fails unless those options are registered, so
// compileModule must register them itself).
//
// It checks that a valid model compiles for such a caller (an object for the
// 2-device mesh), and that a failure would come with a diagnostic, as
// Pipeline.h promises ("Returns nullopt on error (already reported as
// diagnostics)").
//
//===----------------------------------------------------------------------===//
#include "compiler/pipeline/Pipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <catch2/catch.hpp>

#include <string>

namespace {
const char *kModel = R"(garray.mesh @mesh ["data" = 2]
func.func @main(
    %y: tensor<8xf32> {garray.name = "y", garray.sharding = #garray.sharding<@mesh, P("data")>})
    -> (tensor<f32> {garray.name = "s"}) {
  %s = garray.reduce <sum> %y, dims = [0] : (tensor<8xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
)";

/// What a library caller does: registers the dialects, parses kModel and
/// calls compileModule with `options`. `parsed` says whether kModel parsed;
/// every diagnostic lands in `diagnostics`.
std::optional<shardc::CompileResult> compileAsLibrary(const shardc::CompileOptions &options,
                                                      bool &parsed, std::string &diagnostics) {
  mlir::DialectRegistry registry;
  shardc::registerCompilerDialects(registry);
  mlir::MLIRContext ctx(registry, mlir::MLIRContext::Threading::DISABLED);
  ctx.loadAllAvailableDialects();
  mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &d) {
    diagnostics += d.str() + "\n";
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(kModel, mlir::ParserConfig(&ctx));
  parsed = static_cast<bool>(module);
  if (!module)
    return std::nullopt;
  return shardc::compileModule(*module, options);
}

/// ELF relocatable (ET_REL) for x86-64.
bool isRelocatableObject(const std::string &bytes) {
  return bytes.size() > 20 && bytes.compare(0, 4, "\x7f" "ELF") == 0 && bytes[16] == 1 &&
         bytes[17] == 0 && bytes[18] == 62;
}
} // namespace

TEST_CASE("compileModule works for a library caller that registers only the dialects",
          "[exec][api]") {
  shardc::CompileOptions options;
  options.meshSizes = "data=2";
  bool parsed = false;
  std::string diagnostics;
  std::optional<shardc::CompileResult> result = compileAsLibrary(options, parsed, diagnostics);
  INFO("diagnostics: " << diagnostics);
  REQUIRE(parsed);
  // At the very least a failure must say why.
  CHECK((result.has_value() || !diagnostics.empty()));
  // And the model is fine, so it should compile.
  REQUIRE(result.has_value());
  CHECK(!result->object.empty());
  CHECK(result->signature.mesh.deviceCount() == 2);
}

TEST_CASE("a partitioned compile gives one object, the same on any number of threads",
          "[exec][api]") {
  std::string diagnostics;
  auto compileWith = [&](unsigned partitions, unsigned threads) {
    shardc::CompileOptions options;
    options.meshSizes = "data=2";
    options.codegenPartitions = partitions;
    options.compileThreads = threads;
    bool parsed = false;
    return compileAsLibrary(options, parsed, diagnostics);
  };
  auto whole = compileWith(1, 1);
  auto oneThread = compileWith(3, 1);
  auto threeThreads = compileWith(3, 3);
  INFO("diagnostics: " << diagnostics);
  REQUIRE(whole);
  REQUIRE(oneThread);
  REQUIRE(threeThreads);
  CHECK(isRelocatableObject(whole->object));
  CHECK(isRelocatableObject(oneThread->object));
  // The partitions are compiled apart and merged by LLD: another object.
  CHECK(oneThread->object != whole->object);
  // Threads only decide how many partitions compile at once.
  CHECK(oneThread->object == threeThreads->object);
}
