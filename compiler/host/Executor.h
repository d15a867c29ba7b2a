//===- Executor.h - run a compiled model on N ranks -------------*- C++ -*-===//
//
// The host side of `shardc run`: checks global inputs against the signature,
// scatters each over the mesh by its placement, runs the object's entry on
// every rank of a threads world, and gathers the global outputs. No MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_HOST_EXECUTOR_H
#define SHARDC_COMPILER_HOST_EXECUTOR_H

#include "compiler/host/Signature.h"
#include "shardrt.h"

#include <functional>
#include <memory>
#include <map>
#include <string>
#include <vector>

namespace shardc {

/// Global arrays, owned (freed by the destructor).
struct ArraySet {
  std::vector<std::string> names;
  std::vector<shardrt_array> arrays;
  ArraySet() = default;
  ArraySet(const ArraySet &) = delete;
  ArraySet &operator=(const ArraySet &) = delete;
  ArraySet(ArraySet &&o) noexcept;
  ArraySet &operator=(ArraySet &&o) noexcept;
  ~ArraySet();
  /// Takes ownership of `a`.
  void add(const std::string &name, shardrt_array a);
  const shardrt_array *find(const std::string &name) const;
};

struct RunResult {
  ArraySet outputs;
  /// Per output: largest difference between replicas (0 when they agree).
  std::vector<double> replicaDiffs;
};

/// Checks `inputs` against `sig` (names, dtypes, shapes); "" when they fit,
/// else a message naming the argument and what would fix it.
std::string checkInputs(const Signature &sig, const ArraySet &inputs);

/// A compiled model's entry, as loadEntry() finds it: the local buffers'
/// pointers in entry-ABI order.
using EntryFn = void (*)(void **);

/// Runs the object (its bytes) on every device of `sig.mesh` in one process.
/// Returns false and sets `error` on failure.
bool runThreads(const Signature &sig, const std::string &object, const ArraySet &inputs,
                RunResult &result, std::string &error);
/// The same with the entry already loaded (runSteps loads it once).
bool runThreadsEntry(const Signature &sig, EntryFn entry, const ArraySet &inputs,
                     RunResult &result, std::string &error);

/// `shardc run --steps N`: which outputs feed which inputs between steps
/// (an output whose name is an input's name, e.g. the updated weights `w`
/// or Adam's moments). Fails, naming them, when such a pair differs in dtype
/// or shape (the next step could not take it).
struct Feedback {
  std::vector<std::pair<size_t, size_t>> outputToInput; // (output index, input index)
};
bool planFeedback(const Signature &sig, Feedback &feedback, std::string &error);

/// Runs `steps` steps: the object is loaded once; after each step, every
/// fed-back output replaces its input in `inputs` (copied; `result` keeps
/// the outputs). `afterStep(step, result)` is called after each step
/// (0-based) and may stop the run by returning false (with `error` set by
/// the caller's message). `run` executes one step (runThreadsEntry, or one
/// MPI rank's runMpiRank).
using StepRunner =
    std::function<bool(const Signature &, EntryFn, const ArraySet &, RunResult &, std::string &)>;
bool runSteps(const Signature &sig, const std::string &object, ArraySet &inputs,
              int64_t steps, const std::function<bool(int64_t, const RunResult &)> &afterStep,
              RunResult &result, std::string &error, const StepRunner &run = runThreadsEntry);

/// One device's local buffers in entry-ABI order: its shard of every input
/// (padded, ceil layout), then zeroed outputs of their local shapes.
struct LocalBuffers {
  std::vector<shardrt_array> arrays;
  std::vector<void *> pointers; // arrays[i].data, what the entry takes
  LocalBuffers() = default;
  LocalBuffers(const LocalBuffers &) = delete;
  LocalBuffers &operator=(const LocalBuffers &) = delete;
  LocalBuffers(LocalBuffers &&) = default;
  ~LocalBuffers();
};
bool makeLocalBuffers(const Signature &sig, const ArraySet &inputs, int64_t device,
                      LocalBuffers &buffers, std::string &error);

/// Links the object against shardrt's symbols and finds `sig.entry`; the
/// returned handle keeps the code alive (null, with `error`, on failure).
std::shared_ptr<void> loadEntry(const Signature &sig, const std::string &object, EntryFn &entry,
                                std::string &error);

/// Placement of `t` for the runtime.
shardrt_placement placementOf(const TensorSignature &t, const Mesh &mesh);

} // namespace shardc

#endif
