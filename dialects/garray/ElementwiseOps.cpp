//===- ElementwiseOps.cpp - verifiers of elementwise ops ------------------===//
//
// Messages start with the constraint label from GArrayElementwiseOps.td and
// name the operand at fault. The same-typed ops (add, exp, ...) share one
// verifier, called from their generated verify(); compare, select and convert
// have their own.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/ElementwiseUtils.h"
#include "dialects/garray/GArray.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/APFloat.h"

using namespace mlir;
using namespace mlir::garray;

/// "exp_c2" for an op named garray.exp.
static std::string label(Operation *op, int n) {
  return (op->getName().stripDialect() + "_c" + Twine(n)).str();
}

/// ODS operand names, for messages.
static StringRef operandName(Operation *op, unsigned i) {
  if (op->getNumOperands() == 1)
    return "operand";
  return i == 0 ? "lhs" : "rhs";
}

/// isa<FloatType>, with the common float types tested by TypeID before the
/// interface lookup (the verifier asks this for every op after every pass).
static bool isFloat(Type elem) {
  return isa<Float32Type, Float64Type, Float16Type, BFloat16Type>(elem) || isa<FloatType>(elem);
}

static bool hasKind(Type elem, ElementKinds kinds) {
  switch (kinds) {
  case ElementKinds::Any:
    return true;
  case ElementKinds::Float:
    return isFloat(elem);
  case ElementKinds::Number:
    return isFloat(elem) || (elem.isInteger() && !elem.isInteger(1));
  case ElementKinds::Integer:
    return elem.isInteger();
  }
  return false;
}

static StringRef kindsText(ElementKinds kinds) {
  switch (kinds) {
  case ElementKinds::Any:
    return "any element type";
  case ElementKinds::Float:
    return "a float element type (f16, bf16, f32, f64)";
  case ElementKinds::Number:
    return "a float or an integer wider than i1 (on i1 use and/or/xor/not)";
  case ElementKinds::Integer:
    return "an integer element type (i1 included)";
  }
  return "";
}

LogicalResult mlir::garray::verifySameTypeElementwise(Operation *op, ElementKinds kinds) {
  Type first = op->getOperand(0).getType();
  for (unsigned i = 1; i < op->getNumOperands(); ++i)
    if (op->getOperand(i).getType() != first)
      return op->emitOpError(label(op, 1))
             << ": " << operandName(op, i) << " has type " << op->getOperand(i).getType()
             << " but " << operandName(op, 0) << " has type " << first
             << "; operands must have one type (use broadcast_in_dim or convert first)";
  if (op->getResult(0).getType() != first)
    return op->emitOpError(label(op, 1))
           << ": the result has type " << op->getResult(0).getType() << " but "
           << (op->getNumOperands() == 1 ? "the operand has type " : "the operands have type ")
           << first;
  Type elem = cast<RankedTensorType>(first).getElementType();
  if (!hasKind(elem, kinds))
    return op->emitOpError(label(op, 2))
           << ": " << (op->getNumOperands() == 1 ? "the operand has" : "the operands have")
           << " element type " << elem << ", but '" << op->getName() << "' needs "
           << kindsText(kinds);
  return success();
}

//===----------------------------------------------------------------------===//
// compare
//===----------------------------------------------------------------------===//

LogicalResult CompareOp::verify() {
  auto lhs = cast<RankedTensorType>(getLhs().getType());
  auto out = cast<RankedTensorType>(getType());
  if (getRhs().getType() != lhs)
    return emitOpError("compare_c1: rhs has type ")
           << getRhs().getType() << " but lhs has type " << lhs
           << "; operands must have one type (use broadcast_in_dim or convert first)";
  if (out.getShape() != lhs.getShape())
    return emitOpError("compare_c2: the result has type ")
           << out << " but the operands have shape [" << lhs.getShape() << "]";
  if (!out.getElementType().isInteger(1))
    return emitOpError("compare_c3: the result's element type must be i1, not ")
           << out.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// select
//===----------------------------------------------------------------------===//

LogicalResult SelectOp::verify() {
  auto pred = cast<RankedTensorType>(getPred().getType());
  auto out = cast<RankedTensorType>(getType());
  if (!pred.getElementType().isInteger(1))
    return emitOpError("select_c1: pred must have element type i1, not ")
           << pred.getElementType() << " (make one with garray.compare)";
  if (pred.getShape() != out.getShape())
    return emitOpError("select_c2: pred has type ")
           << pred << " but the result has shape [" << out.getShape()
           << "] (use broadcast_in_dim first)";
  if (getOnTrue().getType() != out)
    return emitOpError("select_c3: on_true has type ")
           << getOnTrue().getType() << " but the result has type " << out;
  if (getOnFalse().getType() != out)
    return emitOpError("select_c3: on_false has type ")
           << getOnFalse().getType() << " but the result has type " << out;
  return success();
}

//===----------------------------------------------------------------------===//
// convert
//===----------------------------------------------------------------------===//

bool ConvertOp::isExact(Type from, Type to) {
  if (from == to || from.isInteger(1))
    return true;
  auto fromFloat = dyn_cast<FloatType>(from);
  auto toFloat = dyn_cast<FloatType>(to);
  if (fromFloat) // a float fits another float or nothing
    return toFloat && llvm::APFloat::isRepresentableBy(fromFloat.getFloatSemantics(),
                                                      toFloat.getFloatSemantics());
  unsigned bits = from.getIntOrFloatBitWidth();
  if (toFloat) {
    // A signed n-bit integer has magnitude at most 2^(n-1): exact when the
    // significand holds n-1 bits (and the exponent reaches that far).
    const llvm::fltSemantics &sem = toFloat.getFloatSemantics();
    return bits - 1 <= llvm::APFloat::semanticsPrecision(sem) &&
           static_cast<int>(bits - 1) <= llvm::APFloat::semanticsMaxExponent(sem);
  }
  // Integer to integer: sign extension is exact, truncation (and i1) is not.
  return !to.isInteger(1) && to.getIntOrFloatBitWidth() >= bits;
}

LogicalResult BitcastConvertOp::verify() {
  auto in = cast<RankedTensorType>(getOperand().getType());
  auto out = cast<RankedTensorType>(getType());
  if (in.getShape() != out.getShape())
    return emitOpError("bitcast_convert_c1: the operand has type ")
           << in << " but the result has type " << out << "; bitcast_convert keeps the shape";
  unsigned from = in.getElementType().getIntOrFloatBitWidth();
  unsigned to = out.getElementType().getIntOrFloatBitWidth();
  if (from != to || from == 1)
    return emitOpError("bitcast_convert_c2: ")
           << in.getElementType() << " (" << from << " bits) and " << out.getElementType()
           << " (" << to << " bits) are not element types of one width; use `convert` to "
              "change a value's type";
  return success();
}

LogicalResult ConvertOp::verify() {
  auto in = cast<RankedTensorType>(getOperand().getType());
  auto out = cast<RankedTensorType>(getType());
  if (in.getShape() != out.getShape())
    return emitOpError("convert_c1: the operand has type ")
           << in << " but the result has type " << out << "; convert keeps the shape";
  if (!getLossy() && !isExact(in.getElementType(), out.getElementType()))
    return emitOpError("convert_c2: converting the operand from ")
           << in.getElementType() << " to " << out.getElementType()
           << " can lose information; write `garray.convert %x lossy : ...` if that is "
              "intended";
  return success();
}
