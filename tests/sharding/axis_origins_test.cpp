// AxisOrigins: each axis a value holds is traced to the annotations that
// wrote it, through links whose members hold it under one key; strongest
// round first, nearest first within a round; lost axes are never named.
#include "sharding/AxisOrigins.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace shardc;
using Hold = AxisOrigins::Hold;

namespace {
constexpr int A = 0, B = 1;

std::vector<int> sourcesOf(const AxisOrigins &o, unsigned value, int axis) {
  std::vector<int> out;
  for (auto &origin : o.origins(value, axis, 3))
    out.push_back(origin.source);
  return out;
}
} // namespace

TEST_CASE("two annotations meeting at an add: each axis names its own source and path") {
  // x: P("a", None) -> e = exp x;  z: P(None, "b") -> f = exp z;  s = add e, f.
  enum : unsigned { x, z, e, f, s };
  enum : int { exp1 = 10, exp2 = 11, add = 12 };
  AxisOrigins o;
  o.addLink(exp1, {{x, A, 0}, {e, A, 0}, {e, B, 1}});
  o.addLink(exp2, {{z, B, 1}, {f, A, 0}, {f, B, 1}});
  o.addLink(add, {{e, A, 0}, {e, B, 1}, {f, A, 0}, {f, B, 1}, {s, A, 0}, {s, B, 1}});
  o.addSource(x, A, 100, /*source=*/0);
  o.addSource(z, B, 100, /*source=*/1);
  o.solve();

  auto eb = o.origins(e, B, 3);
  REQUIRE(eb.size() == 1);
  CHECK(eb[0].source == 1);
  CHECK(eb[0].length == 2);
  CHECK(eb[0].path == std::vector<int>{exp2, add}); // z to f, then f to e at the add

  auto ea = o.origins(e, A, 3);
  REQUIRE(ea.size() == 1);
  CHECK(ea[0].source == 0);
  CHECK(ea[0].path == std::vector<int>{exp1});

  auto sa = o.origins(s, A, 3);
  REQUIRE(sa.size() == 1);
  CHECK(sa[0].path == std::vector<int>{exp1, add});

  auto xa = o.origins(x, A, 3);
  REQUIRE(xa.size() == 1);
  CHECK(xa[0].length == 0); // annotated itself
  CHECK(xa[0].path.empty());
  CHECK(o.origins(x, B, 3).empty()); // never held
}

TEST_CASE("an axis held under another key is not connected: a lost annotation is not named") {
  // r = dot(x, w): x holds "a" on factor i (result dim 0); w wrote "a" on
  // factor j (result dim 1), which lost: r holds "a" on dim 0 only.
  enum : unsigned { x, w, r };
  AxisOrigins o;
  o.addLink(7, {{x, A, /*i*/ 0}, {w, A, /*j*/ 2}, {r, A, 0}});
  o.addSource(x, A, 100, 0);
  o.addSource(w, A, 100, 1);
  o.solve();
  CHECK(sourcesOf(o, r, A) == std::vector<int>{0});
}

TEST_CASE("stronger rounds come first, nearer sources first within a round") {
  // v0 - v1 - v2 - v3 - v4, each hop one link, every value holds "a".
  AxisOrigins o;
  for (unsigned v = 0; v < 4; ++v)
    o.addLink(static_cast<int>(v) + 1, {{v, A, 0}, {v + 1, A, 0}});
  o.addSource(0, A, /*priority=*/100, /*source=*/0); // unprioritised, next to v1
  o.addSource(4, A, /*priority=*/0, /*source=*/1);   // p0, three hops from v1
  o.addSource(2, A, /*priority=*/100, /*source=*/2);
  o.solve();
  auto v1 = o.origins(1, A, 3);
  REQUIRE(v1.size() == 3);
  CHECK(v1[0].source == 1); // p0 first, although farther
  CHECK(v1[0].length == 3);
  CHECK(v1[0].path == std::vector<int>{4, 3, 2});
  CHECK(v1[1].length == 1); // then the nearest of the last round
  CHECK(v1[2].length == 1);
  CHECK(sourcesOf(o, 1, A) == std::vector<int>{1, 0, 2}); // ties: written order
}

TEST_CASE("at most kMaxOrigins origins per value and axis") {
  AxisOrigins o;
  std::vector<Hold> holds = {{0, A, 0}};
  for (unsigned v = 1; v <= 6; ++v) {
    holds.push_back({v, A, 0});
    o.addSource(v, A, 100, static_cast<int>(v));
  }
  o.addLink(1, holds);
  o.solve();
  CHECK(sourcesOf(o, 0, A) == std::vector<int>{1, 2, 3});
}

TEST_CASE("long paths keep their first and last hops; an entry op counts as the first hop") {
  AxisOrigins o;
  const unsigned n = 20;
  for (unsigned v = 0; v < n; ++v)
    o.addLink(static_cast<int>(v) + 1, {{v, A, 0}, {v + 1, A, 0}});
  o.addSource(0, A, 100, 0, /*via=*/99); // a function result's return
  o.solve();
  auto end = o.origins(n, A, 3);
  REQUIRE(end.size() == 1);
  CHECK(end[0].length == n + 1);
  CHECK(end[0].path == std::vector<int>{99, 1, 2, 18, 19, 20});
  auto near = o.origins(2, A, 3);
  REQUIRE(near.size() == 1);
  CHECK(near[0].path == std::vector<int>{99, 1, 2});
}

TEST_CASE("a hop without a via joins values but is not named or counted") {
  // Two call sites and a callee argument tied through a hub (value 9):
  // x -(call 1)- hub -(call 2)- y, and the argument joins without a via.
  enum : unsigned { x, y, arg, hub = 9 };
  AxisOrigins o;
  o.addLink(1, {{x, A, 0}, {hub, A, 0}});
  o.addLink(2, {{y, A, 0}, {hub, A, 0}});
  o.addLink(-1, {{arg, A, 0}, {hub, A, 0}});
  o.addSource(x, A, 100, 0);
  o.solve();
  auto atY = o.origins(y, A, 3);
  REQUIRE(atY.size() == 1);
  CHECK(atY[0].length == 2);
  CHECK(atY[0].path == std::vector<int>{1, 2});
  auto atArg = o.origins(arg, A, 3);
  REQUIRE(atArg.size() == 1);
  CHECK(atArg[0].path == std::vector<int>{1});
  CHECK(atArg[0].length == 1);
}

TEST_CASE("a value takes part only from its own round: a stronger source stops at it") {
  // x (p0) - c - t: c is annotated without a priority (closed and empty in
  // round p0), so x's axis reaches t only through c's own round, where c
  // itself is the nearer source.
  enum : unsigned { x, c, t };
  AxisOrigins o;
  o.addLink(1, {{x, A, 0}, {c, A, 0}});
  o.addLink(2, {{c, A, 0}, {t, A, 0}});
  o.addSource(x, A, /*priority=*/0, /*source=*/0);
  o.addSource(c, A, /*priority=*/100, /*source=*/1);
  o.activateIn(c, A, 100);
  o.solve();
  auto atT = o.origins(t, A, 3);
  REQUIRE(atT.size() == 2);
  CHECK(atT[0].source == 1); // c, in the last round: x's p0 round stopped at c
  CHECK(atT[1].source == 0); // x agrees, reaching t through c once c takes part
  auto atC = o.origins(c, A, 3);
  REQUIRE(atC.size() == 2);
  CHECK(atC[0].source == 1); // its own annotation first
}

TEST_CASE("a hold that does not receive only passes its axis on: partial sums flow forward") {
  // r = reduce x; q = reduce y (both partial over "a"); s = add r, q keeps
  // both pending: s's "a" comes from x and y, but r's never from y.
  enum : unsigned { x, y, r, q, s };
  enum : int { red1 = 10, red2 = 11, add = 12 };
  constexpr int kept = 5;
  AxisOrigins o;
  o.addLink(red1, {{x, A, 0}, {r, A, 0}});
  o.addLink(red2, {{y, A, 0}, {q, A, 0}});
  o.addLink(add, {{r, A, kept, false}, {q, A, kept, false}, {s, A, kept}});
  o.addSource(x, A, 100, /*source=*/0);
  o.addSource(y, A, 100, /*source=*/1);
  o.solve();

  CHECK(sourcesOf(o, r, A) == std::vector<int>{0});
  CHECK(sourcesOf(o, q, A) == std::vector<int>{1});
  auto sa = sourcesOf(o, s, A);
  std::sort(sa.begin(), sa.end());
  CHECK(sa == std::vector<int>{0, 1});
}
