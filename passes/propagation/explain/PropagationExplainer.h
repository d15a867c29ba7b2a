//===- PropagationExplainer.h - explain: where each sharding came from -*- C++ -*-===//
//
// `shardc explain` and garray-propagate's `explain` option: one remark per
// value, at its location, with its final sharding and where it came from,
// read off the propagation's state after the fixed point (a const
// PropagationState: explain changes nothing propagation decided). The
// fixed point only announces what it alone knows (each value's last
// conflicting merge, the members of each call tie); everything else is
// reconstructed here:
//
//   ExplainTrace.cpp       each axis of the final shardings traced back to
//                          the annotations that wrote it (sharding/
//                          AxisOrigins.h), and what is pending where
//   ExplainSources.cpp     the remark: sources, paths, partial sums
//   ExplainReplicated.cpp  why a whole value is whole
//   ExplainConflicts.cpp   conflicts, dropped axes, reshapes that drop a split
//   ExplainLosses.cpp      annotations that lost a round to a stronger one
//
// The wording is the contract of docs/propagation.md, "explain".
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_PROPAGATION_EXPLAIN_PROPAGATIONEXPLAINER_H
#define SHARDC_PASSES_PROPAGATION_EXPLAIN_PROPAGATIONEXPLAINER_H

#include "passes/propagation/PropagationState.h"
#include "sharding/AxisOrigins.h"

#include <optional>
#include <string>
#include <vector>

namespace shardc::propagation {

class PropagationExplainer {
public:
  explicit PropagationExplainer(const PropagationState &state) : st(state) {}

  /// One remark per value of every function of the set, at its location:
  /// its final sharding and its origin.
  void explainAll();

private:
  const PropagationState &st;
  using Node = PropagationState::Node;
  static constexpr unsigned kNoNode = PropagationState::kNoNode;
  static constexpr unsigned kNoValue = PropagationState::kNoValue;
  static constexpr unsigned kSink = PropagationState::kSink;

  /// Ops named at each end of a long `via` path.
  static constexpr size_t kViaEnds = 3;

  // explain's per-axis origins (sharding/AxisOrigins.h), built once the
  // shardings are final: every op, constraint, call and group is a link
  // between the values that hold an axis where it maps them to each other;
  // every annotation is a source of the axes it wrote that are still held.
  using Hold = shardc::AxisOrigins::Hold;
  struct OriginSource {
    const Annotation *annotation;
    Value value; // what it annotates (a function result: the returned value)
    bool sink;   // a function result annotation, entered through its return
  };
  std::vector<OriginSource> originSources;
  llvm::DenseMap<Value, int> ownSource; // an annotated value's source index
  /// What a via names: an op, or (op null) a sharding group.
  std::vector<std::pair<Operation *, int64_t>> originVias;
  llvm::DenseMap<Operation *, int> viaIndex;
  /// Links only where ops run with an axis, at its place (the same axes
  /// before it): what `explain` names.
  std::optional<shardc::AxisOrigins> axisOrigins;
  /// Links wherever two values hold an axis under one factor or dim: asked
  /// for an axis the first leaves without a source (it came through an op
  /// that ends up not running with it; a reshard there).
  std::optional<shardc::AxisOrigins> detourOrigins;
  /// per value id, what it is pending over right after its
  /// op, as insert-reshards will run the ops (shardc::pendingThrough).
  std::vector<std::vector<int>> heldPending;
  /// Per value id: its partial sum is its own op's (reduced dims it splits),
  /// none passed on from an operand.
  std::vector<bool> ownPartial;
  /// ids of arguments annotated as partial sums.
  llvm::DenseSet<unsigned> annotatedPartial;
  /// Returned values originOf is explaining call results by (a callee that
  /// returns a call of itself or of its caller would recurse).
  llvm::DenseSet<Value> explainingCalls;

  int viaOf(Operation *op);

  /// Per dim, what a call tie's merge keeps of its members' final axes: the
  /// longest list if every member's is a prefix of it, else their common
  /// prefix (conflict policy 2, as the tie's step merges them).
  std::vector<std::vector<int>> tieMerge(ArrayRef<std::pair<Value, Operation *>> members);

  /// The axes `v` holds on its dims, each keyed by `key(dim, the axes
  /// before it on that dim)`.
  void holdsByDim(Value v, std::vector<Hold> &out,
                  llvm::function_ref<int(int, ArrayRef<int>)> key);

  void traceAxes();



  /// The annotations `axes` of `v` came from, each once with the path of
  /// the first axis it explains, in order of first appearance; `v`'s own
  /// annotation first, and alone for the axes it wrote. `detours` collects
  /// the sources of axes that came through an op that ends up not running
  /// with them (detourOrigins), `unexplained` axes no annotation reaches
  /// either way.
  struct Named {
    int source;
    shardc::AxisOrigins::Origin path; // of the first axis it explains
    std::vector<int> axes;
  };
  std::vector<Named> sourcesOf(Value v, ArrayRef<int> axes, std::vector<Named> &detours,
                               std::vector<int> &unexplained);

  /// "argument 'x' (%arg0) annotated P("a"?, None) at LOC via OPS", each
  /// source after the first introduced by `also` and, when it explains only
  /// some of `axes`, the axes it does. With `apartAgreeing`, a source whose
  /// axes earlier ones already explained is named last, without its way
  /// (it agrees). With `parts` (an op's own partial sum: the first source
  /// of each operand's axis is a part, however many explain one axis), a
  /// source not among them is the one named last.
  void printSources(llvm::raw_ostream &os, Value v, ArrayRef<Named> named, ArrayRef<int> axes,
                    ArrayRef<Named> detours, ArrayRef<int> unexplained, StringRef also,
                    bool apartAgreeing, llvm::function_ref<std::string(Value)> name,
                    const llvm::DenseSet<int> *parts = nullptr);

  /// One source: "argument 'x' (%arg0) annotated P(...) at LOC via OPS".
  void printSource(llvm::raw_ostream &os, Value v, const Named &n,
                   llvm::function_ref<std::string(Value)> name);

  /// Where a value's final sharding is from: per axis it holds, the
  /// annotations that wrote it and the ops it came through; a value
  /// annotated itself names its annotation first.
  std::string originOf(Value v, llvm::function_ref<std::string(Value)> name);

  /// For a result of an op that sums (or maxes) over a factor its operands
  /// shard: that each device holds a partial result, over which axes, and
  /// the annotations those axes came from (its layout alone reads as
  /// "replicated" there).
  std::string partialOf(Value v, llvm::function_ref<std::string(Value)> name);

  /// The ops of a path, from the annotation toward the value. A path through
  /// a deep network names its first and last kViaEnds ops and counts the
  /// rest: printed whole, every value's remark would repeat its producers'
  /// paths, quadratic in the depth (a 2000-op MLP printed ~130 MB).
  std::string pathOf(const shardc::AxisOrigins::Origin &o);

  /// Why a value holds no axis at all.
  std::string replicatedOrigin(Value v, llvm::function_ref<std::string(Value)> name);
  /// The first dim of `v` its final sharding splits unevenly, with the
  /// number of shards.
  std::optional<std::pair<unsigned, int64_t>> unevenDim(Value v);
  /// Why reshape `op` does not carry its operand's split dim onto the
  /// result: the pieces the dim is regrouped into and the devices that do
  /// not divide the leading one ("" when no split dim is dropped).
  std::string reshapeDrops(Operation *op);
  /// Per factor of `op`'s rule: whether its operands' layouts conflict on
  /// it, a factor of the result (operandsConflict: any).
  std::vector<bool> conflictFactors(Operation *op);
  /// The first operand of rule op `op` that is a partial sum right before
  /// it (explain's simulation of insert-reshards), if any.
  std::optional<unsigned> reducedOperand(Operation *op);
  /// Why a whole value is whole on its own account (its annotation, a
  /// conflict at it, its op's rule); "" when only because a neighbour is.
  std::string ownReplicatedCause(Value v, llvm::function_ref<std::string(Value)> name);
  /// For whole values without a cause of their own: the nearest whole
  /// value that has one, through rule ops, and the op next to the value on
  /// the way (filled once, by findReplicatedCauses, when first needed).
  struct Near {
    Value source;
    Operation *via;
    unsigned hops;
    /// The value's dims this cause reached (in replicatedNear).
    SmallVector<unsigned, 2> dims = {};
  };
  /// Per whole value: its causes, one per source, in the order of the
  /// lowest dim each reached (empty: none, or the value has its own).
  llvm::DenseMap<Value, SmallVector<Near, 1>> replicatedNear;
  bool nearDone = false;
  void findReplicatedCauses(llvm::function_ref<std::string(Value)> name);

  /// An op with a rule that defines or uses `v` and another of its tensors
  /// that holds axes, if any.
  std::pair<Operation *, Value> heldNextTo(Value v);

  void explainAll(func::FuncOp func);


  /// Whether the operands of `op` ask different axes for a factor that
  /// indexes a result: the merge keeps their common prefix (policy 2) and
  /// the operands are resharded. Operands split along different reduction
  /// factors, or along what the result does not index, do not conflict.
  bool operandsConflict(Operation *op);

  /// Whether every factor the operands of `op` split is one it reduces (a
  /// partial sum), rather than one it needs whole (gathered first).
  bool onlyReduced(Operation *op);
  /// For an op whose operands split only dims it reduces: two operands that
  /// split one reduced factor by different axes ("operand #0 by "data",
  /// operand #1 by "model""), or empty.
  std::string reducedRivals(Operation *op);

  /// For a value where ops proposed layouts that could not all be kept:
  /// who wanted what (the last such merge), so a conflict is not mistaken
  /// for "no annotation reaches it".
  std::string conflictOf(Value v);
  /// For the result `v` of a rule op: an axis an operand holds on a dim the
  /// op maps to one of v's dims, but that v's dim does not hold, and what
  /// the op uses the axis for instead ("" when none): a dot's contraction
  /// that took a weight's output axis.
  std::string droppedOf(Value v);

  /// (ExplainLosses.cpp) an annotated axis that stopped at
  /// a value because a stronger round placed what holds its place there.
  struct Loss {
    int source;               // originSources index of the annotation
    int axis;
    unsigned dim;             // the dim of the value it would have split
    std::vector<int> vias;    // originVias of the ops from the annotation
    unsigned winnerDim;       // where what holds the place is: dim, or the
    std::vector<int> winnerAxes; // dim that already uses the axis
    int64_t winnerRound;      // the round that placed it
    int64_t round;            // the annotation's round on that dim
  };
  llvm::DenseMap<unsigned, SmallVector<Loss, 1>> losses; // per value id
  /// Follows every annotated axis, once the origins are traced, to the
  /// values where a stronger round stopped it.
  void findLosses();
  /// The strongest round among the origins of `axis` on value `id`.
  std::optional<int64_t> strongestRound(unsigned id, int axis);
  /// "; not "model" on dim 0 from argument 'y' ... via ...: dim 0 holds
  /// "data" from round p0, which comes before ...", or "".
  std::string lostOf(Value v, llvm::function_ref<std::string(Value)> name);

};

} // namespace shardc::propagation

#endif // SHARDC_PASSES_PROPAGATION_EXPLAIN_PROPAGATIONEXPLAINER_H
