//===- PropagationState.h - what garray-propagate knows, read-only -*- C++ -*-===//
//
// The state the fixed point leaves behind, for whoever reads it after the
// fact: each value's final sharding (interned, by value id), the annotations
// it started from, the op graph it stepped, the ties between values (calls,
// sharding groups), and what the fixed point announced on its way (the last
// conflicting merge of each value; the members of each call tie). The fixed
// point (FunctionPropagation.h) derives from it and fills it; explain
// (explain/PropagationExplainer.h) only reads it, through a const reference.
//
// The queries are const. idOf gives a block argument that the fixed point
// never touched an id on first ask, an unknown sharding: a lazily filled
// index, not a change of state, hence the mutable members behind it.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_PROPAGATION_PROPAGATIONSTATE_H
#define SHARDC_PASSES_PROPAGATION_PROPAGATIONSTATE_H

#include "dialects/garray/GArray.h"
#include "passes/FactorRuleCache.h"
#include "passes/propagation/PropagationSets.h"
#include "sharding/ShardingTable.h"
#include "sharding/Steering.h"

#include "llvm/ADT/MapVector.h"

#include <map>
#include <vector>

namespace shardc::propagation {

// The IR names this component uses, declared once (no using-directives in
// headers).
namespace func = mlir::func;
using mlir::ArrayRef;
using mlir::Attribute;
using mlir::Block;
using mlir::BlockArgument;
using mlir::FailureOr;
using mlir::InFlightDiagnostic;
using mlir::function_ref;
using mlir::Location;
using mlir::LogicalResult;
using mlir::OpResult;
using mlir::Operation;
using mlir::RankedTensorType;
using mlir::SmallVector;
using mlir::SmallVectorImpl;
using mlir::StringRef;
using mlir::Type;
using mlir::Value;
using mlir::ValueRange;
using mlir::garray::DimShardingAttr;
using mlir::garray::MeshOp;
using mlir::garray::ShardingAttr;
using mlir::garray::ShardingRuleOpInterface;
using shardc::CachedRule;
using shardc::FactorRule;
using shardc::kLastRound;
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

class PropagationState {
public:
  PropagationState(SmallVector<func::FuncOp> funcs, MeshOp mesh, const shardc::Mesh &core,
                   bool explain)
      : funcs(std::move(funcs)), mesh(mesh), core(core), explain(explain) {}

  static constexpr unsigned kNoValue = ~0u;  // a non-tensor operand of a return
  static constexpr unsigned kSink = ~0u - 1; // a function result's fixed sharding
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

  /// Value ids: every tensor value a step, tie or annotation touches.
  /// Results of the propagated functions' ops have ids from the
  /// constructor (their op's index, then the result number). A block's
  /// arguments get consecutive ids when the first of them is asked for, so
  /// an argument's id is its block's base plus its number (a function with
  /// one weight argument per layer has tens of thousands of them).
  unsigned idOf(Value v) const;
  /// `v`'s current sharding, or null while unknown.
  const TensorSharding *known(Value v) const;
  /// The sharding propagation settled on for `v` (replicated if none), with
  /// every dim closed: what is written back and what explain prints.
  TensorSharding closedFinal(Value v) const;
  /// `s` with every dim closed: how shardings are written and printed.
  static TensorSharding closed(TensorSharding s);
  std::vector<TensorSharding> finalShardings(ValueRange values) const;
  /// The factor rule propagation stepped `op` with, or null.
  const FactorRule *ruleFor(Operation *op) const;
  /// Whether `v` is an argument or the result of an op that propagation
  /// steps through with a sharding rule.
  bool hasOwnRule(Value v) const;
  /// The callee of `call` when it is propagated with this set; else null.
  func::FuncOp calleeInSet(func::CallOp call) const;

  /// The layout finalize writes for `v`: a call's result takes its callee's
  /// result layout (one signature), any other value its own final state.
  TensorSharding writtenLayout(Value v) const;
  /// Result i of a function, as finalize writes it: a declared result
  /// closed (its open dims filled), else what its returns give.
  /// "Declared" as seeded, not read from the IR, which finalize rewrites.
  TensorSharding resultLayout(func::FuncOp func, unsigned i) const;
  /// What the returns of `func` give as result i: per dim, the axes all
  /// returned values share (the common prefix, as ties keep), so that
  /// neither the order of the blocks nor which return comes first decides.
  TensorSharding returnedLayout(func::FuncOp func, unsigned i) const;
  /// A declared function result, closed: each open dim takes the returned
  /// axes (returnedLayout) when what was written is a prefix of them and
  /// the added axes are not used by another dim.
  TensorSharding declaredResult(func::FuncOp func, unsigned i) const;

  /// An annotation as written: open dims with `?`, priorities with `pN`.
  std::string written(const Annotation &a) const;

  /// The returns of a function of the set (op handles, copied: few).
  SmallVector<func::ReturnOp, 1> returnsOf(func::FuncOp func) const;

  /// The functions propagated together, in module order.
  SmallVector<func::FuncOp> funcs;
  llvm::DenseSet<Operation *> inSet;
  MeshOp mesh;
  const shardc::Mesh &core;
  /// Whether the fixed point records what explain reads (conflicts,
  /// callTies).
  bool explain;
  /// The module's split (PropagationSets.h), for the reason a call into a
  /// function propagated apart is opaque; null: say only that it is.
  const PropagationSets *sets = nullptr;

  /// Rules by op signature (a cache: filled as ops are asked about).
  mutable shardc::FactorRuleCache rules;
  /// Every sharding the fixed point holds, interned.
  ShardingTable table;
  llvm::DenseMap<Operation *, unsigned, NearbyOpsInfo> opIndex; // into the op list
  /// Per op (opIndex): its rule when it is a rule op over tensors, else null.
  std::vector<const CachedRule *> ruleOf;
  std::vector<unsigned> firstResult; // per op (opIndex): its result 0's id
  mutable llvm::DenseMap<Block *, unsigned> blockArgBase; // id of each block's argument 0
  mutable std::vector<Value> valueOf;                      // per value id
  mutable std::vector<ShardingTable::Id> ids; // per value id; kUnknown while unknown

  /// The graph the worklist runs on: one node per op a step can change,
  /// with its values as ids (operands, then results), and per value its
  /// users and its defining node.
  std::vector<Node> nodes;
  std::vector<unsigned> nodeValues;
  std::vector<SmallVector<unsigned, 2>> users; // per value id: user nodes
  std::vector<unsigned> defNode;               // per value id, or kNoNode

  /// What was written: per value its annotation (in seeding order), per
  /// (return, result number) a function result's.
  llvm::MapVector<Value, Annotation> annotations;
  std::map<std::pair<Operation *, unsigned>, Annotation> sinkAnnotations;
  /// `garray.sharding_group = N`: the members of each group.
  std::map<int64_t, SmallVector<Value>> groups;
  /// Ties: values that share one sharding by an identity rule over all of
  /// them at once (call ties, groups), each with the op it is named by.
  std::vector<std::pair<SmallVector<unsigned>, Operation *>> ties; // member ids, via
  llvm::DenseMap<unsigned, SmallVector<size_t>> tiesOf;

  /// Announced for explain: per value, every proposal of its last merge that
  /// left one unsatisfied (proposer: node index, or ~tie).
  llvm::DenseMap<unsigned, SmallVector<std::pair<int64_t, ShardingTable::Id>, 2>> conflicts;
  /// Announced for explain: the members of each call tie (a callee's
  /// argument and every call's operand; the return operands and every
  /// call's result), each with the op it enters the tie through (its call,
  /// its return; null for the callee's argument).
  std::vector<SmallVector<std::pair<Value, Operation *>>> callTies;

protected:
  unsigned newId(Value v) const;
  llvm::DenseMap<Operation *, SmallVector<func::ReturnOp>> returns;
};

} // namespace shardc::propagation

#endif // SHARDC_PASSES_PROPAGATION_PROPAGATIONSTATE_H
