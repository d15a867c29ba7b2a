//===- MpiExecutor.h - one rank of a compiled model per MPI process -*- C++ -*-===//
//
// `mpirun -np N shardc run MODEL --backend mpi ...`: every process holds the
// same global inputs (read from the same .npy files), keeps only its own
// device's shard (the device id is the MPI rank), runs the entry with the
// process-wide MPI communicator current (so the generated code's collectives
// go over MPI), then all-gathers every rank's local output buffers as bytes
// so each process assembles the global outputs exactly as the threads
// backend does (padding never read, replicas compared). Rank 0 prints and
// writes them. No MLIR here.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_HOST_MPIEXECUTOR_H
#define SHARDC_COMPILER_HOST_MPIEXECUTOR_H

#include "compiler/host/Executor.h"

namespace shardc {

/// Initialises MPI for this process (idempotent); false with `error` set
/// when the job does not have one process per device of `sig.mesh`.
bool startMpi(const Signature &sig, int32_t &rank, std::string &error);

/// This process's rank of an MPI job as a RankGroup (after startMpi);
/// null, with `error`, when MPI does not start or the job's size is not
/// the mesh's.
std::unique_ptr<RankGroup> mpiRankGroup(const Signature &sig, std::string &error);

/// Ends the MPI job cleanly (collective); call once at the end.
void finishMpi();

} // namespace shardc

#endif // SHARDC_COMPILER_HOST_MPIEXECUTOR_H
