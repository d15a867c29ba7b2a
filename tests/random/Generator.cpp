//===- Generator.cpp - random, valid garray programs ----------------------===//
#include "tests/random/Generator.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <string>

namespace shardc_random {

const std::vector<const char *> &generatedOps() {
  static const std::vector<const char *> ops = {
      "abs", "ceil", "cos", "exp", "expm1", "floor", "log", "log1p", "logistic", "neg", "not",
      "round", "rsqrt", "sign", "sin", "sqrt", "tanh", "clamp", "add", "and", "div", "max",
      "min", "mul", "or", "pow", "rem", "sub", "xor", "shift_left", "shift_right_logical",
      "shift_right_arithmetic", "compare", "select", "convert",
      "constant", "iota", "broadcast_in_dim", "reshape", "transpose", "slice", "pad",
      "concatenate", "reverse", "shift", "dot_general", "reduce", "mean", "argmax", "argmin",
      "gather", "scatter_add", "scatter_reduce", "sharding_constraint", "reshard", "sgd_update",
      "momentum_update", "adam_update", "clip_by_global_norm", "call"};
  return ops;
}

namespace {

constexpr double kU = 1.0 / (1 << 24); // f32 unit roundoff
constexpr double kT = 64 * kU;         // a transcendental function's error, relative
constexpr double kI32Min = -2147483648.0, kI32Max = 2147483647.0;

/// What the generator knows of a value.
struct Info {
  double lo = 0, hi = 0;
  bool exact = true; // f32 (or the integer type) holds it exactly
  int grid = 0;      // exact floats are multiples of 2^-grid
  double err = 0;    // bound on |f32 evaluation - exact value|
  double mag() const { return std::max(std::fabs(lo), std::fabs(hi)); }
};

/// An exact float stays exact while its integer numerator fits f32's 24 bits.
Info settle(Info i, Dtype d) {
  if (isFloat(d) && i.exact && (i.grid > 40 || i.mag() * std::ldexp(1.0, i.grid) >= (1 << 24))) {
    i.exact = false;
    i.err += kU * i.mag();
  }
  if (!isFloat(d))
    i.exact = true, i.err = 0;
  return i;
}

Info intRange(Dtype d, double lo, double hi) {
  Info i;
  if (d == Dtype::I1)
    lo = 0, hi = 1;
  else if (d == Dtype::I32 && (lo < kI32Min || hi > kI32Max))
    lo = kI32Min, hi = kI32Max; // wrapped: anything
  i.lo = lo, i.hi = hi;
  return i;
}

Info join(const Info &a, const Info &b) {
  Info r;
  r.lo = std::min(a.lo, b.lo), r.hi = std::max(a.hi, b.hi);
  r.exact = a.exact && b.exact, r.grid = std::max(a.grid, b.grid);
  r.err = std::max(a.err, b.err);
  return r;
}

struct Builder {
  Function f;
  std::vector<Info> info;
  std::vector<int> uses;
  bool isMain = false;
  int depth = 0;
};

class Gen {
public:
  Gen(uint64_t seed, const GeneratorOptions &opt) : rng_(seed), opt_(opt) { prog_.seed = seed; }

  Generated run() {
    prog_.axes = chance(0.5) ? std::vector<std::string>{"x"} : std::vector<std::string>{"x", "y"};
    Builder main;
    main.isMain = true;
    main.f.name = "main";
    int nargs = static_cast<int>(uniform(2, 4));
    for (int i = 0; i < nargs; ++i)
      fresh(main, randomType(chance(0.8) ? Dtype::F32 : Dtype::I32));
    body(main, static_cast<int>(uniform(opt_.minOps, opt_.maxOps)));
    Generated g;
    finishResults(main, 6);
    for (int r : main.f.results)
      g.tolerance.push_back(isFloat(main.f.valueTypes[r].dtype) ? main.info[r].err : 0.0);
    prog_.functions.push_back(std::move(main.f));
    g.program = std::move(prog_);
    return g;
  }

private:
  //===--------------------------------------------------------------------===//
  // Randomness (std::mt19937_64 output is fixed by the standard; no
  // std::*_distribution, whose output is not)
  //===--------------------------------------------------------------------===//

  int64_t uniform(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(rng_() % static_cast<uint64_t>(hi - lo + 1));
  }
  bool chance(double p) { return static_cast<double>(rng_() >> 11) * 0x1.0p-53 < p; }
  template <typename T> const T &oneOf(const std::vector<T> &v) {
    return v[static_cast<size_t>(uniform(0, static_cast<int64_t>(v.size()) - 1))];
  }

  Type randomType(Dtype d, int minRank = 0, int maxRank = 3) {
    Type t{d, {}};
    int rank = static_cast<int>(uniform(minRank, maxRank));
    static const std::vector<int64_t> sizes = {1, 2, 3, 4, 5, 6, 7, 8};
    for (int i = 0; i < rank; ++i) {
      int64_t s = oneOf(sizes);
      while (s > 1 && t.numel() * s > opt_.maxElements / 2)
        s /= 2;
      t.shape.push_back(s);
    }
    return t;
  }

  /// A P(...) spec for a value of `rank`: each dim replicated, on one
  /// axis, or on two (2-D meshes); optionally open and prioritized.
  std::string randomSpec(int64_t rank, bool allowOpen, bool allowPriority) {
    std::vector<std::string> unused = prog_.axes;
    std::string s = "P(";
    for (int64_t d = 0; d < rank; ++d) {
      std::string e;
      double r = static_cast<double>(uniform(0, 99)) / 100;
      auto take = [&]() {
        size_t k = static_cast<size_t>(uniform(0, static_cast<int64_t>(unused.size()) - 1));
        std::string a = "\"" + unused[k] + "\"";
        unused.erase(unused.begin() + static_cast<long>(k));
        return a;
      };
      if (r < 0.4 || unused.empty()) {
        e = allowOpen && chance(0.1) ? "?" : "None";
      } else if (r < 0.85 || unused.size() < 2) {
        e = take();
      } else {
        std::string a = take();
        e = "(" + a + ", " + take() + ")";
      }
      if (e != "None" && e != "?") {
        if (allowOpen && chance(0.15))
          e += "?";
        if (allowPriority && chance(0.15))
          e += " p" + std::to_string(uniform(0, 1));
      }
      s += (d ? ", " : "") + e;
    }
    return s + ")";
  }

  //===--------------------------------------------------------------------===//
  // Values
  //===--------------------------------------------------------------------===//

  int emit(Builder &b, Op op, const std::vector<Info> &infos) {
    for (int o : op.operands)
      ++b.uses[o];
    for (size_t i = 0; i < op.results.size(); ++i) {
      op.resultIds.push_back(static_cast<int>(b.f.valueTypes.size()));
      b.f.valueTypes.push_back(op.results[i]);
      b.info.push_back(settle(infos[i], op.results[i].dtype));
      b.uses.push_back(0);
    }
    int first = op.resultIds[0];
    b.f.ops.push_back(std::move(op));
    return first;
  }

  int newValue(Builder &b, const Type &t, const Info &i) {
    int id = static_cast<int>(b.f.valueTypes.size());
    b.f.valueTypes.push_back(t);
    b.info.push_back(i);
    b.uses.push_back(0);
    return id;
  }

  /// A new argument of main (random sharding) or, in a helper, a constant.
  /// Floats are on the grid k/8 in [lo, hi]; integers in [lo, hi].
  int fresh(Builder &b, const Type &t, double lo = -2, double hi = 2) {
    if (t.dtype == Dtype::I32 && lo == -2 && hi == 2)
      lo = -20, hi = 20;
    if (t.dtype == Dtype::I1)
      lo = 0, hi = 1;
    if (!b.isMain || chance(0.2))
      return constant(b, t, lo, hi);
    Info i;
    i.lo = lo, i.hi = hi, i.grid = isFloat(t.dtype) ? 3 : 0;
    int id = newValue(b, t, i);
    Function &f = b.f;
    f.argIds.push_back(id);
    f.args.push_back(t);
    f.argNames.push_back("in" + std::to_string(f.args.size() - 1));
    f.argSpecs.push_back(chance(0.85) ? randomSpec(t.rank(), true, true) : "");
    f.argDomains.push_back(InputDomain{lo, hi, isFloat(t.dtype) ? 3 : 0});
    return id;
  }

  /// A constant: a splat, or (small shapes) random elements, on the grid
  /// k/4 in [lo, hi] for floats.
  int constant(Builder &b, const Type &t, double lo, double hi) {
    Op op;
    op.name = "constant";
    op.results = {t};
    int n = t.numel() <= 48 && chance(0.5) ? static_cast<int>(t.numel()) : 1;
    Info i;
    i.grid = isFloat(t.dtype) ? 2 : 0;
    double scale = isFloat(t.dtype) ? 4 : 1;
    i.lo = INFINITY, i.hi = -INFINITY;
    for (int k = 0; k < n; ++k) {
      double v = static_cast<double>(uniform(static_cast<int64_t>(std::ceil(lo * scale)),
                                             static_cast<int64_t>(std::floor(hi * scale)))) /
                 scale;
      op.values.push_back(v);
      i.lo = std::min(i.lo, v), i.hi = std::max(i.hi, v);
    }
    return emit(b, std::move(op), {i});
  }

  int splat(Builder &b, const Type &t, double v) {
    Op op;
    op.name = "constant";
    op.results = {t};
    op.values = {v};
    Info i;
    i.lo = i.hi = v, i.grid = isFloat(t.dtype) ? 3 : 0;
    return emit(b, std::move(op), {i});
  }

  bool noisy(const Builder &b, int id) const {
    const Info &i = b.info[id];
    return i.err > 1e-3 * std::max(1.0, i.mag());
  }

  /// A value satisfying `pred`, recent ones more likely; -1 if none.
  int pick(Builder &b, const std::function<bool(int)> &pred) {
    std::vector<int> c;
    for (int id = 0; id < static_cast<int>(b.f.valueTypes.size()); ++id)
      if (!noisy(b, id) && pred(id))
        c.push_back(id);
    if (c.empty())
      return -1;
    // Prefer values nothing uses yet, so that programs chain instead of
    // leaving dead code the compiler would drop.
    std::vector<int> unused;
    for (int id : c)
      if (b.uses[id] == 0)
        unused.push_back(id);
    if (!unused.empty() && chance(0.6))
      c = unused;
    if (c.size() > 4 && chance(0.6))
      c.erase(c.begin(), c.end() - 4);
    return oneOf(c);
  }
  int pickOfType(Builder &b, const Type &t) {
    return pick(b, [&](int id) { return b.f.valueTypes[id] == t; });
  }
  /// Another value of `t`: from the pool or fresh.
  int partner(Builder &b, const Type &t) {
    int id = chance(0.5) ? pickOfType(b, t) : -1;
    return id >= 0 ? id : fresh(b, t);
  }
  // By value: adding a value may reallocate valueTypes under a reference.
  Type type(Builder &b, int id) { return b.f.valueTypes[id]; }

  //===--------------------------------------------------------------------===//
  // Elementwise ops and the fixes that keep them in their domains
  //===--------------------------------------------------------------------===//

  int unary(Builder &b, const std::string &name, int x) {
    const Info &i = b.info[x];
    Dtype d = type(b, x).dtype;
    Info r = i;
    auto mono = [&](double (*f)(double)) { r.lo = f(i.lo), r.hi = f(i.hi); };
    if (name == "abs") {
      r.lo = i.lo <= 0 && i.hi >= 0 ? 0 : std::min(std::fabs(i.lo), std::fabs(i.hi));
      r.hi = i.mag();
      if (!isFloat(d))
        r = intRange(d, r.lo, r.hi >= -kI32Min ? 1e300 : r.hi);
    } else if (name == "neg") {
      r.lo = -i.hi, r.hi = -i.lo;
      if (!isFloat(d))
        r = intRange(d, r.lo, i.lo <= kI32Min ? 1e300 : r.hi);
    } else if (name == "not") {
      r = d == Dtype::I1 ? intRange(d, 0, 1) : intRange(d, -i.hi - 1, -i.lo - 1);
    } else if (name == "sign") {
      r.lo = i.lo > 0 ? 1 : i.lo < 0 ? -1 : 0, r.hi = i.hi > 0 ? 1 : i.hi < 0 ? -1 : 0;
      r.grid = 0;
    } else if (name == "floor" || name == "ceil" || name == "round") {
      mono(name == "floor" ? static_cast<double (*)(double)>(std::floor)
           : name == "ceil" ? static_cast<double (*)(double)>(std::ceil)
                            : static_cast<double (*)(double)>(std::nearbyint));
      r.grid = 0;
    } else {
      r.exact = false;
      if (name == "exp" || name == "expm1") {
        mono(name == "exp" ? static_cast<double (*)(double)>(std::exp)
                           : static_cast<double (*)(double)>(std::expm1));
        r.err = std::exp(i.hi) * i.err + kT * std::max(1.0, std::exp(i.hi));
      } else if (name == "log" || name == "log1p") {
        mono(name == "log" ? static_cast<double (*)(double)>(std::log)
                           : static_cast<double (*)(double)>(std::log1p));
        double lo = name == "log" ? i.lo : 1 + i.lo;
        r.err = i.err / lo + kT * std::max(1.0, r.mag());
      } else if (name == "logistic" || name == "tanh") {
        if (name == "tanh")
          mono(static_cast<double (*)(double)>(std::tanh));
        else
          r.lo = 1 / (1 + std::exp(-i.lo)), r.hi = 1 / (1 + std::exp(-i.hi));
        r.err = i.err + kT;
      } else if (name == "sin" || name == "cos") {
        r.lo = -1, r.hi = 1, r.err = i.err + 4 * kT * std::max(1.0, i.mag());
      } else if (name == "sqrt") {
        mono(static_cast<double (*)(double)>(std::sqrt));
        r.err = (i.err > 0 ? i.err / (2 * std::sqrt(i.lo)) : 0) + kT * r.hi;
      } else if (name == "rsqrt") {
        r.lo = 1 / std::sqrt(i.hi), r.hi = 1 / std::sqrt(i.lo);
        r.err = i.err * 0.5 * std::pow(i.lo, -1.5) + kT * r.hi;
      }
    }
    Op op;
    op.name = name;
    op.operands = {x};
    op.results = {type(b, x)};
    return emit(b, std::move(op), {r});
  }

  int binary(Builder &b, const std::string &name, int x, int y) {
    const Info &p = b.info[x], &q = b.info[y];
    Dtype d = type(b, x).dtype;
    Info r;
    double c[4] = {p.lo * q.lo, p.lo * q.hi, p.hi * q.lo, p.hi * q.hi};
    if (name == "add" || name == "sub") {
      r.lo = name == "add" ? p.lo + q.lo : p.lo - q.hi;
      r.hi = name == "add" ? p.hi + q.hi : p.hi - q.lo;
      r.exact = p.exact && q.exact, r.grid = std::max(p.grid, q.grid);
      r.err = p.err + q.err + (r.exact ? 0 : kU * r.mag());
    } else if (name == "mul") {
      r.lo = *std::min_element(c, c + 4), r.hi = *std::max_element(c, c + 4);
      r.exact = p.exact && q.exact, r.grid = p.grid + q.grid;
      r.err = p.err * q.mag() + q.err * p.mag() + p.err * q.err + (r.exact ? 0 : kU * r.mag());
    } else if (name == "div" && isFloat(d)) {
      double m = std::min(std::fabs(q.lo), std::fabs(q.hi));
      double e[4] = {p.lo / q.lo, p.lo / q.hi, p.hi / q.lo, p.hi / q.hi};
      r.lo = *std::min_element(e, e + 4), r.hi = *std::max_element(e, e + 4);
      r.exact = false;
      r.err = (p.err + r.mag() * q.err) / m + 4 * kU * r.mag();
    } else if (name == "pow") {
      double e[4] = {std::pow(p.lo, q.lo), std::pow(p.lo, q.hi), std::pow(p.hi, q.lo),
                     std::pow(p.hi, q.hi)};
      r.lo = *std::min_element(e, e + 4), r.hi = *std::max_element(e, e + 4);
      r.exact = false;
      double lnMax = std::max(std::fabs(std::log(p.lo)), std::fabs(std::log(p.hi)));
      r.err = r.hi * (q.mag() * p.err / p.lo + lnMax * q.err) + kT * r.hi;
    } else if (name == "rem") {
      double m = q.mag();
      r.lo = p.lo < 0 ? -m : 0, r.hi = p.hi > 0 ? m : 0;
      if (!isFloat(d))
        r.lo = std::min(r.lo, p.lo), r.hi = std::max(r.hi, p.hi);
      r.grid = std::max(p.grid, q.grid);
    } else if (name == "div") { // integers: x / 0 is -1
      double m = std::max(p.mag(), 1.0);
      r.lo = -m, r.hi = m;
    } else if (name == "max" || name == "min") {
      r = join(p, q);
      r.lo = name == "max" ? std::max(p.lo, q.lo) : std::min(p.lo, q.lo);
      r.hi = name == "max" ? std::max(p.hi, q.hi) : std::min(p.hi, q.hi);
    } else if (name == "shift_left") {
      r.lo = kI32Min, r.hi = kI32Max; // any bits
    } else if (name == "shift_right_logical") {
      r.lo = 0, r.hi = p.lo >= 0 ? p.hi : kI32Max; // a negative x shifted by 0 stays below 0
      if (p.lo < 0)
        r.lo = p.lo;
    } else if (name == "shift_right_arithmetic") {
      r.lo = std::min(p.lo, 0.0), r.hi = std::max(p.hi, 0.0);
    } else { // and, or, xor
      double m = std::max(p.mag(), q.mag()) + 1;
      double bits = std::ldexp(1.0, static_cast<int>(std::ceil(std::log2(m))));
      r.lo = p.lo >= 0 && q.lo >= 0 ? 0 : -bits, r.hi = bits - 1;
    }
    if (!isFloat(d))
      r = intRange(d, r.lo, r.hi);
    Op op;
    op.name = name;
    op.operands = {x, y};
    op.results = {type(b, x)};
    return emit(b, std::move(op), {r});
  }

  /// `x` with lo >= 0.25 (abs, + 0.5 where needed).
  int positive(Builder &b, int x) {
    if (b.info[x].lo >= 0.25)
      return x;
    int a = b.info[x].lo >= 0 ? x : unary(b, "abs", x);
    return binary(b, "add", a, splat(b, type(b, x), 0.5));
  }
  /// `x` with |x| <= limit (tanh where needed).
  int tame(Builder &b, int x, double limit) {
    return b.info[x].mag() <= limit ? x : unary(b, "tanh", x);
  }

  bool isF32(Builder &b, int id) { return type(b, id).dtype == Dtype::F32; }
  bool isExactNumber(Builder &b, int id) {
    Dtype d = type(b, id).dtype;
    return d == Dtype::I32 || (d == Dtype::F32 && b.info[id].exact);
  }

  bool buildUnaryFloat(Builder &b) {
    static const std::vector<std::string> ops = {
        "abs", "ceil", "cos", "exp",  "expm1", "floor", "log",  "log1p", "logistic",
        "neg", "round", "rsqrt", "sign", "sin", "sqrt", "tanh"};
    std::string name = oneOf(ops);
    bool needsExact = name == "ceil" || name == "floor" || name == "round" || name == "sign";
    int x = pick(b, [&](int id) { return isF32(b, id) && (!needsExact || b.info[id].exact); });
    if (x < 0)
      return false;
    if (name == "log" || name == "rsqrt" || name == "sqrt")
      x = positive(b, tame(b, x, 100));
    else if (name == "log1p")
      x = positive(b, tame(b, x, 100));
    else if (name == "exp" || name == "expm1")
      x = tame(b, x, 4);
    else if (name == "sin" || name == "cos")
      x = tame(b, x, 16);
    unary(b, name, x);
    return true;
  }

  bool buildUnaryInt(Builder &b) {
    int x = pick(b, [&](int id) { return !isF32(b, id) && type(b, id).dtype != Dtype::I64; });
    if (x < 0)
      return false;
    if (type(b, x).dtype == Dtype::I1) {
      unary(b, "not", x);
      return true;
    }
    unary(b, oneOf(std::vector<std::string>{"abs", "neg", "sign", "not"}), x);
    return true;
  }

  bool buildBinaryFloat(Builder &b) {
    static const std::vector<std::string> ops = {"add", "sub", "mul", "div", "max",
                                                 "min", "pow", "rem"};
    std::string name = oneOf(ops);
    bool exactOnly = name == "rem";
    int x = pick(b, [&](int id) { return isF32(b, id) && (!exactOnly || b.info[id].exact); });
    if (x < 0)
      return false;
    const Type t = type(b, x);
    int y = partner(b, t);
    if (exactOnly && !b.info[y].exact)
      return false;
    if (name == "mul") {
      x = tame(b, x, 64), y = tame(b, y, 64);
    } else if (name == "div") {
      y = positive(b, tame(b, y, 64));
      if (chance(0.5))
        y = unary(b, "neg", y);
    } else if (name == "pow") {
      x = positive(b, tame(b, x, 4));
      y = tame(b, y, 2);
    } else if (name == "rem") {
      if (b.info[y].lo <= 0 && b.info[y].hi >= 0)
        y = positive(b, y);
      if (!b.info[y].exact)
        return false;
    } else if (name == "add" || name == "sub") {
      x = tame(b, x, 1e4), y = tame(b, y, 1e4);
    }
    binary(b, name, x, y);
    return true;
  }

  bool buildBinaryInt(Builder &b) {
    static const std::vector<std::string> ops = {
        "add", "sub", "mul", "div", "rem", "max", "min", "and", "or", "xor",
        "shift_left", "shift_right_logical", "shift_right_arithmetic"};
    int x = pick(b, [&](int id) { return type(b, id).dtype == Dtype::I32; });
    if (x < 0)
      return false;
    int y = partner(b, type(b, x));
    binary(b, oneOf(ops), x, y);
    return true;
  }

  bool buildBinaryBool(Builder &b) {
    int x = pick(b, [&](int id) { return type(b, id).dtype == Dtype::I1; });
    if (x < 0)
      return false;
    int y = partner(b, type(b, x));
    binary(b, oneOf(std::vector<std::string>{"and", "or", "xor", "max", "min"}), x, y);
    return true;
  }

  bool buildClamp(Builder &b) {
    int x = pick(b, [&](int id) { return type(b, id).dtype == Dtype::F32 ||
                                         type(b, id).dtype == Dtype::I32; });
    if (x < 0)
      return false;
    const Type t = type(b, x);
    int lo = partner(b, t), hi = partner(b, t);
    const Info &X = b.info[x], &L = b.info[lo], &H = b.info[hi];
    Info r = join(join(X, L), H);
    r.lo = std::min(std::max(X.lo, L.lo), H.lo);
    r.hi = std::min(std::max(X.hi, L.hi), H.hi);
    Op op;
    op.name = "clamp";
    op.operands = {lo, x, hi};
    op.results = {t};
    emit(b, std::move(op), {r});
    return true;
  }

  bool buildCompare(Builder &b) {
    int x = pick(b, [&](int id) { return isExactNumber(b, id) || !isF32(b, id); });
    if (x < 0)
      return false;
    const Type t = type(b, x);
    int y = partner(b, t);
    if (!b.info[y].exact)
      return false;
    Op op;
    op.name = "compare";
    op.kind = oneOf(std::vector<std::string>{"eq", "ne", "lt", "le", "gt", "ge"});
    op.operands = {x, y};
    op.results = {Type{Dtype::I1, t.shape}};
    emit(b, std::move(op), {intRange(Dtype::I1, 0, 1)});
    return true;
  }

  bool buildSelect(Builder &b) {
    int p = pick(b, [&](int id) { return type(b, id).dtype == Dtype::I1; });
    if (p < 0)
      return false;
    const std::vector<int64_t> shape = type(b, p).shape;
    int x = pick(b, [&](int id) { return type(b, id).shape == shape; });
    const Type t = type(b, x);
    int y = partner(b, t);
    Op op;
    op.name = "select";
    op.operands = {p, x, y};
    op.results = {t};
    emit(b, std::move(op), {join(b.info[x], b.info[y])});
    return true;
  }

  bool buildConvert(Builder &b) {
    int x = pick(b, [&](int) { return true; });
    const Type t = type(b, x);
    const Info &i = b.info[x];
    std::vector<Dtype> targets;
    switch (t.dtype) {
    case Dtype::F32:
      if (i.exact && i.mag() < 1e9)
        targets = {Dtype::I32, Dtype::I64, Dtype::I1};
      break;
    case Dtype::I32:
      targets = {Dtype::I64, Dtype::I1};
      if (i.mag() < (1 << 24))
        targets.push_back(Dtype::F32);
      break;
    case Dtype::I64:
      targets = {Dtype::I32, Dtype::I1};
      if (i.mag() < (1 << 24))
        targets.push_back(Dtype::F32);
      break;
    case Dtype::I1:
      targets = {Dtype::F32, Dtype::I32, Dtype::I64};
      break;
    }
    if (targets.empty())
      return false;
    Dtype to = oneOf(targets);
    Op op;
    op.name = "convert";
    op.operands = {x};
    op.results = {Type{to, t.shape}};
    // Exact: from i1, or i32 -> i64; everything else may lose information.
    op.flag = !(t.dtype == Dtype::I1 || (t.dtype == Dtype::I32 && to == Dtype::I64));
    Info r;
    if (to == Dtype::I1)
      r = intRange(to, 0, 1);
    else if (to == Dtype::F32)
      r.lo = i.lo, r.hi = i.hi, r.grid = 0;
    else
      r = intRange(to, std::trunc(i.lo), std::trunc(i.hi));
    emit(b, std::move(op), {r});
    return true;
  }

  bool buildIota(Builder &b) {
    Type t = randomType(oneOf(std::vector<Dtype>{Dtype::F32, Dtype::I32, Dtype::I64}), 1, 3);
    Op op;
    op.name = "iota";
    op.dim = uniform(0, t.rank() - 1);
    op.results = {t};
    Info r;
    r.lo = 0, r.hi = static_cast<double>(t.shape[op.dim] - 1);
    emit(b, std::move(op), {r});
    return true;
  }

  bool buildConstant(Builder &b) {
    constant(b, randomType(chance(0.8) ? Dtype::F32 : Dtype::I32), -2, 2);
    return true;
  }

  //===--------------------------------------------------------------------===//
  // Shape ops
  //===--------------------------------------------------------------------===//

  int shaped(Builder &b, const std::string &name, std::vector<int> operands, const Type &rt,
             Info r, std::function<void(Op &)> attrs) {
    Op op;
    op.name = name;
    op.operands = std::move(operands);
    op.results = {rt};
    attrs(op);
    return emit(b, std::move(op), {r});
  }

  bool buildBroadcast(Builder &b) {
    int x = pick(b, [&](int id) { return type(b, id).rank() <= 3; });
    const Type t = type(b, x);
    int extra = static_cast<int>(uniform(t.rank() == 0 ? 1 : 0, std::min<int64_t>(2, 4 - t.rank())));
    int64_t rank = t.rank() + extra;
    // Choose the result positions of the operand dims (increasing).
    std::vector<int64_t> pos(static_cast<size_t>(rank));
    for (int64_t i = 0; i < rank; ++i)
      pos[i] = i;
    while (static_cast<int64_t>(pos.size()) > t.rank())
      pos.erase(pos.begin() + uniform(0, static_cast<int64_t>(pos.size()) - 1));
    Type rt{t.dtype, std::vector<int64_t>(static_cast<size_t>(rank), 0)};
    for (int64_t i = 0; i < t.rank(); ++i)
      rt.shape[pos[i]] = t.shape[i] == 1 && chance(0.4) ? uniform(2, 5) : t.shape[i];
    for (int64_t &s : rt.shape)
      if (s == 0)
        s = uniform(1, 5);
    if (rt.numel() > opt_.maxElements)
      return false;
    shaped(b, "broadcast_in_dim", {x}, rt, b.info[x], [&](Op &op) { op.a = pos; });
    return true;
  }

  bool buildReshape(Builder &b) {
    int x = pick(b, [&](int id) { return type(b, id).rank() >= 1; });
    if (x < 0)
      return false;
    const Type t = type(b, x);
    Type rt{t.dtype, t.shape};
    int mode = static_cast<int>(uniform(0, 3));
    if (mode == 0) { // flatten
      rt.shape = {t.numel()};
    } else if (mode == 1 && t.rank() >= 2) { // merge two adjacent dims
      int64_t d = uniform(0, t.rank() - 2);
      rt.shape[d] *= rt.shape[d + 1];
      rt.shape.erase(rt.shape.begin() + d + 1);
    } else if (mode == 2 && t.rank() <= 3) { // split a dim into two factors
      int64_t d = uniform(0, t.rank() - 1);
      std::vector<int64_t> f;
      for (int64_t k = 1; k <= t.shape[d]; ++k)
        if (t.shape[d] % k == 0)
          f.push_back(k);
      int64_t k = oneOf(f);
      rt.shape[d] = k;
      rt.shape.insert(rt.shape.begin() + d + 1, t.shape[d] / k);
    } else { // any shape with the same count: factor it at random
      int64_t n = t.numel();
      rt.shape.clear();
      while (n > 1 && rt.shape.size() < 3) {
        std::vector<int64_t> f;
        for (int64_t k = 2; k <= n; ++k)
          if (n % k == 0)
            f.push_back(k);
        int64_t k = rt.shape.size() == 2 ? n : oneOf(f);
        rt.shape.push_back(k);
        n /= k;
      }
      if (rt.shape.empty())
        rt.shape = {1};
    }
    if (rt.shape == t.shape)
      return false;
    shaped(b, "reshape", {x}, rt, b.info[x], [](Op &) {});
    return true;
  }

  std::vector<int64_t> permutation(int64_t n) {
    std::vector<int64_t> p(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      p[i] = i;
    for (int64_t i = n - 1; i > 0; --i)
      std::swap(p[i], p[uniform(0, i)]);
    return p;
  }

  bool buildTranspose(Builder &b) {
    int x = pick(b, [&](int id) { return type(b, id).rank() >= 2; });
    if (x < 0)
      return false;
    const Type t = type(b, x);
    std::vector<int64_t> perm = permutation(t.rank());
    Type rt{t.dtype, {}};
    for (int64_t p : perm)
      rt.shape.push_back(t.shape[p]);
    shaped(b, "transpose", {x}, rt, b.info[x], [&](Op &op) { op.a = perm; });
    return true;
  }

  bool buildSlice(Builder &b) {
    int x = pick(b, [&](int id) { return type(b, id).rank() >= 1; });
    if (x < 0)
      return false;
    const Type t = type(b, x);
    Type rt{t.dtype, {}};
    std::vector<int64_t> start, limit, strides;
    for (int64_t s : t.shape) {
      int64_t st = 0, li = s, sd = 1;
      if (chance(0.6)) {
        st = uniform(0, s - 1), li = uniform(st + 1, s), sd = uniform(1, 3);
      }
      start.push_back(st), limit.push_back(li), strides.push_back(sd);
      rt.shape.push_back((li - st + sd - 1) / sd);
    }
    shaped(b, "slice", {x}, rt, b.info[x], [&](Op &op) {
      op.a = start, op.b = limit, op.c = strides;
    });
    return true;
  }

  int scalarFill(Builder &b, Dtype d) { return constant(b, Type{d, {}}, -2, 2); }

  bool buildPad(Builder &b) {
    int x = pick(b, [&](int id) { return type(b, id).rank() >= 1; });
    if (x < 0)
      return false;
    const Type t = type(b, x);
    int fill = scalarFill(b, t.dtype);
    Type rt = t;
    std::vector<int64_t> low, high;
    for (int64_t d = 0; d < t.rank(); ++d) {
      low.push_back(chance(0.5) ? uniform(0, 2) : 0);
      high.push_back(chance(0.5) ? uniform(0, 2) : 0);
      rt.shape[d] += low.back() + high.back();
    }
    if (rt.numel() > opt_.maxElements)
      return false;
    shaped(b, "pad", {x, fill}, rt, join(b.info[x], b.info[fill]), [&](Op &op) {
      op.a = low, op.b = high;
    });
    return true;
  }

  bool buildConcatenate(Builder &b) {
    int x = pick(b, [&](int id) { return type(b, id).rank() >= 1; });
    if (x < 0)
      return false;
    const Type t = type(b, x);
    int64_t dim = uniform(0, t.rank() - 1);
    std::vector<int> operands = {x};
    Info r = b.info[x];
    Type rt = t;
    int n = static_cast<int>(uniform(1, 2));
    for (int k = 0; k < n; ++k) {
      int y = pick(b, [&](int id) {
        const Type &u = type(b, id);
        if (u.dtype != t.dtype || u.rank() != t.rank())
          return false;
        for (int64_t d = 0; d < t.rank(); ++d)
          if (d != dim && u.shape[d] != t.shape[d])
            return false;
        return true;
      });
      if (y < 0 || chance(0.4)) {
        Type u = t;
        u.shape[dim] = uniform(1, 5);
        y = fresh(b, u);
      }
      operands.push_back(y);
      r = join(r, b.info[y]);
      rt.shape[dim] += type(b, y).shape[dim];
    }
    if (rt.numel() > opt_.maxElements)
      return false;
    shaped(b, "concatenate", operands, rt, r, [&](Op &op) { op.dim = dim; });
    return true;
  }

  bool buildReverse(Builder &b) {
    int x = pick(b, [&](int id) { return type(b, id).rank() >= 1; });
    if (x < 0)
      return false;
    const Type t = type(b, x);
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < t.rank(); ++d)
      if (chance(0.5))
        dims.push_back(d);
    if (dims.empty())
      dims.push_back(uniform(0, t.rank() - 1));
    shaped(b, "reverse", {x}, t, b.info[x], [&](Op &op) { op.a = dims; });
    return true;
  }

  bool buildShift(Builder &b) {
    int x = pick(b, [&](int id) {
      for (int64_t s : type(b, id).shape)
        if (s >= 2)
          return true;
      return false;
    });
    if (x < 0)
      return false;
    const Type t = type(b, x);
    int64_t dim;
    do
      dim = uniform(0, t.rank() - 1);
    while (t.shape[dim] < 2);
    int64_t offset = uniform(1, t.shape[dim] - 1) * (chance(0.5) ? 1 : -1);
    int fill = scalarFill(b, t.dtype);
    shaped(b, "shift", {x, fill}, t, join(b.info[x], b.info[fill]), [&](Op &op) {
      op.dim = dim, op.offset = offset;
    });
    return true;
  }

  //===--------------------------------------------------------------------===//
  // Contractions and reductions
  //===--------------------------------------------------------------------===//

  bool buildDot(Builder &b) {
    int x = pick(b, [&](int id) { return isF32(b, id) && type(b, id).rank() >= 1; });
    if (x < 0)
      return false;
    x = tame(b, x, 8);
    const Type lt = type(b, x);
    std::vector<int64_t> order = permutation(lt.rank());
    int64_t nc = uniform(1, std::min<int64_t>(2, lt.rank()));
    int64_t nb = lt.rank() > nc ? uniform(0, std::min<int64_t>(1, lt.rank() - nc)) : 0;
    std::vector<int64_t> lc(order.begin(), order.begin() + nc);
    std::vector<int64_t> lb(order.begin() + nc, order.begin() + nc + nb);
    int64_t nfree = uniform(0, 2);
    // rhs dims: batch, contracting, free, in a random order.
    int64_t rrank = nb + nc + nfree;
    std::vector<int64_t> rpos = permutation(rrank);
    Type rt{Dtype::F32, std::vector<int64_t>(static_cast<size_t>(rrank))};
    std::vector<int64_t> rb, rc;
    for (int64_t i = 0; i < nb; ++i)
      rb.push_back(rpos[i]), rt.shape[rpos[i]] = lt.shape[lb[i]];
    for (int64_t i = 0; i < nc; ++i)
      rc.push_back(rpos[nb + i]), rt.shape[rpos[nb + i]] = lt.shape[lc[i]];
    for (int64_t i = 0; i < nfree; ++i)
      rt.shape[rpos[nb + nc + i]] = uniform(1, 6);
    Type out{Dtype::F32, {}};
    for (int64_t d : lb)
      out.shape.push_back(lt.shape[d]);
    for (int64_t d = 0; d < lt.rank(); ++d)
      if (std::find(lb.begin(), lb.end(), d) == lb.end() &&
          std::find(lc.begin(), lc.end(), d) == lc.end())
        out.shape.push_back(lt.shape[d]);
    for (int64_t d = 0; d < rrank; ++d)
      if (std::find(rb.begin(), rb.end(), d) == rb.end() &&
          std::find(rc.begin(), rc.end(), d) == rc.end())
        out.shape.push_back(rt.shape[d]);
    if (out.rank() > 4 || out.numel() > opt_.maxElements || rt.numel() > opt_.maxElements)
      return false;
    int y = tame(b, partner(b, rt), 8);
    const Info &p = b.info[x], &q = b.info[y];
    double k = 1;
    for (int64_t d : lc)
      k *= static_cast<double>(lt.shape[d]);
    Info r;
    double m = k * p.mag() * q.mag();
    r.lo = -m, r.hi = m;
    r.exact = p.exact && q.exact, r.grid = p.grid + q.grid;
    r.err = k * (p.err * q.mag() + q.err * p.mag() + p.err * q.err) + k * kU * m;
    if (r.exact && m * std::ldexp(1.0, r.grid) < (1 << 24))
      r.err = 0;
    shaped(b, "dot_general", {x, y}, out, r, [&](Op &op) {
      op.a = lb, op.b = rb, op.c = lc, op.d = rc;
    });
    return true;
  }

  /// A non-empty random subset of [0, rank), sorted.
  std::vector<int64_t> someDims(int64_t rank) {
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < rank; ++d)
      if (chance(0.5))
        dims.push_back(d);
    if (dims.empty())
      dims.push_back(uniform(0, rank - 1));
    return dims;
  }

  /// How many elements each result element of a reduction over `dims` reads.
  static double elementsOver(const Type &t, const std::vector<int64_t> &dims) {
    double n = 1;
    for (int64_t d : dims)
      n *= static_cast<double>(t.shape[d]);
    return n;
  }

  Type reducedType(const Type &t, const std::vector<int64_t> &dims, bool keep, Dtype d) {
    Type r{d, {}};
    for (int64_t i = 0; i < t.rank(); ++i) {
      bool red = std::find(dims.begin(), dims.end(), i) != dims.end();
      if (!red)
        r.shape.push_back(t.shape[i]);
      else if (keep)
        r.shape.push_back(1);
    }
    return r;
  }

  bool buildReduce(Builder &b) {
    int x = pick(b, [&](int id) { return type(b, id).rank() >= 1 && type(b, id).dtype != Dtype::I64; });
    if (x < 0)
      return false;
    const Type t = type(b, x);
    std::vector<int64_t> dims = someDims(t.rank());
    bool keep = chance(0.3);
    double n = elementsOver(t, dims);
    std::string kind = oneOf(std::vector<std::string>{"sum", "max", "min", "prod"});
    if (isFloat(t.dtype)) {
      if (kind == "prod" && std::pow(b.info[x].mag(), n) > 1e3)
        kind = "sum";
      if (kind == "sum")
        x = tame(b, x, 1e3);
    }
    const Info &i = b.info[x];
    Info r = i;
    if (kind == "sum") {
      r.lo = n * i.lo, r.hi = n * i.hi;
      r.err = n * i.err + (i.exact ? 0 : n * kU * n * i.mag());
      if (isFloat(t.dtype) && i.exact && n * i.mag() * std::ldexp(1.0, i.grid) >= (1 << 24))
        r.exact = false, r.err += n * kU * n * i.mag();
    } else if (kind == "prod") {
      double m = std::pow(i.mag(), n);
      r.lo = i.lo >= 0 ? std::pow(i.lo, n) : -m, r.hi = m;
      r.grid = static_cast<int>(i.grid * n);
      r.err = n * std::pow(std::max(i.mag(), 1.0), n - 1) * i.err + n * kU * m;
      if (!isFloat(t.dtype))
        r = intRange(t.dtype, -m, m > 1e15 ? 1e300 : m);
    }
    if (!isFloat(t.dtype))
      r = intRange(t.dtype, r.lo, r.hi);
    shaped(b, "reduce", {x}, reducedType(t, dims, keep, t.dtype), r, [&](Op &op) {
      op.kind = kind, op.a = dims, op.flag = keep;
    });
    return true;
  }

  bool buildMean(Builder &b) {
    int x = pick(b, [&](int id) { return isF32(b, id) && type(b, id).rank() >= 1; });
    if (x < 0)
      return false;
    x = tame(b, x, 1e3);
    const Type t = type(b, x);
    std::vector<int64_t> dims = someDims(t.rank());
    bool keep = chance(0.3);
    double n = elementsOver(t, dims);
    std::vector<int> operands = {x};
    const Info i = b.info[x];
    Info r = i;
    r.exact = false;
    if (chance(0.4)) {
      int w = positive(b, tame(b, partner(b, t), 16));
      operands.push_back(w);
      const Info &W = b.info[w];
      double num = n * (i.err * W.mag() + W.err * i.mag()) + n * n * kU * i.mag() * W.mag();
      double den = n * W.err + n * n * kU * W.mag();
      r.err = (num + i.mag() * den) / (n * W.lo) + 4 * kU * i.mag();
    } else {
      r.err = i.err + (n + 4) * n * kU * i.mag();
    }
    shaped(b, "mean", operands, reducedType(t, dims, keep, Dtype::F32), r, [&](Op &op) {
      op.a = dims, op.flag = keep;
    });
    return true;
  }

  bool buildArgReduce(Builder &b) {
    int x = pick(b, [&](int id) {
      return type(b, id).rank() >= 1 && type(b, id).dtype != Dtype::I1 && b.info[id].exact;
    });
    if (x < 0)
      return false;
    const Type t = type(b, x);
    int64_t dim = uniform(0, t.rank() - 1);
    Type rt{chance(0.7) ? Dtype::I64 : Dtype::I32, t.shape};
    rt.shape.erase(rt.shape.begin() + dim);
    Info r = intRange(rt.dtype, 0, static_cast<double>(t.shape[dim] - 1));
    shaped(b, chance(0.5) ? "argmax" : "argmin", {x}, rt, r, [&](Op &op) { op.dim = dim; });
    return true;
  }

  /// Indices into `rows` rows: an integer value of the pool, or fresh ones
  /// drawn from [-2, rows + 1] (out-of-range indices are clamped).
  int indices(Builder &b, int64_t rows, int64_t trailing) {
    int id = -1;
    if (chance(0.3))
      id = pick(b, [&](int v) {
        const Type &t = type(b, v);
        return (t.dtype == Dtype::I32 || t.dtype == Dtype::I64) && t.rank() <= 2 &&
               t.numel() * trailing <= opt_.maxElements;
      });
    if (id >= 0)
      return id;
    Type t = randomType(chance(0.6) ? Dtype::I64 : Dtype::I32, 0, 2);
    while (t.numel() * trailing > opt_.maxElements && !t.shape.empty())
      t.shape.pop_back();
    return fresh(b, t, -2, static_cast<double>(rows + 1));
  }

  bool buildGather(Builder &b) {
    int table = pick(b, [&](int id) {
      const Type &t = type(b, id);
      return t.rank() >= 1 && t.rank() <= 3 && t.dtype != Dtype::I1;
    });
    if (table < 0)
      return false;
    const Type tt = type(b, table);
    int64_t trailing = tt.numel() / tt.shape[0];
    int idx = indices(b, tt.shape[0], trailing);
    Type rt{tt.dtype, type(b, idx).shape};
    rt.shape.insert(rt.shape.end(), tt.shape.begin() + 1, tt.shape.end());
    if (rt.rank() > 4 || rt.numel() > opt_.maxElements)
      return false;
    shaped(b, "gather", {table, idx}, rt, b.info[table], [](Op &) {});
    return true;
  }

  /// A row scatter's operands: a base (f32 or i32, rank 1 to 3), replaced
  /// with probability 0.4 by a splat of `identity(dtype)` where that has a
  /// value (the index dims may then stay sharded), indices over its rows,
  /// and updates of shape indices.shape ++ base.shape[1:]. False if none fit.
  template <typename Identity>
  bool rowScatterOperands(Builder &b, Identity identity, int &base, int &idx, int &upd) {
    base = pick(b, [&](int id) {
      const Type &t = type(b, id);
      return t.rank() >= 1 && t.rank() <= 3 && (t.dtype == Dtype::F32 || t.dtype == Dtype::I32);
    });
    if (base < 0)
      return false;
    std::optional<double> id = identity(type(b, base).dtype);
    if (id && chance(0.4))
      base = splat(b, type(b, base), *id);
    const Type bt = type(b, base);
    int64_t trailing = bt.numel() / bt.shape[0];
    idx = indices(b, bt.shape[0], trailing);
    Type ut{bt.dtype, type(b, idx).shape};
    ut.shape.insert(ut.shape.end(), bt.shape.begin() + 1, bt.shape.end());
    if (ut.rank() > 4 || ut.numel() > opt_.maxElements)
      return false;
    upd = partner(b, ut);
    return true;
  }

  bool buildScatterAdd(Builder &b) {
    int base, idx, upd;
    if (!rowScatterOperands(b, [](Dtype) { return std::optional<double>(0.0); }, base, idx, upd))
      return false;
    const Type bt = type(b, base);
    if (isFloat(bt.dtype))
      upd = tame(b, upd, 64);
    const Info &B = b.info[base], &U = b.info[upd];
    double n = static_cast<double>(type(b, idx).numel());
    Info r = join(B, U);
    r.lo = B.lo + n * std::min(0.0, U.lo), r.hi = B.hi + n * std::max(0.0, U.hi);
    r.err = B.err + n * U.err + (r.exact ? 0 : n * kU * r.mag());
    if (!isFloat(bt.dtype))
      r = intRange(bt.dtype, r.lo, r.hi);
    shaped(b, "scatter_add", {base, idx, upd}, bt, r, [](Op &) {});
    return true;
  }

  // Max or min rows into base: the result stays within the operands' joint
  // range, exact when both are. An i32 base may be the kind's identity
  // (a pending max or min); an f32 one's (an infinity) is left out.
  // Products of rows: a row may take every index position, so the bound is
  // the base's magnitude times the updates' to the power of the positions
  // (a float product past 1e3 becomes a max instead; i32 products wrap as
  // the reference's do). The base may be ones (a pending product).
  bool buildScatterReduce(Builder &b) {
    std::string kind = oneOf(std::vector<std::string>{"max", "min", "prod"});
    auto identity = [&](Dtype d) -> std::optional<double> {
      if (kind == "prod")
        return 1.0;
      if (d != Dtype::I32)
        return std::nullopt;
      return kind == "max" ? kI32Min : kI32Max;
    };
    int base, idx, upd;
    if (!rowScatterOperands(b, identity, base, idx, upd))
      return false;
    const Type bt = type(b, base);
    const Info &B = b.info[base], &U = b.info[upd];
    Info r = join(B, U);
    if (kind == "prod") {
      double n = static_cast<double>(type(b, idx).numel());
      double grow = std::pow(std::max(U.mag(), 1.0), n), m = B.mag() * grow;
      if (isFloat(bt.dtype) && m > 1e3) {
        kind = "max";
      } else {
        r.lo = -m, r.hi = m;
        r.grid = static_cast<int>(B.grid + U.grid * n);
        r.err = B.err * grow + n * U.err * m + n * kU * m;
        if (!isFloat(bt.dtype))
          r = intRange(bt.dtype, -m, m > 1e15 ? 1e300 : m);
      }
    }
    if (!isFloat(bt.dtype))
      r = intRange(bt.dtype, r.lo, r.hi);
    shaped(b, "scatter_reduce", {base, idx, upd}, bt, r, [&](Op &op) { op.kind = kind; });
    return true;
  }

  //===--------------------------------------------------------------------===//
  // Placement
  //===--------------------------------------------------------------------===//

  bool buildPlacement(Builder &b, bool reshard) {
    int x = pick(b, [](int) { return true; });
    const Type t = type(b, x);
    std::string spec = randomSpec(t.rank(), !reshard, !reshard);
    shaped(b, reshard ? "reshard" : "sharding_constraint", {x}, t, b.info[x],
           [&](Op &op) { op.spec = spec; });
    return true;
  }

  //===--------------------------------------------------------------------===//
  // Optimizer updates (dyadic hyperparameters: f32 holds them exactly)
  //===--------------------------------------------------------------------===//

  bool buildSgd(Builder &b) {
    int p = pick(b, [&](int id) { return isF32(b, id); });
    if (p < 0)
      return false;
    p = tame(b, p, 1e3);
    int g = tame(b, partner(b, type(b, p)), 1e3);
    double lr = oneOf(std::vector<double>{0.5, 0.25, 0.125});
    const Info &P = b.info[p], &G = b.info[g];
    Info r = join(P, G);
    r.lo = P.lo - lr * G.hi, r.hi = P.hi - lr * G.lo;
    r.grid = std::max(P.grid, G.grid + 3);
    r.err = P.err + lr * G.err + (r.exact ? 0 : 2 * kU * r.mag());
    Op op;
    op.name = "sgd_update";
    op.operands = {p, g};
    op.results = {type(b, p)};
    op.values = {lr};
    emit(b, std::move(op), {r});
    return true;
  }

  bool buildMomentum(Builder &b) {
    int p = pick(b, [&](int id) { return isF32(b, id); });
    if (p < 0)
      return false;
    p = tame(b, p, 1e3);
    const Type t = type(b, p);
    int g = tame(b, partner(b, t), 1e3), v = tame(b, partner(b, t), 1e3);
    double lr = oneOf(std::vector<double>{0.5, 0.25, 0.125});
    double m = oneOf(std::vector<double>{0.5, 0.75, 0.875});
    const Info &P = b.info[p], &G = b.info[g], &V = b.info[v];
    Info nv = join(G, V);
    nv.lo = m * V.lo + G.lo, nv.hi = m * V.hi + G.hi;
    nv.grid = std::max(V.grid + 3, G.grid);
    nv.err = m * V.err + G.err + (nv.exact ? 0 : 2 * kU * nv.mag());
    Info np = join(P, nv);
    np.lo = P.lo - lr * nv.hi, np.hi = P.hi - lr * nv.lo;
    np.grid = std::max(P.grid, nv.grid + 3);
    np.err = P.err + lr * nv.err + (np.exact ? 0 : 2 * kU * np.mag());
    Op op;
    op.name = "momentum_update";
    op.operands = {p, g, v};
    op.results = {t, t};
    op.values = {lr, m};
    emit(b, std::move(op), {np, nv});
    return true;
  }

  bool buildAdam(Builder &b) {
    int p = pick(b, [&](int id) { return isF32(b, id); });
    if (p < 0)
      return false;
    p = tame(b, p, 100);
    const Type t = type(b, p);
    int g = tame(b, partner(b, t), 16), mu = tame(b, partner(b, t), 16);
    int nu = positive(b, tame(b, partner(b, t), 16));
    int step = splat(b, Type{Dtype::F32, {}}, static_cast<double>(uniform(1, 3)));
    double lr = oneOf(std::vector<double>{0.125, 0.0625});
    double b1 = oneOf(std::vector<double>{0.875, 0.75});
    double b2 = oneOf(std::vector<double>{0.9921875, 0.96875});
    double eps = 1e-8, wd = chance(0.5) ? 0.0 : 0.0625;
    double st = b.info[step].lo;
    const Info &P = b.info[p], &G = b.info[g], &MU = b.info[mu], &NU = b.info[nu];
    Info nmu;
    nmu.lo = b1 * MU.lo + (1 - b1) * G.lo, nmu.hi = b1 * MU.hi + (1 - b1) * G.hi;
    nmu.exact = false, nmu.err = b1 * MU.err + (1 - b1) * G.err + 4 * kU * nmu.mag();
    Info nnu;
    nnu.lo = b2 * NU.lo, nnu.hi = b2 * NU.hi + (1 - b2) * G.mag() * G.mag();
    nnu.exact = false;
    nnu.err = b2 * NU.err + (1 - b2) * 2 * G.mag() * G.err + 4 * kU * nnu.mag();
    double c1 = 1 - std::pow(b1, st), c2 = 1 - std::pow(b2, st);
    double muHat = nmu.mag() / c1, nuLo = nnu.lo / c2;
    double ratio = muHat / std::sqrt(nuLo);
    double eMu = nmu.err / c1 + 8 * kU * muHat, eNu = nnu.err / c2 + 8 * kU * nnu.hi / c2;
    Info np;
    np.lo = P.lo - lr * (ratio + wd * P.mag()), np.hi = P.hi + lr * (ratio + wd * P.mag());
    np.exact = false;
    np.err = P.err * (1 + lr * wd) +
             lr * (eMu / std::sqrt(nuLo) + ratio * eNu / (2 * nuLo) + 16 * kU * ratio) +
             4 * kU * np.mag();
    Op op;
    op.name = "adam_update";
    op.operands = {p, g, mu, nu, step};
    op.results = {t, t, t};
    op.values = {lr, b1, b2, eps, wd};
    emit(b, std::move(op), {np, nmu, nnu});
    return true;
  }

  bool buildClip(Builder &b) {
    int n = static_cast<int>(uniform(1, 3));
    std::vector<int> gs;
    for (int k = 0; k < n; ++k) {
      int g = pick(b, [&](int id) { return isF32(b, id); });
      if (g < 0)
        return false;
      gs.push_back(tame(b, g, 16));
    }
    double maxNorm = oneOf(std::vector<double>{0.5, 1.0, 4.0});
    double count = 0, M = 0, E = 0;
    for (int g : gs) {
      count += static_cast<double>(type(b, g).numel());
      M = std::max(M, b.info[g].mag());
      E = std::max(E, b.info[g].err);
    }
    double eScale = (count * M * E + 4 * count * kU * M * M) / (maxNorm * maxNorm);
    Op op;
    op.name = "clip_by_global_norm";
    op.operands = gs;
    std::vector<Info> infos;
    for (int g : gs) {
      op.results.push_back(type(b, g));
      Info r = b.info[g];
      r.lo = std::min(r.lo, 0.0), r.hi = std::max(r.hi, 0.0);
      r.exact = false;
      r.err = r.err + r.mag() * eScale + 4 * kU * r.mag();
      infos.push_back(r);
    }
    op.values = {maxNorm};
    emit(b, std::move(op), infos);
    return true;
  }

  //===--------------------------------------------------------------------===//
  // Calls
  //===--------------------------------------------------------------------===//

  bool buildCall(Builder &b) {
    if (b.depth >= 2)
      return false;
    int n = static_cast<int>(uniform(1, 3));
    std::vector<int> args;
    for (int k = 0; k < n; ++k) {
      int a = pick(b, [](int) { return true; });
      if (std::find(args.begin(), args.end(), a) == args.end())
        args.push_back(a);
    }
    Builder h;
    h.depth = b.depth + 1;
    h.f.isPrivate = true;
    h.f.name = "helper" + std::to_string(helpers_++);
    for (int a : args) {
      int id = newValue(h, type(b, a), b.info[a]);
      h.f.argIds.push_back(id);
      h.f.args.push_back(type(b, a));
    }
    body(h, static_cast<int>(uniform(2, 6)));
    finishResults(h, 2);
    Op op;
    op.name = "call";
    op.operands = args;
    op.callee = static_cast<int>(prog_.functions.size());
    std::vector<Info> infos;
    for (int r : h.f.results) {
      op.results.push_back(h.f.valueTypes[r]);
      infos.push_back(h.info[r]);
    }
    prog_.functions.push_back(std::move(h.f));
    emit(b, std::move(op), infos);
    return true;
  }

  //===--------------------------------------------------------------------===//
  // Bodies and results
  //===--------------------------------------------------------------------===//

  void body(Builder &b, int steps) {
    using Build = bool (Gen::*)(Builder &);
    struct Family {
      Build build;
      int weight;
    };
    static const std::vector<Family> families = {
        {&Gen::buildUnaryFloat, 12}, {&Gen::buildUnaryInt, 3},   {&Gen::buildBinaryFloat, 12},
        {&Gen::buildBinaryInt, 4},   {&Gen::buildBinaryBool, 2}, {&Gen::buildClamp, 2},
        {&Gen::buildCompare, 4},     {&Gen::buildSelect, 3},     {&Gen::buildConvert, 4},
        {&Gen::buildIota, 2},        {&Gen::buildConstant, 1},   {&Gen::buildBroadcast, 4},
        {&Gen::buildReshape, 4},     {&Gen::buildTranspose, 3},  {&Gen::buildSlice, 3},
        {&Gen::buildPad, 2},         {&Gen::buildConcatenate, 3}, {&Gen::buildReverse, 2},
        {&Gen::buildShift, 3},       {&Gen::buildDot, 7},        {&Gen::buildReduce, 6},
        {&Gen::buildMean, 3},        {&Gen::buildArgReduce, 2},  {&Gen::buildGather, 2},
        {&Gen::buildScatterAdd, 2},  {&Gen::buildScatterReduce, 2},
        {&Gen::buildConstraint, 4},  {&Gen::buildReshard, 2},
        {&Gen::buildSgd, 1},         {&Gen::buildMomentum, 1},   {&Gen::buildAdam, 1},
        {&Gen::buildClip, 1},        {&Gen::buildCall, 2},
    };
    int total = 0;
    for (const Family &f : families)
      total += f.weight;
    for (int s = 0; s < steps; ++s) {
      for (int attempt = 0; attempt < 4; ++attempt) {
        int64_t r = uniform(0, total - 1);
        const Family *chosen = &families.back();
        for (const Family &f : families) {
          if (r < f.weight) {
            chosen = &f;
            break;
          }
          r -= f.weight;
        }
        if ((this->*chosen->build)(b))
          break;
      }
    }
  }

  bool buildConstraint(Builder &b) { return buildPlacement(b, false); }
  bool buildReshard(Builder &b) { return buildPlacement(b, true); }

  /// The function's results: its most recent values that nothing uses
  /// (arguments of a helper aside), at most `max`, at least one.
  void finishResults(Builder &b, size_t max) {
    Function &f = b.f;
    std::vector<int> sinks;
    for (int id = static_cast<int>(f.valueTypes.size()) - 1; id >= 0 && sinks.size() < max; --id) {
      bool isArg = std::find(f.argIds.begin(), f.argIds.end(), id) != f.argIds.end();
      if (!isArg && b.uses[id] == 0 && !noisy(b, id))
        sinks.push_back(id);
    }
    if (sinks.empty()) // every op result is used (or noisy): return the last one
      sinks.push_back(f.ops.empty()
                          ? unary(b, f.valueTypes[f.argIds[0]].dtype == Dtype::I1 ? "not" : "neg",
                                  f.argIds[0])
                          : f.ops.back().resultIds[0]);
    std::reverse(sinks.begin(), sinks.end());
    f.results = sinks;
    if (b.isMain)
      for (size_t i = 0; i < sinks.size(); ++i) {
        f.resultNames.push_back("out" + std::to_string(i));
        f.resultSpecs.push_back(chance(0.4) ? randomSpec(f.valueTypes[sinks[i]].rank(), false, false)
                                            : "");
      }
  }

  std::mt19937_64 rng_;
  GeneratorOptions opt_;
  Program prog_;
  int helpers_ = 0;
};

} // namespace

Generated generate(uint64_t seed, const GeneratorOptions &options) {
  return Gen(seed, options).run();
}

} // namespace shardc_random
