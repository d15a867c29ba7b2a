/* shardrt's CUDA part: what a GPU artifact's host code and the programs that
 * run it call. Plain C ABI, no MLIR, LLVM or CUDA headers.
 *
 * Loading. shardrt never links libcuda: shardrt_cuda_init() opens the driver
 * with dlopen (SHARDRT_CUDA_DRIVER, a path, when set; else "libcuda.so.1"
 * from the loader's path), so the CPU path runs on machines without CUDA.
 * No driver, the toolkit's link stub, any cuInit failure and zero devices
 * all mean "no CUDA device"; shardrt_last_error() then gives the reason.
 *
 * Ranks and devices. A rank thread binds itself to a GPU with
 * shardrt_cuda_bind(): the device's primary context becomes current on the
 * thread, and the rank gets a stream and a caching allocator of its own.
 * Generated code never passes these: like the collectives, every call below
 * acts on the calling thread's binding. Several ranks may share a GPU; each
 * still has its own stream and allocator.
 *
 * Ordering. All of a rank's work (launches, copies, memsets, frees) is
 * enqueued on its stream in program order and nothing blocks the host,
 * except shardrt_cuda_download() and shardrt_cuda_synchronize(), which wait
 * for the stream by polling it against the timeout (SHARDRT_TIMEOUT_S), so
 * a hung kernel is an error, never a hang.
 *
 * Errors are sticky per rank, as CUDA's are. The first failure records a
 * message naming the call, the rank and the device ("rank 2, GPU 1 (NVIDIA
 * H200, sm_90): cuLaunchKernel: CUDA_ERROR_ILLEGAL_ADDRESS"), aborts the
 * rank's world when it runs in one, and turns every later enqueueing call of
 * that rank into a no-op; shardrt_cuda_synchronize() reports it. Functions
 * returning int32_t return a shardrt_status.
 */
#ifndef SHARDRT_CUDA_H
#define SHARDRT_CUDA_H

#include "shardrt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------
 * Host programs: the driver, devices and the rank's binding.
 * ------------------------------------------------------------------------- */

/* Loads the driver once per process and counts the devices. SHARDRT_OK when
 * at least one device is usable; otherwise SHARDRT_ERR_BACKEND with
 * shardrt_last_error() = "no CUDA device: <reason>". Later calls return the
 * first call's result. */
shardrt_status shardrt_cuda_init(void);
/* Devices found by shardrt_cuda_init() (0 before it, or when it failed). */
int32_t shardrt_cuda_device_count(void);

typedef struct shardrt_cuda_device_info {
  char name[96];        /* "NVIDIA H200" */
  int32_t major, minor; /* compute capability, 9 and 0 for sm_90 */
  int64_t total_bytes;  /* device memory */
} shardrt_cuda_device_info;
shardrt_status shardrt_cuda_device_info_get(int32_t device, shardrt_cuda_device_info *info);

/* Binds the calling thread, as rank `rank`, to `device` (see the top). The
 * rank number only names the rank in messages. */
shardrt_status shardrt_cuda_bind(int32_t device, int32_t rank);
/* Waits for the rank's stream, returns its cached blocks to the device and
 * destroys its stream. Blocks still allocated are freed too. */
shardrt_status shardrt_cuda_unbind(void);

/* Host <-> device copies of `bytes` bytes on the rank's stream. Upload
 * returns once the host buffer may be reused; download once `host` holds
 * the data (it waits for all earlier work). Generated code uploads the
 * program's constants that it copies into buffers. */
int32_t shardrt_cuda_upload(void *device_dst, const void *host_src, int64_t bytes);
int32_t shardrt_cuda_download(void *host_dst, const void *device_src, int64_t bytes);

/* Waits until the rank's stream is idle. Returns the rank's sticky error if
 * any (with its message), SHARDRT_ERR_BACKEND on a timeout. */
int32_t shardrt_cuda_synchronize(void);

/* Step graphs. A step of ~100 kernels is ~100 launches; captured once as a
 * CUDA graph it is one. capture_begin starts capturing the rank's stream:
 * what is enqueued until capture_end is recorded, not run (NCCL collectives
 * included). A call that must wait for the GPU on the host (a download, an
 * upload, a synchronize, so a staged collective too) cannot be captured: it
 * returns at once and breaks the capture, which is not an error of the
 * rank; capture_end then returns 0 and shardrt_last_error() says what broke
 * it, and the caller runs the work again without a graph. Otherwise
 * capture_end returns a graph (> 0), which graph_launch replays on the
 * rank's stream, as often as wanted, on the same buffers. While a rank holds
 * graphs its allocator keeps every block it got from the driver (the graphs
 * hold their addresses); unbind destroys them. host_waits counts the rank's
 * waits so far, so a host program can tell whether a step it ran could have
 * been captured (none during the step). */
shardrt_status shardrt_cuda_capture_begin(void);
int64_t shardrt_cuda_capture_end(void);
int32_t shardrt_cuda_graph_launch(int64_t graph);
void shardrt_cuda_graph_destroy(int64_t graph);
int64_t shardrt_cuda_host_waits(void);
/* The rank's stream, as a CUstream, for host programs that enqueue work of
 * their own on it (benchmarks calling cuBLAS); NULL when unbound. */
void *shardrt_cuda_stream(void);

/* Bytes the rank's allocator holds from the driver (in use + cached), and
 * in use by the program; for tests and the run's report. */
void shardrt_cuda_memory_stats(int64_t *held_bytes, int64_t *used_bytes);

/* ---------------------------------------------------------------------------
 * Generated code: memory, copies and launches on the rank's stream.
 * ------------------------------------------------------------------------- */

/* A device block of at least `bytes` bytes (256-byte aligned), from the
 * rank's cache when one fits. `site` names the value for an out-of-memory
 * message: generated code passes the source location of the op whose
 * result it holds; NULL for none. On failure: NULL, and the rank's sticky
 * error says how many bytes were asked for and were free. */
void *shardrt_cuda_alloc(int64_t bytes, const char *site);
/* Returns a block to the rank's cache, in stream order: work enqueued
 * before the free may still read it, and only later work reuses it. */
void shardrt_cuda_free(void *ptr);

/* The device copy of a constant of the program (`bytes` bytes at `host`,
 * which must stay valid and unchanged: a constant of the loaded object),
 * uploaded once per device and shared by the ranks on it. NULL on failure,
 * with the rank's sticky error set. */
void *shardrt_cuda_constant(const void *host, int64_t bytes);

/* Device-to-device copy of `bytes` bytes. */
int32_t shardrt_cuda_copy(void *dst, const void *src, int64_t bytes);
/* Sets `count` elements of `elem_bytes` (1, 2 or 4) bytes to the low bits
 * of `value`. */
int32_t shardrt_cuda_memset(void *ptr, int32_t value, int64_t count, int32_t elem_bytes);

/* Launches kernel `name` of the module image `image` (a cubin, a fatbin or
 * NUL-terminated PTX; `bytes` long) on the rank's stream. The module is
 * loaded once per context and image address, the kernel looked up once.
 * `params` holds one pointer per kernel argument, as cuLaunchKernel takes
 * them. A `smem` above 48 KiB raises the kernel's dynamic shared-memory
 * limit first. */
int32_t shardrt_cuda_launch(const void *image, int64_t bytes, const char *name, int64_t grid_x,
                            int64_t grid_y, int64_t grid_z, int64_t block_x, int64_t block_y,
                            int64_t block_z, int32_t smem, void **params);

/* Connects the calling rank's collectives: a collective call of every rank
 * of its host communicator, after each has bound. When every rank has a GPU
 * of its own and NCCL loads on every rank (from SHARDRT_NCCL_LIBRARY, a
 * path; else libnccl.so.2 on the loader's path; else the nvidia-nccl-cu13
 * Python wheel under $VIRTUAL_ENV, $CONDA_PREFIX, ~/.local, /usr/local or
 * /usr), rank 0 makes NCCL's unique id, the host communicator carries it to
 * the others, and each joins the NCCL world; device-group communicators are
 * split from it at their first use. Otherwise (ranks sharing a GPU, which
 * NCCL refuses; no NCCL; SHARDRT_NCCL=0; NCCL that cannot make the world
 * communicator on some rank) collectives stay staged through host memory,
 * and shardrt_cuda_collectives() says why. SHARDRT_OK then too; an error
 * only when the host communicator fails, or rank 0 cannot make an id. */
shardrt_status shardrt_cuda_connect(void);
/* How the calling rank's collectives run: "NCCL 2.28.9", or "staged through
 * host memory: 4 ranks on 1 GPU (NCCL needs one GPU per rank)". "" when the
 * thread is unbound. */
const char *shardrt_cuda_collectives(void);
/* Collectives on device buffers. Each takes the arguments of the host
 * collective of the same name (shardrt.h) and gives its result.
 *
 * Over NCCL they are enqueued on the rank's stream and return at once; the
 * stream orders them with the kernels around them, and the next download
 * or synchronize waits for them, aborting the rank's NCCL communicators
 * when NCCL reports an error, the world is aborted or SHARDRT_TIMEOUT_S
 * passes (the watchdog). NCCL gives every member the same bits; they may
 * differ from the CPU backends' in the last place.
 *
 * Staged, each waits for the rank's stream, copies its input to the host,
 * runs the host collective on the rank's current communicator (so the bits
 * are the CPU backends') and copies the result back.
 *
 * all_reduce_start and reduce_scatter_start enqueue (or, staged, run) the
 * whole collective; done returns its status. */
int32_t shardrt_cuda_all_reduce(void *buf, int64_t count, int32_t dtype, int32_t op,
                                const int64_t *groups, int64_t num_groups, int64_t group_size);
int64_t shardrt_cuda_all_reduce_start(void *buf, int64_t count, int32_t dtype, int32_t op,
                                      const int64_t *groups, int64_t num_groups,
                                      int64_t group_size);
int32_t shardrt_cuda_all_reduce_done(int64_t request);
int32_t shardrt_cuda_all_gather(const void *in, void *out, int64_t outer, int64_t inner,
                                int32_t dtype, const int64_t *groups, int64_t num_groups,
                                int64_t group_size);
int32_t shardrt_cuda_reduce_scatter(const void *in, void *out, int64_t outer, int64_t inner,
                                    int32_t dtype, int32_t op, const int64_t *groups,
                                    int64_t num_groups, int64_t group_size);
int64_t shardrt_cuda_reduce_scatter_start(const void *in, void *out, int64_t outer,
                                          int64_t inner, int32_t dtype, int32_t op,
                                          const int64_t *groups, int64_t num_groups,
                                          int64_t group_size);
int32_t shardrt_cuda_reduce_scatter_done(int64_t request, const void *in, void *out);
int32_t shardrt_cuda_all_to_all(const void *in, void *out, int64_t split_outer,
                                int64_t split_inner, int64_t concat_outer, int64_t concat_inner,
                                int32_t dtype, const int64_t *groups, int64_t num_groups,
                                int64_t group_size);
int32_t shardrt_cuda_collective_permute(const void *in, void *out, int64_t count, int32_t dtype,
                                        const int64_t *pairs, int64_t num_pairs);

/* The generated-code functions above, for a JIT loader (NULL-terminated). */
const shardrt_symbol *shardrt_cuda_symbols(void);

#ifdef __cplusplus
}
#endif

#endif /* SHARDRT_CUDA_H */
