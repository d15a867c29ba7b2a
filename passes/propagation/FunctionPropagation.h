//===- FunctionPropagation.h - garray-propagate's fixed point ---*- C++ -*-===//
//
// Internal to passes/propagation: the pass (Propagate.cpp) runs one
// FunctionPropagation per set of functions propagated together; the fixed
// point is FunctionPropagation.cpp, its sources and the checks after it
// PropagationSeed.cpp, explain PropagationExplain.cpp. The IR glue around
// sharding/FactorMerge.h; the user-facing policy is docs/propagation.md.
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
//   - explain traces each axis of the final shardings back to the
//     annotations that wrote it (sharding/AxisOrigins.h), after the
//     fixed point; the propagation records for it only each value's last
//     conflicting merge (who proposed what);
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

#include "dialects/garray/GArray.h"
#include "passes/FactorRuleCache.h"
#include "passes/KeyMemo.h"
#include "sharding/AxisOrigins.h"
#include "sharding/FactorMerge.h"
#include "sharding/ShardingTable.h"
#include "sharding/Steering.h"
#include "passes/propagation/PropagationSets.h"

#include "llvm/ADT/MapVector.h"

#include <map>
#include <optional>
#include <set>

namespace shardc::propagation {

using namespace mlir;
using namespace mlir::garray;
using shardc::axisList;
using shardc::CachedRule;
using shardc::FactorRule;
using shardc::kLastRound;
using shardc::kSubRounds;
using shardc::OpClass;
using shardc::ShardingTable;
using shardc::TensorSharding;

/// Hashes ops by address without mixing the low bits. The parser allocates
/// a function's ops one after another, so ops close in the program land in
/// nearby buckets: on a 100k-op function, lookups of a value's recent
/// definition hit the cache instead of a random bucket (measured: about a
/// fifth of the pass's time went to such misses with the default hash).
/// The high bits are folded in so that addresses a power of two apart do not
/// all share a bucket.
struct NearbyOpsInfo : llvm::DenseMapInfo<Operation *> {
  static unsigned getHashValue(const Operation *op) {
    auto x = reinterpret_cast<uintptr_t>(op);
    return static_cast<unsigned>((x >> 4) ^ (x >> 26));
  }
};

inline bool isTensor(Value v) { return isa<RankedTensorType>(v.getType()); }


/// A member `v` (at `loc`) of sharding group `id` whose type differs from
/// the group's first member's: the error, naming both.
LogicalResult groupTypeError(int64_t id, Value first, Value v, Location loc);

/// The one mesh all annotations in `func` name; null if none; failure if two.
FailureOr<MeshOp> findMesh(func::FuncOp func);


/// What the user wrote on one value: the sharding and each dim's priority.
/// Small and without strings: a model annotates every parameter (tens of
/// thousands of arguments), and what was annotated is worded only when a
/// remark or an error names it (describe).
struct Annotation {
  /// What was annotated.
  enum class Kind : uint8_t { Argument, OpResult, Constraint, FunctionResult, CallResult };

  ShardingTable::Id full;    // the written sharding, interned
  ShardingTable::Id initial; // its state before its first round: every dim closed and empty
  /// Per dim, or empty when no dim has a written priority (every dim then
  /// takes part in the last round only).
  std::vector<int64_t> priority;
  Location loc;
  Kind kind;
  /// Argument: the function and the argument number; OpResult and
  /// Constraint: the op; FunctionResult: the function and the result
  /// number; CallResult: the callee and the result number.
  Operation *op;
  unsigned index;
  /// Set when the annotation was written on another member of this sharding
  /// group and holds here through it.
  std::optional<int64_t> group = std::nullopt;

  int64_t priorityOf(size_t d) const { return priority.empty() ? kLastRound : priority[d]; }
};

/// "argument 'x'", "result #0 of @f", "sharding_constraint", "argument 'w'
/// through sharding group 0", ...
std::string describe(const Annotation &a);
/// The same without the group: what the annotation was written on.
std::string describeWritten(const Annotation &a);

class FunctionPropagation {
public:
  /// `funcs`: the functions propagated together (callers and callees tied
  /// through their calls), in module order; `mesh` is anchored at the first.
  FunctionPropagation(SmallVector<func::FuncOp> funcs, MeshOp mesh, const shardc::Mesh &core,
                      bool explain);

  LogicalResult run();

  /// The module's split (PropagationSets.h), for the reason a call into a
  /// function propagated apart is opaque; null: say only that it is.
  const PropagationSets *sets = nullptr;

private:
  static constexpr unsigned kNoValue = ~0u;    // a non-tensor operand of a return
  static constexpr unsigned kSink = ~0u - 1;   // a function result's fixed sharding
  static constexpr unsigned kNoNode = ~0u;
  static constexpr unsigned kUnresolved = ~0u - 2;

  /// An op a step can change: a rule op, a constraint (identity rule), or a
  /// return (identity with each annotated function result).
  struct Node {
    Operation *op;
    enum class Kind { Rule, Constraint, Return } kind;
    const CachedRule *rule;  // null for returns
    unsigned first, count;   // its value ids in nodeValues
    unsigned numOperands;    // the first numOperands of them are operands
  };

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

  /// Whether `v` is an argument or the result of an op that propagation
  /// steps through with a sharding rule.
  bool hasOwnRule(Value v);

  /// The layout finalize writes for `v`: a call's result takes its callee's
  /// result layout (one signature), any other value its own final state.
  TensorSharding writtenLayout(Value v);

  /// Result i of a function, as finalize writes it: a declared result
  /// closed (its open dims filled), else what its returns give.
  /// "Declared" as seeded, not read from the IR, which finalize rewrites.
  TensorSharding resultLayout(func::FuncOp func, unsigned i);
  /// What the returns of `func` give as result i: per dim, the axes all
  /// returned values share (the common prefix, as ties keep), so that
  /// neither the order of the blocks nor which return comes first decides.
  TensorSharding returnedLayout(func::FuncOp func, unsigned i);

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

  /// The callee of `call` when it is propagated with this set; else null.
  func::FuncOp calleeInSet(func::CallOp call);

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

  void finalize();

  /// The sharding propagation settled on for `v` (replicated if none), with
  /// every dim closed: what is written back and what explain prints.
  TensorSharding closedFinal(Value v);

  /// `s` with every dim closed: how shardings are written and printed.
  static TensorSharding closed(TensorSharding s);

  /// Writes the final shardings of funcs[i], whose ops are allOps[begin, end).
  void finalize(func::FuncOp func, size_t begin, size_t end);

  /// A declared function result, closed: each open dim takes the returned
  /// axes (returnedLayout) when what was written is a prefix of them and
  /// the added axes are not used by another dim.
  TensorSharding declaredResult(func::FuncOp func, unsigned i);

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
  /// Explain only: the members of each call tie (a callee's argument and
  /// every call's operand; the return operands and every call's result),
  /// each with the op it enters the tie through (its call, its return; null
  /// for the callee's argument), so that a path names what it crossed.
  std::vector<SmallVector<std::pair<Value, Operation *>>> callTies;
  /// Explain only: per value id, what it is pending over right after its
  /// op, as insert-reshards will run the ops (shardc::pendingThrough).
  std::vector<std::vector<int>> heldPending;
  /// Per value id: its partial sum is its own op's (reduced dims it splits),
  /// none passed on from an operand.
  std::vector<bool> ownPartial;
  /// Explain only: ids of arguments annotated as partial sums.
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

  /// An annotation as written: open dims with `?`, priorities with `pN`.
  std::string written(const Annotation &a);


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

  /// One remark per value, at its location: final sharding and its origin.
  void explainAll();

  void explainAll(func::FuncOp func);

  /// The factor rule propagation stepped `op` with, or null.
  const FactorRule *ruleFor(Operation *op);
  std::vector<TensorSharding> finalShardings(ValueRange values);

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

  /// Explain only (PropagationLosses.cpp): an annotated axis that stopped at
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

  SmallVector<func::FuncOp> funcs;
  llvm::DenseSet<Operation *> inSet;
  /// Every op of `funcs` in walk order (post-order, each function's op last),
  /// collected once: each phase visits all ops, and on a 100k-op function a
  /// walk costs about as much as the per-op work itself. Until finalize the
  /// IR does not change; finalize only writes attributes.
  std::vector<Operation *> allOps;
  /// Per allOps entry: its rule when it is a rule op over tensors, else null.
  std::vector<const CachedRule *> ruleOf;
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
  llvm::DenseMap<Operation *, SmallVector<func::ReturnOp>> returnsOf;
  MeshOp mesh;
  const shardc::Mesh &core;
  bool explain;
  /// Value ids: every tensor value a step, tie or annotation touches.
  /// Results of the propagated functions' ops have ids from the
  /// constructor (their op's index, then the result number). A block's
  /// arguments get consecutive ids when the first of them is asked for, so
  /// an argument's id is its block's base plus its number (a function with
  /// one weight argument per layer has tens of thousands of them).
  unsigned idOf(Value v);
  unsigned newId(Value v);
  /// `v`'s current sharding, or null while unknown.
  const TensorSharding *known(Value v);
  void setState(Value v, const TensorSharding &s) { ids[idOf(v)] = table.intern(s); }

  // The fixed point runs on ids, not on IR: interned shardings per value id,
  // the op graph as index arrays, memoized steps. Written back once, at the
  // end (finalize).
  shardc::FactorRuleCache rules;
  ShardingTable table;
  llvm::DenseMap<Operation *, unsigned, NearbyOpsInfo> opIndex; // into allOps
  std::vector<unsigned> firstResult; // per allOps entry: its result 0's id
  /// Per allOps entry, its operands' ids from operandIds[firstOperand[i]] to
  /// operandIds[firstOperand[i + 1]] (one more entry ends the last op):
  /// kNoValue for a non-tensor, kUnresolved for a value defined later in
  /// walk order (only across blocks), resolved when the graph is built.
  std::vector<unsigned> firstOperand, operandIds;
  /// The id of `v` if its definition has been collected, else kUnresolved.
  unsigned resolvedId(Value v);
  llvm::DenseMap<Block *, unsigned> blockArgBase; // id of each block's argument 0
  std::vector<Value> valueOf;
  std::vector<ShardingTable::Id> ids; // per value id; kUnknown while unknown
  std::vector<Node> nodes;
  std::vector<unsigned> nodeValues;
  std::vector<unsigned> nodeOf; // per allOps entry: its node, or kNoNode
  std::vector<SmallVector<unsigned, 2>> users; // per value id: user nodes
  std::vector<unsigned> defNode;               // per value id, or kNoNode
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
  /// For explain: per value, every proposal of its last merge that left one
  /// unsatisfied.
  llvm::DenseMap<unsigned, SmallVector<std::pair<int64_t, ShardingTable::Id>, 2>> conflicts;

  shardc::KeyMemo<uint32_t, StepResult> steps; // [rule index, input ids...] -> step
  SmallVector<uint32_t, 8> key;                // scratch for apply

  std::map<std::pair<Operation *, unsigned>, ShardingTable::Id> sinks;
  llvm::MapVector<Value, Annotation> annotations;
  /// makeAnnotation's memo: (sharding, type) -> (full, initial).
  llvm::DenseMap<std::pair<Attribute, Type>, std::pair<ShardingTable::Id, ShardingTable::Id>>
      writtenIds;
  std::map<std::pair<Operation *, unsigned>, Annotation> sinkAnnotations;
  std::map<int64_t, SmallVector<Value>> groups;
  std::vector<std::pair<SmallVector<unsigned>, Operation *>> ties; // member ids, via
  llvm::DenseMap<unsigned, SmallVector<size_t>> tiesOf;
};

} // namespace shardc::propagation

#endif // SHARDC_PASSES_PROPAGATION_FUNCTIONPROPAGATION_H
