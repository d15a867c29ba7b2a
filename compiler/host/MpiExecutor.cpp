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

bool runMpiRank(const Signature &sig, EntryFn entry, const ArraySet &inputs, RunResult &result,
                std::string &error) {
  if (std::string e = checkInputs(sig, inputs); !e.empty()) {
    error = e;
    return false;
  }
  int32_t rank;
  if (!startMpi(sig, rank, error))
    return false;
  LocalBuffers local;
  if (!makeLocalBuffers(sig, inputs, rank, local, error))
    return false;
  entry(local.pointers.data());

  // Every rank's local output buffers, as bytes, to every rank.
  int64_t devices = sig.mesh.deviceCount();
  std::vector<int64_t> world(devices);
  for (int64_t d = 0; d < devices; ++d)
    world[d] = d;
  for (size_t o = 0; o < sig.outputs.size(); ++o) {
    const TensorSignature &t = sig.outputs[o];
    const shardrt_array &mine = local.arrays[sig.inputs.size() + o];
    int64_t bytes = shardrt_array_numel(&mine) * shardrt_dtype_size(mine.dtype);
    std::vector<char> all(static_cast<size_t>(bytes * devices) + 1);
    if (shardrt_all_gather_on(comm, mine.data, all.data(), 1, bytes, SHARDRT_I8, world.data(), 1,
                              devices) != SHARDRT_OK) {
      error = "collecting output '" + t.name + "': " + shardrt_last_error();
      return false;
    }
    std::vector<shardrt_array> views(devices, mine);
    for (int64_t d = 0; d < devices; ++d)
      views[d].data = all.data() + d * bytes;
    shardrt_placement p = placementOf(t, sig.mesh);
    shardrt_array global{};
    double diff = 0;
    if (shardrt_gather(views.data(), &p, t.shape.data(), mine.dtype, &global, &diff) !=
        SHARDRT_OK) {
      error = "gathering '" + t.name + "': " + shardrt_last_error();
      return false;
    }
    result.outputs.add(t.name, global);
    result.replicaDiffs.push_back(diff);
  }
  return true;
}

} // namespace shardc
