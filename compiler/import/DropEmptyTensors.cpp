//===- DropEmptyTensors.cpp - zero-size tensors removed before the import -===//
//
// garray has no arrays of zero elements, but JAX's programs hold them where
// a general formula meets an edge: the gradient of jnp.cumprod (an
// associative scan) slices x[2:2] at the last level, multiplies the empty
// pieces and pads or concatenates them back. Such a value carries no data,
// so every one is removed before the import:
//
//   - a call that passes or returns one is inlined (InlineCalls.cpp), so
//     the values meet their uses in one body;
//   - a concatenate drops its empty operands (one left is the result);
//   - a pad of an empty operand is its padding value broadcast to the
//     result's shape (edges and interior padding of nothing are all
//     padding);
//   - a reduce over an empty dim is its init values broadcast (the
//     gradient of jnp.pad in `edge` mode sums such slices), a dot_general
//     contracting one is zeros, and a dynamic_update_slice of an empty
//     update is its operand;
//   - an op whose results are all empty and unused is erased (elementwise
//     ops, slices, reshapes of empty values are empty themselves).
//
// Anything else that reads an empty value where it matters (a function's
// result, a convolution) is an error naming the op and what the importer
// removes.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/ImportOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace shardc::import {
namespace {

bool isEmpty(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  return t && t.hasStaticShape() && t.getNumElements() == 0;
}

bool readsEmpty(Operation *op) {
  return llvm::any_of(op->getOperandTypes(), isEmpty);
}

bool onlyEmptyResults(Operation *op) {
  return op->getNumResults() > 0 && llvm::all_of(op->getResultTypes(), isEmpty);
}

/// Inlines every call that passes or returns an empty value, then erases
/// the private functions no call names any more; true when a call was
/// inlined. A call to an external or multi-block function stays (and is
/// reported below).
bool inlineEmptyCalls(ModuleOp module, SymbolTable &symbols) {
  SmallVector<func::CallOp> calls;
  module.walk([&](func::CallOp call) {
    auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
    if ((readsEmpty(call) || llvm::any_of(call.getResultTypes(), isEmpty)) && callee &&
        !callee.isExternal() && llvm::hasSingleElement(callee.getBody()))
      calls.push_back(call);
  });
  for (func::CallOp call : calls)
    (void)inlineCall(call, symbols);
  if (calls.empty())
    return false;
  // Calls are the only references to functions in these programs (and
  // SymbolTable's use queries give up on the unregistered ops' regions).
  llvm::StringSet<> called;
  module.walk([&](func::CallOp call) { called.insert(call.getCallee()); });
  SmallVector<func::FuncOp> unused;
  for (auto func : module.getOps<func::FuncOp>())
    if (func.isPrivate() && !called.contains(func.getName()))
      unused.push_back(func);
  for (func::FuncOp func : unused)
    symbols.erase(func);
  return true;
}

/// Drops empty concatenate operands and rewrites the other readers the
/// file comment lists; true when something changed.
bool rewriteReaders(ModuleOp module) {
  SmallVector<Operation *> readers;
  module.walk([&](Operation *op) {
    if (readsEmpty(op) && !onlyEmptyResults(op))
      readers.push_back(op);
  });
  bool changed = false;
  for (Operation *op : readers) {
    llvm::StringRef name = op->getName().getStringRef();
    if (name == "stablehlo.concatenate") {
      for (int64_t i = op->getNumOperands() - 1; i >= 0; --i)
        if (isEmpty(op->getOperand(i).getType()))
          op->eraseOperand(i);
      // One operand left is the result.
      if (op->getNumOperands() == 1 && op->getNumResults() == 1 &&
          op->getOperand(0).getType() == op->getResult(0).getType()) {
        op->getResult(0).replaceAllUsesWith(op->getOperand(0));
        op->erase();
      }
      changed = true;
    } else if (name == "stablehlo.reduce" && op->getNumOperands() % 2 == 0) {
      // Operands: the inputs, then one init per input and result.
      OpBuilder b(op);
      int64_t n = op->getNumOperands() / 2;
      for (auto [i, result] : llvm::enumerate(op->getResults()))
        result.replaceAllUsesWith(stableHloBroadcastScalar(b, op->getLoc(), op->getOperand(n + i),
                                                            result.getType()));
      op->erase();
      changed = true;
    } else if (name == "stablehlo.dot_general" && op->getNumResults() == 1) {
      // A result with elements and an empty operand: the empty dim is
      // contracted, and every element is a sum of nothing.
      OpBuilder b(op);
      auto type = cast<RankedTensorType>(op->getResult(0).getType());
      op->getResult(0).replaceAllUsesWith(stableHloConstant(
          b, op->getLoc(), DenseElementsAttr::get(type, b.getZeroAttr(type.getElementType()))));
      op->erase();
      changed = true;
    } else if (name == "stablehlo.dynamic_update_slice" && op->getNumOperands() >= 2 &&
               isEmpty(op->getOperand(1).getType())) {
      op->getResult(0).replaceAllUsesWith(op->getOperand(0));
      op->erase();
      changed = true;
    } else if (name == "stablehlo.pad" && op->getNumOperands() == 2 &&
               isEmpty(op->getOperand(0).getType()) && op->getNumResults() == 1) {
      OpBuilder b(op);
      op->getResult(0).replaceAllUsesWith(
          stableHloBroadcastScalar(b, op->getLoc(), op->getOperand(1), op->getResult(0).getType()));
      op->erase();
      changed = true;
    }
  }
  return changed;
}

/// Erases unused ops whose results are all empty, users before their
/// producers; true when one was.
bool eraseDeadEmpty(ModuleOp module) {
  SmallVector<Operation *> empty;
  module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (onlyEmptyResults(op))
      empty.push_back(op);
  });
  bool erased = false;
  // In program order a value's users come after it: erasing from the end
  // lets a producer lose its last use before it is looked at. Pre-order
  // puts an op's nested ops after it, so they are looked at (and perhaps
  // erased) before it: erasing an op frees none that is still listed.
  for (Operation *op : llvm::reverse(empty)) {
    if (!op->use_empty())
      continue;
    op->erase();
    erased = true;
  }
  return erased;
}

} // namespace

LogicalResult dropEmptyTensors(ModuleOp module) {
  bool any = false;
  module.walk([&](Operation *op) {
    if (readsEmpty(op) || llvm::any_of(op->getResultTypes(), isEmpty))
      any = true;
  });
  if (!any)
    return success();
  SymbolTable symbols(module);
  while (inlineEmptyCalls(module, symbols) | rewriteReaders(module) | eraseDeadEmpty(module)) {
  }
  // What is left reads an empty value where it matters.
  WalkResult left = module.walk([&](Operation *op) {
    if (!readsEmpty(op))
      return WalkResult::advance();
    Type empty = *llvm::find_if(op->getOperandTypes(), isEmpty);
    op->emitError() << "'" << op->getName() << "' reads a zero-size " << empty
                    << ", which is not supported here: garray has no arrays of zero elements, "
                       "and the importer removes them only where they are concatenated, "
                       "padded, reduced, contracted, written by a dynamic_update_slice, "
                       "computed on elementwise or passed to a function";
    return WalkResult::interrupt();
  });
  return failure(left.wasInterrupted());
}

} // namespace shardc::import
