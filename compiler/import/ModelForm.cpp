//===- ModelForm.cpp - what kind of program a model file holds ------------===//
#include "compiler/import/ModelForm.h"

namespace shardc {

namespace {

/// Whether `line`, up to a `//` comment, contains `what`.
bool lineMentions(std::string_view line, std::string_view what) {
  size_t cut = line.find("//");
  // A `//` inside a string literal (a file path in a location) is not a
  // comment; locations come after the code, so a cut there loses nothing.
  return line.substr(0, cut).find(what) != std::string_view::npos;
}

} // namespace

ModelForm detectModelForm(std::string_view text) {
  if (text.substr(0, 4) == "ML\xefR")
    return text.find("vhlo") != std::string_view::npos ? ModelForm::VhloBytecode
                                                        : ModelForm::MlirBytecode;
  bool pretty = false, jaxAttrs = false;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    std::string_view line =
        text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (lineMentions(line, "\"stablehlo.") || lineMentions(line, "\"sdy.") ||
        lineMentions(line, "\"chlo."))
      return ModelForm::StableHloGeneric;
    pretty = pretty || lineMentions(line, " stablehlo.") || lineMentions(line, "sdy.mesh @") ||
             lineMentions(line, "#sdy.sharding<");
    // A JAX module may hold no StableHLO op (an identity), but its
    // attributes still need the importer: a GSPMD sharding must be refused,
    // not ignored.
    for (std::string_view attr : {"mhlo.sharding", "mhlo.num_partitions", "mhlo.layout_mode",
                                  "mhlo.memory_kind", "mhlo.frontend_attributes",
                                  "jax.result_info", "jax.buffer_donor", "tf.aliasing_output"})
      jaxAttrs = jaxAttrs || lineMentions(line, attr);
    if (end == std::string_view::npos)
      break;
    start = end + 1;
  }
  if (pretty)
    return ModelForm::StableHloPretty;
  return jaxAttrs ? ModelForm::StableHloGeneric : ModelForm::Garray;
}

const char *refusedFormAdvice(ModelForm form) {
  switch (form) {
  case ModelForm::StableHloPretty:
    return "this is StableHLO in its pretty form, which needs the StableHLO and Shardy "
           "dialects; print the generic op form instead (tools/jax_export.py does, or "
           "`lowered.compiler_ir('stablehlo').operation.get_asm(print_generic_op_form=True, "
           "enable_debug_info=True)`)";
  case ModelForm::VhloBytecode:
    return "this is serialized (VHLO) StableHLO, as jax.export writes it; shardc reads the "
           "generic op form of the lowering instead: write it with tools/jax_export.py";
  case ModelForm::MlirBytecode:
    return "this is MLIR bytecode; shardc reads a model as text (print it with "
           "`mlir-opt FILE -o MODEL.mlir`, or shardc-opt)";
  default:
    return "";
  }
}

} // namespace shardc
