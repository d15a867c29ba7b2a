//===- ModelForm.h - what kind of program a model file holds ----*- C++ -*-===//
//
// shardc reads garray models and, through the importer, the StableHLO +
// Shardy programs JAX lowers to, printed in MLIR's generic op form. Which
// one a file holds is decided by its content, before parsing, so that the
// parser allows unregistered dialects only for a file that needs them:
//
//   "stablehlo.add"(%0, %1) : ...       generic StableHLO (importable)
//   %2 = stablehlo.add %0, %1 : ...     pretty StableHLO (needs dialects
//                                       shardc does not have: refused)
//   ML\xefR ... vhlo ...                JAX's serialized export (refused)
//
// Plain C++: no MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_IMPORT_MODELFORM_H
#define SHARDC_COMPILER_IMPORT_MODELFORM_H

#include <string_view>

namespace shardc {

enum class ModelForm {
  Garray,           // anything else: parsed as a garray model
  StableHloGeneric, // JAX's lowering in the generic op form
  StableHloPretty,  // StableHLO or Shardy ops in their custom syntax
  VhloBytecode,     // jax.export's serialized (versioned) StableHLO
  MlirBytecode,     // other MLIR bytecode
};

/// Classifies a model's text by its content. Comments (`// ...`) are
/// ignored, so a garray model may mention StableHLO in prose.
ModelForm detectModelForm(std::string_view text);

/// What to do instead, for the forms shardc refuses; empty for the others.
const char *refusedFormAdvice(ModelForm form);

} // namespace shardc

#endif
