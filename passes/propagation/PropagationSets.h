//===- PropagationSets.h - which functions propagate together ---*- C++ -*-===//
//
// garray-propagate runs one FunctionPropagation per mesh over the functions
// that live on it (docs/propagation.md, "Calls"). Which functions those are
// is decided here, from the module's calls and sharding groups:
//
//   - functions are joined by func.call (either direction) and by sharding
//     groups, except that a call or group between two functions whose
//     annotations name different meshes joins nothing: such a call or
//     group is an error (`crossMesh`; the callee's values live on other
//     devices, in other layouts);
//   - a joined part whose annotations name one mesh lives on it, its
//     unannotated functions with it (so a helper called from a function on
//     @m1 is propagated on @m1, whatever other meshes the module has);
//   - a part with no annotation is not placed (every value whole);
//   - a part that joins functions of two meshes through unannotated
//     functions is ambiguous: each annotated function lives on its own
//     mesh, and the unannotated ones, which could live on either, are not
//     placed (calls to them are opaque), with that reason for errors and
//     explain; such a function calling a placed one is an error
//     (`outOfUnplaced`: the callee expects its arguments placed).
//
// Example: @f on @m1 and @g on @m2 both call unannotated @h. @h could live
// on either mesh, so it is not placed; a sharded operand of either call is
// an error that says so. Had only @f called it, @h would live on @m1.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_PROPAGATION_PROPAGATIONSETS_H
#define SHARDC_PASSES_PROPAGATION_PROPAGATIONSETS_H

#include "dialects/garray/GArray.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

#include <string>

namespace shardc::propagation {

namespace func = mlir::func;
using mlir::ArrayRef;
using mlir::Operation;
using mlir::SmallVector;
using mlir::garray::MeshOp;

/// A call between two defined functions.
struct CallEdge {
  func::CallOp call;
  func::FuncOp caller, callee;
};

struct PropagationSets {
  /// The functions propagated on each mesh, in module order; meshes in the
  /// order of their first function.
  SmallVector<std::pair<MeshOp, SmallVector<func::FuncOp>>> runs;
  /// A defined function no run visits.
  struct Unplaced {
    func::FuncOp func;
    /// The meshes calls and groups join it to ("@m1 and @m2"); "" when none.
    std::string meshes;
    /// Why, as explain words it about the function's values.
    std::string why() const;
  };
  /// In module order.
  SmallVector<Unplaced> unplaced;
  /// Calls from a function on one mesh to a function on another, in
  /// module order (each an error).
  SmallVector<CallEdge> crossMesh;
  /// Calls from a function that is not placed (joined to two meshes) to one
  /// that is, in module order: each an error, since the callee's signature
  /// is placed and the caller's values are whole.
  SmallVector<CallEdge> outOfUnplaced;
  /// The index in `runs` of each placed function.
  llvm::DenseMap<Operation *, unsigned> runOf;

  /// Why `callee`, a defined function called from a propagated one, is not
  /// propagated with it (for the error at a call that passes it a sharded
  /// value); "" when it is.
  std::string whyApart(func::FuncOp callee) const;
};

/// The sets of `defined` (the module's functions with bodies, in module
/// order; `meshOf` their annotations' meshes, absent when none), joined by
/// calls and by `groups` (each group's members' functions).
PropagationSets
splitIntoSets(ArrayRef<func::FuncOp> defined, const llvm::DenseMap<Operation *, MeshOp> &meshOf,
              ArrayRef<SmallVector<func::FuncOp>> groups);

} // namespace shardc::propagation

#endif // SHARDC_PASSES_PROPAGATION_PROPAGATIONSETS_H
