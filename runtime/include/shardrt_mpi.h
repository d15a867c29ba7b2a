/* shardrt over Open MPI: one rank per process, ranks numbered as in
 * MPI_COMM_WORLD. Generated code calls the same collectives as under the
 * threads backend (shardrt_all_reduce, ...); they act on the process-wide
 * communicator that shardrt_mpi_init() makes current.
 *
 * Differences from the threads backend, all forced by MPI:
 *  - Collectives are issued as non-blocking MPI calls and polled, so the
 *    SHARDRT_TIMEOUT_S timeout applies. A collective that times out prints its
 *    message ("rank 2: collective all_reduce over group [0,1,2,3] timed out
 *    after 300 s") to stderr and calls MPI_Abort: MPI cannot cancel a pending
 *    collective, so ending the job is the only way not to hang.
 *  - Any other failure (a bad argument, an MPI error) returns its status and
 *    marks this process's communicator aborted: its later collectives return
 *    SHARDRT_ERR_ABORTED at once. Peers blocked on this process are released
 *    when it exits (mpirun ends the job), when it calls shardrt_abort() or
 *    shardrt_mpi_finalize() (both call MPI_Abort after an error), or by their
 *    own timeout.
 *  - MPI is initialised with MPI_Init (MPI_THREAD_SINGLE): call collectives
 *    from the thread that called shardrt_mpi_init().
 *  - f16/bf16 all_reduce converts to float, reduces with MPI in float and
 *    rounds once; MPI chooses the reduction order, so results can differ in the
 *    last bit from the threads backend (every rank still gets the same value
 *    from MPI's own algorithms).
 */
#ifndef SHARDRT_MPI_H
#define SHARDRT_MPI_H

#include "shardrt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Initialises MPI (unless the host already did; then the host also finalizes
 * it) and makes a communicator over MPI_COMM_WORLD for this process's rank,
 * current for the whole process. A second call returns the same communicator.
 * Reads SHARDRT_TIMEOUT_S here, and SHARDRT_MPI_CHUNK_BYTES: the most bytes
 * one MPI call moves (default and maximum 1 GiB, so counts fit in int; the
 * ranks agree on the smallest one any of them read);
 * larger buffers go in several calls. Small values exercise that path in
 * tests. */
shardrt_status shardrt_mpi_init(int *argc, char ***argv, shardrt_comm **out);

/* Collective: waits (with the timeout) until every rank has called it, then
 * releases the communicator and, if shardrt_mpi_init() initialised MPI,
 * finalizes it. If the communicator was aborted, or the other ranks do not
 * arrive in time, it prints the first error and calls MPI_Abort instead (MPI
 * cannot finalize while peers wait in a collective, and Open MPI 4.1's mpirun
 * can hang when one process finalizes while another dies). */
void shardrt_mpi_finalize(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SHARDRT_MPI_H */
