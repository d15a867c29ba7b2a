//===- ShareReductions.cpp - garray-share-reductions ----------------------===//
//
// Later reductions of a value that an earlier op of the same block already
// reduces the same way (kind, dims) reuse its result, reshaped when only
// `keepdims` differs (see Passes.td).
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"

#include <map>
#include <tuple>

namespace shardc {
#define GEN_PASS_DEF_GARRAYSHAREREDUCTIONS
#include "passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace mlir::garray;

namespace {

/// What makes two reductions compute the same value: operand, kind, and
/// the set of reduced dims.
using ReductionKey = std::tuple<void *, uint32_t, std::vector<int64_t>>;

ReductionKey keyOf(ReduceOp op) {
  std::vector<int64_t> dims(op.getDims().begin(), op.getDims().end());
  llvm::sort(dims);
  return {op.getOperand().getAsOpaquePointer(), static_cast<uint32_t>(op.getKind()), dims};
}

/// Whether `op` carries only its own attributes (nothing the user wrote).
bool onlyOwnAttributes(ReduceOp op) {
  for (NamedAttribute a : op->getAttrs())
    if (!llvm::is_contained(ReduceOp::getAttributeNames(), a.getName().getValue()))
      return false;
  return true;
}

struct GArrayShareReductions
    : shardc::impl::GArrayShareReductionsBase<GArrayShareReductions> {
  void runOnOperation() override {
    getOperation().walk([&](Block *block) {
      std::map<ReductionKey, ReduceOp> first;
      for (Operation &op : llvm::make_early_inc_range(*block)) {
        auto reduce = dyn_cast<ReduceOp>(op);
        if (!reduce)
          continue;
        auto [it, inserted] = first.try_emplace(keyOf(reduce), reduce);
        if (inserted || !onlyOwnAttributes(reduce))
          continue;
        Value shared = it->second.getResult();
        if (shared.getType() != reduce.getType()) {
          OpBuilder b(reduce);
          shared = ReshapeOp::create(b, reduce.getLoc(), reduce.getType(), shared);
        }
        reduce.replaceAllUsesWith(shared);
        reduce.erase();
      }
    });
  }
};

} // namespace
