//===- UnsignedToSignless.cpp - unsigned integers as signless ones --------===//
//
// garray has no unsigned integers; JAX's random numbers are made of them
// (threefry works on ui32 words and ui64 counters, then bitcasts bits to
// floats). Most ops give the same bits whether their integers are read as
// unsigned or as two's complement: wrapping add, subtract and multiply, the
// bitwise ops and shifts, and everything that only moves elements. So before
// any op is imported, every unsigned integer type becomes the signless type
// of its width, and the few ops whose results depend on the reading are
// first rewritten into ones that do not:
//
//   - an ordering compare flips both operands' sign bits (`xor` with
//     0x80...0), which turns unsigned order into signed order; maximum and
//     minimum do the same around a signed max/min;
//   - a convert from an unsigned integer zero-extends: to a wider integer
//     it converts and masks the high bits off, to a float it first widens to
//     twice the width (u32 to f32 goes through i64, exactly); a float to
//     an unsigned integer below 64 bits goes through i64 (saturating) and
//     a clamp to [0, 2^w - 1], as XLA's saturating convert;
//   - a reduce by maximum or minimum alone flips the sign bits of its
//     operands, initial values and results;
//   - clamp flips the sign bits around a signed clamp, as maximum does;
//     abs is its operand, and sign is 0 or 1;
//   - division and remainder of integers narrower than 64 bits zero-extend
//     both operands to a signed type of twice the width, where they are
//     non-negative and signed division is unsigned division, and keep the
//     low bits of the result (jnp.floor_divide in jnp.searchsorted's binary
//     search divides ui32 indices);
//   - unsigned indices of gather, scatter and dynamic slices are
//     zero-extended to i64 (an index of 2^31 and more clamps high, not to 0);
//   - ops whose unsigned meaning has no such rewrite (64-bit division, a
//     float to 64-bit unsigned convert, ...) are errors that name the op.
//
// An entry function's ui8, ui16, ui32 and ui64 arguments and results (a PRNG
// key passed in and returned, 16-bit pixels) become signless too, marked
// garray.unsigned: the host reads and writes them as unsigned arrays, bit
// for bit.
//
// A sort moves its operands whatever their type; a compare of unsigned
// values in its comparator is rewritten like any other. Constants keep
// their bits (DenseElementsAttr::bitcast).
//
//===----------------------------------------------------------------------===//
#include "compiler/import/ImportOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

namespace shardc::import {
namespace {

bool isUnsigned(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  return tensor && tensor.getElementType().isUnsignedInteger();
}

bool touchesUnsigned(Operation *op) {
  return llvm::any_of(op->getOperandTypes(), isUnsigned) ||
         llvm::any_of(op->getResultTypes(), isUnsigned);
}

/// `t` with a signless element type of the same width (unchanged if not
/// an unsigned tensor).
Type signless(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  if (!tensor || !tensor.getElementType().isUnsignedInteger())
    return t;
  return tensor.clone(IntegerType::get(t.getContext(), tensor.getElementTypeBitWidth()));
}

/// Ops that give the same bits either way (their operands and results are
/// only moved, or combined by wrapping arithmetic and bit operations).
bool keepsBits(StringRef name) {
  static const StringRef kNames[] = {
      "stablehlo.add", "stablehlo.subtract", "stablehlo.multiply", "stablehlo.and",
      "stablehlo.or", "stablehlo.xor", "stablehlo.not", "stablehlo.negate",
      "stablehlo.shift_left", "stablehlo.shift_right_logical",
      "stablehlo.shift_right_arithmetic", "stablehlo.constant", "stablehlo.iota",
      "stablehlo.broadcast_in_dim", "stablehlo.reshape", "stablehlo.transpose",
      "stablehlo.slice", "stablehlo.concatenate", "stablehlo.pad", "stablehlo.reverse",
      "stablehlo.select", "stablehlo.bitcast_convert", "stablehlo.optimization_barrier",
      "stablehlo.while", "stablehlo.case", "stablehlo.return", "func.return", "func.call",
      "stablehlo.reduce", "stablehlo.popcnt", "stablehlo.count_leading_zeros",
      // A device id (below 2^31) and collectives that only move bits.
      "stablehlo.partition_id", "stablehlo.all_gather", "stablehlo.all_to_all",
      "stablehlo.collective_permute", "sdy.manual_computation", "sdy.return"};
  return llvm::is_contained(kNames, name);
}

/// A constant of `type` (a tensor) with every element `bits`.
Value splat(OpBuilder &b, Location loc, Type type, const APInt &bits) {
  return stableHloConstant(b, loc, DenseElementsAttr::get(cast<RankedTensorType>(type), bits));
}

/// `x` with its sign bit flipped, which maps unsigned order onto signed.
Value flipSign(OpBuilder &b, Location loc, Value x) {
  unsigned w = cast<RankedTensorType>(x.getType()).getElementTypeBitWidth();
  Value bit = splat(b, loc, x.getType(), APInt::getSignMask(w));
  return createStableHlo(b, loc, "stablehlo.xor", {x, bit}, x.getType())->getResult(0);
}

/// An unsigned integer tensor `x` zero-extended to `to` (an integer tensor
/// of greater width, of either signedness): convert, then mask.
Value zeroExtend(OpBuilder &b, Location loc, Value x, RankedTensorType to) {
  unsigned from = cast<RankedTensorType>(x.getType()).getElementTypeBitWidth();
  Value wide = createStableHlo(b, loc, "stablehlo.convert", {x}, to)->getResult(0);
  Value mask = splat(b, loc, to, APInt::getLowBitsSet(to.getElementTypeBitWidth(), from));
  return createStableHlo(b, loc, "stablehlo.and", {wide, mask}, to)->getResult(0);
}

/// A float tensor `x` converted to the unsigned integer type `to` (below
/// 64 bits) as XLA converts: truncated toward zero and saturated, NaN and
/// negatives 0, past the largest value the largest. Through i64, whose
/// saturating convert holds every such value, clamped there.
Value floatToUnsigned(OpBuilder &b, Location loc, Value x, RankedTensorType to) {
  unsigned w = to.getElementTypeBitWidth();
  auto i64 = to.clone(b.getI64Type());
  Value wide = createStableHlo(b, loc, "stablehlo.convert", {x}, i64)->getResult(0);
  Value lo = splat(b, loc, i64, APInt(64, 0)), hi = splat(b, loc, i64, APInt::getLowBitsSet(64, w));
  Value clamped = createStableHlo(b, loc, "stablehlo.clamp", {lo, wide, hi}, i64)->getResult(0);
  return createStableHlo(b, loc, "stablehlo.convert", {clamped}, to)->getResult(0);
}

LogicalResult refuse(Operation *op, StringRef what) {
  return op->emitError() << "'" << op->getName() << "' " << what
                         << ": shardc has no unsigned integers and reads them as signed ones "
                            "of the same width, which this op would tell apart";
}

/// Rewrites `op`, whose operands or results are unsigned, into ops that do
/// not depend on the reading; an error when there is no such rewrite.
LogicalResult rewrite(Operation *op) {
  StringRef name = op->getName().getStringRef();
  // A reduce's body is judged with its reduce, below.
  if (Operation *parent = op->getParentOp())
    if (parent->getName().getStringRef() == "stablehlo.reduce")
      return success();
  OpBuilder b(op);
  Location loc = op->getLoc();
  MLIRContext *ctx = op->getContext();
  if (name == "stablehlo.compare") {
    if (!isUnsigned(op->getOperand(0).getType()))
      return success();
    std::optional<std::string> text = readAttrText(op, "comparison_direction");
    if (!text)
      return failure();
    bool ordered = text->find("EQ") == std::string::npos && text->find("NE") == std::string::npos;
    if (ordered)
      for (unsigned i = 0; i < 2; ++i)
        op->setOperand(i, flipSign(b, loc, op->getOperand(i)));
    op->setAttr("compare_type", OpaqueAttr::get(StringAttr::get(ctx, "stablehlo"),
                                                "comparison_type SIGNED", NoneType::get(ctx)));
    return success();
  }
  if (name == "stablehlo.maximum" || name == "stablehlo.minimum") {
    Value lhs = flipSign(b, loc, op->getOperand(0)), rhs = flipSign(b, loc, op->getOperand(1));
    Value r = createStableHlo(b, loc, name, {lhs, rhs}, op->getResult(0).getType())->getResult(0);
    op->getResult(0).replaceAllUsesWith(flipSign(b, loc, r));
    op->erase();
    return success();
  }
  if (name == "stablehlo.clamp") {
    Value lo = flipSign(b, loc, op->getOperand(0)), x = flipSign(b, loc, op->getOperand(1)),
          hi = flipSign(b, loc, op->getOperand(2));
    Value r = createStableHlo(b, loc, name, {lo, x, hi}, op->getResult(0).getType())->getResult(0);
    op->getResult(0).replaceAllUsesWith(flipSign(b, loc, r));
    op->erase();
    return success();
  }
  if (name == "stablehlo.abs") {
    op->getResult(0).replaceAllUsesWith(op->getOperand(0));
    op->erase();
    return success();
  }
  if (name == "stablehlo.sign") {
    // 0 where x is 0, else 1.
    Value x = op->getOperand(0);
    auto t = cast<RankedTensorType>(x.getType());
    unsigned w = t.getElementTypeBitWidth();
    Value zero = splat(b, loc, t, APInt(w, 0)), one = splat(b, loc, t, APInt(w, 1));
    Value isZero =
        createStableHlo(b, loc, "stablehlo.compare", {x, zero}, t.clone(b.getI1Type()),
                        {b.getNamedAttr("comparison_direction",
                                        OpaqueAttr::get(StringAttr::get(ctx, "stablehlo"),
                                                        "comparison_direction EQ",
                                                        NoneType::get(ctx)))})
            ->getResult(0);
    op->getResult(0).replaceAllUsesWith(
        createStableHlo(b, loc, "stablehlo.select", {isZero, zero, one}, t)->getResult(0));
    op->erase();
    return success();
  }
  if (name == "stablehlo.divide" || name == "stablehlo.remainder") {
    auto t = cast<RankedTensorType>(op->getResult(0).getType());
    unsigned w = t.getElementTypeBitWidth();
    if (w >= 64)
      return refuse(op, "divides 64-bit unsigned integers");
    auto wide = t.clone(IntegerType::get(ctx, 2 * std::max(w, 16u)));
    Value x = zeroExtend(b, loc, op->getOperand(0), wide);
    Value y = zeroExtend(b, loc, op->getOperand(1), wide);
    Value q = createStableHlo(b, loc, name, {x, y}, wide)->getResult(0);
    op->getResult(0).replaceAllUsesWith(
        createStableHlo(b, loc, "stablehlo.convert", {q}, t)->getResult(0));
    op->erase();
    return success();
  }
  // Index operands: from `first` on (the rest move elements).
  std::optional<unsigned> firstIndex =
      llvm::StringSwitch<std::optional<unsigned>>(name)
          .Cases({"stablehlo.gather", "stablehlo.scatter", "stablehlo.dynamic_slice"}, 1u)
          .Case("stablehlo.dynamic_update_slice", 2u)
          .Default(std::nullopt);
  if (firstIndex) {
    unsigned last = name == "stablehlo.gather" || name == "stablehlo.scatter"
                        ? *firstIndex
                        : op->getNumOperands() - 1;
    for (unsigned i = *firstIndex; i <= last; ++i) {
      auto t = cast<RankedTensorType>(op->getOperand(i).getType());
      if (!t.getElementType().isUnsignedInteger())
        continue;
      if (t.getElementTypeBitWidth() >= 64)
        return refuse(op, "takes 64-bit unsigned indices");
      op->setOperand(i, zeroExtend(b, loc, op->getOperand(i), t.clone(b.getI64Type())));
    }
    return success();
  }
  if (name == "stablehlo.convert") {
    auto from = cast<RankedTensorType>(op->getOperand(0).getType());
    auto to = cast<RankedTensorType>(op->getResult(0).getType());
    Type fe = from.getElementType(), te = to.getElementType();
    if (isa<FloatType>(fe)) {
      if (te.getIntOrFloatBitWidth() >= 64)
        return refuse(op, "converts a float to a 64-bit unsigned integer");
      op->getResult(0).replaceAllUsesWith(floatToUnsigned(b, loc, op->getOperand(0), to));
      op->erase();
      return success();
    }
    if (!fe.isUnsignedInteger())
      return success(); // signed to unsigned: two's complement bits either way
    unsigned fw = fe.getIntOrFloatBitWidth();
    if (isa<IntegerType>(te)) {
      if (te.getIntOrFloatBitWidth() > fw)
        op->getResult(0).replaceAllUsesWith(zeroExtend(b, loc, op->getOperand(0), to));
      else
        return success(); // the same width or narrower keeps the low bits
      op->erase();
      return success();
    }
    if (fw >= 64)
      return refuse(op, "converts a 64-bit unsigned integer to a float");
    auto wide = to.clone(IntegerType::get(ctx, 2 * std::max(fw, 16u)));
    Value exact = zeroExtend(b, loc, op->getOperand(0), wide);
    op->setOperand(0, exact);
    return success();
  }
  if (name == "stablehlo.reduce") {
    // A body that combines bits the same way either way stays; one of
    // maximum and minimum alone (jnp.max of uint8 pixels) runs on values
    // with their sign bits flipped, as the elementwise ops do.
    bool bitwise = true, ordered = true;
    op->walk([&](Operation *inner) {
      if (inner == op)
        return;
      StringRef n = inner->getName().getStringRef();
      bool ret = n == "stablehlo.return";
      bitwise &= keepsBits(n) && n != "stablehlo.reduce";
      ordered &= ret || n == "stablehlo.maximum" || n == "stablehlo.minimum";
    });
    if (bitwise)
      return success();
    if (!ordered)
      return refuse(op, "reduces unsigned integers by an order (maximum or minimum) mixed "
                        "with other ops");
    const unsigned n = op->getNumResults();
    for (unsigned i = 0; i < n; ++i) {
      if (!isUnsigned(op->getOperand(i).getType()))
        continue;
      op->setOperand(i, flipSign(b, loc, op->getOperand(i)));
      op->setOperand(n + i, flipSign(b, loc, op->getOperand(n + i)));
      b.setInsertionPointAfter(op);
      Value r = op->getResult(i), back = flipSign(b, loc, r);
      r.replaceAllUsesExcept(back, back.getDefiningOp());
    }
    return success();
  }
  // A sort only moves its operands; its comparator's ops are rewritten on
  // their own like any op (a compare of unsigned keys flips sign bits).
  // Under jax.grad JAX sorts (x, a ui32 iota) and compares x alone.
  if (keepsBits(name) || name == "stablehlo.sort")
    return success();
  return refuse(op, "works on unsigned integers");
}

} // namespace

LogicalResult unsignedToSignless(ModuleOp module) {
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isPrivate())
      continue;
    FunctionType type = func.getFunctionType();
    // The host exchanges u8, u16, u32 and u64 arrays (shardrt's dtypes):
    // each unsigned argument or result is marked.
    auto mark = [&](StringRef what, TypeRange types, auto setAttr) -> LogicalResult {
      for (auto [i, t] : llvm::enumerate(types)) {
        if (!isUnsigned(t))
          continue;
        unsigned width = cast<RankedTensorType>(t).getElementTypeBitWidth();
        if (width != 8 && width != 16 && width != 32 && width != 64)
          return func.emitError() << what << " #" << i << " of @" << func.getSymName()
                                  << " has type " << t
                                  << ": shardc exchanges unsigned integers of 8, 16, 32 and 64 "
                                     "bits; convert it to uint32 in JAX";
        setAttr(static_cast<unsigned>(i));
      }
      return success();
    };
    UnitAttr unit = UnitAttr::get(func.getContext());
    if (failed(mark("argument", type.getInputs(),
                    [&](unsigned i) { func.setArgAttr(i, garray::kUnsignedAttrName, unit); })) ||
        failed(mark("result", type.getResults(),
                    [&](unsigned i) { func.setResultAttr(i, garray::kUnsignedAttrName, unit); })))
      return failure();
  }
  SmallVector<Operation *> touched;
  module.walk([&](Operation *op) {
    if (touchesUnsigned(op))
      touched.push_back(op);
  });
  for (Operation *op : touched)
    if (failed(rewrite(op)))
      return failure();
  // Every unsigned type becomes signless, constants keep their bits.
  module.walk([&](Operation *op) {
    for (Value r : op->getResults())
      r.setType(signless(r.getType()));
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          arg.setType(signless(arg.getType()));
    if (auto value = op->getAttrOfType<DenseElementsAttr>("value"))
      if (value.getElementType().isUnsignedInteger())
        op->setAttr("value",
                    value.bitcast(cast<ShapedType>(signless(value.getType())).getElementType()));
    if (auto func = dyn_cast<func::FuncOp>(op)) {
      FunctionType t = func.getFunctionType();
      auto map = [](TypeRange types) {
        return llvm::to_vector(llvm::map_range(types, [](Type x) { return signless(x); }));
      };
      func.setFunctionType(FunctionType::get(op->getContext(), map(t.getInputs()),
                                             map(t.getResults())));
    }
  });
  return success();
}

} // namespace shardc::import
