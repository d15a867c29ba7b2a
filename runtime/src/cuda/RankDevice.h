// A rank's binding to a GPU: its context, stream, allocator, sticky error
// and the device's module cache (shardrt_cuda.h describes the model).
//
// One RankDevice per bound thread, current through a thread-local pointer,
// as a rank's communicator is. Modules are cached per device, shared by the
// ranks that use it (they share the device's primary context), keyed by the
// image's address: an image is a constant of the loaded program, so its
// address names it for the program's lifetime.
#ifndef SHARDRT_SRC_CUDA_RANKDEVICE_H
#define SHARDRT_SRC_CUDA_RANKDEVICE_H

#include "runtime/src/cuda/Allocator.h"
#include "runtime/src/cuda/Driver.h"
#include "shardrt.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace shardrt::cuda {

class NcclRank;

class RankDevice {
public:
  /// Binds `rank` to GPU `ordinal` of `load`; null with the last error set
  /// when the device cannot be used.
  static RankDevice *bind(const DriverLoad &load, int ordinal, int rank);
  /// The calling thread's binding, or null.
  static RankDevice *current();
  /// Waits, frees the rank's memory, drops the binding.
  shardrt_status unbind();
  ~RankDevice(); // unbind() deletes the binding

  /// "rank 2, GPU 1 (NVIDIA H200, sm_90)".
  std::string where() const;

  bool failed() const { return !stickyError.empty(); }
  /// Records the rank's first failure (`call` failed with `result`, plus
  /// `detail`), sets the thread's last error, aborts the rank's world.
  int32_t fail(const char *call, CUresult result, const std::string &detail = "");
  /// Records the rank's first failure as "<where>: <message>" with
  /// `status`, as fail() does.
  int32_t failWith(shardrt_status status, const std::string &message);
  /// The sticky error as the thread's last error; SHARDRT_OK when none.
  int32_t report() const;

  void *alloc(int64_t bytes, const char *site);
  void free(void *ptr);
  void *constant(const void *host, int64_t bytes);
  int32_t copy(void *dst, const void *src, int64_t bytes);
  /// `height` rows of `width` bytes, rows `srcPitch` apart at `src` and
  /// `dstPitch` apart at `dst`, device to device.
  int32_t copy2D(void *dst, int64_t dstPitch, const void *src, int64_t srcPitch, int64_t width,
                 int64_t height);
  int32_t memset(void *ptr, int32_t value, int64_t count, int32_t elemBytes);
  int32_t upload(void *dst, const void *src, int64_t bytes);
  int32_t download(void *dst, const void *src, int64_t bytes);
  int32_t launch(const void *image, int64_t bytes, const char *name, const int64_t grid[3],
                 const int64_t block[3], int32_t smem, void **params);
  /// Polls the stream until idle or the timeout (SHARDRT_TIMEOUT_S).
  int32_t synchronize(const char *after = nullptr);

  // Step graphs (shardrt_cuda.h). While capturing, work is recorded, not
  // run; a call that would wait for the GPU breaks the capture instead of
  // failing the rank.
  int32_t captureBegin();
  /// The captured graph's id (> 0), or 0 with the thread's last error
  /// saying why the capture broke.
  int64_t captureEnd();
  int32_t graphLaunch(int64_t graph);
  void graphDestroy(int64_t graph);
  /// Host waits for the GPU so far (synchronizes, uploads, downloads).
  int64_t hostWaits() const { return waits; }

  const Allocator &allocator() const { return memory; }
  CUstream rankStream() const { return stream; }
  int deviceOrdinal() const { return ordinal; }

  /// The rank's NCCL communicators once connected (shardrt_cuda_connect),
  /// else null: collectives are then staged through host memory.
  NcclRank *nccl() const { return ncclRank.get(); }
  void attachNccl(NcclRank *nr);
  /// How the rank's collectives run, for the run's report.
  const std::string &collectives() const { return collectivesMode; }
  void setCollectives(std::string mode) { collectivesMode = std::move(mode); }

private:
  RankDevice(const DriverTable &driver, int ordinal, int rank);
  /// Polls the stream until idle; on a timeout, an NCCL error or an abort
  /// of the world, aborts the NCCL communicators and says why in `failure`.
  CUresult waitIdle(std::string *failure);
  /// True (and the capture broken by `what`) while capturing.
  bool breaksCapture(const char *what);

  const DriverTable &driver;
  const int ordinal, rank;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  std::string name;
  int major = 0, minor = 0;
  Allocator memory;
  bool syncEveryLaunch = false;
  double timeoutSeconds = 300;
  shardrt_comm *comm = nullptr; // the world this rank runs in, for aborts
  std::string stickyError;
  shardrt_status stickyStatus = SHARDRT_OK;
  std::unique_ptr<NcclRank> ncclRank;
  bool capturing = false;
  std::string captureBrokenBy; // "" while the capture holds
  int64_t waits = 0;
  int64_t nextGraph = 1;
  std::map<int64_t, std::pair<CUgraph, CUgraphExec>> graphs;
  std::string collectivesMode = "staged through host memory";
};

/// Forgets every device's loaded modules (tests that swap drivers).
void dropModuleCachesForTesting();

} // namespace shardrt::cuda

#endif // SHARDRT_SRC_CUDA_RANKDEVICE_H
