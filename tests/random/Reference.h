//===- Reference.h - garray's meaning, evaluated in double precision -*- C++ -*-===//
//
// An interpreter of a random Program at the global level: every value is a
// whole array, floats are held as doubles, integers as exact doubles wrapped
// to their width after each op. It is written from the op descriptions of
// the garray dialect (XLA's integer division and remainder, saturating
// float-to-integer conversion, NaN-propagating max/min, first-index
// arg-reductions, clamped gather indices, ...) and shares no code with the
// compiler: no MLIR, no lowering, no sharding. A difference between it and
// shardc's output is a bug in one of them, never a shared one.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TESTS_RANDOM_REFERENCE_H
#define SHARDC_TESTS_RANDOM_REFERENCE_H

#include "tests/random/Program.h"

#include <vector>

namespace shardc_random {

struct Array {
  Type type;
  std::vector<double> values; // row-major
};

/// `main`'s results for `inputs` (one per argument of `main`, in order).
std::vector<Array> evaluate(const Program &program, const std::vector<Array> &inputs);

/// `v` wrapped to `d` as the compiled code holds it (two's complement for
/// i32 and i64, 0/1 for i1; floats unchanged).
double wrapTo(Dtype d, double v);

} // namespace shardc_random

#endif
