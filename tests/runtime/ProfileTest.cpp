// shardrt_profile_*: a started table counts each site's calls and sums the
// time between its begin and end; probes on a thread without a table do
// nothing; tables are per thread (one per rank); stopping adds into the
// caller's arrays and fails when the probes named sites past the table.
#include "shardrt.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace {

void timedSite(int64_t site, std::chrono::milliseconds d) {
  shardrt_profile_begin(site);
  std::this_thread::sleep_for(d);
  shardrt_profile_end(site);
}

} // namespace

TEST_CASE("a started table counts calls and sums their time per site") {
  shardrt_profile_start(3);
  timedSite(0, std::chrono::milliseconds(20));
  timedSite(2, std::chrono::milliseconds(1));
  timedSite(2, std::chrono::milliseconds(1));
  std::vector<int64_t> calls = {5, 0, 0}, nanos = {7, 0, 0};
  REQUIRE(shardrt_profile_stop(calls.data(), nanos.data(), 3) == SHARDRT_OK);
  CHECK(calls == std::vector<int64_t>{6, 0, 2}); // added to what was there
  CHECK(nanos[0] - 7 >= 20'000'000);
  CHECK(nanos[0] - 7 < 2'000'000'000);
  CHECK(nanos[1] == 0);
  CHECK(nanos[2] >= 2'000'000);
  CHECK(nanos[2] < nanos[0]);
}

TEST_CASE("probes without a started table do nothing, and stop says so") {
  timedSite(0, std::chrono::milliseconds(0)); // no table: ignored
  int64_t calls = 0, nanos = 0;
  CHECK(shardrt_profile_stop(&calls, &nanos, 1) == SHARDRT_ERR_ARGUMENT);
  CHECK(std::string(shardrt_last_error()).find("no profile was started") != std::string::npos);
  CHECK(calls == 0);
}

TEST_CASE("a stopped table no longer counts") {
  shardrt_profile_start(1);
  int64_t calls = 0, nanos = 0;
  REQUIRE(shardrt_profile_stop(&calls, &nanos, 1) == SHARDRT_OK);
  timedSite(0, std::chrono::milliseconds(0));
  CHECK(shardrt_profile_stop(&calls, &nanos, 1) == SHARDRT_ERR_ARGUMENT);
  CHECK(calls == 0);
}

TEST_CASE("a site past the table, or a table of another size, is an error") {
  shardrt_profile_start(2);
  timedSite(2, std::chrono::milliseconds(0));
  std::vector<int64_t> calls(2), nanos(2);
  CHECK(shardrt_profile_stop(calls.data(), nanos.data(), 2) == SHARDRT_ERR_ARGUMENT);
  CHECK(std::string(shardrt_last_error()).find("sites do not match") != std::string::npos);
  shardrt_profile_start(2);
  std::vector<int64_t> more(3);
  CHECK(shardrt_profile_stop(more.data(), more.data(), 3) == SHARDRT_ERR_ARGUMENT);
}

TEST_CASE("each thread has its own table") {
  shardrt_profile_start(1);
  int64_t otherCalls = 0, otherNanos = 0;
  std::thread other([&] {
    shardrt_profile_start(1);
    timedSite(0, std::chrono::milliseconds(0));
    timedSite(0, std::chrono::milliseconds(0));
    shardrt_profile_stop(&otherCalls, &otherNanos, 1);
  });
  other.join();
  timedSite(0, std::chrono::milliseconds(0));
  int64_t calls = 0, nanos = 0;
  REQUIRE(shardrt_profile_stop(&calls, &nanos, 1) == SHARDRT_OK);
  CHECK(calls == 1);
  CHECK(otherCalls == 2);
}
