//===- Program.h - a random garray program as plain data --------*- C++ -*-===//
//
// The random-program differential tester (tests/random/README.md) builds a
// program as this plain structure, then hands the *same* structure to two
// consumers that share nothing else:
//
//   Generator ──Program──┬──▶ printProgram ──garray text──▶ shardc ──▶ N ranks
//                        └──▶ evaluate (double precision, global arrays)
//
// So the reference never reads MLIR and never runs a line of the compiler:
// a lowering bug cannot cancel itself out. Shardings live here only as the
// text of a `P(...)` spec; the reference ignores them, which is the point
// (a sharding must never change a global value).
//
// Values are numbered per function in the order they were made (an
// argument of `main` may be added after ops that come before its first use;
// `argIds` names each argument's value). `Op::name` is the garray mnemonic ("add", "reduce",
// "call" for func.call); the attribute fields an op uses are listed in
// Printer.cpp and Reference.cpp next to its case.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TESTS_RANDOM_PROGRAM_H
#define SHARDC_TESTS_RANDOM_PROGRAM_H

#include <cstdint>
#include <string>
#include <vector>

namespace shardc_random {

enum class Dtype { F32, I32, I64, I1 };

/// MLIR's spelling (f32, i32, i64, i1).
const char *mlirName(Dtype d);
/// shardrt's dtype name (f32, i32, i64, bool).
const char *runtimeName(Dtype d);
inline bool isFloat(Dtype d) { return d == Dtype::F32; }
inline bool isInt(Dtype d) { return d == Dtype::I32 || d == Dtype::I64; }

struct Type {
  Dtype dtype = Dtype::F32;
  std::vector<int64_t> shape;

  int64_t numel() const;
  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  bool operator==(const Type &o) const { return dtype == o.dtype && shape == o.shape; }
  bool operator!=(const Type &o) const { return !(*this == o); }
};

/// tensor<3x4xf32>
std::string typeText(const Type &t);

struct Op {
  std::string name;
  std::vector<int> operands;
  std::vector<Type> results;
  std::vector<int> resultIds;
  // Integer list attributes: dims, permutation, start/limit/strides,
  // low/high, batch/contracting pairs (a, b, c, d in the order the op
  // prints them).
  std::vector<int64_t> a, b, c, d;
  int64_t dim = 0, offset = 0;
  std::string kind;               // reduce kind, compare direction
  bool flag = false;              // keepdims, lossy
  std::vector<double> values;     // constant elements (one = splat), hyperparameters
  std::string spec;               // P(...) of sharding_constraint / reshard
  int callee = -1;                // function index of a call
};

/// How the driver fills one input of `main` (values on a dyadic grid, so
/// every input is exact in f32 and identical everywhere).
struct InputDomain {
  double lo = -2, hi = 2;   // floats: k / 2^gridExp in [lo, hi]; ints: [lo, hi]
  int gridExp = 3;
};

struct Function {
  std::string name;
  bool isPrivate = false;
  std::vector<Type> args;
  std::vector<int> argIds;             // value id of each argument
  std::vector<std::string> argNames;   // main only
  std::vector<std::string> argSpecs;   // main only: P(...) or "" (no sharding)
  std::vector<InputDomain> argDomains; // main only
  std::vector<Type> valueTypes;        // by value id
  std::vector<Op> ops;
  std::vector<int> results;
  std::vector<std::string> resultNames; // main only
  std::vector<std::string> resultSpecs; // main only: P(...) or ""
};

struct Program {
  uint64_t seed = 0;
  /// ["x"] or ["x", "y"]; the mesh is declared with size 1 per axis and
  /// sized by the run (`--mesh x=4`).
  std::vector<std::string> axes;
  /// Helpers first, `main` last (a helper only calls earlier ones).
  std::vector<Function> functions;

  const Function &main() const { return functions.back(); }
};

} // namespace shardc_random

#endif
