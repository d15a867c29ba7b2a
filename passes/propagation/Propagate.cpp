//===- Propagate.cpp - garray-propagate: shardings to a fixed point -------===//
//
// The pass: finds each function's mesh, groups the functions propagated
// together (connected by calls or sharding groups, on one mesh) and runs a
// FunctionPropagation on each set (FunctionPropagation.h: the fixed point
// and what it keeps; PropagationExplain.cpp: the remarks).
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"
#include "passes/propagation/FunctionPropagation.h"

#include "mlir/IR/AsmState.h"

#include <optional>

namespace shardc {
#define GEN_PASS_DEF_GARRAYPROPAGATE
#include "passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace mlir::garray;
using namespace shardc::propagation;

namespace {
/// Buffers stderr while explain emits its remarks, flushed when the pass
/// ends. The drivers' diagnostic handler prints each remark's source line
/// and a caret line to the unbuffered stderr, the caret line one character
/// per write: with one remark per argument of a signature written on one
/// line, that was a system call per character of a line per argument
/// (`mlp` 1000 ops, 500 weights on one 45 kB line: 8 s; 10000 ops: about
/// 10 minutes). Handlers that do not print (tools that consume remarks)
/// see no difference.
struct BufferedStderr {
  BufferedStderr() { llvm::errs().SetBuffered(); }
  ~BufferedStderr() {
    llvm::errs().flush();
    llvm::errs().SetUnbuffered();
  }
};

struct Propagate : shardc::impl::GArrayPropagateBase<Propagate> {
  using GArrayPropagateBase::GArrayPropagateBase;
  void runOnOperation() override {
    std::optional<BufferedStderr> buffered;
    if (explain)
      buffered.emplace();
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> defined;
    llvm::DenseMap<Operation *, MeshOp> meshOf;
    MeshOp theMesh;
    bool oneMesh = true;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      FailureOr<MeshOp> mesh = findMesh(func);
      if (failed(mesh))
        return signalPassFailure();
      defined.push_back(func);
      if (!*mesh)
        continue;
      meshOf[func] = *mesh;
      if (theMesh && theMesh != *mesh)
        oneMesh = false;
      theMesh = theMesh ? theMesh : *mesh;
    }
    // Group members across functions, checked here for what no single
    // propagation sees: functions it does not visit, and functions
    // propagated one by one (a module with several meshes). One function's
    // members are checked where they are collected.
    std::map<int64_t, SmallVector<std::pair<Value, func::FuncOp>>> groupMembers;
    if (defined.size() > 1)
      for (func::FuncOp func : defined) {
        auto note = [&](Value v, Attribute a) {
          if (auto id = dyn_cast_or_null<IntegerAttr>(a); id && isa<RankedTensorType>(v.getType()))
            groupMembers[id.getInt()].push_back({v, func});
        };
        for (BlockArgument arg : func.getArguments())
          note(arg, func.getArgAttr(arg.getArgNumber(), kGroupAttrName));
        func.walk([&](Operation *op) {
          if (Attribute a = op->getAttr(kGroupAttrName))
            for (Value r : op->getResults())
              note(r, a);
        });
      }
    for (auto &[id, members] : groupMembers) {
      auto [first, firstFunc] = members.front();
      for (auto &[v, func] : members) {
        Location loc = isa<BlockArgument>(v) ? v.getLoc() : v.getDefiningOp()->getLoc();
        if (v.getType() != first.getType()) {
          (void)groupTypeError(id, first, v, loc);
          return signalPassFailure();
        }
        if (!oneMesh && func != firstFunc) {
          InFlightDiagnostic d = emitError(loc) << "sharding group " << id << " ties values of @"
                                                << firstFunc.getSymName() << " and @"
                                                << func.getSymName() << ", but this module places "
                                                   "values on more than one mesh, so each function "
                                                   "is propagated on its own; keep a group's "
                                                   "members in one function";
          d.attachNote(first.getLoc()) << "first member of the group";
          return signalPassFailure();
        }
      }
    }
    auto runOn = [&](SmallVector<func::FuncOp> funcs, MeshOp mesh) -> LogicalResult {
      FailureOr<shardc::Mesh> core = toCoreMesh(mesh);
      if (failed(core))
        return failure();
      return FunctionPropagation(std::move(funcs), mesh, *core, explain).run();
    };
    if (!theMesh) { // nothing placed: every value is replicated
      if (explain)
        for (func::FuncOp func : defined)
          explainUnplaced(func, "no function of this module is annotated");
      return markAllAnalysesPreserved();
    }
    if (!oneMesh) {
      // Functions on different meshes are propagated one by one; calls
      // between them stay opaque (ops without a rule).
      for (func::FuncOp func : defined)
        if (MeshOp mesh = meshOf.lookup(func))
          if (failed(runOn({func}, mesh)))
            return signalPassFailure();
      return;
    }
    // One mesh: the functions with annotations and every function connected
    // to them by calls (either direction) are propagated together, so
    // shardings flow into callees and back out (docs/propagation.md).
    llvm::DenseSet<Operation *> set;
    for (func::FuncOp func : defined)
      if (meshOf.count(func))
        set.insert(func);
    // A module with one defined function has no call to connect: its calls
    // can only reach itself or external declarations, so no walk over its
    // (possibly 100k) ops is needed to know the set.
    // Group ids are module-wide: a function holding a member of a group that
    // has a member in the set joins it, so the group is tied whatever else
    // the function holds (docs/propagation.md, "Sharding groups").
    std::map<int64_t, SmallVector<func::FuncOp>> groupFuncs;
    for (auto &[id, members] : groupMembers)
      for (auto &[v, func] : members)
        groupFuncs[id].push_back(func);
    for (bool grew = defined.size() > 1; grew;) {
      grew = false;
      for (auto &[id, members] : groupFuncs)
        if (llvm::any_of(members, [&](func::FuncOp f) { return set.contains(f); }))
          for (func::FuncOp f : members)
            grew |= set.insert(f).second;
      for (func::FuncOp func : defined)
        func.walk([&](func::CallOp call) {
          auto callee =
              SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr());
          if (!callee || callee.isExternal())
            return;
          bool callerIn = set.contains(func), calleeIn = set.contains(callee);
          if (callerIn != calleeIn) {
            set.insert(func);
            set.insert(callee);
            grew = true;
          }
        });
    }
    SmallVector<func::FuncOp> funcs;
    for (func::FuncOp func : defined)
      if (set.contains(func))
        funcs.push_back(func);
      else if (explain)
        explainUnplaced(func, "this function has no annotation and no call connects it to one");
    if (failed(runOn(funcs, theMesh)))
      return signalPassFailure();
  }

  /// explain for a function propagation does not visit: every value whole.
  static void explainUnplaced(func::FuncOp func, StringRef why) {
    AsmState state(func);
    auto remark = [&](Value v, Location loc, StringRef what) {
      if (!isa<RankedTensorType>(v.getType()))
        return;
      std::string name;
      llvm::raw_string_ostream os(name);
      v.printAsOperand(os, state);
      emitRemark(loc) << name << " (" << what << "): replicated <- " << why;
    };
    for (BlockArgument arg : func.getArguments())
      remark(arg, arg.getLoc(), ("argument of @" + func.getSymName()).str());
    func.walk([&](Operation *op) {
      if (op == func.getOperation())
        return;
      for (Value r : op->getResults())
        remark(r, op->getLoc(), op->getName().getStringRef());
    });
  }
};
} // namespace
