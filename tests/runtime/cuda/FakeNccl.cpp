// The fake NCCL's entry points (FakeNccl.h).
#include "tests/runtime/cuda/FakeNccl.h"

#include "runtime/src/Dtype.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace shardrt_test {
namespace {

using namespace shardrt::cuda;

constexpr ncclResult_t kInvalidArgument = 4, kInvalidUsage = 5;

/// The members of one communicator, meeting at barriers that count
/// generations; `posts` holds what each member offers for the current one.
struct Group {
  int size;
  std::vector<const void *> posts;
  std::vector<std::pair<int, int>> colorKeys;
  std::map<int, std::shared_ptr<Group>> children; // of the split under way
  int arrived = 0;
  long generation = 0;
  explicit Group(int n) : size(n), posts(n), colorKeys(n) {}
};

struct FakeComm {
  std::shared_ptr<Group> group;
  int rank;
};

struct Message {
  const void *data;
  size_t bytes;
  bool taken = false;
};

struct State {
  std::mutex mutex;
  std::condition_variable cv;
  std::map<std::string, std::shared_ptr<Group>> joining; // by unique id
  long nextId = 1;
  // (group, from, to) -> messages in send order
  std::map<std::tuple<Group *, int, int>, std::deque<std::shared_ptr<Message>>> mailbox;
  FakeNcclCalls calls;
  ncclResult_t failAllReduce = 0, asyncError = 0, failInit = 0;
};

State *state = new State;

/// Waits until every member of `g` has arrived; `lock` holds state->mutex.
void barrier(Group &g, std::unique_lock<std::mutex> &lock) {
  const long generation = g.generation;
  if (++g.arrived == g.size) {
    g.arrived = 0;
    ++g.generation;
    state->cv.notify_all();
    return;
  }
  state->cv.wait(lock, [&] { return g.generation != generation; });
}

/// Every member's post, after each member posted `mine`.
std::vector<const void *> exchange(FakeComm *c, const void *mine,
                                   std::unique_lock<std::mutex> &lock) {
  c->group->posts[c->rank] = mine;
  barrier(*c->group, lock);
  return c->group->posts;
}

size_t sizeOf(ncclDataType_t t) {
  switch (t) {
  case ncclInt8: case ncclUint8: return 1;
  case ncclFloat16: case ncclBfloat16: return 2;
  case ncclInt32: case ncclFloat32: return 4;
  case ncclInt64: case ncclFloat64: return 8;
  default: return 0;
  }
}

template <typename T> T apply(ncclRedOp_t op, T a, T b) {
  switch (op) {
  case ncclSum: return static_cast<T>(a + b);
  case ncclProd: return static_cast<T>(a * b);
  case ncclMax: return std::max(a, b);
  default: return std::min(a, b);
  }
}

template <typename T> void reduceTyped(void *out, const std::vector<const void *> &srcs,
                                       size_t count, ncclRedOp_t op) {
  for (size_t i = 0; i < count; ++i) {
    T acc;
    std::memcpy(&acc, static_cast<const char *>(srcs[0]) + i * sizeof(T), sizeof(T));
    for (size_t m = 1; m < srcs.size(); ++m) {
      T v;
      std::memcpy(&v, static_cast<const char *>(srcs[m]) + i * sizeof(T), sizeof(T));
      acc = apply(op, acc, v);
    }
    std::memcpy(static_cast<char *>(out) + i * sizeof(T), &acc, sizeof(T));
  }
}

/// 16-bit floats: each step in float, rounded back.
void reduceHalf(void *out, const std::vector<const void *> &srcs, size_t count, ncclRedOp_t op,
                bool bf16) {
  auto load = [&](const void *p, size_t i) {
    uint16_t h;
    std::memcpy(&h, static_cast<const char *>(p) + 2 * i, 2);
    return bf16 ? shardrt::bf16ToFloat(h) : shardrt::halfToFloat(h);
  };
  for (size_t i = 0; i < count; ++i) {
    float acc = load(srcs[0], i);
    for (size_t m = 1; m < srcs.size(); ++m) {
      float sum = apply(op, acc, load(srcs[m], i));
      acc = bf16 ? shardrt::bf16ToFloat(shardrt::floatToBf16(sum))
                 : shardrt::halfToFloat(shardrt::floatToHalf(sum));
    }
    uint16_t h = bf16 ? shardrt::floatToBf16(acc) : shardrt::floatToHalf(acc);
    std::memcpy(static_cast<char *>(out) + 2 * i, &h, 2);
  }
}

bool reduce(void *out, const std::vector<const void *> &srcs, size_t count, ncclDataType_t t,
            ncclRedOp_t op) {
  switch (t) {
  case ncclInt8: reduceTyped<int8_t>(out, srcs, count, op); return true;
  case ncclUint8: reduceTyped<uint8_t>(out, srcs, count, op); return true;
  case ncclInt32: reduceTyped<int32_t>(out, srcs, count, op); return true;
  case ncclInt64: reduceTyped<int64_t>(out, srcs, count, op); return true;
  case ncclFloat32: reduceTyped<float>(out, srcs, count, op); return true;
  case ncclFloat64: reduceTyped<double>(out, srcs, count, op); return true;
  case ncclFloat16: reduceHalf(out, srcs, count, op, false); return true;
  case ncclBfloat16: reduceHalf(out, srcs, count, op, true); return true;
  default: return false;
  }
}

// Operations queued between ncclGroupStart and ncclGroupEnd on a thread.
struct P2p {
  bool isSend;
  FakeComm *comm;
  int peer;
  const void *send;
  void *recv;
  size_t bytes;
};
thread_local int groupDepth = 0;
thread_local std::vector<P2p> queued;

ncclResult_t runP2p(const std::vector<P2p> &ops) {
  std::unique_lock<std::mutex> lock(state->mutex);
  std::vector<std::shared_ptr<Message>> sent;
  for (const P2p &op : ops)
    if (op.isSend) {
      auto m = std::make_shared<Message>(Message{op.send, op.bytes});
      state->mailbox[{op.comm->group.get(), op.comm->rank, op.peer}].push_back(m);
      sent.push_back(m);
    }
  state->cv.notify_all();
  for (const P2p &op : ops) {
    if (op.isSend)
      continue;
    auto &box = state->mailbox[{op.comm->group.get(), op.peer, op.comm->rank}];
    state->cv.wait(lock, [&] { return !box.empty(); });
    std::shared_ptr<Message> m = box.front();
    box.pop_front();
    if (m->bytes != op.bytes)
      return kInvalidUsage;
    std::memcpy(op.recv, m->data, op.bytes);
    m->taken = true;
    state->cv.notify_all();
  }
  // A send's buffer is the sender's again only once it was received.
  state->cv.wait(lock, [&] {
    return std::all_of(sent.begin(), sent.end(), [](auto &m) { return m->taken; });
  });
  return ncclSuccess;
}

ncclResult_t getVersion(int *v) {
  *v = 22809;
  return ncclSuccess;
}
const char *getErrorString(ncclResult_t r) {
  switch (r) {
  case 1: return "unhandled cuda error";
  case 2: return "unhandled system error";
  case 6: return "remote process exited or there was a network error";
  default: return "fake NCCL error";
  }
}
ncclResult_t getUniqueId(ncclUniqueId *id) {
  std::lock_guard<std::mutex> lock(state->mutex);
  std::memset(id, 0, sizeof(*id));
  std::snprintf(id->internal, sizeof(id->internal), "fake-%ld", state->nextId++);
  return ncclSuccess;
}
ncclResult_t commInitRank(ncclComm_t *comm, int n, ncclUniqueId id, int rank) {
  if (n < 1 || rank < 0 || rank >= n)
    return kInvalidArgument;
  std::unique_lock<std::mutex> lock(state->mutex);
  ++state->calls.initRank;
  if (state->failInit)
    return state->failInit;
  const std::string key(id.internal, sizeof(id.internal));
  std::shared_ptr<Group> &g = state->joining[key];
  if (!g)
    g = std::make_shared<Group>(n);
  auto *c = new FakeComm{g, rank};
  barrier(*g, lock);
  state->joining.erase(key);
  *comm = reinterpret_cast<ncclComm_t>(c);
  return ncclSuccess;
}
ncclResult_t commSplit(ncclComm_t parent, int color, int key, ncclComm_t *out, void *) {
  auto *p = reinterpret_cast<FakeComm *>(parent);
  std::unique_lock<std::mutex> lock(state->mutex);
  ++state->calls.split;
  Group &g = *p->group;
  g.colorKeys[p->rank] = {color, key};
  barrier(g, lock);
  // Members of the same color, ordered by key then parent rank.
  std::vector<std::tuple<int, int>> mates;
  for (int r = 0; r < g.size; ++r)
    if (g.colorKeys[r].first == color)
      mates.push_back({g.colorKeys[r].second, r});
  std::sort(mates.begin(), mates.end());
  int newRank = 0;
  while (std::get<1>(mates[newRank]) != p->rank)
    ++newRank;
  std::shared_ptr<Group> &child = g.children[color];
  if (!child)
    child = std::make_shared<Group>(static_cast<int>(mates.size()));
  *out = reinterpret_cast<ncclComm_t>(new FakeComm{child, newRank});
  barrier(g, lock);
  g.children.clear();
  return ncclSuccess;
}
ncclResult_t commDestroy(ncclComm_t c) {
  std::lock_guard<std::mutex> lock(state->mutex);
  ++state->calls.destroy;
  delete reinterpret_cast<FakeComm *>(c);
  return ncclSuccess;
}
ncclResult_t commAbort(ncclComm_t c) {
  std::lock_guard<std::mutex> lock(state->mutex);
  ++state->calls.abort;
  delete reinterpret_cast<FakeComm *>(c);
  return ncclSuccess;
}
ncclResult_t commGetAsyncError(ncclComm_t, ncclResult_t *error) {
  std::lock_guard<std::mutex> lock(state->mutex);
  *error = state->asyncError;
  return ncclSuccess;
}
ncclResult_t allReduce(const void *send, void *recv, size_t count, ncclDataType_t t,
                       ncclRedOp_t op, ncclComm_t comm, CUstream) {
  auto *c = reinterpret_cast<FakeComm *>(comm);
  std::unique_lock<std::mutex> lock(state->mutex);
  ++state->calls.allReduce;
  if (state->failAllReduce) {
    ncclResult_t r = state->failAllReduce;
    state->failAllReduce = 0;
    return r;
  }
  if (!sizeOf(t))
    return kInvalidArgument;
  std::vector<char> result(count * sizeOf(t));
  reduce(result.data(), exchange(c, send, lock), count, t, op);
  barrier(*c->group, lock); // every member has read every input
  std::memcpy(recv, result.data(), result.size());
  return ncclSuccess;
}
ncclResult_t allGather(const void *send, void *recv, size_t count, ncclDataType_t t,
                       ncclComm_t comm, CUstream) {
  auto *c = reinterpret_cast<FakeComm *>(comm);
  std::unique_lock<std::mutex> lock(state->mutex);
  ++state->calls.allGather;
  const size_t bytes = count * sizeOf(t);
  std::vector<const void *> posts = exchange(c, send, lock);
  std::vector<char> result(bytes * posts.size());
  for (size_t m = 0; m < posts.size(); ++m)
    std::memcpy(result.data() + m * bytes, posts[m], bytes);
  barrier(*c->group, lock);
  std::memcpy(recv, result.data(), result.size());
  return ncclSuccess;
}
ncclResult_t reduceScatter(const void *send, void *recv, size_t count, ncclDataType_t t,
                           ncclRedOp_t op, ncclComm_t comm, CUstream) {
  auto *c = reinterpret_cast<FakeComm *>(comm);
  std::unique_lock<std::mutex> lock(state->mutex);
  ++state->calls.reduceScatter;
  const size_t bytes = count * sizeOf(t);
  std::vector<const void *> blocks = exchange(c, send, lock);
  for (const void *&b : blocks)
    b = static_cast<const char *>(b) + static_cast<size_t>(c->rank) * bytes;
  std::vector<char> result(bytes);
  reduce(result.data(), blocks, count, t, op);
  barrier(*c->group, lock);
  std::memcpy(recv, result.data(), bytes);
  return ncclSuccess;
}
ncclResult_t send(const void *buf, size_t count, ncclDataType_t t, int peer, ncclComm_t comm,
                  CUstream) {
  auto *c = reinterpret_cast<FakeComm *>(comm);
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    ++state->calls.send;
  }
  if (peer < 0 || peer >= c->group->size)
    return kInvalidArgument;
  P2p op{true, c, peer, buf, nullptr, count * sizeOf(t)};
  if (groupDepth > 0) {
    queued.push_back(op);
    return ncclSuccess;
  }
  return runP2p({op});
}
ncclResult_t recv(void *buf, size_t count, ncclDataType_t t, int peer, ncclComm_t comm,
                  CUstream) {
  auto *c = reinterpret_cast<FakeComm *>(comm);
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    ++state->calls.recv;
  }
  if (peer < 0 || peer >= c->group->size)
    return kInvalidArgument;
  P2p op{false, c, peer, nullptr, buf, count * sizeOf(t)};
  if (groupDepth > 0) {
    queued.push_back(op);
    return ncclSuccess;
  }
  return runP2p({op});
}
ncclResult_t groupStart() {
  ++groupDepth;
  return ncclSuccess;
}
ncclResult_t groupEnd() {
  if (groupDepth == 0)
    return kInvalidUsage;
  if (--groupDepth > 0)
    return ncclSuccess;
  std::vector<P2p> ops;
  ops.swap(queued);
  return runP2p(ops);
}

const NcclTable kTable = {
    getVersion, getErrorString, getUniqueId, commInitRank, commSplit, commDestroy,
    commAbort,  commGetAsyncError, allReduce, allGather, reduceScatter, send,
    recv,       groupStart,     groupEnd,
};

} // namespace

FakeNcclCalls fakeNcclCalls() {
  std::lock_guard<std::mutex> lock(state->mutex);
  return state->calls;
}

void failNextAllReduce(int result) {
  std::lock_guard<std::mutex> lock(state->mutex);
  state->failAllReduce = result;
}

void failInitRank(int result) {
  std::lock_guard<std::mutex> lock(state->mutex);
  state->failInit = result;
}

void setNcclAsyncError(int result) {
  std::lock_guard<std::mutex> lock(state->mutex);
  state->asyncError = result;
}

FakeNcclGuard::FakeNcclGuard() {
  State *old = state;
  state = new State;
  delete old;
  loadInfo.table = &kTable;
  loadInfo.version = 22809;
  loadInfo.path = "fake NCCL";
  shardrt::cuda::injectNcclForTesting(&loadInfo);
}

FakeNcclGuard::~FakeNcclGuard() { shardrt::cuda::injectNcclForTesting(nullptr); }

} // namespace shardrt_test
