//===- FloatExpansion.h - building float functions from garray ops -*- C++ -*-===//
//
// What the importer's expansions of functions garray has no op for
// (SpecialFunctions.cpp, ElementaryFunctions.cpp) build them with:
// constants shaped like an operand, polynomials, and the rule that runs an
// f32 approximation on bf16 and f16 operands and refuses f64.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_IMPORT_FLOATEXPANSION_H
#define SHARDC_COMPILER_IMPORT_FLOATEXPANSION_H

#include "compiler/import/ImportOps.h"

#include <type_traits>

namespace shardc::import {

/// A tensor like `x` with every element `v`: a scalar constant broadcast,
/// so that an expansion's dozens of constants hold one element each, not
/// one per element of `x` (the input contract bounds constants' elements).
inline mlir::Value constLike(mlir::garray::OpEmitter &e, mlir::Value x, double v) {
  auto t = mlir::cast<mlir::RankedTensorType>(x.getType());
  return filledConstant(e, t, e.b.getFloatAttr(t.getElementType(), v));
}

inline mlir::Value scaleBy(mlir::garray::OpEmitter &e, mlir::Value x, double s) {
  return e.mul(x, constLike(e, x, s));
}

/// c[0] · y^(n-1) + ... + c[n-1], by Horner's rule.
inline mlir::Value polynomial(mlir::garray::OpEmitter &e, mlir::Value y,
                              llvm::ArrayRef<double> c) {
  mlir::Value r = constLike(e, y, c[0]);
  for (double k : c.drop_front())
    r = e.add(e.mul(r, y), constLike(e, y, k));
  return r;
}

inline mlir::Value absOf(mlir::garray::OpEmitter &e, mlir::Value x) {
  return mlir::garray::AbsOp::create(e.b, e.loc, x.getType(), x);
}

/// `f` on `op`'s operands in f32 (bf16/f16 widened and the result rounded
/// back), or an error naming the op for other element types.
template <typename F>
mlir::FailureOr<Values> inF32(mlir::Operation *op, mlir::garray::OpEmitter &e, F f) {
  mlir::RankedTensorType t = tensorType(op->getOperand(0));
  mlir::Type element = t.getElementType();
  if (!mlir::isa<mlir::Float32Type, mlir::BFloat16Type, mlir::Float16Type>(element))
    return op->emitError() << "'" << op->getName() << "' on " << element
                           << " is not supported: shardc computes it with an f32 approximation; "
                              "convert the operand to f32 first";
  auto f32 = mlir::RankedTensorType::get(t.getShape(), e.b.getF32Type());
  llvm::SmallVector<mlir::Value, 2> args;
  for (mlir::Value v : op->getOperands())
    args.push_back(e.convert(v, f32));
  mlir::Value r;
  if constexpr (std::is_invocable_v<F, mlir::garray::OpEmitter &, mlir::Value>)
    r = f(e, args[0]);
  else
    r = f(e, args[0], args[1]);
  return Values{e.convert(r, t)};
}

} // namespace shardc::import

#endif // SHARDC_COMPILER_IMPORT_FLOATEXPANSION_H
