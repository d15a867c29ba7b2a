//===- ModelFuzzer.cpp - libFuzzer target: a model through the compiler ----===//
//
// Any text as a model: compileText parses it (parseModel: nesting bound,
// model dialects only, input contract, verifier) and runs every phase down
// to an object. It must compile or report diagnostics, never crash, abort or
// hang. Coverage feedback comes from shardc's own code only: libMLIR and
// libLLVM are Debian's, not instrumented.
//
//===----------------------------------------------------------------------===//
#include "compiler/pipeline/Pipeline.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // Inputs past 64 KiB only repeat what smaller ones cover, slower.
  if (size > 64 * 1024)
    return 0;
  std::string text(reinterpret_cast<const char *>(data), size);
  shardc::CompileOptions options;
  options.verifyEachPass = true;
  std::string diagnostics;
  (void)shardc::compileText(text, "fuzz.mlir", options, diagnostics);
  return 0;
}
