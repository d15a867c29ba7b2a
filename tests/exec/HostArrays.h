//===- HostArrays.h - typed global arrays for the execution tests -*- C++ -*-===//
//
// ExecHarness.h moves f32 arrays only; ops over integers, f64, f16/bf16 and
// i1 need their own dtypes end to end. A HostArray holds any of f32, f64,
// f16, bf16, i64, i32, i8 and bool with its values as doubles (exact for all
// of them, and for i64 up to 2^53, far beyond what the tests use). runTyped() scatters, runs and
// gathers exactly as run() does, through the same shardc::runThreads.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TESTS_EXEC_HOSTARRAYS_H
#define SHARDC_TESTS_EXEC_HOSTARRAYS_H

#include "tests/exec/ExecHarness.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace shardc_test {

struct HostArray {
  std::string dtype; // as in the manifest: "f32", "f64", "f16", "bf16", "i64", "i32", "i8", "bool"
  std::vector<int64_t> shape;
  std::vector<double> values; // row-major

  int64_t numel() const;
  double at(int64_t i) const { return values[i]; }
  double at(int64_t i, int64_t j) const { return values[i * shape[1] + j]; }
};

/// Uniform integers in [lo, hi] as a `dtype` array (also for float dtypes,
/// where small integers make sums exact in any order).
HostArray randomInts(Rng &rng, const std::string &dtype, std::vector<int64_t> shape, int64_t lo,
                     int64_t hi);
/// Uniform values on the dyadic grid of Rng::uniform, as a `dtype` array
/// (rounded to f16/bf16 for those dtypes).
HostArray randomReals(Rng &rng, const std::string &dtype, std::vector<int64_t> shape, float lo,
                      float hi);

using TypedInputs = std::map<std::string, HostArray>;

struct TypedOutcome {
  bool ok = false;
  std::string error;
  int64_t ranks = 0;
  std::map<std::string, HostArray> outputs;
  /// Per output, the largest difference between its replicas (0 = agree).
  std::map<std::string, double> replicaDiffs;
};

/// Runs a compiled model on every device of its mesh (threads backend).
TypedOutcome runTyped(const Compiled &model, const TypedInputs &inputs);
TypedOutcome compileAndRunTyped(const std::string &modelText, const std::string &mesh,
                                const TypedInputs &inputs);

/// "" when `actual` has `dtype` and `shape` and every element satisfies
/// |actual - expected| <= abs + rel * |expected| (NaN matches only NaN; use
/// Tolerance{0, 0} for exact results); otherwise a message naming `what`,
/// the first offending index and both values.
std::string mismatchTyped(const std::string &what, const HostArray &actual,
                          const std::string &dtype, const std::vector<int64_t> &shape,
                          const std::vector<double> &expected, Tolerance tol = {});

} // namespace shardc_test

#endif
