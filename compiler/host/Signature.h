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

#include "sharding/Sharding.h"

#include "llvm/ADT/StringRef.h"

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

/// One collective of the partitioned program, in program order (the
/// manifest's `collectives` array is the schedule every rank runs).
struct CollectiveRecord {
  std::string kind;     // all_reduce, all_gather, all_slice, reduce_scatter,
                        // all_to_all, collective_permute
  std::string reduction; // sum, prod, max, min for all_reduce and reduce_scatter; else ""
  std::string location; // file:line:col
  /// Where the op sits when not in the entry: "@h (called at f.mlir:9:8)",
  /// then " in @g (called at ...)" per enclosing call; "" in the entry.
  std::string within;
  std::vector<std::string> axes;
  int64_t groupSize = 1;
  int64_t bytesPerDevice = 0;
  std::string valueType; // tensor<2xf32> (global)
  std::string reason;
  /// The local (per-device) operand and result types the comm op will have,
  /// and their sizes in bytes: bytesPerDevice follows from these by the
  /// ring model of sharding/ReshardPlan.h.
  std::string localInType, localOutType;
  int64_t localInBytes = 0, localOutBytes = 0;
};

/// One collective the local program issues for several of the planner's
/// all-reduces (comm-combine-all-reduces): independent reductions over the
/// same device groups, kind and element type, packed into one buffer.
struct CombinedCollective {
  struct Part {
    std::string location; // the member's op, file:line:col
    std::string reason;   // the planner's reason for it
    std::string localType;
    int64_t bytes = 0;    // its local buffer
  };
  std::string kind = "all_reduce";
  std::string reduction;
  std::string localType; // the packed buffer, e.g. tensor<1560xf32>
  int64_t groupSize = 1;
  int64_t bytes = 0; // the packed buffer's bytes per device
  std::string within; // the function it is in ("" for the entry)
  std::vector<Part> parts;
};

/// An all-reduce or reduce-scatter of the local program and the work the
/// CPU target runs while it is under way: the ops between its start (just
/// after its operand is computed) and its finish (just before its result
/// is first read), and their estimated arithmetic
/// (compiler/report/ReadOverlap.h).
struct OverlapRecord {
  std::string collective; // all_reduce or reduce_scatter
  std::string reduction;
  std::string localType; // e.g. tensor<1560xf32>
  int64_t bytes = 0;     // per device
  std::string location;  // the collective, file:line:col
  std::string within;    // the function it is in ("" for the entry)
  int64_t ops = 0;       // ops with work in the window
  int64_t work = 0;      // their arithmetic: 2·M·N·K per contraction, else elements
};

/// One value of the memory estimate: a function argument or an op result of
/// the partitioned entry, with its per-device footprint.
struct MemoryValue {
  std::string name;     // argument/result name, or the defining op ("garray.add")
  std::string location; // file:line:col
  std::string dtype;
  std::vector<int64_t> shape;      // global
  std::vector<int64_t> localShape; // per device (ceil layout)
  std::string spec;                // P("data", None)
  int64_t localBytes = 0;
  /// Mesh axes (size > 1) that split no dimension of the value: it is
  /// replicated over them. All of them for a fully replicated value.
  std::vector<std::string> unusedAxes;
  /// A dimension that could take the first unused axis (-1: none fits).
  int suggestedDim = -1;
  /// Why it is whole over those axes ("its annotation places it so", "its
  /// sharding group N gives it ...", "partitioning made it so for an op
  /// that needs it: REASON", or the layout propagation gave it).
  std::string why;
  /// Made whole by a collective partitioning inserted (sharding this value
  /// is then not the fix: the op that needs it whole is).
  bool gathered = false;
  /// The sharding group it belongs to (-1: none): its layout is the
  /// group's, so the fix is on the group's annotated members.
  int64_t group = -1;
};

/// Peak live bytes per device of the partitioned entry (see
/// docs/decisions.md, "Memory estimate"), with the largest values.
struct MemoryEstimate {
  bool known = false; // false for a manifest without a memory section
  int64_t peakBytesPerDevice = 0;
  std::vector<MemoryValue> largest; // by localBytes, largest first
};

/// A GPU kernel of a ptx artifact, as the manifest lists it: its launch
/// shape, and its resources as ptxas reported them.
struct KernelRecord {
  std::string module;   // the gpu.module holding it
  std::string name;     // the kernel's symbol in the module
  std::string location; // the op it computes ("model.mlir:12:5")
  int64_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  int64_t registers = 0, sharedBytes = 0, stackBytes = 0, spillStoreBytes = 0,
          spillLoadBytes = 0;
};

struct Signature {
  /// "cpu-x86_64", or "ptx-sm_90" / "ptx-sm_90a" for a GPU artifact, whose
  /// buffers are device memory of the calling rank's GPU (shardrt_cuda.h).
  std::string target = "cpu-x86_64";
  /// A GPU artifact's kernels, in launch order of first use.
  std::vector<KernelRecord> kernels;
  Mesh mesh;
  std::string entry; // the C symbol: void entry(void **buffers)
  std::vector<TensorSignature> inputs, outputs;
  std::vector<CollectiveRecord> collectives;
  /// How the local program issues them where it combines several into one.
  std::vector<CombinedCollective> combined;
  /// The local program's asynchronous reductions and what each overlaps
  /// (report only; not in the manifest).
  std::vector<OverlapRecord> overlaps;
  MemoryEstimate memory;
};

/// The object a manifest names: its file name in the artifact folder and
/// the SHA-256 of its bytes when it was compiled.
struct ManifestObject {
  std::string file;
  std::string sha256; // lower-case hex
};

/// The record a compiled object carries of itself, as one line: the runtime
/// ABI version, the mesh, and every argument's and result's name, dtype and
/// local shape ("shardc-artifact-record:v1;abi=1;mesh=data=4;in=X:f32:2x2;
/// ..."). The compiler embeds it in the object; a loader compares it with
/// the one its manifest implies, so an object and a manifest from different
/// compiles, or edited apart, are refused.
std::string artifactRecord(const Signature &sig);

/// The signature as the standalone executable's main reads it (it has no
/// JSON reader): the object embeds it as `shardc_signature`, one item per
/// line, fields separated by spaces (names are [A-Za-z0-9_.-]):
///
///   shardc-signature 1
///   entry main_shardc
///   target ptx-sm_90
///   mesh data 2 model 2
///   in X f32 8x16 0|-          global shape ("()" for rank 0), then per
///   out loss f32 () ()         dim the mesh axes splitting it ("-": none)
///
/// runtime/exe/SignatureText.h parses it.
std::string signatureText(const Signature &sig);
/// The record embedded in `object`, or "" when it has none.
std::string embeddedArtifactRecord(llvm::StringRef object);

/// The SHA-256 of `bytes`, as lower-case hex.
std::string sha256Hex(llvm::StringRef bytes);

/// manifest.json text for `sig`, naming the object file `objectFile` and
/// recording the SHA-256 of its bytes `object`.
std::string writeManifest(const Signature &sig, const std::string &objectFile,
                          llvm::StringRef object);
/// Parses manifest.json and checks it before anything is loaded: its schema,
/// and the same bounds a model is compiled under (sharding/Limits.h): mesh
/// sizes and device count, ranks, dims and byte sizes, dtypes, names that
/// are file names, shardings valid on the mesh, and local shapes that are
/// the ceil layout of the global ones. These checks catch corruption and
/// inconsistent edits; an artifact is native code, so they do not make a
/// malicious one safe. On failure returns false and sets `error`.
bool readManifest(const std::string &text, Signature &sig, ManifestObject &object,
                  std::string &error);
/// "" when `name` can name an argument or result, else why not. A name is
/// also a file name (`run --out DIR` writes DIR/<name>.npy), so it is 1 to
/// 200 of the characters A-Z a-z 0-9 _ - . and does not start with '.':
/// nothing that leaves DIR, hides, or is empty.
std::string valueNameProblem(const std::string &name);

/// The collectives report, one line per collective, as a table.
std::string formatReport(const Signature &sig);

/// The report as JSON: the mesh, every collective (kind, reduction, axes,
/// group size, bytes per device, global and local types, location, reason,
/// in schedule order), the total bytes per device and the memory estimate.
std::string reportJson(const Signature &sig);

/// The collectives partitioning inserted, each with the conflict that caused
/// it (the reshard's `reason`), for `shardc explain`.
std::string formatCollectiveReasons(const Signature &signature);

/// The memory section of the report.
std::string formatMemory(const Signature &sig);
/// "" when the peak fits `budgetBytes`; otherwise the error text, naming the
/// largest values, their shardings and how to shard the replicated ones.
std::string memoryBudgetError(const Signature &sig, int64_t budgetBytes);
/// "1048576", "512K", "64M", "2G" (binary units, K/M/G or KiB/MiB/GiB, any
/// case) → bytes; false when malformed or not positive.
bool parseByteSize(const std::string &text, int64_t &bytes);

} // namespace shardc

#endif
