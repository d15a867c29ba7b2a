//===- AttrTextTest.cpp - reading a model's form and StableHLO's attributes ===//
#include "compiler/import/ModelForm.h"
#include "compiler/import/StableHloAttrText.h"

#include <catch2/catch.hpp>

using namespace shardc;

TEST_CASE("a model's form is told by its content", "[import]") {
  CHECK(detectModelForm("garray.mesh @mesh [\"data\" = 2]\n") == ModelForm::Garray);
  CHECK(detectModelForm("%0 = \"stablehlo.add\"(%a, %b) : ...") == ModelForm::StableHloGeneric);
  CHECK(detectModelForm("\"sdy.mesh\"() <{...}> : () -> ()") == ModelForm::StableHloGeneric);
  CHECK(detectModelForm("%0 = stablehlo.add %a, %b : tensor<4xf32>") ==
        ModelForm::StableHloPretty);
  CHECK(detectModelForm("sdy.mesh @mesh = <[\"data\"=2]>") == ModelForm::StableHloPretty);
  // A JAX module with no StableHLO op still goes to the importer.
  CHECK(detectModelForm("func.func @main(%a: tensor<4xf32> {mhlo.sharding = \"{replicated}\"})") ==
        ModelForm::StableHloGeneric);
  // Prose in comments does not count.
  CHECK(detectModelForm("// like \"stablehlo.add\" or stablehlo.add\ngarray.mesh @m [\"a\" = 1]") ==
        ModelForm::Garray);
  CHECK(detectModelForm(std::string_view("ML\xefR\0vhlo.func_v1", 17)) == ModelForm::VhloBytecode);
  CHECK(detectModelForm(std::string_view("ML\xefR\0builtin", 12)) == ModelForm::MlirBytecode);
  CHECK(std::string(refusedFormAdvice(ModelForm::VhloBytecode)).find("tools/jax_export.py") !=
        std::string::npos);
  CHECK(std::string(refusedFormAdvice(ModelForm::Garray)).empty());
}

TEST_CASE("StableHLO's opaque struct attributes are read as integer lists", "[import]") {
  std::string error;
  auto dot = parseStableHloFields(
      "#stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], "
      "lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1, 3]>",
      error);
  REQUIRE(dot);
  CHECK(dot->kind == "dot");
  CHECK(dot->list("lhs_contracting_dimensions") == std::vector<int64_t>{2});
  CHECK(dot->list("rhs_contracting_dimensions") == std::vector<int64_t>{1, 3});
  CHECK(dot->list("absent").empty());
  auto gather = parseStableHloFields(
      "#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], "
      "index_vector_dim = 1>",
      error);
  REQUIRE(gather);
  CHECK(gather->list("index_vector_dim") == std::vector<int64_t>{1});
  CHECK(parseStableHloFields("#stablehlo.dot<>", error)->fields.empty());

  for (const char *bad : {"#stablehlo.dot<lhs = [1, x]>", "#stablehlo.dot<lhs = [1>",
                          "#stablehlo.dot<lhs = [1], lhs = [2]>", "#stablehlo.dot<lhs [1]>",
                          "#stablehlo.dot<lhs = [1]", "#sdy.dot<a = [1]>",
                          "#stablehlo.dot<a = [1] b = [2]>",
                          "#stablehlo.dot<a = 99999999999999999999>"}) {
    INFO(bad);
    error.clear();
    CHECK_FALSE(parseStableHloFields(bad, error));
    CHECK_FALSE(error.empty());
  }
}

TEST_CASE("StableHLO enum attributes are read by their case", "[import]") {
  std::string error;
  CHECK(parseStableHloEnum("#stablehlo<comparison_direction GT>", "comparison_direction",
                           error) == "GT");
  CHECK(parseStableHloEnum("#stablehlo<comparison_type TOTALORDER>", "comparison_type", error) ==
        "TOTALORDER");
  CHECK_FALSE(parseStableHloEnum("#stablehlo<comparison_type FLOAT>", "comparison_direction",
                                 error));
  CHECK_FALSE(parseStableHloEnum("#stablehlo<comparison_direction G T>", "comparison_direction",
                                 error));
  CHECK_FALSE(parseStableHloEnum("#stablehlo<comparison_direction>", "comparison_direction",
                                 error));
}
