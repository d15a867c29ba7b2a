//===- CaseToSelect.cpp - stablehlo.case as every branch and selects ------===//
//
// garray has no control flow. stablehlo.case (lax.cond, lax.switch, and the
// gradient of either) runs branch `index` of its regions, the last one when
// the index is out of range. StableHLO ops have no side effects, so the same
// values come from running every branch and picking each result:
//
//   %r = stablehlo.case(%i) {b0} {b1} {b2}
//   ->  ops of b0, b1, b2 (copied before the case, in order)
//       %r = select(%i == 0, r0, select(%i == 1, r1, r2))
//
// The cost is every branch's work, where XLA runs one; a branch's values
// are exactly what it would compute alone. This runs before the import,
// innermost cases first, and before while loops are unrolled, so a case in
// a loop body is flattened once and copied per iteration. The predicates
// and selects are StableHLO ops in the generic form, imported like the
// program's own.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/ImportOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace shardc::import {
namespace {

LogicalResult flatten(Operation *caseOp) {
  Location loc = caseOp->getLoc();
  if (caseOp->getNumOperands() != 1 || caseOp->getNumRegions() == 0)
    return caseOp->emitError() << "'stablehlo.case' needs one index and at least one branch";
  Value index = caseOp->getOperand(0);
  auto indexType = dyn_cast<RankedTensorType>(index.getType());
  if (!indexType || indexType.getRank() != 0 || !indexType.getElementType().isInteger(32))
    return caseOp->emitError() << "'stablehlo.case' needs a tensor<i32> index";
  for (Type t : caseOp->getResultTypes())
    if (!isa<RankedTensorType>(t))
      return caseOp->emitError() << "'stablehlo.case' with a result of type " << t
                                 << " is not supported (tensors only)";
  OpBuilder b(caseOp);
  // Each branch's ops, copied in order; its results.
  SmallVector<SmallVector<Value>> results;
  for (Region &branch : caseOp->getRegions()) {
    if (!llvm::hasSingleElement(branch) || branch.front().getNumArguments() != 0 ||
        branch.front().empty())
      return caseOp->emitError() << "'stablehlo.case' with a branch of several blocks or "
                                    "with arguments is not supported";
    Block &block = branch.front();
    // The ops are unregistered, so the block cannot tell its terminator:
    // it is the last op.
    Operation *ret = &block.back();
    if (ret->getName().getStringRef() != "stablehlo.return" ||
        ret->getNumOperands() != caseOp->getNumResults())
      return caseOp->emitError() << "a branch of 'stablehlo.case' must end in a "
                                    "'stablehlo.return' of its results";
    IRMapping map;
    for (Operation &op : block)
      if (&op != ret)
        b.clone(op, map);
    SmallVector<Value> values;
    for (Value v : ret->getOperands())
      values.push_back(map.lookupOrDefault(v));
    results.push_back(std::move(values));
  }
  // select(index == k, branch k, ...), the last branch when no k matches.
  const int64_t n = static_cast<int64_t>(results.size());
  MLIRContext *ctx = caseOp->getContext();
  auto predType = RankedTensorType::get({}, IntegerType::get(ctx, 1));
  Attribute eq = OpaqueAttr::get(StringAttr::get(ctx, "stablehlo"), "comparison_direction EQ",
                                 NoneType::get(ctx));
  SmallVector<Value> picked = results.back();
  for (int64_t k = n - 2; k >= 0; --k) {
    Value constant = stableHloConstant(
        b, loc, DenseElementsAttr::get(indexType, APInt(32, k, /*isSigned=*/true)));
    Value pred = createStableHlo(b, loc, "stablehlo.compare", {index, constant}, predType,
                        {NamedAttribute(StringAttr::get(ctx, "comparison_direction"), eq)})
                     ->getResult(0);
    for (size_t r = 0; r < picked.size(); ++r)
      picked[r] = createStableHlo(b, loc, "stablehlo.select", {pred, results[k][r], picked[r]},
                         caseOp->getResult(r).getType())
                      ->getResult(0);
  }
  for (auto [result, value] : llvm::zip(caseOp->getResults(), picked))
    result.replaceAllUsesWith(value);
  caseOp->erase();
  return success();
}

} // namespace

LogicalResult flattenCases(ModuleOp module) {
  // A case inside a branch is flattened before its parent is.
  for (Operation *c : opsNamed(module, "stablehlo.case"))
    if (failed(flatten(c)))
      return failure();
  return success();
}

} // namespace shardc::import
