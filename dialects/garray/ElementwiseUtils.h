//===- ElementwiseUtils.h - shared syntax and checks of elementwise ops -*- C++ -*-===//
//
// Included by GArrayOps.cpp before the generated op definitions (which call
// these) and by ElementwiseOps.cpp (which defines the checks).
//
//   custom<ElementwiseTypes>: `: T` when every operand and the result have
//   type T, else `: (T0, T1, ...) -> R`. Both forms parse for every op, so
//   an ill-typed op reaches its labelled verifier rather than a parse error.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_DIALECTS_GARRAY_ELEMENTWISEUTILS_H
#define SHARDC_DIALECTS_GARRAY_ELEMENTWISEUTILS_H

#include "dialects/garray/GArray.h"

#include "mlir/IR/OpImplementation.h"

namespace mlir::garray {

/// Element types an elementwise op computes on (its `<op>_c2` constraint).
enum class ElementKinds {
  Any,     // every garray element type
  Float,   // f16, bf16, f32, f64
  Number,  // floats and integers wider than i1
  Integer, // integers, i1 included
};

/// `<op>_c1`: operands and result have one type; `<op>_c2`: its element
/// type is one of `kinds`. Messages name the operand at fault.
LogicalResult verifySameTypeElementwise(Operation *op, ElementKinds kinds);

/// Parses `: T` (every slot gets T) or `: (T0, ..., Tn-2) -> Tn-1`; the
/// last slot is the result.
template <typename... TypeRefs>
ParseResult parseElementwiseTypes(OpAsmParser &parser, TypeRefs &...slots) {
  Type *all[] = {&slots...};
  constexpr size_t numOperands = sizeof...(TypeRefs) - 1;
  llvm::SMLoc loc = parser.getCurrentLocation();
  Type type;
  if (parser.parseType(type))
    return failure();
  auto fn = dyn_cast<FunctionType>(type);
  if (!fn) {
    for (Type *slot : all)
      *slot = type;
    return success();
  }
  if (fn.getNumInputs() != numOperands || fn.getNumResults() != 1)
    return parser.emitError(loc) << "expected a function type with " << numOperands
                                 << " operand type(s) and one result type, got " << fn;
  for (size_t i = 0; i < numOperands; ++i)
    *all[i] = fn.getInput(i);
  *all[numOperands] = fn.getResult(0);
  return success();
}

template <typename... Types>
void printElementwiseTypes(OpAsmPrinter &printer, Operation *op, Types... types) {
  Type all[] = {Type(types)...};
  constexpr size_t numOperands = sizeof...(Types) - 1;
  if (llvm::all_equal(all)) {
    printer << all[0];
    return;
  }
  printer << FunctionType::get(op->getContext(), ArrayRef<Type>(all, numOperands),
                               all[numOperands]);
}

} // namespace mlir::garray

#endif // SHARDC_DIALECTS_GARRAY_ELEMENTWISEUTILS_H
