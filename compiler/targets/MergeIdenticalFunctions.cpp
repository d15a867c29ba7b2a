//===- MergeIdenticalFunctions.cpp - cpu-merge-identical-functions --------===//
//
// Private functions that differ only in their name become one (see
// CpuPasses.td). Candidates are bucketed by a hash of their type, attributes
// and body (operation names, attributes and types, not value identities),
// and each bucket is compared exactly with OperationEquivalence.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/CpuPasses.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Hashing.h"

namespace shardc {
#define GEN_PASS_DEF_CPUMERGEIDENTICALFUNCTIONS
#include "compiler/targets/CpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

/// The function's attributes but for its name.
SmallVector<NamedAttribute> attributesButName(func::FuncOp fn) {
  SmallVector<NamedAttribute> attrs;
  for (NamedAttribute attr : fn->getAttrs())
    if (attr.getName() != SymbolTable::getSymbolAttrName())
      attrs.push_back(attr);
  return attrs;
}

llvm::hash_code shapeHash(func::FuncOp fn) {
  llvm::hash_code h = llvm::hash_combine(fn.getFunctionType(),
                                         DictionaryAttr::get(fn.getContext(),
                                                             attributesButName(fn)));
  fn.getBody().walk([&](Operation *op) {
    h = llvm::hash_combine(h, OperationEquivalence::computeHash(
                                  op, OperationEquivalence::ignoreHashValue,
                                  OperationEquivalence::ignoreHashValue,
                                  OperationEquivalence::IgnoreLocations));
  });
  return h;
}

/// Private definitions; among declarations only the dispatch declarations of
/// cpu-outline-parallel-loops, which are defined from their attributes. Any
/// other declaration names a function outside (the runtime's), whose name is
/// what it is.
bool mayMerge(func::FuncOp fn) {
  if (!fn.isPrivate())
    return false;
  return !fn.isExternal() || fn->hasAttr(shardc::kParallelBodyAttr);
}

bool sameFunction(func::FuncOp a, func::FuncOp b) {
  if (a.getFunctionType() != b.getFunctionType() ||
      attributesButName(a) != attributesButName(b) || a.isExternal() != b.isExternal())
    return false;
  return a.isExternal() ||
         OperationEquivalence::isRegionEquivalentTo(&a.getBody(), &b.getBody(),
                                                    OperationEquivalence::IgnoreLocations);
}

struct CpuMergeIdenticalFunctions
    : shardc::impl::CpuMergeIdenticalFunctionsBase<CpuMergeIdenticalFunctions> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    while (mergeOnce(module)) {
    }
  }

  /// One round: returns whether any function was merged.
  bool mergeOnce(ModuleOp module) {
    llvm::DenseMap<llvm::hash_code, SmallVector<func::FuncOp, 2>> buckets;
    SmallVector<llvm::hash_code> order; // buckets in module order: deterministic
    for (func::FuncOp fn : module.getOps<func::FuncOp>()) {
      if (!mayMerge(fn))
        continue;
      llvm::hash_code h = shapeHash(fn);
      auto [it, inserted] = buckets.try_emplace(h);
      if (inserted)
        order.push_back(h);
      it->second.push_back(fn);
    }
    SmallVector<std::pair<func::FuncOp, func::FuncOp>> merges; // (duplicate, kept)
    for (llvm::hash_code h : order) {
      SmallVector<func::FuncOp, 2> &fns = buckets[h];
      SmallVector<func::FuncOp> kept;
      for (func::FuncOp fn : fns) {
        auto same = llvm::find_if(kept, [&](func::FuncOp k) { return sameFunction(k, fn); });
        if (same == kept.end())
          kept.push_back(fn);
        else
          merges.emplace_back(fn, *same);
      }
    }
    if (merges.empty())
      return false;
    // Every reference to a duplicate now names the function kept, in one
    // walk over the module (a walk per duplicate would be quadratic).
    llvm::DenseMap<StringAttr, FlatSymbolRefAttr> renamed;
    for (auto [duplicate, keep] : merges)
      renamed[duplicate.getSymNameAttr()] = FlatSymbolRefAttr::get(keep.getSymNameAttr());
    AttrTypeReplacer replacer;
    replacer.addReplacement([&](FlatSymbolRefAttr ref) -> std::optional<Attribute> {
      auto it = renamed.find(ref.getAttr());
      if (it == renamed.end())
        return std::nullopt;
      return it->second;
    });
    replacer.recursivelyReplaceElementsIn(module, /*replaceAttrs=*/true, /*replaceLocs=*/false,
                                          /*replaceTypes=*/false);
    for (auto [duplicate, keep] : merges)
      duplicate.erase();
    return !merges.empty();
  }
};

} // namespace
