//===- Propagate.cpp - garray-propagate: shardings to a fixed point -------===//
//
// The pass: finds each function's mesh, splits the module into the
// functions propagated together on each mesh (PropagationSets.h) and runs a
// FunctionPropagation on each (FunctionPropagation.h: the fixed point;
// PropagationState.h: what it knows), then, with `explain`, reads each
// state into remarks (explain/PropagationExplainer.h) before writing it.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"
#include "passes/propagation/FunctionPropagation.h"
#include "passes/propagation/explain/PropagationExplainer.h"
#include "passes/propagation/PropagationSets.h"

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
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal()) {
        if (failed(checkDeclaration(func)))
          return signalPassFailure();
        continue;
      }
      FailureOr<MeshOp> mesh = findMesh(func);
      if (failed(mesh))
        return signalPassFailure();
      defined.push_back(func);
      if (!*mesh)
        continue;
      meshOf[func] = *mesh;
      theMesh = theMesh ? theMesh : *mesh;
    }
    // Group members across functions: they join functions into one set
    // (PropagationSets.h), and are checked here for what no single
    // propagation sees. One function's members are checked where they are
    // collected.
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
    SmallVector<SmallVector<func::FuncOp>> groupFuncs;
    for (auto &[id, members] : groupMembers) {
      groupFuncs.emplace_back();
      for (auto &[v, func] : members)
        groupFuncs.back().push_back(func);
    }
    for (auto &[id, members] : groupMembers)
      if (failed(checkGroupTypes(id, members)))
        return signalPassFailure();
    if (!theMesh) { // nothing placed: every value is replicated
      if (explain)
        for (func::FuncOp func : defined)
          explainUnplaced(func, "no function of this module is annotated");
      return markAllAnalysesPreserved();
    }
    PropagationSets sets = splitIntoSets(defined, meshOf, groupFuncs);
    for (auto [call, caller, callee] : sets.crossMesh) {
      MeshOp from = meshOf.lookup(caller), to = meshOf.lookup(callee);
      InFlightDiagnostic d = call.emitError("@")
                             << caller.getSymName() << " lives on mesh @" << from.getSymName()
                             << " and calls @" << callee.getSymName() << ", which lives on mesh @"
                             << to.getSymName()
                             << ": a function and the functions it calls run on one mesh (the "
                                "callee's values would be on other devices, in other layouts); "
                                "annotate both on one mesh, or call a copy of @"
                             << callee.getSymName() << " annotated on @" << from.getSymName();
      d.attachNote(callee.getLoc()) << "@" << callee.getSymName() << " is defined here";
      return signalPassFailure();
    }
    for (auto [call, caller, callee] : sets.outOfUnplaced) {
      MeshOp to = sets.runs[sets.runOf.lookup(callee)].first;
      func::FuncOp from = caller; // (a structured binding; lambdas capture it from C++20 on)
      const PropagationSets::Unplaced *u = llvm::find_if(
          sets.unplaced, [&](const PropagationSets::Unplaced &x) { return x.func == from; });
      InFlightDiagnostic d = call.emitError("@")
                             << caller.getSymName()
                             << " has no annotation and calls join it to functions on "
                             << u->meshes << ", so it could live on either and is not propagated; "
                             << "but it calls @" << callee.getSymName() << ", which lives on mesh @"
                             << to.getSymName()
                             << " and takes its arguments placed there; annotate @"
                             << caller.getSymName() << " on @" << to.getSymName()
                             << ", or give each mesh its own copy of it";
      d.attachNote(callee.getLoc()) << "@" << callee.getSymName() << " is defined here";
      return signalPassFailure();
    }
    for (auto &[id, members] : groupMembers)
      if (failed(checkGroupTogether(id, members, sets)))
        return signalPassFailure();
    for (auto &[mesh, funcs] : sets.runs) {
      FailureOr<shardc::Mesh> core = toCoreMesh(mesh);
      if (failed(core))
        return signalPassFailure();
      FunctionPropagation propagation(std::move(funcs), mesh, *core, explain);
      propagation.sets = &sets;
      if (failed(propagation.run()))
        return signalPassFailure();
      // Explain reads the state the fixed point left, before it is written.
      if (explain)
        PropagationExplainer(propagation).explainAll();
      propagation.finalize();
    }
    if (explain)
      for (const PropagationSets::Unplaced &u : sets.unplaced)
        explainUnplaced(u.func, u.why());
  }

  /// A declaration has no body to run in a layout: calls to it are ops
  /// without a rule, computed whole, so a sharding on its signature could
  /// not be honoured.
  static LogicalResult checkDeclaration(func::FuncOp func) {
    auto refuse = [&](StringRef what, unsigned i) {
      return func.emitError() << what << " #" << i << " of @" << func.getSymName()
                              << " has a sharding, but @" << func.getSymName()
                              << " is a declaration (no body): calls to it take and return "
                                 "whole values; drop the sharding, or give @"
                              << func.getSymName() << " a body";
    };
    for (unsigned i = 0; i < func.getNumArguments(); ++i) {
      if (func.getArgAttr(i, kShardingAttrName))
        return refuse("argument", i);
      // (A group on its arguments is refused by the dialect's verifier.)
    }
    for (unsigned i = 0; i < func.getNumResults(); ++i)
      if (func.getResultAttr(i, kShardingAttrName))
        return refuse("result", i);
    return success();
  }

  using Members = SmallVector<std::pair<Value, func::FuncOp>>;

  static Location locationOf(Value v) {
    return isa<BlockArgument>(v) ? v.getLoc() : v.getDefiningOp()->getLoc();
  }

  /// A group's members have one type: checked here for members in
  /// different functions (one function's are checked where FunctionPropagation
  /// collects them).
  static LogicalResult checkGroupTypes(int64_t id, const Members &members) {
    Value first = members.front().first;
    for (auto &[v, func] : members)
      if (v.getType() != first.getType())
        return groupTypeError(id, first, v, locationOf(v));
    return success();
  }

  /// A group's members are propagated together: in functions on one mesh.
  static LogicalResult checkGroupTogether(int64_t id, const Members &members,
                                          const PropagationSets &sets) {
    auto [first, firstFunc] = members.front();
    auto placeOf = [&](func::FuncOp f) -> std::string {
      auto it = sets.runOf.find(f);
      if (it != sets.runOf.end()) {
        MeshOp mesh = sets.runs[it->second].first;
        return "on mesh @" + mesh.getSymName().str();
      }
      return "not propagated: it has no annotation, and calls join it to functions on more "
             "than one mesh";
    };
    for (auto [v, func] : members) {
      if (sets.runOf.lookup(func) == sets.runOf.lookup(firstFunc) &&
          sets.runOf.count(func) == sets.runOf.count(firstFunc))
        continue;
      InFlightDiagnostic d = emitError(locationOf(v))
                             << "sharding group " << id << " ties values of @"
                             << firstFunc.getSymName() << " (" << placeOf(firstFunc) << ") and @"
                             << func.getSymName() << " (" << placeOf(func)
                             << "); a group's members must be propagated together: keep them in "
                                "functions on one mesh";
      d.attachNote(first.getLoc()) << "first member of the group";
      return failure();
    }
    return success();
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
