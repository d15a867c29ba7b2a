//===- FactorRules.cpp - every garray op's sharding rule, alphabetically --===//
//
// One small function per op family; the rule is the whole of an op's sharding
// semantics (see passes/core/FactorRule.h). Keep entries alphabetical.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"

using namespace mlir;
using namespace mlir::garray;
using shardc::FactorKind;
using shardc::FactorRule;
using shardc::FactorRuleBuilder;
using shardc::PendingFlow;
using shardc::Reduction;

static std::vector<int64_t> shapeOf(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  return std::vector<int64_t>(t.getShape().begin(), t.getShape().end());
}

static PendingFlow none() { return {}; }
static PendingFlow allSame(Reduction r) { return {PendingFlow::Mode::AllSame, r, {}}; }
static PendingFlow oneOf(std::vector<int> operands) {
  return {PendingFlow::Mode::OneOf, Reduction::Sum, std::move(operands)};
}

static FactorRule elementwise(Operation *op, PendingFlow flow) {
  return FactorRuleBuilder::elementwise(shapeOf(op->getResult(0)), op->getNumOperands(),
                                        std::move(flow));
}

// Reductions: reduced dims are Reduction factors; with keepdims the result
// keeps a size-1 dim that no factor indexes (so it is never sharded).
static FactorRule reduction(Value operand, ArrayRef<int64_t> dims, bool keepdims,
                            Reduction kind, PendingFlow flow) {
  FactorRuleBuilder b;
  FactorRule::TensorFactors in, out;
  std::vector<int64_t> shape = shapeOf(operand);
  for (int64_t d = 0, e = shape.size(); d < e; ++d) {
    bool reduced = llvm::is_contained(dims, d);
    int f = b.factor(shape[d], reduced ? FactorKind::Reduction : FactorKind::Parallel);
    in.push_back({f});
    if (!reduced)
      out.push_back({f});
    else if (keepdims)
      out.push_back({});
  }
  return b.operand(in).result(out).reduction(kind).pending(std::move(flow)).build();
}

FactorRule AbsOp::getFactorRule() { return elementwise(*this, none()); }
FactorRule AddOp::getFactorRule() { return elementwise(*this, allSame(Reduction::Sum)); }
FactorRule AndOp::getFactorRule() { return elementwise(*this, none()); }

// Operand dim i maps to result dim dims[i] when sizes agree; a stretched
// size-1 dim indexes no factor and so stays whole.
FactorRule BroadcastInDimOp::getFactorRule() {
  FactorRuleBuilder b;
  std::vector<int64_t> out = shapeOf(getResult()), in = shapeOf(getOperand());
  FactorRule::TensorFactors resultDims;
  for (int64_t s : out)
    resultDims.push_back({b.factor(s)});
  FactorRule::TensorFactors operandDims;
  for (auto [i, d] : llvm::enumerate(getDims()))
    operandDims.push_back(in[i] == out[d] ? resultDims[d] : FactorRule::DimFactors{});
  return b.operand(operandDims).result(resultDims).pending(oneOf({0})).build();
}

FactorRule CeilOp::getFactorRule() { return elementwise(*this, none()); }
FactorRule CompareOp::getFactorRule() { return elementwise(*this, none()); }

// A constant has no operands; its result is free to take any sharding (each
// device materialises its part).
FactorRule ConstantOp::getFactorRule() { return elementwise(*this, none()); }

FactorRule ConvertOp::getFactorRule() { return elementwise(*this, none()); }
FactorRule CosOp::getFactorRule() { return elementwise(*this, none()); }

// (Σ a_i) / b = Σ (a_i / b) holds for floats only: integer division
// truncates, so an integer numerator is reduced first.
FactorRule DivOp::getFactorRule() {
  bool isFloat = isa<FloatType>(getType().getElementType());
  return elementwise(*this, isFloat ? oneOf({0}) : none());
}

// ([b.., i.., k..],[b.., k.., j..])->([b.., i.., j..]) sum={k..}
FactorRule DotGeneralOp::getFactorRule() {
  FactorRuleBuilder b;
  std::vector<int64_t> lhs = shapeOf(getLhs()), rhs = shapeOf(getRhs());
  FactorRule::TensorFactors l(lhs.size()), r(rhs.size()), out;
  for (auto [ld, rd] : llvm::zip(getLhsBatch(), getRhsBatch())) {
    int f = b.factor(lhs[ld]);
    l[ld] = r[rd] = {f};
    out.push_back({f});
  }
  for (auto [ld, rd] : llvm::zip(getLhsContracting(), getRhsContracting())) {
    int f = b.factor(lhs[ld], FactorKind::Reduction);
    l[ld] = r[rd] = {f};
  }
  for (size_t d = 0; d < lhs.size(); ++d)
    if (l[d].empty()) {
      l[d] = {b.factor(lhs[d])};
      out.push_back(l[d]);
    }
  for (size_t d = 0; d < rhs.size(); ++d)
    if (r[d].empty()) {
      r[d] = {b.factor(rhs[d])};
      out.push_back(r[d]);
    }
  return b.operand(l).operand(r).result(out).reduction(Reduction::Sum).pending(oneOf({0, 1})).build();
}

FactorRule ExpOp::getFactorRule() { return elementwise(*this, none()); }
FactorRule FloorOp::getFactorRule() { return elementwise(*this, none()); }
FactorRule LogOp::getFactorRule() { return elementwise(*this, none()); }
FactorRule LogisticOp::getFactorRule() { return elementwise(*this, none()); }
FactorRule MaxOp::getFactorRule() { return elementwise(*this, allSame(Reduction::Max)); }

// The mean is decomposed before propagation; its rule (a sum whose pending
// result is later divided by the global count) only serves tools that ask.
FactorRule MeanOp::getFactorRule() {
  return reduction(getOperand(), getDims(), getKeepdims(), Reduction::Sum, oneOf({0}));
}

FactorRule MinOp::getFactorRule() { return elementwise(*this, allSame(Reduction::Min)); }
FactorRule MulOp::getFactorRule() { return elementwise(*this, oneOf({0, 1})); }
FactorRule NegOp::getFactorRule() { return elementwise(*this, oneOf({0})); }
FactorRule NotOp::getFactorRule() { return elementwise(*this, none()); }
FactorRule OrOp::getFactorRule() { return elementwise(*this, none()); }
FactorRule PowOp::getFactorRule() { return elementwise(*this, none()); }

// A pending partial flows into a reduction of the same kind (a sum of partial
// sums is a partial sum); other kinds are reduced first.
FactorRule ReduceOp::getFactorRule() {
  Reduction kind = toCore(getKind());
  PendingFlow flow = kind == Reduction::Sum ? oneOf({0}) : allSame(kind);
  return reduction(getOperand(), getDims(), getKeepdims(), kind, flow);
}

FactorRule RemOp::getFactorRule() { return elementwise(*this, none()); }
FactorRule RsqrtOp::getFactorRule() { return elementwise(*this, none()); }

// Both branches share the predicate's factors; a pending branch is reduced
// first (no flow: the predicate can never be a pending sum).
FactorRule SelectOp::getFactorRule() { return elementwise(*this, none()); }

FactorRule SignOp::getFactorRule() { return elementwise(*this, none()); }
FactorRule SinOp::getFactorRule() { return elementwise(*this, none()); }
FactorRule SqrtOp::getFactorRule() { return elementwise(*this, none()); }
FactorRule SubOp::getFactorRule() { return elementwise(*this, allSame(Reduction::Sum)); }
FactorRule TanhOp::getFactorRule() { return elementwise(*this, none()); }
FactorRule XorOp::getFactorRule() { return elementwise(*this, none()); }
