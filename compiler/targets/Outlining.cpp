//===- Outlining.cpp - what a region-holding op reads from outside --------===//
#include "compiler/targets/Outlining.h"
#include "compiler/targets/CpuPasses.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

namespace {

/// Where a memref's memory comes from, followed through view-like ops
/// (subview, cast, expand/collapse_shape, ...): an allocation of the
/// function, a global, an argument of the function, or something else.
struct Root {
  enum Kind { Alloc, Global, Argument, Unknown } kind = Unknown;
  Value value;                 // Alloc: the allocation; Argument: the argument
  mlir::StringAttr global;     // Global: its symbol
  bool noAlias = false;        // Argument: marked noalias by an earlier outlining
};

/// The LLVM parameter that memref argument `i` of a function with inputs
/// `inputs` becomes (its aligned pointer; a memref of rank r is 3 + 2r
/// parameters, allocated pointer first).
int64_t alignedPointerParam(TypeRange inputs, unsigned i) {
  int64_t param = 0;
  for (Type t : inputs.take_front(i)) {
    auto memref = dyn_cast<MemRefType>(t);
    param += memref ? 3 + 2 * memref.getRank() : 1;
  }
  return param + 1;
}

/// Whether `arg` is a parameter an earlier outlining marked noalias: a
/// nest outlined from an outlined kernel keeps what was known at the call.
bool markedNoAlias(BlockArgument arg) {
  auto fn = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
  auto params = fn ? fn->getAttrOfType<DenseI64ArrayAttr>(shardc::kNoAliasParamsAttr)
                   : DenseI64ArrayAttr();
  return params && llvm::is_contained(params.asArrayRef(),
                                      alignedPointerParam(fn.getArgumentTypes(),
                                                          arg.getArgNumber()));
}

Root rootOf(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  Operation *def = v.getDefiningOp();
  if (def && isa<memref::AllocOp, memref::AllocaOp>(def))
    return {Root::Alloc, v, {}};
  if (auto get = dyn_cast_or_null<memref::GetGlobalOp>(def))
    return {Root::Global, {}, get.getNameAttr().getAttr()};
  auto arg = dyn_cast<BlockArgument>(v);
  if (arg && isa<FunctionOpInterface>(arg.getOwner()->getParentOp()) && arg.getOwner()->isEntryBlock())
    return {Root::Argument, arg, {}, markedNoAlias(arg)};
  return {};
}

/// Whether two roots provably share no memory. An allocation is fresh, so
/// it overlaps nothing but itself; two globals differ when their symbols
/// do. A caller may pass any buffer (a global too) as an argument, and
/// what an unknown op returns may view anything.
bool apart(const Root &a, const Root &b) {
  if (a.kind == Root::Unknown || b.kind == Root::Unknown)
    return false;
  if (a.kind == Root::Alloc || b.kind == Root::Alloc)
    return a.value != b.value;
  if (a.kind == Root::Global && b.kind == Root::Global)
    return a.global != b.global;
  // A noalias argument overlaps no other argument of its function.
  if (a.kind == Root::Argument && b.kind == Root::Argument)
    return (a.noAlias || b.noAlias) && a.value != b.value;
  return false;
}

/// Marks `noalias` each memref argument whose memory provably overlaps no
/// other memref argument's. Without it LLVM must assume a store through
/// one argument may change what another reads, and keeps a gather's index
/// loads (and so the whole loop) scalar. Recorded as the LLVM parameter
/// the argument's aligned pointer becomes (kNoAliasParamsAttr): a memref
/// of rank r is 3 + 2r parameters, allocated then aligned pointer first,
/// and every access goes through the aligned one.
void markNoAlias(func::FuncOp fn, ArrayRef<Value> captured, unsigned leading) {
  SmallVector<std::pair<unsigned, Root>> memrefs;
  for (auto [i, v] : llvm::enumerate(captured))
    if (isa<MemRefType>(v.getType()))
      memrefs.push_back({leading + static_cast<unsigned>(i), rootOf(v)});
  SmallVector<int64_t> params;
  for (const auto &entry : memrefs) {
    auto [i, root] = entry;
    bool alone = llvm::all_of(memrefs, [&](const auto &other) {
      return other.first == entry.first || apart(entry.second, other.second);
    });
    if (alone && root.kind != Root::Unknown)
      params.push_back(alignedPointerParam(fn.getFunctionType().getInputs(), i));
  }
  if (!params.empty())
    fn->setAttr(shardc::kNoAliasParamsAttr, DenseI64ArrayAttr::get(fn.getContext(), params));
}

} // namespace

shardc::NestInputs shardc::nestInputs(Operation *nest) {
  NestInputs in;
  nest->walk([&](Operation *op) {
    in.otherMemory |= isa<CallOpInterface, memref::GetGlobalOp>(op);
    for (Value v : op->getOperands()) {
      Operation *def = v.getDefiningOp();
      Region *home = def ? def->getParentRegion() : v.getParentRegion();
      if (nest->isAncestor(home->getParentOp()) && home->getParentOp() != nest->getParentOp())
        continue; // defined inside the nest
      if (def && def->hasTrait<OpTrait::ConstantLike>())
        in.constants.insert(def);
      else
        in.captured.insert(v);
    }
  });
  return in;
}

shardc::OutlinedFunction shardc::createOutlinedFunction(Operation *after, llvm::StringRef name,
                                                        Location loc, TypeRange leading,
                                                        const NestInputs &in,
                                                        SymbolTable &symbols) {
  SmallVector<Type> types(leading.begin(), leading.end());
  for (Value v : in.captured)
    types.push_back(v.getType());
  OpBuilder b(after);
  b.setInsertionPointAfter(after);
  OutlinedFunction out;
  out.fn = func::FuncOp::create(b, loc, name, b.getFunctionType(types, {}));
  out.fn.setPrivate();
  out.fn->setAttr(kOutlinedNestAttr, b.getUnitAttr());
  symbols.insert(out.fn); // renames on a clash
  Block *entry = out.fn.addEntryBlock();
  for (auto [value, arg] : llvm::zip(in.captured, entry->getArguments().drop_front(leading.size())))
    out.map.map(value, arg);
  OpBuilder inner = OpBuilder::atBlockBegin(entry);
  for (Operation *c : in.constants)
    inner.clone(*c, out.map);
  if (!in.otherMemory)
    markNoAlias(out.fn, in.captured.getArrayRef(), leading.size());
  return out;
}
