//===- MpiExecutor.cpp - one rank of a compiled model per MPI process -----===//
#include "compiler/host/MpiExecutor.h"

#include "shardrt_mpi.h"

namespace shardc {

namespace {
shardrt_comm *comm = nullptr;
} // namespace

bool startMpi(const Signature &sig, int32_t &rank, std::string &error) {
  if (!comm && shardrt_mpi_init(nullptr, nullptr, &comm) != SHARDRT_OK) {
    error = std::string("starting MPI: ") + shardrt_last_error();
    return false;
  }
  rank = shardrt_comm_rank(comm);
  int64_t devices = sig.mesh.deviceCount(), processes = shardrt_comm_size(comm);
  if (devices != processes) {
    error = "the mesh " + sig.mesh.str() + " has " + std::to_string(devices) +
            " devices but the MPI job has " + std::to_string(processes) +
            " processes; start it with mpirun -np " + std::to_string(devices);
    return false;
  }
  return true;
}

void finishMpi() {
  if (comm)
    shardrt_mpi_finalize();
  comm = nullptr;
}

namespace {

/// This process's rank of an MPI job.
class MpiRankGroup : public RankGroup {
public:
  MpiRankGroup(const Signature &sig, int32_t rank) : RankGroup(sig) { devices.push_back(rank); }

  bool step(EntryFn entry, std::string &error) override { return runEntry(entry, 0, error); }

  /// Each rank's times as one row of int64s: device, steps, time in the
  /// program, then calls and nanoseconds per site (every rank runs the
  /// same object, so rows have one length).
  bool allProfiles(std::vector<RankProfile> &all, std::string &error) override {
    int64_t count = sig.mesh.deviceCount(), sites = static_cast<int64_t>(profileSites.size());
    const RankProfile &mine = profiles[0];
    std::vector<int64_t> row = {mine.device, mine.steps, mine.entryNanos};
    row.insert(row.end(), mine.calls.begin(), mine.calls.end());
    row.insert(row.end(), mine.nanos.begin(), mine.nanos.end());
    row.resize(3 + 2 * sites, 0);
    std::vector<int64_t> world(count), rows(row.size() * count);
    for (int64_t d = 0; d < count; ++d)
      world[d] = d;
    if (shardrt_all_gather_on(comm, row.data(), rows.data(), 1, static_cast<int64_t>(row.size()),
                              SHARDRT_I64, world.data(), 1, count) != SHARDRT_OK) {
      error = std::string("collecting the profiles: ") + shardrt_last_error();
      return false;
    }
    all.assign(count, RankProfile());
    for (int64_t d = 0; d < count; ++d) {
      const int64_t *r = rows.data() + d * row.size();
      all[d].device = r[0];
      all[d].steps = r[1];
      all[d].entryNanos = r[2];
      all[d].calls.assign(r + 3, r + 3 + sites);
      all[d].nanos.assign(r + 3 + sites, r + 3 + 2 * sites);
    }
    return true;
  }

  /// Every rank's local output buffer, as bytes, to every rank; each then
  /// assembles the global value (so every rank sees the same outputs).
  bool gather(size_t o, shardrt_array &global, double &diff, std::string &error) override {
    int64_t count = sig.mesh.deviceCount();
    std::vector<int64_t> world(count);
    for (int64_t d = 0; d < count; ++d)
      world[d] = d;
    const TensorSignature &t = sig.outputs[o];
    const shardrt_array &mine = buffers[0].arrays[sig.inputs.size() + o];
    int64_t bytes = shardrt_array_numel(&mine) * shardrt_dtype_size(mine.dtype);
    std::vector<char> all(static_cast<size_t>(bytes * count) + 1);
    if (shardrt_all_gather_on(comm, mine.data, all.data(), 1, bytes, SHARDRT_I8, world.data(), 1,
                              count) != SHARDRT_OK) {
      error = "collecting output '" + t.name + "': " + shardrt_last_error();
      return false;
    }
    std::vector<shardrt_array> views(count, mine);
    for (int64_t d = 0; d < count; ++d)
      views[d].data = all.data() + d * bytes;
    shardrt_placement p = placementOf(t, sig.mesh);
    diff = 0;
    if (shardrt_gather(views.data(), &p, t.shape.data(), mine.dtype, &global, &diff) !=
        SHARDRT_OK) {
      error = "gathering '" + t.name + "': " + shardrt_last_error();
      return false;
    }
    return true;
  }
};

} // namespace

std::unique_ptr<RankGroup> mpiRankGroup(const Signature &sig, std::string &error) {
  int32_t rank;
  if (!startMpi(sig, rank, error))
    return nullptr;
  return std::make_unique<MpiRankGroup>(sig, rank);
}

} // namespace shardc
