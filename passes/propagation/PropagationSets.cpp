//===- PropagationSets.cpp - which functions propagate together ----------===//
//
// PropagationSets.h describes the split; this is a union-find over the
// module's defined functions.
//
//===----------------------------------------------------------------------===//
#include "passes/propagation/PropagationSets.h"

#include "mlir/IR/SymbolTable.h"

namespace shardc::propagation {

using namespace mlir;
using namespace mlir::garray;


namespace {
/// Union-find over function indices; the root of a part is its first
/// function in module order, so everything derived from parts follows
/// module order.
struct Parts {
  SmallVector<unsigned> parent;
  explicit Parts(unsigned n) : parent(n) {
    for (unsigned i = 0; i < n; ++i)
      parent[i] = i;
  }
  unsigned find(unsigned i) {
    while (parent[i] != i)
      i = parent[i] = parent[parent[i]];
    return i;
  }
  void join(unsigned a, unsigned b) {
    a = find(a);
    b = find(b);
    if (a != b)
      parent[std::max(a, b)] = std::min(a, b);
  }
};
} // namespace

std::string PropagationSets::Unplaced::why() const {
  if (meshes.empty())
    return "this function has no annotation and no call connects it to one";
  return "this function has no annotation and calls join it to functions on " + meshes +
         ", so it could live on either and is not propagated";
}

std::string PropagationSets::whyApart(func::FuncOp callee) const {
  for (const Unplaced &u : unplaced)
    if (u.func == callee && !u.meshes.empty())
      return "@" + callee.getSymName().str() + " has no annotation and calls join it to functions on " +
             u.meshes + ", so it could live on either and is not propagated; annotate it, or give "
             "each mesh its own copy";
  return "";
}

PropagationSets
splitIntoSets(ArrayRef<func::FuncOp> defined, const llvm::DenseMap<Operation *, MeshOp> &meshOf,
              ArrayRef<SmallVector<func::FuncOp>> groups) {
  llvm::DenseMap<Operation *, unsigned> index;
  for (auto [i, f] : llvm::enumerate(defined))
    index[f] = i;
  Parts parts(defined.size());
  // A call or group between functions on different meshes joins nothing.
  auto join = [&](func::FuncOp a, func::FuncOp b) {
    MeshOp ma = meshOf.lookup(a), mb = meshOf.lookup(b);
    if (ma && mb && ma != mb)
      return false;
    parts.join(index.lookup(a), index.lookup(b));
    return true;
  };
  PropagationSets sets;
  // A module with one defined function has nothing to join: no walk over
  // its (possibly 100k) ops.
  SmallVector<CallEdge> calls;
  if (defined.size() > 1) {
    for (func::FuncOp caller : defined)
      caller.walk([&](func::CallOp call) {
        auto callee =
            SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr());
        if (!callee || callee.isExternal())
          return;
        calls.push_back({call, caller, callee});
        if (!join(caller, callee))
          sets.crossMesh.push_back(calls.back());
      });
    for (const SmallVector<func::FuncOp> &members : groups)
      for (func::FuncOp f : members)
        join(members.front(), f);
  }
  // The meshes each part's annotations name, in module order.
  llvm::DenseMap<unsigned, SmallVector<MeshOp, 1>> partMeshes;
  for (auto [i, f] : llvm::enumerate(defined))
    if (MeshOp m = meshOf.lookup(f)) {
      SmallVector<MeshOp, 1> &list = partMeshes[parts.find(i)];
      if (!llvm::is_contained(list, m))
        list.push_back(m);
    }
  auto place = [&](func::FuncOp f, MeshOp m) {
    auto it = llvm::find_if(sets.runs, [&](auto &run) { return run.first == m; });
    if (it == sets.runs.end()) {
      sets.runs.push_back({m, {}});
      it = std::prev(sets.runs.end());
    }
    it->second.push_back(f);
    sets.runOf[f] = it - sets.runs.begin();
  };
  for (auto [i, f] : llvm::enumerate(defined)) {
    auto it = partMeshes.find(parts.find(i));
    ArrayRef<MeshOp> meshes =
        it == partMeshes.end() ? ArrayRef<MeshOp>() : ArrayRef<MeshOp>(it->second);
    if (MeshOp own = meshOf.lookup(f))
      place(f, own);
    else if (meshes.size() == 1)
      place(f, meshes.front());
    else {
      std::string words;
      for (auto [k, m] : llvm::enumerate(meshes)) {
        MeshOp mesh = m;
        words += k == 0 ? "" : k + 1 == meshes.size() ? " and " : ", ";
        words += "@" + mesh.getSymName().str();
      }
      sets.unplaced.push_back({f, words});
    }
  }
  for (const CallEdge &e : calls)
    if (!sets.runOf.count(e.caller) && sets.runOf.count(e.callee))
      sets.outOfUnplaced.push_back(e);
  return sets;
}

} // namespace shardc::propagation
