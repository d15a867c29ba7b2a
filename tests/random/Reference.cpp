//===- Reference.cpp - garray's meaning, evaluated in double precision ----===//
#include "tests/random/Reference.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace shardc_random {

double wrapTo(Dtype d, double v) {
  switch (d) {
  case Dtype::F32:
    return v;
  case Dtype::I1:
    return v != 0 ? 1 : 0;
  case Dtype::I32:
    return static_cast<double>(static_cast<int32_t>(static_cast<uint32_t>(
        static_cast<uint64_t>(static_cast<int64_t>(v)))));
  case Dtype::I64:
    return static_cast<double>(static_cast<int64_t>(v));
  }
  return v;
}

namespace {

using Index = std::vector<int64_t>;

Index unravel(int64_t flat, const std::vector<int64_t> &shape) {
  Index idx(shape.size());
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  return idx;
}

int64_t ravel(const Index &idx, const std::vector<int64_t> &shape) {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    flat = flat * shape[d] + idx[d];
  return flat;
}

/// An array of type `t` whose element at each index is `f(index)`.
template <typename F> Array build(const Type &t, F f) {
  Array r{t, std::vector<double>(t.numel())};
  for (int64_t i = 0; i < t.numel(); ++i)
    r.values[i] = wrapTo(t.dtype, f(unravel(i, t.shape)));
  return r;
}

int64_t asInt(double v) { return static_cast<int64_t>(v); }

int64_t minOf(Dtype d) {
  return d == Dtype::I32 ? std::numeric_limits<int32_t>::min()
                         : std::numeric_limits<int64_t>::min();
}

double nanMax(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b); }
double nanMin(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b); }

bool isUnary(const std::string &n) {
  static const char *names[] = {"abs",      "neg",   "ceil", "floor", "round", "sign",
                                "cos",      "sin",   "exp",  "expm1", "log",   "log1p",
                                "logistic", "sqrt",  "rsqrt", "tanh", "not"};
  for (const char *u : names)
    if (n == u)
      return true;
  return false;
}

bool isBinary(const std::string &n) {
  static const char *names[] = {"add", "sub", "mul", "div", "rem", "pow", "max", "min", "and",
                                "or", "xor", "shift_left", "shift_right_logical",
                                "shift_right_arithmetic"};
  for (const char *b : names)
    if (n == b)
      return true;
  return false;
}

double unary(const std::string &n, Dtype d, double x) {
  if (n == "abs") return std::fabs(x); // integers: wrapped by build(), so |MIN| is MIN
  if (n == "neg") return -x;
  if (n == "ceil") return std::ceil(x);
  if (n == "floor") return std::floor(x);
  if (n == "round") return std::nearbyint(x); // default mode: halves to even
  if (n == "sign") return x > 0 ? 1 : x < 0 ? -1 : x;
  if (n == "cos") return std::cos(x);
  if (n == "sin") return std::sin(x);
  if (n == "exp") return std::exp(x);
  if (n == "expm1") return std::expm1(x);
  if (n == "log") return std::log(x);
  if (n == "log1p") return std::log1p(x);
  if (n == "logistic") return 1 / (1 + std::exp(-x));
  if (n == "sqrt") return std::sqrt(x);
  if (n == "rsqrt") return 1 / std::sqrt(x);
  if (n == "tanh") return std::tanh(x);
  if (n == "not") return d == Dtype::I1 ? (x != 0 ? 0 : 1) : static_cast<double>(~asInt(x));
  throw std::runtime_error("reference: no unary op '" + n + "'");
}

double binary(const std::string &n, Dtype d, double a, double b) {
  if (isFloat(d)) {
    if (n == "add") return a + b;
    if (n == "sub") return a - b;
    if (n == "mul") return a * b;
    if (n == "div") return a / b;
    if (n == "rem") return std::fmod(a, b);
    if (n == "pow") return std::pow(a, b);
    if (n == "max") return nanMax(a, b);
    if (n == "min") return nanMin(a, b);
  } else {
    int64_t x = asInt(a), y = asInt(b);
    if (n == "add") return static_cast<double>(x + y);
    if (n == "sub") return static_cast<double>(x - y);
    if (n == "mul") // both fit 32 bits: the product fits 64
      return static_cast<double>(static_cast<int64_t>(static_cast<uint64_t>(x) *
                                                      static_cast<uint64_t>(y)));
    if (n == "div") {
      if (y == 0) return -1;
      if (x == minOf(d) && y == -1) return static_cast<double>(x);
      return static_cast<double>(x / y);
    }
    if (n == "rem") {
      if (y == 0) return static_cast<double>(x);
      if (x == minOf(d) && y == -1) return 0;
      return static_cast<double>(x % y);
    }
    if (n == "max") return static_cast<double>(std::max(x, y));
    if (n == "min") return static_cast<double>(std::min(x, y));
    if (n == "and") return static_cast<double>(x & y);
    if (n == "or") return static_cast<double>(x | y);
    if (n == "xor") return static_cast<double>(x ^ y);
    if (n.rfind("shift_", 0) == 0) {
      // StableHLO's shifts on the dtype's w bits; an amount outside [0, w),
      // read as unsigned, gives 0 (or the sign, arithmetic).
      const int w = d == Dtype::I1 ? 1 : d == Dtype::I32 ? 32 : 64;
      const uint64_t mask = w == 64 ? ~uint64_t(0) : (uint64_t(1) << w) - 1;
      const uint64_t bits = static_cast<uint64_t>(x) & mask;
      const uint64_t amount = static_cast<uint64_t>(y) & mask;
      auto fromBits = [&](uint64_t v) { // sign-extend w bits
        v &= mask;
        if (w < 64 && (v >> (w - 1)) & 1)
          v |= ~mask;
        return static_cast<double>(static_cast<int64_t>(v));
      };
      if (n == "shift_left") return amount >= uint64_t(w) ? 0 : fromBits(bits << amount);
      if (n == "shift_right_logical") return amount >= uint64_t(w) ? 0 : fromBits(bits >> amount);
      if (amount >= uint64_t(w)) return x < 0 ? -1 : 0;
      return static_cast<double>(x >> amount);
    }
  }
  throw std::runtime_error("reference: no binary op '" + n + "' on " + mlirName(d));
}

bool compare(const std::string &dir, double a, double b) {
  if (dir == "eq") return a == b;
  if (dir == "ne") return a != b; // true with a NaN, as IEEE
  if (dir == "lt") return a < b;
  if (dir == "le") return a <= b;
  if (dir == "gt") return a > b;
  if (dir == "ge") return a >= b;
  throw std::runtime_error("reference: no comparison '" + dir + "'");
}

double convert(Dtype from, Dtype to, double v) {
  if (to == Dtype::I1)
    return v != 0 || std::isnan(v) ? 1 : 0;
  if (to == Dtype::F32) // integers round to nearest even; floats stay
    return isFloat(from) ? v : static_cast<double>(static_cast<float>(v));
  if (isFloat(from)) { // truncate toward zero, saturate, NaN -> 0
    if (std::isnan(v)) return 0;
    double lo = static_cast<double>(minOf(to));
    double hi = to == Dtype::I32 ? 2147483647.0 : 9223372036854775807.0;
    return std::trunc(std::clamp(v, lo, hi));
  }
  return wrapTo(to, v);
}

double reduceInit(const std::string &kind, Dtype d) {
  if (kind == "sum") return 0;
  if (kind == "prod") return 1;
  if (d == Dtype::I1) return kind == "max" ? 0 : 1;
  if (isFloat(d)) return kind == "max" ? -INFINITY : INFINITY;
  return kind == "max" ? static_cast<double>(minOf(d))
                       : (d == Dtype::I32 ? 2147483647.0 : 9223372036854775807.0);
}

double reduceStep(const std::string &kind, Dtype d, double acc, double x) {
  if (d == Dtype::I1)
    return kind == "sum" || kind == "max" ? (acc != 0 || x != 0) : (acc != 0 && x != 0);
  if (kind == "sum") return isFloat(d) ? acc + x : binary("add", d, acc, x);
  if (kind == "prod") return isFloat(d) ? acc * x : binary("mul", d, acc, x);
  if (kind == "max") return isFloat(d) ? nanMax(acc, x) : std::max(acc, x);
  return isFloat(d) ? nanMin(acc, x) : std::min(acc, x);
}

/// Reduces `x` over `dims` (sorted) into `rt` (with or without keepdims):
/// `step(acc, flat operand index)` folds one element.
template <typename Step>
Array reduceOver(const Array &x, const std::vector<int64_t> &dims, const Type &rt, double init,
                 Step step) {
  Array r{rt, std::vector<double>(rt.numel(), init)};
  std::vector<bool> reduced(x.type.shape.size(), false);
  for (int64_t d : dims)
    reduced[d] = true;
  bool keep = rt.rank() == x.type.rank();
  for (int64_t i = 0; i < x.type.numel(); ++i) {
    Index idx = unravel(i, x.type.shape), out;
    for (size_t d = 0; d < idx.size(); ++d)
      if (!reduced[d])
        out.push_back(idx[d]);
      else if (keep)
        out.push_back(0);
    double &acc = r.values[ravel(out, rt.shape)];
    acc = step(acc, i);
  }
  return r;
}

class Evaluator {
public:
  explicit Evaluator(const Program &p) : p_(p) {}

  std::vector<Array> call(int fn, const std::vector<Array> &args) {
    const Function &f = p_.functions[fn];
    std::vector<Array> vals(f.valueTypes.size());
    for (size_t i = 0; i < args.size(); ++i)
      vals[f.argIds[i]] = args[i];
    for (const Op &op : f.ops) {
      std::vector<Array> in;
      for (int o : op.operands)
        in.push_back(vals[o]);
      std::vector<Array> out = apply(op, in);
      for (size_t i = 0; i < out.size(); ++i)
        vals[op.resultIds[i]] = std::move(out[i]);
    }
    std::vector<Array> results;
    for (int r : f.results)
      results.push_back(vals[r]);
    return results;
  }

private:
  std::vector<Array> apply(const Op &op, const std::vector<Array> &in) {
    const std::string &n = op.name;
    const Type &rt = op.results[0];
    Dtype d = in.empty() ? rt.dtype : in[0].type.dtype;
    auto elementwise = [&](auto f) {
      return build(rt, [&](const Index &idx) { return f(ravel(idx, rt.shape)); });
    };
    if (n == "call")
      return call(op.callee, in);
    if (n == "constant")
      return {elementwise([&](int64_t i) { return op.values.size() == 1 ? op.values[0] : op.values[i]; })};
    if (n == "iota")
      return {build(rt, [&](const Index &idx) { return static_cast<double>(idx[op.dim]); })};
    if (n == "sharding_constraint" || n == "reshard" || n == "reshape")
      return {Array{rt, in[0].values}};
    if (isUnary(n))
      return {elementwise([&](int64_t i) { return unary(n, d, in[0].values[i]); })};
    if (isBinary(n))
      return {elementwise([&](int64_t i) { return binary(n, d, in[0].values[i], in[1].values[i]); })};
    if (n == "clamp")
      return {elementwise([&](int64_t i) {
        double lo = in[0].values[i], x = in[1].values[i], hi = in[2].values[i];
        if (std::isnan(lo) || std::isnan(x) || std::isnan(hi)) return static_cast<double>(NAN);
        return std::min(std::max(x, lo), hi);
      })};
    if (n == "compare")
      return {elementwise([&](int64_t i) {
        return compare(op.kind, in[0].values[i], in[1].values[i]) ? 1.0 : 0.0;
      })};
    if (n == "select")
      return {elementwise([&](int64_t i) {
        return in[0].values[i] != 0 ? in[1].values[i] : in[2].values[i];
      })};
    if (n == "convert")
      return {elementwise([&](int64_t i) { return convert(d, rt.dtype, in[0].values[i]); })};
    if (n == "broadcast_in_dim")
      return {build(rt, [&](const Index &idx) {
        Index src(in[0].type.shape.size());
        for (size_t i = 0; i < src.size(); ++i)
          src[i] = in[0].type.shape[i] == 1 ? 0 : idx[op.a[i]];
        return in[0].values[ravel(src, in[0].type.shape)];
      })};
    if (n == "transpose")
      return {build(rt, [&](const Index &idx) {
        Index src(idx.size());
        for (size_t i = 0; i < idx.size(); ++i)
          src[op.a[i]] = idx[i];
        return in[0].values[ravel(src, in[0].type.shape)];
      })};
    if (n == "slice")
      return {build(rt, [&](const Index &idx) {
        Index src(idx.size());
        for (size_t i = 0; i < idx.size(); ++i)
          src[i] = op.a[i] + idx[i] * op.c[i];
        return in[0].values[ravel(src, in[0].type.shape)];
      })};
    if (n == "pad")
      return {build(rt, [&](const Index &idx) {
        Index src(idx.size());
        for (size_t i = 0; i < idx.size(); ++i) {
          src[i] = idx[i] - op.a[i];
          if (src[i] < 0 || src[i] >= in[0].type.shape[i])
            return in[1].values[0];
        }
        return in[0].values[ravel(src, in[0].type.shape)];
      })};
    if (n == "concatenate")
      return {build(rt, [&](const Index &idx) {
        Index src = idx;
        for (const Array &a : in) {
          if (src[op.dim] < a.type.shape[op.dim])
            return a.values[ravel(src, a.type.shape)];
          src[op.dim] -= a.type.shape[op.dim];
        }
        throw std::runtime_error("reference: concatenate index out of range");
      })};
    if (n == "reverse")
      return {build(rt, [&](const Index &idx) {
        Index src = idx;
        for (int64_t dim : op.a)
          src[dim] = rt.shape[dim] - 1 - idx[dim];
        return in[0].values[ravel(src, rt.shape)];
      })};
    if (n == "shift")
      return {build(rt, [&](const Index &idx) {
        Index src = idx;
        src[op.dim] -= op.offset;
        if (src[op.dim] < 0 || src[op.dim] >= rt.shape[op.dim])
          return in[1].values[0];
        return in[0].values[ravel(src, rt.shape)];
      })};
    if (n == "dot_general")
      return {dotGeneral(op, in[0], in[1])};
    if (n == "reduce") {
      Dtype ed = d;
      return {reduceOver(in[0], op.a, rt, reduceInit(op.kind, ed), [&](double acc, int64_t i) {
        return wrapTo(ed, reduceStep(op.kind, ed, acc, in[0].values[i]));
      })};
    }
    if (n == "mean")
      return {mean(op, in, rt)};
    if (n == "argmax" || n == "argmin")
      return {argReduce(op, in[0], rt)};
    if (n == "gather")
      return {build(rt, [&](const Index &idx) {
        const Type &tt = in[0].type, &it = in[1].type;
        Index row(idx.begin(), idx.begin() + it.rank());
        int64_t v = std::clamp<int64_t>(asInt(in[1].values[ravel(row, it.shape)]), 0,
                                        tt.shape[0] - 1);
        Index src{v};
        src.insert(src.end(), idx.begin() + it.rank(), idx.end());
        return in[0].values[ravel(src, tt.shape)];
      })};
    if (n == "scatter_add")
      return {scatterRows("sum", in[0], in[1], in[2])};
    if (n == "scatter_reduce")
      return {scatterRows(op.kind, in[0], in[1], in[2])};
    if (n == "sgd_update")
      return {elementwise([&](int64_t i) {
        return in[0].values[i] - op.values[0] * in[1].values[i];
      })};
    if (n == "momentum_update") {
      Array v = elementwise([&](int64_t i) {
        return op.values[1] * in[2].values[i] + in[1].values[i];
      });
      Array p = elementwise([&](int64_t i) { return in[0].values[i] - op.values[0] * v.values[i]; });
      return {p, v};
    }
    if (n == "adam_update")
      return adam(op, in);
    if (n == "clip_by_global_norm")
      return clip(op, in);
    throw std::runtime_error("reference: no op '" + n + "'");
  }

  Array dotGeneral(const Op &op, const Array &l, const Array &r) {
    const Type &rt = op.results[0];
    auto freeDims = [](int64_t rank, const std::vector<int64_t> &batch,
                       const std::vector<int64_t> &contract) {
      std::vector<int64_t> f;
      for (int64_t d = 0; d < rank; ++d)
        if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
            std::find(contract.begin(), contract.end(), d) == contract.end())
          f.push_back(d);
      return f;
    };
    std::vector<int64_t> lf = freeDims(l.type.rank(), op.a, op.c);
    std::vector<int64_t> rf = freeDims(r.type.rank(), op.b, op.d);
    std::vector<int64_t> kShape;
    for (int64_t d : op.c)
      kShape.push_back(l.type.shape[d]);
    int64_t kCount = 1;
    for (int64_t s : kShape)
      kCount *= s;
    return build(rt, [&](const Index &idx) {
      Index li(l.type.shape.size()), ri(r.type.shape.size());
      size_t pos = 0;
      for (size_t i = 0; i < op.a.size(); ++i, ++pos) {
        li[op.a[i]] = idx[pos];
        ri[op.b[i]] = idx[pos];
      }
      for (int64_t d : lf)
        li[d] = idx[pos++];
      for (int64_t d : rf)
        ri[d] = idx[pos++];
      double acc = 0;
      for (int64_t k = 0; k < kCount; ++k) {
        Index kk = unravel(k, kShape);
        for (size_t i = 0; i < op.c.size(); ++i) {
          li[op.c[i]] = kk[i];
          ri[op.d[i]] = kk[i];
        }
        double prod = l.values[ravel(li, l.type.shape)] * r.values[ravel(ri, r.type.shape)];
        acc = isFloat(rt.dtype) ? acc + prod : wrapTo(rt.dtype, acc + wrapTo(rt.dtype, prod));
      }
      return acc;
    });
  }

  Array mean(const Op &op, const std::vector<Array> &in, const Type &rt) {
    const Array &x = in[0];
    Array num = reduceOver(x, op.a, rt, 0, [&](double acc, int64_t i) {
      return acc + x.values[i] * (in.size() == 2 ? in[1].values[i] : 1.0);
    });
    if (in.size() == 2) {
      Array den = reduceOver(x, op.a, rt, 0,
                             [&](double acc, int64_t i) { return acc + in[1].values[i]; });
      for (size_t i = 0; i < num.values.size(); ++i)
        num.values[i] /= den.values[i];
    } else {
      double count = 1;
      for (int64_t dd : op.a)
        count *= static_cast<double>(x.type.shape[dd]);
      for (double &v : num.values)
        v /= count;
    }
    return num;
  }

  Array argReduce(const Op &op, const Array &x, const Type &rt) {
    bool isMax = op.name == "argmax";
    std::vector<double> best(rt.numel());
    std::vector<bool> seen(rt.numel(), false);
    Array r{rt, std::vector<double>(rt.numel(), 0)};
    for (int64_t i = 0; i < x.type.numel(); ++i) {
      Index idx = unravel(i, x.type.shape), out;
      for (size_t dd = 0; dd < idx.size(); ++dd)
        if (static_cast<int64_t>(dd) != op.dim)
          out.push_back(idx[dd]);
      int64_t o = ravel(out, rt.shape);
      double v = x.values[i];
      bool better;
      if (!seen[o])
        better = true;
      else if (std::isnan(best[o]))
        better = false; // the first NaN wins
      else if (std::isnan(v))
        better = true;
      else
        better = isMax ? v > best[o] : v < best[o]; // ties keep the lower index
      if (better) {
        best[o] = v;
        r.values[o] = static_cast<double>(idx[op.dim]);
        seen[o] = true;
      }
    }
    return r;
  }

  /// scatter_add ("sum") and scatter_reduce ("max", "min", "prod"): each index
  /// position, in order, combines its row of updates into the clamped row.
  Array scatterRows(const std::string &kind, const Array &base, const Array &idx,
                    const Array &upd) {
    Array r = base;
    int64_t rows = base.type.shape[0];
    int64_t rowSize = rows ? base.type.numel() / rows : 0;
    for (int64_t b = 0; b < idx.type.numel(); ++b) {
      int64_t row = std::clamp<int64_t>(asInt(idx.values[b]), 0, rows - 1);
      for (int64_t t = 0; t < rowSize; ++t) {
        double &dst = r.values[row * rowSize + t];
        dst = wrapTo(r.type.dtype,
                     reduceStep(kind, r.type.dtype, dst, upd.values[b * rowSize + t]));
      }
    }
    return r;
  }

  std::vector<Array> adam(const Op &op, const std::vector<Array> &in) {
    double lr = op.values[0], b1 = op.values[1], b2 = op.values[2], eps = op.values[3],
           wd = op.values[4];
    double t = in[4].values[0];
    Array p = in[0], mu = in[2], nu = in[3];
    for (size_t i = 0; i < p.values.size(); ++i) {
      double g = in[1].values[i];
      mu.values[i] = b1 * in[2].values[i] + (1 - b1) * g;
      nu.values[i] = b2 * in[3].values[i] + (1 - b2) * g * g;
      double muHat = mu.values[i] / (1 - std::pow(b1, t));
      double nuHat = nu.values[i] / (1 - std::pow(b2, t));
      p.values[i] = in[0].values[i] - lr * (muHat / (std::sqrt(nuHat) + eps) + wd * in[0].values[i]);
    }
    return {p, mu, nu};
  }

  std::vector<Array> clip(const Op &op, const std::vector<Array> &in) {
    double sq = 0;
    for (const Array &g : in)
      for (double v : g.values)
        sq += v * v;
    double maxNorm = op.values[0];
    double scale = maxNorm / std::max(std::sqrt(sq), maxNorm);
    std::vector<Array> out = in;
    for (Array &g : out)
      for (double &v : g.values)
        v *= scale;
    return out;
  }

  const Program &p_;
};

} // namespace

std::vector<Array> evaluate(const Program &program, const std::vector<Array> &inputs) {
  return Evaluator(program).call(static_cast<int>(program.functions.size()) - 1, inputs);
}

} // namespace shardc_random
