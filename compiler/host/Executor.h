//===- Executor.h - run a compiled model on N ranks -------------*- C++ -*-===//
//
// The host side of `shardc run`: checks global inputs against the signature,
// scatters each over the mesh by its placement, runs the object's entry on
// every rank of a threads world, and gathers the global outputs. No MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_HOST_EXECUTOR_H
#define SHARDC_COMPILER_HOST_EXECUTOR_H

#include "compiler/host/Profile.h"
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

/// The error for output `name` whose replicas differ by up to `diff`.
std::string replicaDisagreement(const std::string &name, double diff);

/// Checks `inputs` against `sig` (names, dtypes, shapes); "" when they fit,
/// else a message naming the argument and what would fix it.
std::string checkInputs(const Signature &sig, const ArraySet &inputs);

/// A compiled model's entry, as loadEntry() finds it: the local buffers'
/// pointers in entry-ABI order.
using EntryFn = void (*)(void **);

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

/// The ranks of a run that this process holds, with their local buffers,
/// which stay between steps: the threads backend holds every rank, an MPI
/// process its own. scatter() fills them from global inputs, step() runs
/// the entry on each, gather() assembles one output's global value from
/// every rank (a collective under MPI: every process gathers the same
/// outputs in the same order).
class RankGroup {
public:
  explicit RankGroup(const Signature &sig) : sig(sig) {}
  virtual ~RankGroup() = default;
  bool scatter(const ArraySet &inputs, std::string &error);
  virtual bool step(EntryFn entry, std::string &error) = 0;
  /// `global` gets the output (owned by the caller); `diff` the largest
  /// difference between its replicas.
  virtual bool gather(size_t output, shardrt_array &global, double &diff,
                      std::string &error) = 0;
  /// Every rank's profile, in device order (a collective under MPI).
  virtual bool allProfiles(std::vector<RankProfile> &all, std::string &error) = 0;

  const Signature &sig;
  std::vector<int64_t> devices;      // the ranks held here
  std::vector<LocalBuffers> buffers; // one per entry of `devices`

  /// Set by the caller to profile (the object must be compiled with
  /// profiling): runSteps reads the object's site names into
  /// `profileSites`, and step() adds each held rank's times to `profiles`.
  bool profile = false;
  std::vector<std::string> profileSites;
  std::vector<RankProfile> profiles; // one per entry of `devices`

protected:
  /// Runs the entry on held rank `r`, profiled when asked.
  bool runEntry(EntryFn entry, size_t r, std::string &error);
};

/// Every rank of `sig.mesh` as a thread of this process.
std::unique_ptr<RankGroup> threadsRankGroup(const Signature &sig);

/// Runs the object (its bytes) on every device of `sig.mesh` in one process.
/// Returns false and sets `error` on failure.
bool runThreads(const Signature &sig, const std::string &object, const ArraySet &inputs,
                RunResult &result, std::string &error);

/// The same with the entry already loaded.
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

/// When a multi-step run gathers the outputs that feed back (the state) to
/// check that their replicas agree: after the last step only, or after
/// every step. Other outputs are gathered, and checked, every step.
enum class ReplicaCheck { Last, Every };

/// Runs `steps` steps on `group` (scattered from `inputs` once). The state
/// stays on the ranks: an output that feeds back into an argument with the
/// same placement becomes that argument's local buffer for the next step
/// (the buffers swap, nothing is copied); one whose placement differs is
/// gathered and scattered again. After each step, `afterStep(step,
/// result)` sees the outputs gathered that step (others are empty arrays
/// with a replica difference of 0) and may stop the run by returning false
/// (with `error` set by the caller's message). After the last step
/// `result` holds every output.
bool runSteps(const Signature &sig, const std::string &object, const ArraySet &inputs,
              int64_t steps, ReplicaCheck check,
              const std::function<bool(int64_t, const RunResult &)> &afterStep,
              RunResult &result, std::string &error, RankGroup &group);

bool makeLocalBuffers(const Signature &sig, const ArraySet &inputs, int64_t device,
                      LocalBuffers &buffers, std::string &error);

/// Links the object against shardrt's symbols and finds `sig.entry`; the
/// returned handle keeps the code alive (null, with `error`, on failure).
/// With `profileSites`, also reads the names of the object's profiling
/// sites (failing when it was compiled without profiling).
std::shared_ptr<void> loadEntry(const Signature &sig, const std::string &object, EntryFn &entry,
                                std::string &error,
                                std::vector<std::string> *profileSites = nullptr);

/// Placement of `t` for the runtime.
shardrt_placement placementOf(const TensorSignature &t, const Mesh &mesh);

} // namespace shardc

#endif
