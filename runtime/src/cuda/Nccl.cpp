// Finding NCCL and filling its entry-point table (Nccl.h).
#include "runtime/src/cuda/Nccl.h"

#include "runtime/src/Error.h"
#include "runtime/src/cuda/Resolve.h"

#include <dlfcn.h>
#include <glob.h>

#include <cstdlib>
#include <memory>
#include <mutex>

namespace shardrt::cuda {
namespace {

constexpr const char *kLoaderName = "libnccl.so.2";
constexpr const char *kWheelLibrary =
    "/lib/python3.*/*-packages/nvidia/nccl/lib/libnccl.so.2";

bool resolveAll(void *lib, NcclTable &t, std::string &missing) {
  bool ok = true;
  ok &= resolve(lib, "ncclGetVersion", t.getVersion, missing);
  ok &= resolve(lib, "ncclGetErrorString", t.getErrorString, missing);
  ok &= resolve(lib, "ncclGetUniqueId", t.getUniqueId, missing);
  ok &= resolve(lib, "ncclCommInitRank", t.commInitRank, missing);
  ok &= resolve(lib, "ncclCommSplit", t.commSplit, missing);
  ok &= resolve(lib, "ncclCommDestroy", t.commDestroy, missing);
  ok &= resolve(lib, "ncclCommAbort", t.commAbort, missing);
  ok &= resolve(lib, "ncclCommGetAsyncError", t.commGetAsyncError, missing);
  ok &= resolve(lib, "ncclAllReduce", t.allReduce, missing);
  ok &= resolve(lib, "ncclAllGather", t.allGather, missing);
  ok &= resolve(lib, "ncclReduceScatter", t.reduceScatter, missing);
  ok &= resolve(lib, "ncclSend", t.send, missing);
  ok &= resolve(lib, "ncclRecv", t.recv, missing);
  ok &= resolve(lib, "ncclGroupStart", t.groupStart, missing);
  ok &= resolve(lib, "ncclGroupEnd", t.groupEnd, missing);
  return ok;
}

/// The wheel's prefixes, in search order, for the given environment.
std::vector<std::string> wheelPrefixes(const char *virtualEnv, const char *condaPrefix,
                                       const char *home) {
  std::vector<std::string> prefixes;
  if (virtualEnv && *virtualEnv)
    prefixes.push_back(virtualEnv);
  if (condaPrefix && *condaPrefix)
    prefixes.push_back(condaPrefix);
  if (home && *home)
    prefixes.push_back(std::string(home) + "/.local");
  prefixes.push_back("/usr/local");
  prefixes.push_back("/usr");
  return prefixes;
}

std::mutex processMutex;
const NcclLoad *injected = nullptr;
std::unique_ptr<NcclLoad> found;

} // namespace

std::vector<std::string> ncclCandidates(const char *explicitPath, const char *virtualEnv,
                                        const char *condaPrefix, const char *home) {
  if (explicitPath && *explicitPath)
    return {explicitPath};
  std::vector<std::string> candidates = {kLoaderName};
  for (const std::string &prefix : wheelPrefixes(virtualEnv, condaPrefix, home)) {
    glob_t matches{};
    if (glob((prefix + kWheelLibrary).c_str(), 0, nullptr, &matches) == 0)
      for (size_t i = 0; i < matches.gl_pathc; ++i)
        candidates.push_back(matches.gl_pathv[i]);
    globfree(&matches);
  }
  return candidates;
}

NcclLoad openNccl(const std::vector<std::string> &candidates) {
  NcclLoad load;
  std::string tried;
  for (const std::string &path : candidates) {
    void *lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char *why = dlerror();
      tried += format("%s%s (%s)", tried.empty() ? "" : "; ", path.c_str(),
                      why ? why : "not loadable");
      continue;
    }
    auto table = std::make_unique<NcclTable>();
    std::string missing;
    if (!resolveAll(lib, *table, missing)) {
      tried += format("%s%s (has no %s)", tried.empty() ? "" : "; ", path.c_str(),
                      missing.c_str());
      dlclose(lib);
      continue;
    }
    table->getVersion(&load.version);
    load.path = path;
    // The library stays open for the process's lifetime; the table lives
    // as long as a copy of the load does.
    load.table = table.get();
    load.storage = std::move(table);
    return load;
  }
  if (candidates.size() == 1 && candidates.front() != kLoaderName)
    load.reason = format("NCCL not found: SHARDRT_NCCL_LIBRARY=%s", tried.c_str());
  else
    load.reason = format("NCCL not found: tried %s; and no nvidia-nccl-cu13 wheel "
                         "(<prefix>%s) under $VIRTUAL_ENV, $CONDA_PREFIX, ~/.local, /usr/local "
                         "or /usr; set SHARDRT_NCCL_LIBRARY to its path",
                         tried.c_str(), kWheelLibrary);
  return load;
}

const NcclLoad &processNccl() {
  std::lock_guard<std::mutex> lock(processMutex);
  if (injected)
    return *injected;
  if (!found)
    found = std::make_unique<NcclLoad>(
        openNccl(ncclCandidates(std::getenv("SHARDRT_NCCL_LIBRARY"), std::getenv("VIRTUAL_ENV"),
                                std::getenv("CONDA_PREFIX"), std::getenv("HOME"))));
  return *found;
}

void injectNcclForTesting(const NcclLoad *load) {
  std::lock_guard<std::mutex> lock(processMutex);
  injected = load;
  found.reset();
}

std::string ncclErrorText(const NcclTable &table, ncclResult_t result) {
  const char *text = table.getErrorString ? table.getErrorString(result) : nullptr;
  return text && *text ? std::string(text) : format("ncclResult_t %d", result);
}

std::string ncclVersionText(int version) {
  return format("%d.%d.%d", version / 10000, version / 100 % 100, version % 100);
}

} // namespace shardrt::cuda
