/* shardrt: the thin collective runtime that shardc's generated code and host
 * programs link against. Plain C ABI, no MLIR or LLVM dependency.
 *
 * Model. A *world* is a set of ranks (devices) 0..N-1 that run the same local
 * program (SPMD). Each rank owns a *communicator handle*; the handle that the
 * calling thread is running as is its *current* communicator. Generated code
 * never passes a handle: it calls the collectives below, which act on the
 * current communicator (thread-local for the threads backend, process-wide for
 * MPI). Host programs may call the explicit `_on` variants.
 *
 * Device groups. Every collective names the groups it runs over, as generated
 * code knows them from the mesh: `groups` holds `num_groups * group_size`
 * device ids, row-major, each group listed in its collective order. The caller
 * takes part in the one group that contains its rank; every member of that
 * group must make the same call (same count, dtype, op) in the same order.
 *
 * Failure. A rank that fails, or a collective whose peers do not all arrive
 * within the timeout (env SHARDRT_TIMEOUT_S, default 300 s), aborts the world:
 * every pending and later collective returns at once without touching its
 * output, and shardrt_threads_run() reports the first error. Nothing hangs.
 */
#ifndef SHARDRT_H
#define SHARDRT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this C ABI: what generated code calls and how it lays out
 * its buffers. A compiled object records the version it was built for; a
 * loader refuses an object of another version. */
#define SHARDRT_ABI_VERSION 1

/* Element types, shared with the compiler's manifest ("f32", "f64", ...). */
typedef enum shardrt_dtype {
  SHARDRT_F32 = 0,
  SHARDRT_F64 = 1,
  SHARDRT_F16 = 2,
  SHARDRT_BF16 = 3,
  SHARDRT_I64 = 4,
  SHARDRT_I32 = 5,
  SHARDRT_I8 = 6,
  SHARDRT_BOOL = 7, /* one byte per element, 0 or 1 */
  /* Unsigned integers. Compiled code computes on the same bits as signless
   * integers of the width (wrapping arithmetic is the same); the dtype tells
   * the host how to read, print, order and reduce them. */
  SHARDRT_U8 = 8,
  SHARDRT_U32 = 9,
  SHARDRT_U64 = 10,
  SHARDRT_I16 = 11,
  SHARDRT_U16 = 12,
} shardrt_dtype;

typedef enum shardrt_reduce_op {
  SHARDRT_SUM = 0,
  SHARDRT_MAX = 1,
  SHARDRT_MIN = 2,
  SHARDRT_PROD = 3,
} shardrt_reduce_op;

typedef enum shardrt_status {
  SHARDRT_OK = 0,
  SHARDRT_ERR_ARGUMENT = 1, /* a bad argument; the message names it */
  SHARDRT_ERR_ABORTED = 2,  /* a peer failed or a collective timed out */
  SHARDRT_ERR_IO = 3,       /* a file could not be read or written */
  SHARDRT_ERR_FORMAT = 4,   /* a file is not what it claims (e.g. bad .npy) */
  SHARDRT_ERR_BACKEND = 5,  /* MPI / NCCL / CUDA reported an error */
} shardrt_status;

/* Size in bytes of one element; 0 for an unknown dtype. */
size_t shardrt_dtype_size(int32_t dtype);
/* "f32", "f64", "f16", "bf16", "i64", "i32", "i8", "bool", "u8", "u32", "u64", "i16", "u16";
 * NULL if unknown. */
const char *shardrt_dtype_name(int32_t dtype);
/* Inverse of shardrt_dtype_name; -1 if unknown. */
int32_t shardrt_dtype_from_name(const char *name);

/* The last error on this thread, as a human-readable message ("" if none). */
const char *shardrt_last_error(void);

/* ---------------------------------------------------------------------------
 * Worlds and communicators
 * ------------------------------------------------------------------------- */

typedef struct shardrt_world shardrt_world;
typedef struct shardrt_comm shardrt_comm;

/* The body each rank runs. Return 0 on success, non-zero on failure (which
 * aborts the world). */
typedef int32_t (*shardrt_rank_fn)(shardrt_comm *comm, void *user);

/* Threads backend: `num_ranks` ranks in this process, one thread each. */
shardrt_world *shardrt_threads_create(int32_t num_ranks);
/* Runs `fn` on every rank in its own thread, with that rank's communicator
 * current, and waits for all. Returns SHARDRT_OK, or the first failure (a rank
 * returning non-zero, or an abort); shardrt_last_error() then says which rank
 * failed and why. A world may be run several times. */
shardrt_status shardrt_threads_run(shardrt_world *world, shardrt_rank_fn fn, void *user);
void shardrt_world_destroy(shardrt_world *world);

int32_t shardrt_comm_rank(const shardrt_comm *comm);
int32_t shardrt_comm_size(const shardrt_comm *comm);
/* The communicator the calling thread runs as, or NULL outside a rank. */
shardrt_comm *shardrt_current(void);
/* Makes `comm` current on the calling thread (backends do this for you). */
void shardrt_set_current(shardrt_comm *comm);
/* Aborts the world of `comm` with a message; pending collectives return. */
void shardrt_abort(shardrt_comm *comm, const char *message);

/* ---------------------------------------------------------------------------
 * Buffers: every memref.alloc of a CPU object calls these instead of
 * malloc/free. Blocks of 1 MiB or more are kept when freed and handed out
 * again for the same size, so a step called in a loop maps and faults in its
 * large intermediates once, not on every call. The cache holds at most
 * SHARDRT_BUFFER_CACHE bytes (default: a quarter of physical memory; 0
 * turns it off).
 * ------------------------------------------------------------------------- */

/* `bytes` bytes, 16-byte aligned, or NULL when out of memory. */
void *shardrt_buffer_alloc(int64_t bytes);
/* Frees a block of shardrt_buffer_alloc (NULL: nothing). */
void shardrt_buffer_free(void *pointer);
/* Returns every cached block to the operating system (a host calls it when
 * it stops running steps). */
void shardrt_buffer_cache_release(void);

/* ---------------------------------------------------------------------------
 * Kernel threads: each rank runs its kernels' parallel loops on a pool of
 * its own (no OpenMP), so a rank uses its share of the host's cores.
 * ------------------------------------------------------------------------- */

/* body(ctx, begin, end) computes iterations [begin, end) of a loop. */
typedef void (*shardrt_loop_body)(void *ctx, int64_t begin, int64_t end);

/* Runs iterations [0, count) of `body`, split into one contiguous chunk per
 * thread of the calling rank's pool (the caller runs the first, and the
 * chunks of workers that were asleep when they do not start before it is
 * done), and returns when all are done. Which thread runs an iteration never changes what it
 * computes: generated code only passes loops whose iterations write disjoint
 * outputs, each summed in its own fixed order, so results do not depend on
 * the number of threads. A call from inside a body runs inline. */
void shardrt_parallel_for(int64_t count, shardrt_loop_body body, void *ctx);

/* The same on the calling rank's own kernel threads only: a rank without
 * workers runs the loop on its thread, never as a shared loop. For loops
 * worth handing to a spinning worker but not to another rank, which is
 * busy with its own work as often as not (a recurrent step's small GEMMs). */
void shardrt_parallel_for_own(int64_t count, shardrt_loop_body body, void *ctx);

/* The chunks shardrt_parallel_for on the calling thread cuts a loop of at
 * least that many iterations into: the threads of the rank's pool; for a
 * rank that shares its loops (below), the chunks of a shared loop; 1
 * inside a loop body or on a rank that runs its loops alone. Generated
 * code cuts work into that many parts where each thread should prepare
 * what it then uses itself (a GEMM's columns: each group packs the panels
 * of B it computes). Only a hint: any count computes the same values. */
int64_t shardrt_loop_chunks(void);

/* Threads per rank: SHARDRT_THREADS when set (>= 1), else the cores this
 * process may run on divided by the ranks sharing them (the threads world's
 * ranks, or an MPI job's ranks on this host, OMPI_COMM_WORLD_LOCAL_SIZE),
 * at least 1. */
int32_t shardrt_threads_per_rank(void);

/* Whether the ranks of a threads world of `num_ranks` ranks in this process
 * run their parallel loops as shared loops, each waiting rank running
 * chunks of its peers' loops: they have one thread each (as
 * shardrt_threads_per_rank counts them), there are several, and
 * SHARDRT_SHARE_LOOPS is not 0. 1 or 0. A host asks it to explain
 * profiles. */
int32_t shardrt_threads_share_loops(int64_t num_ranks);

/* The cores this process may run on: its affinity mask, or the machine's
 * count when the mask cannot be read; at least 1. A host compares it with
 * its ranks to tell whether they share cores. */
int32_t shardrt_cpus_available(void);

/* ---------------------------------------------------------------------------
 * Collectives called by generated code (act on the current communicator).
 * Each returns SHARDRT_OK or an error (after which the world is aborted).
 * ------------------------------------------------------------------------- */

/* The caller's rank in the world (its linear device id on the mesh). */
int64_t shardrt_rank(void);

/* In place: buf[i] = op over the group of buf[i]; `count` elements. */
int32_t shardrt_all_reduce(void *buf, int64_t count, int32_t dtype, int32_t op,
                           const int64_t *groups, int64_t num_groups, int64_t group_size);

/* The same all_reduce, asynchronous, so that computation that does not need
 * its result runs while it is under way. start posts `buf` (which then
 * belongs to the collective: neither read nor written by the caller) and
 * returns a request, done(request) finishes it and leaves the result in
 * `buf`, bit for bit what shardrt_all_reduce gives. Members start their
 * collectives, blocking ones included, in the same order; several may be
 * pending, and are finished in any order. start returns a request >= 0, or
 * -1 on failure (the world is aborted and done(-1) returns the error);
 * done returns SHARDRT_OK or an error. Every request must be finished once.
 * Threads backend: the last member to start reduces for the whole group
 * while the others go on; MPI: start sends each slice to the member that
 * reduces it, done reduces this member's slice and exchanges the results. */
int64_t shardrt_all_reduce_start(void *buf, int64_t count, int32_t dtype, int32_t op,
                                 const int64_t *groups, int64_t num_groups, int64_t group_size);
int32_t shardrt_all_reduce_done(int64_t request);

/* Concatenates along one dimension. `in` is viewed as [outer, inner] and
 * `out` as [outer, group_size * inner]:
 *   out[o, g * inner + i] = in_of_group_member_g[o, i].
 * Gathering tensor dimension d: outer = product of the dims before d, inner =
 * local size of d times the product of the dims after d. */
int32_t shardrt_all_gather(const void *in, void *out, int64_t outer, int64_t inner,
                           int32_t dtype, const int64_t *groups, int64_t num_groups,
                           int64_t group_size);

/* Explicit-communicator variants for host programs. */
int32_t shardrt_all_reduce_on(shardrt_comm *comm, void *buf, int64_t count, int32_t dtype,
                              int32_t op, const int64_t *groups, int64_t num_groups,
                              int64_t group_size);
int32_t shardrt_all_gather_on(shardrt_comm *comm, const void *in, void *out, int64_t outer,
                              int64_t inner, int32_t dtype, const int64_t *groups,
                              int64_t num_groups, int64_t group_size);
int32_t shardrt_barrier_on(shardrt_comm *comm);

/* The reshard planner's collectives (sharding/ReshardPlan.h). Like the
 * ones above they act on the caller's group; `in` and `out` must not overlap.
 *
 * reduce_scatter: all_reduce then keep this member's block of one dimension,
 * fused. `in` is viewed as [outer, group_size * inner], `out` as [outer,
 * inner]; for the caller at position p of its group:
 *   out[o, i] = op over members m, in group order, of in_m[o, p * inner + i]
 * (the same order on every member, so results are deterministic, as for
 * all_reduce). Scattering tensor dimension d: outer = product of the dims
 * before d, inner = local (output) size of d times the dims after d. */
int32_t shardrt_reduce_scatter(const void *in, void *out, int64_t outer, int64_t inner,
                               int32_t dtype, int32_t op, const int64_t *groups,
                               int64_t num_groups, int64_t group_size);

/* The same reduce_scatter, asynchronous, as all_reduce_start/_done: `in`
 * and `out` belong to the collective from start until done, which must be
 * given the same two buffers (naming them there keeps a compiler's
 * temporaries alive until the collective is done) and leaves in `out` bit
 * for bit what shardrt_reduce_scatter gives. It shares all_reduce_start's
 * order and request rules. Threads backend: the last member to start
 * reduces every member's block; MPI: start sends each block to the member
 * that keeps it, done reduces this member's block in group order. */
int64_t shardrt_reduce_scatter_start(const void *in, void *out, int64_t outer, int64_t inner,
                                     int32_t dtype, int32_t op, const int64_t *groups,
                                     int64_t num_groups, int64_t group_size);
int32_t shardrt_reduce_scatter_done(int64_t request, const void *in, void *out);

/* all_to_all: `in` is viewed as [split_outer, group_size, split_inner]; piece
 * j = in[:, j, :] (row-major, split_outer * split_inner elements) goes to the
 * member at position j. `out` is viewed as [concat_outer, group_size,
 * concat_inner] and out[:, m, :] is the piece received from member m.
 * split_outer * split_inner must equal concat_outer * concat_inner. For a
 * tensor split along dim s and concatenated along dim c: split_outer =
 * product of the dims before s, split_inner = (size of s / group_size) times
 * the dims after s; concat_* likewise for c on the piece's shape. */
int32_t shardrt_all_to_all(const void *in, void *out, int64_t split_outer, int64_t split_inner,
                           int64_t concat_outer, int64_t concat_inner, int32_t dtype,
                           const int64_t *groups, int64_t num_groups, int64_t group_size);

/* collective_permute: `pairs` holds num_pairs (source, target) rank pairs,
 * flat. The caller's `out` (count elements) receives the `in` of the pair
 * whose target it is, or zeros when it is no pair's target; a pair (r, r) is
 * a local copy. No rank may be a source twice or a target twice. Every rank
 * named in a pair must make the call; other ranks may skip it (if they call,
 * they only zero `out`). */
int32_t shardrt_collective_permute(const void *in, void *out, int64_t count, int32_t dtype,
                                   const int64_t *pairs, int64_t num_pairs);

int32_t shardrt_reduce_scatter_on(shardrt_comm *comm, const void *in, void *out, int64_t outer,
                                  int64_t inner, int32_t dtype, int32_t op,
                                  const int64_t *groups, int64_t num_groups,
                                  int64_t group_size);
int32_t shardrt_all_to_all_on(shardrt_comm *comm, const void *in, void *out,
                              int64_t split_outer, int64_t split_inner, int64_t concat_outer,
                              int64_t concat_inner, int32_t dtype, const int64_t *groups,
                              int64_t num_groups, int64_t group_size);
int32_t shardrt_collective_permute_on(shardrt_comm *comm, const void *in, void *out,
                                      int64_t count, int32_t dtype, const int64_t *pairs,
                                      int64_t num_pairs);

/* ---------------------------------------------------------------------------
 * Profiling (`shardc run --profile`). An object compiled with profiling
 * brackets each kernel and collective call, its *site* k, with
 * shardrt_profile_begin(k) / shardrt_profile_end(k), and names its sites in
 * the exported NUL-terminated string SHARDRT_PROFILE_SITES_SYMBOL, one line
 * per site in site order. The probes time the calling thread's rank: they
 * do nothing on a thread whose table is not started, so a profiled object
 * runs unchanged under a host that does not profile.
 * ------------------------------------------------------------------------- */

#define SHARDRT_PROFILE_SITES_SYMBOL "shardc_profile_sites"

void shardrt_profile_begin(int64_t site);
void shardrt_profile_end(int64_t site);

/* Starts a table of `num_sites` sites on the calling thread, all zero. */
void shardrt_profile_start(int64_t num_sites);
/* Stops the calling thread's table and adds its calls and nanoseconds per
 * site into calls[0 .. num_sites-1] and nanos[0 .. num_sites-1]. Returns
 * SHARDRT_OK, or SHARDRT_ERR_ARGUMENT when no table was started here or a
 * probe named a site outside it. */
int32_t shardrt_profile_stop(int64_t *calls, int64_t *nanos, int64_t num_sites);

/* ---------------------------------------------------------------------------
 * Arrays and .npy files
 * ------------------------------------------------------------------------- */

#define SHARDRT_MAX_RANK 8

/* A dense row-major array that owns `data` (malloc'd). */
typedef struct shardrt_array {
  int32_t dtype;
  int32_t rank;
  int64_t shape[SHARDRT_MAX_RANK];
  void *data;
} shardrt_array;

int64_t shardrt_array_numel(const shardrt_array *a);
/* Allocates zeroed storage for the given dtype and shape. */
shardrt_status shardrt_array_alloc(shardrt_array *a, int32_t dtype, int32_t rank,
                                   const int64_t *shape);
void shardrt_array_free(shardrt_array *a);

/* Reads a .npy file (format 1.0/2.0/3.0, C order, little-endian; dtypes <f4
 * <f8 <f2 <i8 <i4 <i2 |i1 <u8 <u4 <u2 |u1 |b1, and bfloat16 as ml_dtypes
 * saves it, <V2, or as np.load returns it, |V2). Writes each dtype as it
 * reads it, bf16 as <V2: `np.load(path).view(ml_dtypes.bfloat16)`. */
shardrt_status shardrt_npy_read(const char *path, shardrt_array *out);
shardrt_status shardrt_npy_write(const char *path, const shardrt_array *a);

/* ---------------------------------------------------------------------------
 * Placement: how a global array is laid out over a mesh (ceil layout).
 * ------------------------------------------------------------------------- */

#define SHARDRT_MAX_MESH_AXES 8

/* Per tensor dimension d, the mesh axes (indices into mesh_shape) that split
 * it, major to minor: dim_axes[d][0 .. dim_num_axes[d]-1]. A dimension split
 * over axes with sizes k1, k2 has k1*k2 shards; the shard index of a device is
 * the row-major index of its coordinates on those axes. Shard size is
 * ceil(n / k); shard j holds rows [j*s, min(n, (j+1)*s)), trailing shards are
 * short or empty, and local buffers always have the padded size s. */
typedef struct shardrt_placement {
  int32_t mesh_rank;
  int64_t mesh_shape[SHARDRT_MAX_MESH_AXES];
  int32_t rank; /* tensor rank */
  int32_t dim_num_axes[SHARDRT_MAX_RANK];
  int32_t dim_axes[SHARDRT_MAX_RANK][SHARDRT_MAX_MESH_AXES];
} shardrt_placement;

int64_t shardrt_mesh_size(const shardrt_placement *p);
/* For `device` (linear id, row-major over mesh axes): the padded local shape,
 * the offset of the shard in the global array, and the number of valid
 * (non-padding) elements along each dimension. */
shardrt_status shardrt_local_layout(const shardrt_placement *p, const int64_t *global_shape,
                                    int64_t device, int64_t *local_shape, int64_t *offset,
                                    int64_t *valid);
/* Fills `local` (allocated here with the padded local shape) with the
 * device's shard of `global`; padding is zero. */
shardrt_status shardrt_scatter(const shardrt_array *global, const shardrt_placement *p,
                               int64_t device, shardrt_array *local);
/* Assembles the global array from every device's local buffer (locals[d] for
 * device d, each with the padded local shape). Padding is never read. For a
 * dimension replicated over some axes, the copy of the device with coordinate
 * 0 on those axes is used; if `max_replica_diff` is not NULL it receives the
 * largest absolute difference between that copy and any other replica
 * (0 when the replicas agree). */
shardrt_status shardrt_gather(const shardrt_array *locals, const shardrt_placement *p,
                              const int64_t *global_shape, int32_t dtype,
                              shardrt_array *global, double *max_replica_diff);

/* ---------------------------------------------------------------------------
 * Symbols for JIT loaders: every function generated code may call.
 * ------------------------------------------------------------------------- */
typedef struct shardrt_symbol {
  const char *name;
  void *address;
} shardrt_symbol;
/* A NULL-terminated table. */
const shardrt_symbol *shardrt_symbols(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SHARDRT_H */
