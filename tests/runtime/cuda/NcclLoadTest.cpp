// Finding NCCL: each search rule, and the reasons given when it is not
// found. The case that loads a real NCCL needs the CUDA toolkit's
// libnccl.so.2 (it loads without a driver); without it that case says it
// was skipped (and the test says "some cases skipped").
#include "runtime/src/cuda/Nccl.h"
#include "tests/runtime/cuda/CheckList.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

using shardrt_test::contains;
using shardrt_test::expect;

namespace {

std::string joined(const std::vector<std::string> &v) {
  std::string s;
  for (const std::string &x : v)
    s += (s.empty() ? "" : ", ") + x;
  return s;
}

} // namespace

int main() {
  using namespace shardrt::cuda;

  // 1. An explicit path is the only candidate, and its failure says so.
  auto only = ncclCandidates("/nonexistent/libnccl.so.2", "/venv", nullptr, "/home/u");
  expect(only == std::vector<std::string>{"/nonexistent/libnccl.so.2"},
         "SHARDRT_NCCL_LIBRARY is the only place tried when set", joined(only));
  auto missing = openNccl(only);
  expect(!missing.table &&
             contains(missing.reason, "SHARDRT_NCCL_LIBRARY=/nonexistent/libnccl.so.2"),
         "a wrong SHARDRT_NCCL_LIBRARY is named", missing.reason);

  // 2. Then the loader's name, then wheels under each prefix.
  // Under Bazel, the test's own temporary folder.
  const char *tmp = std::getenv("TEST_TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/shardrt_nccl_XXXXXX";
  std::vector<char> dirBuf(pattern.begin(), pattern.end());
  dirBuf.push_back('\0');
  char *dir = dirBuf.data();
  if (!mkdtemp(dir)) {
    std::printf("FAIL cannot make a temporary directory\n");
    return 1;
  }
  const std::string venv = std::string(dir) + "/venv";
  std::string path = venv;
  mkdir(path.c_str(), 0700);
  for (const char *part : {"/lib", "/python3.12", "/site-packages", "/nvidia", "/nccl", "/lib"}) {
    path += part;
    mkdir(path.c_str(), 0700);
  }
  const std::string wheel = path + "/libnccl.so.2";
  std::ofstream(wheel) << "not a library";
  auto candidates = ncclCandidates(nullptr, venv.c_str(), nullptr, nullptr);
  expect(candidates.size() >= 2 && candidates[0] == "libnccl.so.2" && candidates[1] == wheel,
         "the loader's libnccl.so.2 first, then the wheel under $VIRTUAL_ENV", joined(candidates));

  // 3. Nothing usable: every place tried is named, and how to fix it.
  auto none = openNccl({"/nonexistent/libnccl.so.2", wheel, "libm.so.6"});
  expect(!none.table && contains(none.reason, "/nonexistent/libnccl.so.2 (") &&
             contains(none.reason, wheel + " (") &&
             contains(none.reason, "libm.so.6 (has no ncclGetVersion)") &&
             contains(none.reason, "set SHARDRT_NCCL_LIBRARY"),
         "every place tried is named", none.reason);
  std::system(("rm -rf " + std::string(dir)).c_str());

  // 4. A real NCCL loads without a driver and reports its version.
  const char *cudaPath = std::getenv("CUDA_PATH");
  const std::string toolkit =
      std::string(cudaPath && *cudaPath ? cudaPath : "/usr/local/cuda") + "/lib/libnccl.so.2";
  bool skipped = false;
  if (access(toolkit.c_str(), R_OK) == 0) {
    auto load = openNccl({toolkit});
    expect(load.table && load.version >= 20900 && load.path == toolkit,
           "the toolkit's NCCL loads (version " + ncclVersionText(load.version) + ")",
           load.reason);
    if (load.table)
      expect(ncclErrorText(*load.table, 1).rfind("unhandled cuda error", 0) == 0,
             "NCCL's own error text is used", ncclErrorText(*load.table, 1));
  } else {
    std::printf("skip the real-NCCL case: no %s\n", toolkit.c_str());
    skipped = true;
  }
  expect(ncclVersionText(22809) == "2.28.9", "versions read as major.minor.patch",
         ncclVersionText(22809));

  return shardrt_test::finish(skipped);
}
