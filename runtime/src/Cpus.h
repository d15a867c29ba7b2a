// The CPUs this process may run on (its affinity mask), for sizing kernel
// thread pools and for telling whether ranks outnumber cores.
#ifndef SHARDRT_SRC_CPUS_H
#define SHARDRT_SRC_CPUS_H

#include <sched.h>

#include <algorithm>
#include <thread>

namespace shardrt {

inline int cpusAvailable() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    return CPU_COUNT(&set);
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

} // namespace shardrt

#endif // SHARDRT_SRC_CPUS_H
