//===- ReshapeRule.cpp - common factors of two shapes ---------------------===//
//
// See ReshapeRule.h for the walk and its invariant.
//
//===----------------------------------------------------------------------===//
#include "sharding/ReshapeRule.h"

#include <numeric>

namespace shardc {

namespace {

int64_t product(const std::vector<int64_t> &shape) {
  int64_t p = 1;
  for (int64_t s : shape)
    p *= s;
  return p;
}

/// One side of the walk: the current dim and its part not yet given factors.
struct Cursor {
  const std::vector<int64_t> &shape;
  FactorRule::TensorFactors &factors;
  size_t dim = 0;
  int64_t rest = 1;

  /// Moves to the next dim of size > 1 (size-1 dims index no factor).
  void enter() {
    while (dim < shape.size() && shape[dim] == 1)
      ++dim;
    rest = dim < shape.size() ? shape[dim] : 1;
  }
  bool done() const { return dim >= shape.size(); }
  void add(int f) { factors[dim].push_back(f); }
  /// After a factor took the whole remainder, moves on.
  void advanceIfConsumed() {
    if (rest == 1 && !done()) {
      ++dim;
      enter();
    }
  }
};

} // namespace

FactorRule reshapeRule(const std::vector<int64_t> &in, const std::vector<int64_t> &out) {
  FactorRuleBuilder b;
  FactorRule::TensorFactors inF(in.size()), outF(out.size());
  int64_t total = product(in);
  if (total == 0 || total != product(out)) {
    // Not a valid reshape (the verifier says so): keep every dim whole.
    for (size_t d = 0; d < in.size(); ++d)
      inF[d] = {b.factor(in[d], FactorKind::NeedReplication)};
    for (size_t d = 0; d < out.size(); ++d)
      outF[d] = {b.factor(out[d], FactorKind::NeedReplication)};
    return b.operand(inF).result(outF).build();
  }

  Cursor a{in, inF}, r{out, outF};
  a.enter();
  r.enter();
  while (!a.done() && !r.done()) {
    int64_t g = std::gcd(a.rest, r.rest);
    if (g > 1) {
      int f = b.factor(g);
      a.add(f);
      r.add(f);
      a.rest /= g;
      r.rest /= g;
    } else {
      // Coprime remainders: nothing is common until the running products of
      // the two sides meet again.
      int64_t pa = a.rest, pr = r.rest;
      a.add(b.factor(a.rest, FactorKind::NeedReplication));
      r.add(b.factor(r.rest, FactorKind::NeedReplication));
      a.rest = r.rest = 1;
      while (pa != pr) {
        Cursor &lag = pa < pr ? a : r;
        int64_t &p = pa < pr ? pa : pr;
        ++lag.dim;
        lag.enter();
        if (lag.done())
          break; // unreachable while the element counts agree
        lag.add(b.factor(lag.rest, FactorKind::NeedReplication));
        p *= lag.rest;
        lag.rest = 1;
      }
    }
    a.advanceIfConsumed();
    r.advanceIfConsumed();
  }
  return b.operand(inF).result(outF).build();
}

} // namespace shardc
