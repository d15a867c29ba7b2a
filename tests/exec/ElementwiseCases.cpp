//===- ElementwiseCases.cpp - the elementwise op table and references -----===//
#include "tests/exec/ElementwiseCases.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace shardc_test {

const std::vector<std::string> kAllDtypes = {"f32", "f64", "f16", "bf16", "i32", "i64", "bool"};

bool isFloatDtype(const std::string &dtype) {
  return dtype == "f32" || dtype == "f64" || dtype == "f16" || dtype == "bf16";
}

std::string mlirElement(const std::string &dtype) { return dtype == "bool" ? "i1" : dtype; }

std::string tensorType(const std::vector<int64_t> &shape, const std::string &dtype) {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + mlirElement(dtype) + ">";
}

bool OpCase::admits(const std::string &dtype) const {
  switch (kinds) {
  case Kinds::Any:
    return true;
  case Kinds::Float:
    return isFloatDtype(dtype);
  case Kinds::Number:
    return dtype != "bool";
  case Kinds::Integer:
    return !isFloatDtype(dtype);
  }
  return false;
}

double intMin(const std::string &dtype) {
  if (dtype == "i32")
    return -2147483648.0;
  if (dtype == "i64")
    return -9223372036854775808.0;
  if (dtype == "bool")
    return 0;
  throw std::invalid_argument("intMin of " + dtype);
}

double intMax(const std::string &dtype) {
  if (dtype == "i32")
    return 2147483647.0;
  if (dtype == "i64")
    return 9223372036854775807.0; // rounds to 2^63; only used to saturate
  if (dtype == "bool")
    return 1;
  throw std::invalid_argument("intMax of " + dtype);
}

namespace {

using Args = const std::vector<double> &;
using Dtype = const std::string &;

double nanIfAny(Args a) {
  for (double v : a)
    if (std::isnan(v))
      return v;
  return 0;
}

// Integer ops compute on int64 (the tests' integers are small, or limits
// whose results are written out below) and wrap in applyReference.
int64_t i(double v) { return static_cast<int64_t>(v); }

double divRef(Args a, Dtype t) {
  if (isFloatDtype(t))
    return a[0] / a[1];
  if (a[1] == 0)
    return -1;
  if (a[0] == intMin(t) && a[1] == -1)
    return intMin(t);
  return static_cast<double>(i(a[0]) / i(a[1]));
}

double remRef(Args a, Dtype t) {
  if (isFloatDtype(t))
    return std::fmod(a[0], a[1]);
  if (a[1] == 0)
    return a[0];
  if (a[0] == intMin(t) && a[1] == -1)
    return 0;
  return static_cast<double>(i(a[0]) % i(a[1]));
}

double maxRef(Args a, Dtype) {
  if (std::isnan(a[0]) || std::isnan(a[1]))
    return nanIfAny(a);
  return std::max(a[0], a[1]);
}

double clampRef(Args a, Dtype) {
  if (std::isnan(a[0]) || std::isnan(a[1]) || std::isnan(a[2]))
    return nanIfAny(a);
  return std::min(std::max(a[1], a[0]), a[2]);
}

double minRef(Args a, Dtype) {
  if (std::isnan(a[0]) || std::isnan(a[1]))
    return nanIfAny(a);
  return std::min(a[0], a[1]);
}

double signRef(Args a, Dtype) { return a[0] > 0 ? 1.0 : a[0] < 0 ? -1.0 : a[0]; }

double notRef(Args a, Dtype t) {
  if (t == "bool")
    return a[0] == 0 ? 1 : 0;
  return static_cast<double>(~i(a[0]));
}

template <typename F> Reference floatOnly(F f) {
  return [f](Args a, Dtype) { return f(a[0]); };
}

} // namespace

const std::vector<OpCase> &elementwiseCases() {
  static const std::vector<OpCase> cases = {
      // Unary. Integer ranges are [lo, hi) too; logs and roots draw
      // positives (the float edges add NaN, ±inf and ±0).
      {"abs", 1, Kinds::Number, -4, 4, 0, 0, [](Args a, Dtype) { return std::fabs(a[0]); }},
      {"ceil", 1, Kinds::Float, -4, 4, 0, 0, floatOnly([](double x) { return std::ceil(x); })},
      {"cos", 1, Kinds::Float, -4, 4, 0, 0, floatOnly([](double x) { return std::cos(x); })},
      {"exp", 1, Kinds::Float, -4, 4, 0, 0, floatOnly([](double x) { return std::exp(x); })},
      {"expm1", 1, Kinds::Float, -4, 4, 0, 0, floatOnly([](double x) { return std::expm1(x); })},
      {"floor", 1, Kinds::Float, -4, 4, 0, 0, floatOnly([](double x) { return std::floor(x); })},
      {"log", 1, Kinds::Float, 0.25, 4, 0, 0, floatOnly([](double x) { return std::log(x); })},
      {"log1p", 1, Kinds::Float, -0.5, 4, 0, 0, floatOnly([](double x) { return std::log1p(x); })},
      {"logistic", 1, Kinds::Float, -8, 8, 0, 0,
       floatOnly([](double x) { return 1.0 / (1.0 + std::exp(-x)); })},
      {"neg", 1, Kinds::Number, -4, 4, 0, 0, [](Args a, Dtype) { return -a[0]; }},
      {"not", 1, Kinds::Integer, -50, 50, 0, 0, notRef},
      // Halves round to even (std::nearbyint in the default rounding mode).
      {"round", 1, Kinds::Float, -4, 4, 0, 0, floatOnly([](double x) { return std::nearbyint(x); })},
      {"rsqrt", 1, Kinds::Float, 0.25, 4, 0, 0,
       floatOnly([](double x) { return 1.0 / std::sqrt(x); })},
      {"sign", 1, Kinds::Number, -4, 4, 0, 0, signRef},
      {"sin", 1, Kinds::Float, -4, 4, 0, 0, floatOnly([](double x) { return std::sin(x); })},
      {"sqrt", 1, Kinds::Float, 0.25, 4, 0, 0, floatOnly([](double x) { return std::sqrt(x); })},
      {"tanh", 1, Kinds::Float, -4, 4, 0, 0, floatOnly([](double x) { return std::tanh(x); })},
      // clamp(lo, x, hi): lo from [-50, 0), x and hi from [-50, 50) (so lo > hi occurs).
      {"clamp", 3, Kinds::Number, -50, 0, -50, 50, clampRef},
      // Binary. div/rem draw integer divisors from [-8, 8), so x / 0 occurs.
      {"add", 2, Kinds::Number, -50, 50, -50, 50, [](Args a, Dtype) { return a[0] + a[1]; }},
      {"and", 2, Kinds::Integer, -50, 50, -50, 50,
       [](Args a, Dtype) { return static_cast<double>(i(a[0]) & i(a[1])); }},
      {"div", 2, Kinds::Number, -50, 50, -8, 8, divRef},
      {"max", 2, Kinds::Any, -50, 50, -50, 50, maxRef},
      {"min", 2, Kinds::Any, -50, 50, -50, 50, minRef},
      {"mul", 2, Kinds::Number, -50, 50, -50, 50, [](Args a, Dtype) { return a[0] * a[1]; }},
      {"or", 2, Kinds::Integer, -50, 50, -50, 50,
       [](Args a, Dtype) { return static_cast<double>(i(a[0]) | i(a[1])); }},
      {"pow", 2, Kinds::Float, 0.25, 4, -2, 2,
       [](Args a, Dtype) { return std::pow(a[0], a[1]); }},
      {"rem", 2, Kinds::Number, -50, 50, -8, 8, remRef},
      {"sub", 2, Kinds::Number, -50, 50, -50, 50, [](Args a, Dtype) { return a[0] - a[1]; }},
      {"xor", 2, Kinds::Integer, -50, 50, -50, 50,
       [](Args a, Dtype) { return static_cast<double>(i(a[0]) ^ i(a[1])); }},
  };
  return cases;
}

const OpCase &caseFor(const std::string &op) {
  for (const OpCase &c : elementwiseCases())
    if (c.op == op)
      return c;
  throw std::invalid_argument("no elementwise case for " + op);
}

Tolerance toleranceFor(const std::string &dtype) {
  if (dtype == "f64")
    return {1e-12, 1e-12};
  if (dtype == "f32")
    return {4e-6, 1e-6};
  if (dtype == "f16") // ulp 2^-10; logistic rounds after each of its 3 steps
    return {4e-3, 1e-3};
  if (dtype == "bf16") // ulp 2^-7
    return {3e-2, 1e-2};
  return {0, 0};
}

std::vector<double> floatEdges(int shift) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> e = {std::nan(""), inf, -inf, 0.0, -0.0, 1.0, -1.0};
  std::rotate(e.begin(), e.begin() + (shift % e.size()), e.end());
  return e;
}

TypedArray randomOperand(Rng &rng, const std::string &dtype, const std::vector<int64_t> &shape,
                         double lo, double hi, const std::vector<double> &edges) {
  TypedArray a;
  a.dtype = dtype;
  a.shape = shape;
  a.values.resize(a.numel());
  for (double &v : a.values) {
    double u = rng.uniform(static_cast<float>(lo), static_cast<float>(hi));
    if (dtype == "bool")
      v = rng.uniform(0.0f, 1.0f) < 0.5f ? 1 : 0;
    else if (isFloatDtype(dtype))
      v = roundToDtype(dtype, u);
    else
      v = std::floor(u);
  }
  for (size_t k = 0; k < edges.size() && k < a.values.size(); ++k)
    a.values[k] = roundToDtype(dtype, edges[k]);
  return a;
}

TypedArray applyReference(const Reference &reference, const std::vector<TypedArray> &args,
                          const std::string &resultDtype) {
  TypedArray out;
  out.dtype = resultDtype;
  out.shape = args.at(0).shape;
  out.values.resize(out.numel());
  std::vector<double> element(args.size());
  for (int64_t k = 0; k < out.numel(); ++k) {
    for (size_t a = 0; a < args.size(); ++a)
      element[a] = args[a].values[k];
    out.values[k] = roundToDtype(resultDtype, reference(element, args[0].dtype));
  }
  return out;
}

double convertReference(double v, const std::string &from, const std::string &to) {
  if (to == "bool")
    return v != 0 || std::isnan(v) ? 1 : 0;
  if (isFloatDtype(from) && !isFloatDtype(to)) { // truncate, saturate, NaN -> 0
    if (std::isnan(v))
      return 0;
    double t = std::trunc(v);
    if (t <= intMin(to))
      return intMin(to);
    if (t >= intMax(to))
      return intMax(to);
    return t;
  }
  return roundToDtype(to, v); // rounds floats, wraps integers
}

//===----------------------------------------------------------------------===//
// Model text
//===----------------------------------------------------------------------===//

std::string elementwiseModel(const std::vector<ModelArg> &args,
                             const std::vector<ModelResult> &results,
                             const std::string &body) {
  std::string s = "garray.mesh @mesh [\"data\" = 4]\n\nfunc.func @main(\n";
  for (size_t k = 0; k < args.size(); ++k) {
    const ModelArg &a = args[k];
    s += "    %" + a.name + ": " + a.type + " {garray.name = \"" + a.name + "\"";
    if (!a.spec.empty())
      s += ", garray.sharding = #garray.sharding<@mesh, " + a.spec + ">";
    s += "}" + std::string(k + 1 < args.size() ? ",\n" : ")\n");
  }
  s += "    -> (";
  for (size_t k = 0; k < results.size(); ++k)
    s += (k ? ", " : "") + results[k].type + " {garray.name = \"" + results[k].name + "\"}";
  s += ") {\n" + body;
  s += "  return ";
  for (size_t k = 0; k < results.size(); ++k)
    s += (k ? ", %" : "%") + results[k].value;
  s += " : ";
  for (size_t k = 0; k < results.size(); ++k)
    s += (k ? ", " : "") + results[k].type;
  return s + "\n}\n";
}

std::string specOnDim(int64_t rank, int64_t dim) {
  std::string s = "P(";
  for (int64_t d = 0; d < rank; ++d)
    s += std::string(d ? ", " : "") + (d == dim ? "\"data\"" : "None");
  return s + ")";
}

std::string replicatedSpec(int64_t rank) { return specOnDim(rank, -1); }

} // namespace shardc_test
