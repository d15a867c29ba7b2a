//===- ReductionTestUtil.h - shared pieces of the reduction/indexing tests ===//
//
// Model-text helpers (types, placement specs) and one driver: compile a model
// for data=1, 2 and 4, run it on that many ranks, and check every output
// against a double-precision C++ reference *and* against the 1-rank run,
// with replicas agreeing exactly. Header-only; used by ReductionOpsTest.cpp
// and IndexingOpsTest.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TESTS_EXEC_REDUCTIONTESTUTIL_H
#define SHARDC_TESTS_EXEC_REDUCTIONTESTUTIL_H

#include "tests/exec/ExecHarness.h"

#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

namespace shardc_test {

/// The MLIR element type of a manifest dtype ("bool" is i1).
inline std::string mlirElem(const std::string &dtype) { return dtype == "bool" ? "i1" : dtype; }

/// tensor<8x4xf32>; tensor<f32> for rank 0.
inline std::string tensorType(const std::vector<int64_t> &shape, const std::string &dtype) {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + mlirElem(dtype) + ">";
}

/// P("data") on dim `sharded` (none if -1), None elsewhere:
/// P(None, "data") for rank 2, sharded 1.
inline std::string spec(size_t rank, int sharded) {
  std::string s = "P(";
  for (size_t d = 0; d < rank; ++d)
    s += std::string(d ? ", " : "") + (static_cast<int>(d) == sharded ? "\"data\"" : "None");
  return s + ")";
}

/// A function argument: %name: tensor<...> {garray.name = "name", garray.sharding = ...}.
inline std::string argument(const std::string &name, const TypedArray &a, int sharded) {
  return "%" + name + ": " + tensorType(a.shape, a.dtype) + " {garray.name = \"" + name +
         "\", garray.sharding = #garray.sharding<@mesh, " + spec(a.shape.size(), sharded) + ">}";
}

/// What one output must hold.
struct Expected {
  std::string dtype;
  std::vector<int64_t> shape;
  std::vector<double> values;
  Tolerance tol{0, 0}; // exact unless given
};

/// A model with one function @main: `args` (already written), results named
/// after `expected`, and `body` (which must define %<name> for each).
inline std::string mainFunction(const std::vector<std::string> &args,
                                const std::map<std::string, Expected> &expected,
                                const std::string &body) {
  std::string text = "garray.mesh @mesh [\"data\" = 4]\n\nfunc.func @main(";
  for (size_t i = 0; i < args.size(); ++i)
    text += (i ? ",\n    " : "\n    ") + args[i];
  text += ")\n    -> (";
  std::string ret = "  return ", retTypes;
  bool first = true;
  for (const auto &[name, e] : expected) {
    std::string type = tensorType(e.shape, e.dtype);
    text += std::string(first ? "" : ",\n        ") + type + " {garray.name = \"" + name + "\"}";
    ret += std::string(first ? "" : ", ") + "%" + name;
    retTypes += std::string(first ? "" : ", ") + type;
    first = false;
  }
  return text + ") {\n" + body + ret + " : " + retTypes + "\n}\n";
}

/// Compiles `model` for every mesh in `meshes` (the first has one device),
/// runs it, and checks each output against `expected` and against the
/// 1-rank run; replicas must agree exactly. Returns the last outcome.
inline TypedRunOutcome checkOnMeshes(const std::string &model, const TypedInputs &inputs,
                                  const std::map<std::string, Expected> &expected,
                                  const std::vector<std::string> &meshes) {
  INFO("model:\n" << model);
  TypedRunOutcome one, last;
  for (const std::string &mesh : meshes) {
    TypedRunOutcome r = compileAndRunTyped(model, mesh, inputs);
    INFO("mesh " << mesh);
    INFO(r.error);
    REQUIRE(r.ok);
    for (const auto &[name, e] : expected) {
      INFO("output " << name);
      REQUIRE(r.outputs.count(name));
      CHECK(mismatchTyped(name, r.outputs.at(name), e.dtype, e.shape, e.values, e.tol) == "");
      CHECK(r.replicaDiffs.at(name) == 0.0);
      if (one.ok)
        CHECK(mismatchTyped(name + " vs 1 rank", r.outputs.at(name), e.dtype, e.shape,
                            one.outputs.at(name).values, e.tol) == "");
    }
    if (!one.ok)
      one = r;
    last = r;
  }
  return last;
}

/// checkOnMeshes() on 1, 2 and 4 ranks ("data" = ranks). Returns the 4-rank
/// outcome.
inline TypedRunOutcome checkOnRanks(const std::string &model, const TypedInputs &inputs,
                                 const std::map<std::string, Expected> &expected) {
  return checkOnMeshes(model, inputs, expected, {"data=1", "data=2", "data=4"});
}

/// Tolerance for float sums in `dtype`; exact for integers and bool.
inline Tolerance sumTolerance(const std::string &dtype) {
  if (dtype == "f32")
    return {1e-5, 1e-5};
  if (dtype == "f64")
    return {1e-12, 1e-12};
  return {0, 0};
}

} // namespace shardc_test

#endif
