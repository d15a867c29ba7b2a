//===- Signature.h - what a compiled model takes and returns ----*- C++ -*-===//
//
// The contract between the compiler and every host that runs its output:
// the mesh, each argument's and result's name, dtype, global shape and
// placement, the collective schedule, and the entry symbol. It is what
// manifest.json holds; it has no MLIR dependency so that `shardc run OUT/`
// and host programs can read it.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_HOST_SIGNATURE_H
#define SHARDC_COMPILER_HOST_SIGNATURE_H

#include "passes/core/Sharding.h"

#include <cstdint>
#include <string>
#include <vector>

namespace shardc {

struct TensorSignature {
  std::string name;
  std::string dtype; // "f32", "f64", ... as shardrt_dtype_name
  std::vector<int64_t> shape;       // global
  std::vector<int64_t> localShape;  // per device (padded, ceil layout)
  TensorSharding sharding;          // dims and (for results) no pending axes
  std::string spec;                 // P("data", None)
};

struct CollectiveRecord {
  std::string kind;     // all_reduce, all_gather, all_slice
  std::string location; // file:line:col
  std::vector<std::string> axes;
  int64_t groupSize = 1;
  int64_t bytesPerDevice = 0;
  std::string valueType; // tensor<2xf32> (global)
  std::string reason;
};

struct Signature {
  Mesh mesh;
  std::string entry; // the C symbol: void entry(void **buffers)
  std::vector<TensorSignature> inputs, outputs;
  std::vector<CollectiveRecord> collectives;
};

/// manifest.json text for `sig` (object file name included).
std::string writeManifest(const Signature &sig, const std::string &objectFile);
/// Parses manifest.json; on failure returns false and sets `error`.
bool readManifest(const std::string &text, Signature &sig, std::string &objectFile,
                  std::string &error);
/// The collectives report, one line per collective, as a table.
std::string formatReport(const Signature &sig);

} // namespace shardc

#endif
