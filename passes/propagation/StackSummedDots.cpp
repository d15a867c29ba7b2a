//===- StackSummedDots.cpp - garray-stack-summed-dots ---------------------===//
//
// A sum of products that contract their operands' leading dims becomes one
// product of the stacked operands (see Passes.td). Each sum is a tree of
// garray.add whose inner adds feed only their parent; its terms keep their
// order, the stacked product taking the place of its group's first member.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "passes/Passes.h"
#include "passes/propagation/Stacking.h"

#include "mlir/IR/Builders.h"

namespace shardc {
#define GEN_PASS_DEF_GARRAYSTACKSUMMEDDOTS
#include "passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace mlir::garray;
using shardc::stacking::userPlaced;

namespace {

/// Products that contract more than this many elements are left alone:
/// each already reads and writes its result once per K block of the GEMM
/// (512 deep), so stacking them would only copy their operands.
constexpr int64_t kMaxStackedDepth = 256;

/// Whether `dims` is 0, 1, ..., n-1 (n >= 1): the operand's leading dims.
bool leading(ArrayRef<int64_t> dims) {
  return !dims.empty() && llvm::equal(dims, llvm::seq<int64_t>(0, dims.size()));
}

/// One term of a sum that can join a stack: `dot`, read through `transpose`
/// when that is not null.
struct Product {
  DotGeneralOp dot;
  TransposeOp transpose;
};

/// The product behind `term`, if it qualifies: no batch dims, each operand
/// contracted over its leading dims (at most kMaxStackedDepth elements),
/// feeding only this sum, in its block.
std::optional<Product> productOf(Value term, Block *block) {
  Product p;
  Operation *def = term.getDefiningOp();
  if ((p.transpose = dyn_cast_or_null<TransposeOp>(def))) {
    if (!term.hasOneUse() || userPlaced(def) || def->getBlock() != block)
      return std::nullopt;
    term = p.transpose.getOperand();
    def = term.getDefiningOp();
  }
  p.dot = dyn_cast_or_null<DotGeneralOp>(def);
  if (!p.dot || !term.hasOneUse() || userPlaced(def) || def->getBlock() != block ||
      !p.dot.getLhsBatch().empty() ||
      !leading(p.dot.getLhsContracting()) || !leading(p.dot.getRhsContracting()))
    return std::nullopt;
  auto lhs = cast<RankedTensorType>(p.dot.getLhs().getType());
  int64_t depth = 1;
  for (int64_t d : p.dot.getLhsContracting())
    depth *= lhs.getDimSize(d);
  if (!lhs.hasStaticShape() || depth > kMaxStackedDepth)
    return std::nullopt;
  return p;
}

/// What products must share to be stacked: operand types, the number of
/// contracting dims (all leading), the transpose's permutation (none: empty).
struct StackKey {
  Type lhs, rhs;
  size_t contracted;
  SmallVector<int64_t> permutation;
  bool operator==(const StackKey &o) const {
    return lhs == o.lhs && rhs == o.rhs && contracted == o.contracted &&
           permutation == o.permutation;
  }
};

StackKey keyOf(Product p) {
  StackKey key{p.dot.getLhs().getType(), p.dot.getRhs().getType(),
               p.dot.getLhsContracting().size(), {}};
  if (p.transpose)
    key.permutation.assign(p.transpose.getPermutation().begin(),
                           p.transpose.getPermutation().end());
  return key;
}

/// Whether `add` is an inner add of a sum: it feeds only another add of its
/// type in its block, and neither carries a sharding the user wrote.
bool inner(AddOp add) {
  Value v = add.getResult();
  if (userPlaced(add) || !v.hasOneUse())
    return false;
  auto user = dyn_cast<AddOp>(*v.getUsers().begin());
  return user && user.getType() == add.getType() && !userPlaced(user) &&
         user->getBlock() == add->getBlock();
}

/// The terms of the sum rooted at `root`, left to right. Iterative: an
/// unrolled loop's gradient is a chain of thousands of adds.
SmallVector<Value> termsOf(AddOp root) {
  SmallVector<Value> terms, pending{root.getRhs(), root.getLhs()};
  while (!pending.empty()) {
    Value v = pending.pop_back_val();
    if (auto add = v.getDefiningOp<AddOp>(); add && inner(add)) {
      pending.push_back(add.getRhs());
      pending.push_back(add.getLhs());
    } else {
      terms.push_back(v);
    }
  }
  return terms;
}

/// One product of the stacked operands of `group`, through the group's
/// transpose, built before `at`.
Value stackedProduct(OpBuilder &b, Operation *at, ArrayRef<Product> group) {
  b.setInsertionPoint(at);
  DotGeneralOp first = group.front().dot;
  Location loc = first.getLoc();
  SmallVector<Value> lhs, rhs;
  for (Product p : group) {
    lhs.push_back(p.dot.getLhs());
    rhs.push_back(p.dot.getRhs());
  }
  SmallVector<int64_t> contracting =
      llvm::to_vector(llvm::seq<int64_t>(0, first.getLhsContracting().size() + 1));
  // Built in this order (lhs first), not as call arguments, whose order
  // of evaluation C++ leaves open.
  Value stackedLhs = shardc::stacking::stackAlong(b, loc, lhs, 0);
  Value stackedRhs = shardc::stacking::stackAlong(b, loc, rhs, 0);
  Value product = DotGeneralOp::create(
      b, loc, first.getType(), stackedLhs, stackedRhs,
      b.getDenseI64ArrayAttr({}), b.getDenseI64ArrayAttr({}),
      b.getDenseI64ArrayAttr(contracting), b.getDenseI64ArrayAttr(contracting));
  if (TransposeOp t = group.front().transpose)
    product = TransposeOp::create(b, t.getLoc(), t.getType(), product, t.getPermutationAttr());
  return product;
}

/// Rewrites the sum rooted at `root` when two or more of its terms stack.
void stackSum(AddOp root) {
  SmallVector<Value> terms = termsOf(root);
  // Groups in order of first appearance, so the rewritten IR is the same
  // on every run.
  SmallVector<std::pair<StackKey, SmallVector<std::pair<size_t, Product>>>> groups;
  for (auto [i, term] : llvm::enumerate(terms)) {
    std::optional<Product> p = productOf(term, root->getBlock());
    if (!p)
      continue;
    StackKey key = keyOf(*p);
    auto it = llvm::find_if(groups, [&](const auto &g) { return g.first == key; });
    if (it == groups.end())
      it = groups.insert(groups.end(), {key, {}});
    it->second.push_back({i, *p});
  }
  OpBuilder b(root);
  SmallVector<Value> kept(terms);
  SmallVector<Operation *> dead;
  bool changed = false;
  for (auto &group : groups) {
    const auto &members = group.second;
    if (members.size() < 2)
      continue;
    SmallVector<Product> products;
    for (auto &[i, p] : members)
      products.push_back(p);
    kept[members.front().first] = stackedProduct(b, root, products);
    for (auto &[i, p] : llvm::drop_begin(members))
      kept[i] = nullptr;
    for (const Product &p : products) {
      if (p.transpose)
        dead.push_back(p.transpose);
      dead.push_back(p.dot);
    }
    changed = true;
  }
  if (!changed)
    return;
  // The sum again, left to right, where the root was.
  b.setInsertionPoint(root);
  Value sum;
  for (Value term : kept)
    if (term)
      sum = sum ? AddOp::create(b, root.getLoc(), sum, term).getResult() : term;
  // The old tree's adds, then the stacked products, go once nothing reads
  // them; the root's uses move first.
  root.getResult().replaceAllUsesWith(sum);
  SmallVector<Operation *> adds{root};
  for (size_t i = 0; i < adds.size(); ++i)
    for (Value operand : adds[i]->getOperands())
      if (auto add = operand.getDefiningOp<AddOp>(); add && inner(add))
        adds.push_back(add);
  for (Operation *add : adds)
    add->erase();
  for (Operation *op : dead)
    op->erase();
}

struct GArrayStackSummedDots
    : shardc::impl::GArrayStackSummedDotsBase<GArrayStackSummedDots> {
  void runOnOperation() override {
    // Roots first collected: rewriting erases the adds below them.
    SmallVector<AddOp> roots;
    getOperation().walk([&](AddOp add) {
      if (!userPlaced(add) && !inner(add))
        roots.push_back(add);
    });
    for (AddOp root : roots)
      stackSum(root);
  }
};

} // namespace
