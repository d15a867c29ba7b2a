//===- Generator.h - random, valid garray programs --------------*- C++ -*-===//
//
// generate(seed) returns a program that shardc must accept and compute
// correctly on every mesh: a `main` over a 1-D ["x"] or 2-D ["x", "y"] mesh
// whose arguments carry random shardings (several axes on a dim, open dims,
// priorities, dims that do not divide, shards that are empty), a random mix
// of every garray op family (elementwise, compare/select/convert, shape ops,
// dot_general in any form, reductions, mean with and without weights,
// arg-reductions, gather/scatter_add/scatter_reduce, optimizer updates, constraints,
// reshards) and private helpers reached through func.call.
//
// Every value carries what the generator knows of it: bounds, whether f32
// holds it exactly (dyadic inputs through exact ops), and a bound on the
// error an f32 evaluation may have. That knowledge keeps programs inside
// each op's domain (log of a positive value, exp of a bounded one,
// divisors away from zero) by inserting small fixes (abs, + 0.5, tanh), and
// keeps discontinuous ops (floor, round, sign, compare, float-to-int
// convert, rem, arg-reductions) on exact values only, where f32 and the
// double reference must agree exactly. The error bound of each result is
// the tolerance the driver compares with.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TESTS_RANDOM_GENERATOR_H
#define SHARDC_TESTS_RANDOM_GENERATOR_H

#include "tests/random/Program.h"

#include <cstdint>
#include <vector>

namespace shardc_random {

struct GeneratorOptions {
  int minOps = 6;         // op-generating steps in main (fixes come on top)
  int maxOps = 20;
  int64_t maxElements = 192; // per value
};

struct Generated {
  Program program;
  /// Per result of main: the absolute error an f32 evaluation may have
  /// (0 for exact results: integers, and floats f32 holds exactly).
  std::vector<double> tolerance;
};

Generated generate(uint64_t seed, const GeneratorOptions &options = {});

/// The garray ops the generator can emit (the coverage report's rows).
const std::vector<const char *> &generatedOps();

} // namespace shardc_random

#endif
