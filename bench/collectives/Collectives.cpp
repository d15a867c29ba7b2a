//===- Collectives.cpp - shardrt's all-reduce against simple baselines ----===//
//
//   bazel build //bench/collectives:threads //bench/collectives:mpi
//   bash bench/collectives/run.sh        # both, with mpirun for the second
//
// threads: two ranks of a threads world sum a float buffer with
//   shardrt_all_reduce_on, against the plainest shared-memory all-reduce
//   of the same bytes: two threads that each add their half of the other's
//   buffer into both buffers, with a spin barrier before and after. GB/s =
//   buffer bytes per rank / time; ratio = baseline time / shardrt time
//   (1.0x = as fast as the plain sum).
// mpi (under mpirun -np 2): shardrt's MPI backend against MPI_Allreduce of
//   the same buffer on MPI_COMM_WORLD.
//
// Each time is the median of --reps samples of back-to-back calls, shardrt
// and baseline interleaved; the result of both is checked first.
//
//===----------------------------------------------------------------------===//
#include "shardrt.h"
#ifdef SHARDC_BENCH_MPI
#include "shardrt_mpi.h"
#include <mpi.h>
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

const int64_t kSizes[] = {int64_t(16) << 10, int64_t(64) << 10, int64_t(256) << 10,
                          int64_t(1) << 20, int64_t(4) << 20};

/// Calls per sample so that one sample moves about 64 MiB per rank.
int callsFor(int64_t bytes) { return static_cast<int>(std::max<int64_t>(4, (64 << 20) / bytes)); }

std::string cpuName() {
  FILE *f = std::fopen("/proc/cpuinfo", "r");
  char line[512];
  std::string name = "unknown";
  while (f && std::fgets(line, sizeof line, f))
    if (std::strncmp(line, "model name", 10) == 0) {
      name = std::strchr(line, ':') + 2;
      name.erase(name.find_last_not_of("\n") + 1);
      break;
    }
  if (f)
    std::fclose(f);
  return name;
}

void fill(std::vector<float> &v, int rank) {
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<float>((i % 7) + rank);
}

bool checkSum(const std::vector<float> &v, int ranks) {
  for (size_t i = 0; i < v.size(); ++i) {
    float expected = 0;
    for (int r = 0; r < ranks; ++r)
      expected += static_cast<float>((i % 7) + r);
    if (v[i] != expected)
      return false;
  }
  return true;
}

#ifndef SHARDC_BENCH_MPI

/// Two threads meeting at a spin barrier (sense-reversing).
class SpinBarrier {
public:
  void wait(bool &sense) {
    sense = !sense;
    if (count.fetch_add(1) == 1) {
      count.store(0);
      flag.store(sense);
    } else {
      while (flag.load() != sense) {
      }
    }
  }

private:
  std::atomic<int> count{0};
  std::atomic<bool> flag{false};
};

/// The baseline: each thread adds its half of the peer's buffer into its
/// own and writes the sum to both.
double plainSum(std::vector<float> (&bufs)[2], int calls) {
  SpinBarrier barrier;
  double seconds = 0;
  auto body = [&](int t) {
    bool sense = false;
    size_t n = bufs[0].size(), lo = t * n / 2, hi = (t + 1) * n / 2;
    float *mine = bufs[t].data(), *peer = bufs[1 - t].data();
    barrier.wait(sense);
    auto t0 = Clock::now();
    for (int c = 0; c < calls; ++c) {
      for (size_t i = lo; i < hi; ++i) {
        float s = mine[i] + peer[i];
        mine[i] = s;
        peer[i] = s;
      }
      barrier.wait(sense);
    }
    if (t == 0)
      seconds = std::chrono::duration<double>(Clock::now() - t0).count() / calls;
  };
  std::thread other(body, 1);
  body(0);
  other.join();
  return seconds;
}

/// shardrt's all_reduce on a two-rank threads world.
double shardrtSum(std::vector<float> (&bufs)[2], int calls) {
  shardrt_world *world = shardrt_threads_create(2);
  struct Job {
    std::vector<float> *bufs;
    int calls;
    double seconds;
  } job{bufs, calls, 0};
  shardrt_threads_run(
      world,
      [](shardrt_comm *comm, void *user) -> int32_t {
        auto *j = static_cast<Job *>(user);
        int rank = shardrt_comm_rank(comm);
        const int64_t group[] = {0, 1};
        std::vector<float> &buf = j->bufs[rank];
        shardrt_barrier_on(comm);
        auto t0 = Clock::now();
        for (int c = 0; c < j->calls; ++c)
          if (shardrt_all_reduce_on(comm, buf.data(), static_cast<int64_t>(buf.size()),
                                    SHARDRT_F32, SHARDRT_SUM, group, 1, 2) != SHARDRT_OK)
            return 1;
        if (rank == 0)
          j->seconds = std::chrono::duration<double>(Clock::now() - t0).count() / j->calls;
        return 0;
      },
      &job);
  shardrt_world_destroy(world);
  return job.seconds;
}

int runThreads(int reps) {
  std::printf("host: %s, %u CPUs; threads backend, 2 ranks, f32 sum; median of %d samples\n",
              cpuName().c_str(), std::thread::hardware_concurrency(), reps);
  for (int64_t bytes : kSizes) {
    size_t n = static_cast<size_t>(bytes / 4);
    std::vector<float> bufs[2] = {std::vector<float>(n), std::vector<float>(n)};
    fill(bufs[0], 0);
    fill(bufs[1], 1);
    shardrtSum(bufs, 1);
    if (!checkSum(bufs[0], 2) || !checkSum(bufs[1], 2)) {
      std::fprintf(stderr, "collectives: shardrt's all_reduce of %lld B is wrong\n",
                   static_cast<long long>(bytes));
      return 4;
    }
    fill(bufs[0], 0);
    fill(bufs[1], 1);
    plainSum(bufs, 1);
    if (!checkSum(bufs[0], 2) || !checkSum(bufs[1], 2)) {
      std::fprintf(stderr, "collectives: the baseline of %lld B is wrong\n",
                   static_cast<long long>(bytes));
      return 4;
    }
    int calls = callsFor(bytes);
    std::vector<double> ours, base;
    for (int r = 0; r < reps; ++r) {
      ours.push_back(shardrtSum(bufs, calls));
      base.push_back(plainSum(bufs, calls));
    }
    double tOurs = median(ours), tBase = median(base);
    std::printf("all_reduce %5lld KiB: shardrt %7.2f GB/s (%8.1f us), plain two-thread sum "
                "%7.2f GB/s (%8.1f us), ratio %.2fx\n",
                static_cast<long long>(bytes >> 10), bytes / tOurs / 1e9, tOurs * 1e6,
                bytes / tBase / 1e9, tBase * 1e6, tBase / tOurs);
    std::fflush(stdout);
  }
  return 0;
}

#else // SHARDC_BENCH_MPI

int runMpi(int reps) {
  shardrt_comm *comm = nullptr;
  if (shardrt_mpi_init(nullptr, nullptr, &comm) != SHARDRT_OK) {
    std::fprintf(stderr, "collectives: %s\n", shardrt_last_error());
    return 5;
  }
  int rank = shardrt_comm_rank(comm), size = shardrt_comm_size(comm);
  std::vector<int64_t> group(size);
  for (int r = 0; r < size; ++r)
    group[r] = r;
  if (rank == 0)
    std::printf("host: %s; MPI backend, %d ranks, f32 sum; median of %d samples\n",
                cpuName().c_str(), size, reps);
  int status = 0;
  for (int64_t bytes : kSizes) {
    size_t n = static_cast<size_t>(bytes / 4);
    std::vector<float> buf(n);
    auto ours = [&](int calls) {
      MPI_Barrier(MPI_COMM_WORLD);
      auto t0 = Clock::now();
      for (int c = 0; c < calls; ++c)
        shardrt_all_reduce_on(comm, buf.data(), static_cast<int64_t>(n), SHARDRT_F32, SHARDRT_SUM,
                              group.data(), 1, size);
      return std::chrono::duration<double>(Clock::now() - t0).count() / calls;
    };
    auto raw = [&](int calls) {
      MPI_Barrier(MPI_COMM_WORLD);
      auto t0 = Clock::now();
      for (int c = 0; c < calls; ++c)
        MPI_Allreduce(MPI_IN_PLACE, buf.data(), static_cast<int>(n), MPI_FLOAT, MPI_SUM,
                      MPI_COMM_WORLD);
      return std::chrono::duration<double>(Clock::now() - t0).count() / calls;
    };
    fill(buf, rank);
    ours(1);
    bool ok = checkSum(buf, size);
    fill(buf, rank);
    raw(1);
    ok = ok && checkSum(buf, size);
    if (!ok) {
      if (rank == 0)
        std::fprintf(stderr, "collectives: an all-reduce of %lld B is wrong\n",
                     static_cast<long long>(bytes));
      status = 4;
      break;
    }
    int calls = callsFor(bytes);
    std::vector<double> a, b;
    for (int r = 0; r < reps; ++r) {
      a.push_back(ours(calls));
      b.push_back(raw(calls));
    }
    double tOurs = median(a), tRaw = median(b);
    if (rank == 0)
      std::printf("all_reduce %5lld KiB: shardrt %7.2f GB/s (%8.1f us), MPI_Allreduce %7.2f "
                  "GB/s (%8.1f us), ratio %.2fx\n",
                  static_cast<long long>(bytes >> 10), bytes / tOurs / 1e9, tOurs * 1e6,
                  bytes / tRaw / 1e9, tRaw * 1e6, tRaw / tOurs);
    std::fflush(stdout);
  }
  shardrt_mpi_finalize();
  return status;
}

#endif

} // namespace

int main(int argc, char **argv) {
  int reps = 7;
  if (argc == 3 && std::string(argv[1]) == "--reps" && std::atoi(argv[2]) > 0)
    reps = std::atoi(argv[2]);
  else if (argc != 1) {
    std::fprintf(stderr, "usage: %s [--reps N (default 7)]\n", argv[0]);
    return 2;
  }
#ifdef SHARDC_BENCH_MPI
  return runMpi(reps);
#else
  return runThreads(reps);
#endif
}
