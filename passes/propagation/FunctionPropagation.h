//===- FunctionPropagation.h - garray-propagate's fixed point ---*- C++ -*-===//
//
// Internal to passes/propagation: the pass (Propagate.cpp) runs one
// FunctionPropagation per set of functions propagated together; the fixed
// point is FunctionPropagation.cpp, its sources and the checks after it
// PropagationSeed.cpp. What it knows lives in its base, PropagationState,
// which explain (explain/PropagationExplainer.h) reads after run() and
// before finalize(). The IR glue around sharding/FactorMerge.h; the
// user-facing policy is docs/propagation.md.
// Keeps:
//   - rounds by priority: round k uses as sources only the annotated dims
//     whose priority is <= k (dims without one come after every numbered
//     round); a dim whose round has not come is closed and empty, so it
//     neither gives nor takes; earlier rounds' results are kept, so stronger
//     annotations win conflicts with weaker ones;
//   - within a round, sub-rounds over op classes (kSubRounds, a data table):
//     pass-through ops first, then every op;
//   - a worklist of ops in waves: every op of a wave steps against the
//     state at the wave's start and proposes growths; each value takes the
//     merge of its proposals (so no op order decides a conflict); the ops
//     of the values that grew (users and definition, so information flows
//     both ways) form the next wave;
//   - sharding groups (`garray.sharding_group = N` on arguments or ops) tie
//     their members by an identity rule in every sub-round; a closed
//     annotation the annotated members agree on holds for every member
//     (annotateGroups);
//   - for explain, the fixed point records only what it alone knows: each
//     value's last conflicting merge (who proposed what) and the members of
//     each call tie; explain reconstructs the rest from the final state;
//   - steps only extend open dims, and a value whose proposals conflict
//     takes the merge of every proposer's latest word, so it changes only
//     when some word does and the waves end; only a round's start may take
//     an axis back from an open dim, for the annotation that wrote it;
//   - function results and sharding_constraint results are sinks with fixed
//     shardings; their operands are pulled toward them;
//   - calls: the functions that live on one mesh (PropagationSets.h) are
//     propagated together; a callee's argument i is tied
//     to operand i of every call, its result i to result i of every call
//     (one sharding per function signature, docs/propagation.md);
//   - after the fixed point, any op without a rule that touches a sharded
//     value is an error: shardc never silently computes a local copy.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_PROPAGATION_FUNCTIONPROPAGATION_H
#define SHARDC_PASSES_PROPAGATION_FUNCTIONPROPAGATION_H

#include "passes/KeyMemo.h"
#include "passes/propagation/PropagationState.h"
#include "sharding/FactorMerge.h"

#include <optional>

namespace shardc::propagation {

using shardc::kSubRounds;
using shardc::OpClass;

/// A member `v` (at `loc`) of sharding group `id` whose type differs from
/// the group's first member's: the error, naming both.
LogicalResult groupTypeError(int64_t id, Value first, Value v, Location loc);

/// The one mesh all annotations in `func` name; null if none; failure if two.
FailureOr<MeshOp> findMesh(func::FuncOp func);

class FunctionPropagation : public PropagationState {
public:
  /// `funcs`: the functions propagated together (callers and callees tied
  /// through their calls), in module order; `mesh` is anchored at the first.
  FunctionPropagation(SmallVector<func::FuncOp> funcs, MeshOp mesh, const shardc::Mesh &core,
                      bool explain);

  /// Seeds, runs every round to its fixed point and checks the result
  /// (groups, ops without rules, call results). The state (the base class)
  /// then holds every value's final sharding, for explain to read.
  LogicalResult run();

  /// Writes the final shardings into the IR.
  void finalize();

private:
  /// Makes the dims of round `round` sources: annotated values get the newly
  /// active dims (axes already used by grown dims are dropped: the stronger
  /// round keeps them); sinks take their view for this round.
  void activate(int64_t previous, int64_t round);

  /// `a` as a source in round `round`: dims whose round has not come are
  /// closed and empty (they neither give nor take).
  ShardingTable::Id activeIn(const Annotation &a, int64_t round);

  /// An annotation of sharding `s` on a value of `type`: its core form is
  /// verified and interned once per distinct (s, type) (a model's
  /// parameters share a few); `what` and `emitError` word the error.
  FailureOr<Annotation> makeAnnotation(ShardingAttr s, Type type, Annotation::Kind kind,
                                       Operation *op, unsigned index, Location loc,
                                       function_ref<InFlightDiagnostic()> emitError);

  /// Records `v`'s annotation; `v` starts with every dim closed and empty
  /// until the round of its priority (activate).
  void annotate(Value v, Annotation a);

  /// The graph the worklist runs on, built once: one node per op a step can
  /// change (rule ops over tensors, constraints, returns), with its values as
  /// ids (operands, then results), and per value its users (the nodes that
  /// read it, in program order) and its defining node. Ops that no step can
  /// change are not nodes: visiting them would do nothing. Built from what
  /// the constructor collected, without reading the ops again: on a 100k-op
  /// function every pass over the ops' memory costs a cache miss per op.
  void buildGraph();

  /// One sub-round, in waves: every item of a wave steps against the state
  /// at the start of the wave, then each value takes the merge of what its
  /// ops proposed (commit), and the next wave is the ops and ties of the
  /// values that grew. Each wave is a set and each commit a function of a
  /// set of proposals, so the result does not depend on the order of ops:
  /// two ops that want different axes for one value meet in one merge
  /// instead of the first one visited winning.
  void runWorklist(OpClass cls);

  /// Reads `garray.sharding_group = N` off arguments and op results.
  LogicalResult collectGroups();

  /// The members of a group are one value: a closed sharding written on one
  /// member holds for every unannotated member, from its round on, like a
  /// constraint on each. Otherwise it would not stop an annotation nearer to
  /// an unannotated optimizer moment from pulling the moment (and so the
  /// group) apart. Members annotated differently keep what was written
  /// (checkGroups names them). Not copied: an annotation with open dims
  /// (an open dim leaves the decision to propagation; as an annotation it
  /// would only keep the member empty until its round), and onto results
  /// of ops without a sharding rule or of calls (computed whole, or in their
  /// callee's layout: the tie reaches them as before).
  void annotateGroups();

  /// A sharding written on a call's result must be its callee's result
  /// layout (what this pass writes there): one sharding per signature.
  LogicalResult checkCallResults();

  /// After the fixed point every member of a group must hold one sharding.
  /// They cannot when members were annotated differently (annotations are
  /// closed), or when annotations nearer to the members than to each other
  /// pull them apart: an error naming both, instead of a group that silently
  /// is not one.
  LogicalResult checkGroups();

  /// A tie: values that share one sharding by an identity rule over all of
  /// them at once (so the result depends on the set, not on visiting order).
  void addTie(ArrayRef<Value> members, Operation *via);

  /// One sharding per function signature: argument i of a callee is tied to
  /// operand i of every call of it, result i (every return's operand i) to
  /// result i of every call. Information flows into the callee and back out.
  void collectCallTies();

  void tieStep(size_t t);

  /// Like f.walk(fn) over every function, on the ops collected once by the
  /// constructor whose opFlags have every bit of `need`; `fn` takes an
  /// Operation * or a specific op class. The flags (whether an op has a
  /// sharding rule, whether it carries attributes) are known from the
  /// collection, so a phase skips the ops it cannot concern without touching
  /// them: on a 100k-op function each pass over the ops' memory, or a search
  /// of each op's interface map, costs milliseconds.
  template <typename Fn> void walkAll(uint8_t need, Fn &&fn) {
    using Arg = mlir::detail::first_argument<Fn>;
    for (size_t i = 0; i < allOps.size(); ++i) {
      if ((opFlags[i] & need) != need)
        continue;
      Operation *op = allOps[i];
      if constexpr (std::is_same_v<Arg, Operation *>) {
        fn(op);
      } else if (auto typed = dyn_cast<Arg>(op)) {
        fn(typed);
      }
    }
  }

  LogicalResult seed();

  /// The body annotations of functions whose signature names the mesh,
  /// which findMesh did not search: each must name this mesh too (findMesh's
  /// errors, in its order). Only ops flagged with attributes or as
  /// constraints are read.
  LogicalResult checkBodyMeshes();

  LogicalResult seedSignature(func::FuncOp func);

  LogicalResult seedBodies();

  /// An op without a rule computes whole values: a sharding written on its
  /// result may only say so (replicated, as this pass itself writes).
  LogicalResult checkRulelessAnnotation(Operation *op);

  /// What one core step does to its tensors, as interned ids: every
  /// tensor's sharding after the step, and the indices propagateStep
  /// reported as changed.
  struct StepResult {
    SmallVector<ShardingTable::Id, 4> after;
    SmallVector<unsigned, 4> changed;
  };

  /// propagateStep is a pure function of the rule and its tensors'
  /// shardings (the mesh is fixed here), so it runs once per distinct
  /// [rule index, input ids...] key: a long chain of same-typed ops with the
  /// same shardings costs one core step and then one hash lookup per visit.
  const StepResult &memoizedStep(const CachedRule &rule, ArrayRef<uint32_t> key);

  /// Runs one core step on `rule` over `vals` (value ids, operands then
  /// results; kSink stands for a fixed sink sharding `fixed`) against the
  /// state at the start of the wave, and records what it would grow as
  /// proposals of `proposer` (runWorklist commits them).
  void apply(const CachedRule &rule, ArrayRef<unsigned> vals, ShardingTable::Id fixed);

  /// An unknown value that a step would only make known and empty (open,
  /// no axes, nothing pending) merges like an unknown one: no proposal, so
  /// its neighbours are not revisited for nothing.
  bool isEmpty(ShardingTable::Id id);
  std::pair<ShardingTable::Id, bool> emptyMemo = {ShardingTable::kUnknown, false};

  void propose(unsigned v, ShardingTable::Id id);

  /// Commits the wave's proposals for `v`: one proposal (or several equal
  /// ones) is taken as is; otherwise the merge of every live proposal for
  /// `v` (conflict policy 2, across ops). While the merge leaves some
  /// proposal unsatisfied, `v` is contested and every proposer's latest word
  /// stays in the merge until that proposer steps again.
  void commit(unsigned v, SmallVectorImpl<unsigned> &changed);

  /// The growth of one value from what its ops proposed in one wave (each
  /// extends its current sharding). Per dim, the users' and ties'
  /// proposals merge by conflict policy 2: the longest if every one is a
  /// prefix of it, else their longest common prefix. The defining op's
  /// proposal (`fromDef`, kUnknown if none) holds against them: it stays
  /// unless their merge extends it (a value keeps the layout it is computed
  /// in; a user that wants another one reshards its operand). An axis used
  /// by an earlier dim ends a dim. A function of the set of proposals, so
  /// of no order.
  ShardingTable::Id mergeProposals(ShardingTable::Id fromDef,
                                   ArrayRef<ShardingTable::Id> candidates);

  /// Whether `merged` holds everything candidate `c` asks (per dim, c's
  /// axes are a prefix of merged's).
  bool satisfies(ShardingTable::Id merged, ShardingTable::Id c);

  void step(const Node &n);

  /// An op without a sharding rule whose results are whole on every device
  /// and whose operands must be: not a constraint, a reshard or a collective
  /// (they carry a placement of their own), a return, or a call into a
  /// function propagated with this one.
  bool computedWhole(Operation *op);

  LogicalResult checkRuleless();

  /// Writes the final shardings of funcs[i], whose ops are allOps[begin, end).
  void finalize(func::FuncOp func, size_t begin, size_t end);

  /// Every op of `funcs` in walk order (post-order, each function's op last),
  /// collected once: each phase visits all ops, and on a 100k-op function a
  /// walk costs about as much as the per-op work itself. Until finalize the
  /// IR does not change; finalize only writes attributes. The state's
  /// opIndex indexes it.
  std::vector<Operation *> allOps;
  enum OpFlag : uint8_t {
    kHasRule = 1,
    kNoRule = 2,
    kHasAttrs = 4,
    kConstraint = 8, // a sharding_constraint
    kReturn = 16,    // a func.return
  };
  std::vector<unsigned> numResults; // per allOps entry
  std::vector<uint8_t> opFlags; // per allOps entry: OpFlag bits
  SmallVector<std::pair<size_t, size_t>> opRange; // funcs[i]'s ops in allOps
  void setState(Value v, const TensorSharding &s) { ids[idOf(v)] = table.intern(s); }

  // The fixed point runs on ids, not on IR: interned shardings per value id
  // (the state's), the op graph as index arrays, memoized steps. Written
  // back once, at the end (finalize).
  /// Per allOps entry, its operands' ids from operandIds[firstOperand[i]] to
  /// operandIds[firstOperand[i + 1]] (one more entry ends the last op):
  /// kNoValue for a non-tensor, kUnresolved for a value defined later in
  /// walk order (only across blocks), resolved when the graph is built.
  std::vector<unsigned> firstOperand, operandIds;
  /// The id of `v` if its definition has been collected, else kUnresolved.
  unsigned resolvedId(Value v);
  std::vector<unsigned> nodeOf; // per allOps entry: its node, or kNoNode
  /// A wave's proposals (see runWorklist): value v may grow to `id`.
  static constexpr unsigned kNone = ~0u;
  struct Proposal {
    unsigned v;
    ShardingTable::Id id;
    int64_t proposer; // node index, or ~tie
    unsigned next;    // the value's previous proposal in this wave, or kNone
  };
  std::vector<Proposal> proposals;
  std::vector<unsigned> waveHead;    // per value: its latest proposal, or kNone
  std::vector<unsigned> touched;     // values with a proposal, first-seen order
  int64_t proposer = 0;              // the item stepping now
  /// Values whose last merge left some proposer unsatisfied, with every
  /// proposer's latest proposal (satisfied or not).
  std::vector<bool> contested;
  llvm::DenseMap<unsigned, SmallVector<std::pair<int64_t, ShardingTable::Id>, 2>> contestedOf;
  int numContested = 0;
  /// The pass-through sub-round of the current round ended with no value
  /// contested: every pass-through op, constraint, return and tie is at its
  /// fixed point, so stepping it again proposes nothing. The next sub-round
  /// then starts from the other ops alone (on a chain of elementwise ops,
  /// the whole graph was stepped a second time for nothing).
  bool passThroughSettled = false;

  shardc::KeyMemo<uint32_t, StepResult> steps; // [rule index, input ids...] -> step
  SmallVector<uint32_t, 8> key;                // scratch for apply

  std::map<std::pair<Operation *, unsigned>, ShardingTable::Id> sinks;
  /// makeAnnotation's memo: (sharding, type) -> (full, initial).
  llvm::DenseMap<std::pair<Attribute, Type>, std::pair<ShardingTable::Id, ShardingTable::Id>>
      writtenIds;
};

} // namespace shardc::propagation

#endif // SHARDC_PASSES_PROPAGATION_FUNCTIONPROPAGATION_H
