//===- Executor.cpp - scatter, run on a threads world, gather -------------===//
//
// Keeps: inputs are validated before anything runs; every rank gets its own
// padded local buffers; replicated outputs are checked for agreement across
// replicas (a disagreement means a wrong program, and is reported).
//
//===----------------------------------------------------------------------===//
#include "compiler/host/Executor.h"

#include "compiler/targets/ObjectLoader.h"

#include <cstring>
#include <sstream>

namespace shardc {

ArraySet::ArraySet(ArraySet &&o) noexcept : names(std::move(o.names)), arrays(std::move(o.arrays)) {
  o.arrays.clear();
}
ArraySet &ArraySet::operator=(ArraySet &&o) noexcept {
  std::swap(names, o.names);
  std::swap(arrays, o.arrays);
  return *this;
}
ArraySet::~ArraySet() {
  for (shardrt_array &a : arrays)
    shardrt_array_free(&a);
}
void ArraySet::add(const std::string &name, shardrt_array a) {
  names.push_back(name);
  arrays.push_back(a);
}
const shardrt_array *ArraySet::find(const std::string &name) const {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name)
      return &arrays[i];
  return nullptr;
}

static std::string shapeString(const int64_t *shape, int rank) {
  std::string s = "(";
  for (int i = 0; i < rank; ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]) + (rank == 1 ? "," : "");
  return s + ")";
}

/// How NumPy spells a dtype, quoted, for astype in an error's advice.
static std::string numpyDtype(const std::string &dtype) {
  if (dtype == "bf16")
    return "ml_dtypes.bfloat16";
  if (dtype == "bool")
    return "'bool'";
  static const char *const kKinds[][2] = {{"f", "float"}, {"i", "int"}, {"u", "uint"}};
  for (const auto &k : kKinds)
    if (dtype.rfind(k[0], 0) == 0)
      return "'" + std::string(k[1]) + dtype.substr(1) + "'";
  return "'" + dtype + "'";
}

std::string replicaDisagreement(const std::string &name, double diff) {
  std::ostringstream os;
  os << "the replicas of output '" << name << "' disagree (max difference " << diff
     << "): devices that should hold one copy of it hold different values. A shard_map's "
        "body must make each result equal over the mesh axes its out sharding leaves "
        "unnamed (comm.all_reduce, JAX's psum, does); otherwise this is a shardc bug, "
        "please report it with the model";
  return os.str();
}

std::string checkInputs(const Signature &sig, const ArraySet &inputs) {
  for (const std::string &n : inputs.names) {
    bool known = false;
    for (const TensorSignature &t : sig.inputs)
      known |= t.name == n;
    if (!known) {
      std::string names;
      for (const TensorSignature &t : sig.inputs)
        names += (names.empty() ? "" : ", ") + t.name;
      return "unknown argument '" + n + "'; the model's arguments are: " + names;
    }
  }
  for (const TensorSignature &t : sig.inputs) {
    const shardrt_array *a = inputs.find(t.name);
    if (!a)
      return "missing input for argument '" + t.name + "' (" + t.dtype + ", shape " +
             shapeString(t.shape.data(), t.shape.size()) + "); pass --in " + t.name +
             "=FILE.npy";
    const char *dtype = shardrt_dtype_name(a->dtype);
    if (!dtype || t.dtype != dtype)
      return "argument '" + t.name + "' must be " + t.dtype + " but the input is " +
             (dtype ? dtype : "of an unknown dtype") + "; convert it (e.g. numpy astype(" +
             numpyDtype(t.dtype) + "))";
    bool same = a->rank == static_cast<int32_t>(t.shape.size());
    for (int i = 0; same && i < a->rank; ++i)
      same = a->shape[i] == t.shape[i];
    if (!same)
      return "argument '" + t.name + "' must have shape " +
             shapeString(t.shape.data(), t.shape.size()) + " but the input has shape " +
             shapeString(a->shape, a->rank);
  }
  return "";
}

shardrt_placement placementOf(const TensorSignature &t, const Mesh &mesh) {
  shardrt_placement p{};
  p.mesh_rank = static_cast<int32_t>(mesh.sizes.size());
  for (size_t i = 0; i < mesh.sizes.size(); ++i)
    p.mesh_shape[i] = mesh.sizes[i];
  p.rank = static_cast<int32_t>(t.shape.size());
  for (size_t d = 0; d < t.sharding.dims.size(); ++d) {
    p.dim_num_axes[d] = static_cast<int32_t>(t.sharding.dims[d].axes.size());
    for (size_t k = 0; k < t.sharding.dims[d].axes.size(); ++k)
      p.dim_axes[d][k] = t.sharding.dims[d].axes[k];
  }
  return p;
}

LocalBuffers::~LocalBuffers() {
  for (shardrt_array &a : arrays)
    shardrt_array_free(&a);
}

bool makeLocalBuffers(const Signature &sig, const ArraySet &inputs, int64_t device,
                      LocalBuffers &buffers, std::string &error) {
  for (const TensorSignature &t : sig.inputs) {
    shardrt_placement p = placementOf(t, sig.mesh);
    shardrt_array local{};
    if (shardrt_scatter(inputs.find(t.name), &p, device, &local) != SHARDRT_OK) {
      error = "scattering '" + t.name + "': " + shardrt_last_error();
      return false;
    }
    buffers.arrays.push_back(local);
  }
  for (const TensorSignature &t : sig.outputs) {
    shardrt_array local{};
    if (shardrt_array_alloc(&local, shardrt_dtype_from_name(t.dtype.c_str()),
                            static_cast<int32_t>(t.localShape.size()), t.localShape.data()) !=
        SHARDRT_OK) {
      error = "allocating '" + t.name + "': " + shardrt_last_error();
      return false;
    }
    buffers.arrays.push_back(local);
  }
  for (shardrt_array &a : buffers.arrays)
    buffers.pointers.push_back(a.data);
  return true;
}

std::shared_ptr<void> loadEntry(const Signature &sig, const std::string &object, EntryFn &entry,
                                std::string &error, std::vector<std::string> *profileSites) {
  std::vector<LoadedObject::Symbol> symbols;
  for (const shardrt_symbol *s = shardrt_symbols(); s->name; ++s)
    symbols.emplace_back(s->name, s->address);
  auto loaded = LoadedObject::load(object, symbols);
  if (!loaded) {
    error = "loading the compiled object: " + llvm::toString(loaded.takeError());
    return nullptr;
  }
  auto fn = (*loaded)->lookup(sig.entry);
  if (!fn) {
    error = "the object has no entry '" + sig.entry + "': " + llvm::toString(fn.takeError());
    return nullptr;
  }
  entry = *fn;
  if (profileSites) {
    auto sites = (*loaded)->lookupData(SHARDRT_PROFILE_SITES_SYMBOL);
    if (!sites) {
      llvm::consumeError(sites.takeError());
      error = "the model was compiled without profiling; compile it with --profile";
      return nullptr;
    }
    *profileSites = parseProfileSites(static_cast<const char *>(*sites));
  }
  return std::shared_ptr<LoadedObject>(std::move(*loaded));
}

bool RankGroup::runEntry(EntryFn entry, size_t r, std::string &error) {
  void **pointers = buffers[r].pointers.data();
  if (!profile) {
    entry(pointers);
    return true;
  }
  struct Call {
    EntryFn entry;
    void **pointers;
  } call{entry, pointers};
  profiles[r].device = devices[r];
  return runProfiled(
      static_cast<int64_t>(profileSites.size()), profiles[r], error,
      [](void *c) { static_cast<Call *>(c)->entry(static_cast<Call *>(c)->pointers); }, &call);
}

bool RankGroup::scatter(const ArraySet &inputs, std::string &error) {
  if (std::string e = checkInputs(sig, inputs); !e.empty()) {
    error = e;
    return false;
  }
  buffers.clear();
  buffers.resize(devices.size());
  profiles.assign(devices.size(), RankProfile());
  for (size_t r = 0; r < devices.size(); ++r)
    if (!makeLocalBuffers(sig, inputs, devices[r], buffers[r], error))
      return false;
  return true;
}

namespace {

/// Every rank as a thread of one threads world per step.
class ThreadsRankGroup : public RankGroup {
public:
  explicit ThreadsRankGroup(const Signature &sig) : RankGroup(sig) {
    for (int64_t d = 0; d < sig.mesh.deviceCount(); ++d)
      devices.push_back(d);
  }

  bool step(EntryFn entry, std::string &error) override {
    int64_t count = static_cast<int64_t>(devices.size());
    shardrt_world *world = shardrt_threads_create(static_cast<int32_t>(count));
    if (!world) {
      error = "creating a world of " + std::to_string(count) + " ranks: " + shardrt_last_error();
      return false;
    }
    struct State {
      EntryFn entry;
      ThreadsRankGroup *group;
    } state{entry, this};
    shardrt_status st = shardrt_threads_run(
        world,
        [](shardrt_comm *comm, void *user) -> int32_t {
          auto *state = static_cast<State *>(user);
          // A failure leaves the runtime's message as this rank's last
          // error, which shardrt_threads_run reports.
          std::string error;
          return state->group->runEntry(state->entry, shardrt_comm_rank(comm), error) ? 0 : 1;
        },
        &state);
    shardrt_world_destroy(world);
    if (st != SHARDRT_OK) {
      error = "running on " + std::to_string(count) + " ranks failed: " + shardrt_last_error();
      return false;
    }
    return true;
  }

  bool gather(size_t o, shardrt_array &global, double &diff, std::string &error) override {
    const TensorSignature &t = sig.outputs[o];
    std::vector<shardrt_array> locals;
    for (LocalBuffers &b : buffers)
      locals.push_back(b.arrays[sig.inputs.size() + o]);
    shardrt_placement p = placementOf(t, sig.mesh);
    diff = 0;
    if (shardrt_gather(locals.data(), &p, t.shape.data(),
                       shardrt_dtype_from_name(t.dtype.c_str()), &global, &diff) != SHARDRT_OK) {
      error = "gathering '" + t.name + "': " + shardrt_last_error();
      return false;
    }
    return true;
  }

  bool allProfiles(std::vector<RankProfile> &all, std::string &) override {
    all = profiles;
    return true;
  }
};

} // namespace

std::unique_ptr<RankGroup> threadsRankGroup(const Signature &sig) {
  return std::make_unique<ThreadsRankGroup>(sig);
}

bool runThreads(const Signature &sig, const std::string &object, const ArraySet &inputs,
                RunResult &result, std::string &error) {
  EntryFn entry = nullptr;
  std::shared_ptr<void> code = loadEntry(sig, object, entry, error);
  return code && runThreadsEntry(sig, entry, inputs, result, error);
}

bool runThreadsEntry(const Signature &sig, EntryFn entry, const ArraySet &inputs,
                     RunResult &result, std::string &error) {
  ThreadsRankGroup group(sig);
  if (!group.scatter(inputs, error) || !group.step(entry, error))
    return false;
  for (size_t o = 0; o < sig.outputs.size(); ++o) {
    shardrt_array global{};
    double diff = 0;
    if (!group.gather(o, global, diff, error))
      return false;
    result.outputs.add(sig.outputs[o].name, global);
    result.replicaDiffs.push_back(diff);
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Multi-step runs
//===----------------------------------------------------------------------===//

bool planFeedback(const Signature &sig, Feedback &feedback, std::string &error) {
  feedback.outputToInput.clear();
  for (size_t o = 0; o < sig.outputs.size(); ++o)
    for (size_t i = 0; i < sig.inputs.size(); ++i) {
      const TensorSignature &out = sig.outputs[o], &in = sig.inputs[i];
      if (out.name != in.name)
        continue;
      if (out.dtype != in.dtype || out.shape != in.shape) {
        error = "output '" + out.name + "' (" + out.dtype + ", shape " +
                shapeString(out.shape.data(), out.shape.size()) +
                ") cannot feed back into argument '" + in.name + "' (" + in.dtype +
                ", shape " + shapeString(in.shape.data(), in.shape.size()) +
                ") between steps; rename the output or give it the argument's type";
        return false;
      }
      feedback.outputToInput.push_back({o, i});
    }
  return true;
}

/// Whether output `o` and argument `i` have the same local buffers on every
/// rank (same sharding, hence the same local shapes and padding).
static bool samePlacement(const Signature &sig, size_t o, size_t i) {
  const TensorSignature &out = sig.outputs[o], &in = sig.inputs[i];
  if (out.localShape != in.localShape || out.sharding.dims.size() != in.sharding.dims.size())
    return false;
  for (size_t d = 0; d < out.sharding.dims.size(); ++d)
    if (out.sharding.dims[d].axes != in.sharding.dims[d].axes)
      return false;
  return true;
}

bool runSteps(const Signature &sig, const std::string &object, const ArraySet &inputs,
              int64_t steps, ReplicaCheck check,
              const std::function<bool(int64_t, const RunResult &)> &afterStep,
              RunResult &result, std::string &error, RankGroup &group) {
  Feedback feedback;
  if (!planFeedback(sig, feedback, error))
    return false;
  std::vector<bool> isState(sig.outputs.size(), false);
  for (auto [o, i] : feedback.outputToInput)
    isState[o] = true;
  EntryFn entry = nullptr;
  std::shared_ptr<void> code =
      loadEntry(sig, object, entry, error, group.profile ? &group.profileSites : nullptr);
  if (!code || !group.scatter(inputs, error))
    return false;
  size_t nin = sig.inputs.size();
  for (int64_t step = 0; step < steps; ++step) {
    auto fail = [&](const std::string &what) {
      error = "step " + std::to_string(step + 1) + ": " + what;
      return false;
    };
    if (!group.step(entry, error))
      return fail(error);
    bool last = step + 1 == steps;
    result = RunResult();
    for (size_t o = 0; o < sig.outputs.size(); ++o) {
      shardrt_array global{};
      double diff = 0;
      if ((!isState[o] || last || check == ReplicaCheck::Every) &&
          !group.gather(o, global, diff, error))
        return fail(error);
      result.outputs.add(sig.outputs[o].name, global);
      result.replicaDiffs.push_back(diff);
    }
    if (!afterStep(step, result))
      return false;
    if (last)
      break;
    for (auto [o, i] : feedback.outputToInput) {
      if (samePlacement(sig, o, i)) {
        // Donate: the output's buffer is the argument's next step, and the
        // old argument's buffer takes the next output.
        for (LocalBuffers &b : group.buffers) {
          std::swap(b.arrays[i], b.arrays[nin + o]);
          b.pointers[i] = b.arrays[i].data;
          b.pointers[nin + o] = b.arrays[nin + o].data;
        }
        continue;
      }
      // A different placement: the global value, scattered as the argument.
      shardrt_array global = result.outputs.arrays[o];
      bool owned = !global.data;
      double diff = 0;
      if (owned && !group.gather(o, global, diff, error))
        return fail("feeding '" + sig.outputs[o].name + "' back: " + error);
      shardrt_placement p = placementOf(sig.inputs[i], sig.mesh);
      for (size_t r = 0; r < group.devices.size(); ++r) {
        shardrt_array local{};
        if (shardrt_scatter(&global, &p, group.devices[r], &local) != SHARDRT_OK) {
          if (owned)
            shardrt_array_free(&global);
          return fail("feeding '" + sig.outputs[o].name + "' back: " + shardrt_last_error());
        }
        LocalBuffers &b = group.buffers[r];
        shardrt_array_free(&b.arrays[i]);
        b.arrays[i] = local;
        b.pointers[i] = local.data;
      }
      if (owned)
        shardrt_array_free(&global);
    }
  }
  return true;
}

} // namespace shardc
