//===- ElementwiseOps.cpp - verifiers of elementwise ops ------------------===//
//
// Messages start with the constraint label from GArrayElementwiseOps.td.
// (add/sub/... need none beyond SameOperandsAndResultType.) select prints its
// own form, whose types are the predicate's and the values'.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "dialects/garray/VerifyUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::garray;

//===----------------------------------------------------------------------===//
// compare / select
//===----------------------------------------------------------------------===//

LogicalResult CompareOp::verify() {
  auto lhs = cast<RankedTensorType>(getLhs().getType());
  auto out = cast<RankedTensorType>(getType());
  if (getRhs().getType() != lhs)
    return emitOpError("compare_c1: lhs (operand #0) has type ")
           << lhs << " but rhs (operand #1) has " << getRhs().getType();
  if (!out.getElementType().isInteger(1) || out.getShape() != lhs.getShape())
    return emitOpError("compare_c2: the result must be ")
           << RankedTensorType::get(lhs.getShape(), IntegerType::get(getContext(), 1))
           << ", not " << out;
  return success();
}

LogicalResult SelectOp::verify() {
  auto pred = cast<RankedTensorType>(getPred().getType());
  auto out = cast<RankedTensorType>(getType());
  if (!pred.getElementType().isInteger(1))
    return emitOpError("select_c1: the predicate (operand #0) must have element type i1, not ")
           << pred.getElementType();
  if (pred.getShape() != out.getShape())
    return emitOpError("select_c2: the predicate (operand #0) has type ")
           << pred << " but the result has shape " << out;
  if (getOnTrue().getType() != out || getOnFalse().getType() != out)
    return emitOpError("select_c3: on_true (operand #1) ")
           << getOnTrue().getType() << ", on_false (operand #2) " << getOnFalse().getType()
           << " and the result " << out << " must have one type";
  return success();
}

// %r = garray.select %pred, %a, %b : tensor<8xi1>, tensor<8xf32>
ParseResult SelectOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::UnresolvedOperand pred, onTrue, onFalse;
  Type predType, valueType;
  if (parser.parseOperand(pred) || parser.parseComma() || parser.parseOperand(onTrue) ||
      parser.parseComma() || parser.parseOperand(onFalse) ||
      parser.parseOptionalAttrDict(result.attributes) || parser.parseColon() ||
      parser.parseType(predType) || parser.parseComma() || parser.parseType(valueType) ||
      parser.resolveOperand(pred, predType, result.operands) ||
      parser.resolveOperand(onTrue, valueType, result.operands) ||
      parser.resolveOperand(onFalse, valueType, result.operands))
    return failure();
  result.addTypes(valueType);
  return success();
}

void SelectOp::print(OpAsmPrinter &p) {
  p << " " << getPred() << ", " << getOnTrue() << ", " << getOnFalse();
  p.printOptionalAttrDict((*this)->getAttrs());
  p << " : " << getPred().getType() << ", " << getType();
}
