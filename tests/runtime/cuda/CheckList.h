// The loading tests' checks: plain programs (no Catch2), since they probe
// what the process can dlopen. Each check prints "ok" or "FAIL" with what
// was seen; main ends with "N failed" and exit status 1 on any failure.
#ifndef SHARDRT_TESTS_CUDA_CHECKLIST_H
#define SHARDRT_TESTS_CUDA_CHECKLIST_H

#include <cstdio>
#include <string>

namespace shardrt_test {

inline int &failures() {
  static int n = 0;
  return n;
}

inline void expect(bool ok, const std::string &what, const std::string &got) {
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
  if (!ok) {
    std::printf("     got: %s\n", got.c_str());
    ++failures();
  }
}

inline bool contains(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

/// Prints the tally; main's exit status.
inline int finish(bool skipped) {
  if (skipped)
    std::printf("some cases skipped\n");
  std::printf("%d failed\n", failures());
  return failures() == 0 ? 0 : 1;
}

} // namespace shardrt_test

#endif // SHARDRT_TESTS_CUDA_CHECKLIST_H
