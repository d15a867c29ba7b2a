//===- ModelText.h - model sources written inline by the tests ---*- C++ -*-===//
//
// Small helpers to write garray models with sizes as parameters, in the style
// of samples/linear_regression_step.mlir. Header-only.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TESTS_EXEC_MODELTEXT_H
#define SHARDC_TESTS_EXEC_MODELTEXT_H

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>

namespace shardc_test {

/// Replaces every `{KEY}` in `text` by its value.
inline std::string subst(std::string text, const std::map<std::string, std::string> &values) {
  for (const auto &[key, value] : values) {
    std::string pattern = "{" + key + "}";
    for (size_t at = text.find(pattern); at != std::string::npos;
         at = text.find(pattern, at + value.size()))
      text.replace(at, pattern.size(), value);
  }
  return text;
}

/// A float literal MLIR parses back to the nearest f32 (e.g. 0.333333343).
inline std::string floatLiteral(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9e", v);
  return buf;
}

/// The seed program (samples/linear_regression_step.mlir) for `rows` examples
/// of `features` features: X rows and y split over "data", w replicated.
///   r = X w - y, loss = mean(r^2), grad = (2/rows) X^T r, w_next = w - 0.1 grad
inline std::string linearRegressionModel(int64_t rows, int64_t features) {
  const char *text = R"(// Linear regression step, {N} examples of {D} features.
garray.mesh @mesh ["data" = 4]

func.func @main(
    %X: tensor<{N}x{D}xf32> {garray.name = "X", garray.sharding = #garray.sharding<@mesh, P("data", None)>},
    %y: tensor<{N}xf32> {garray.name = "y", garray.sharding = #garray.sharding<@mesh, P("data")>},
    %w: tensor<{D}xf32> {garray.name = "w", garray.sharding = #garray.sharding<@mesh, P()>})
    -> (tensor<f32> {garray.name = "loss"},
        tensor<{D}xf32> {garray.name = "grad"},
        tensor<{D}xf32> {garray.name = "w_next"}) {
  %pred = garray.dot_general %X, %w, batch = [] x [], contracting = [1] x [0]
      : (tensor<{N}x{D}xf32>, tensor<{D}xf32>) -> tensor<{N}xf32>
  %r = garray.sub %pred, %y : tensor<{N}xf32>
  %sq = garray.mul %r, %r : tensor<{N}xf32>
  %loss = garray.mean %sq, dims = [0] : (tensor<{N}xf32>) -> tensor<f32>
  %xtr = garray.dot_general %X, %r, batch = [] x [], contracting = [0] x [0]
      : (tensor<{N}x{D}xf32>, tensor<{N}xf32>) -> tensor<{D}xf32>
  %two_over_n = garray.constant dense<{TWO_OVER_N}> : tensor<{D}xf32>
  %grad = garray.mul %xtr, %two_over_n : tensor<{D}xf32>
  %lr = garray.constant dense<0.1> : tensor<{D}xf32>
  %step = garray.mul %grad, %lr : tensor<{D}xf32>
  %w_next = garray.sub %w, %step : tensor<{D}xf32>
  return %loss, %grad, %w_next : tensor<f32>, tensor<{D}xf32>, tensor<{D}xf32>
}
)";
  return subst(text, {{"N", std::to_string(rows)},
                      {"D", std::to_string(features)},
                      {"TWO_OVER_N", floatLiteral(2.0 / static_cast<double>(rows))}});
}

} // namespace shardc_test

#endif
