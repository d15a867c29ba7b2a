//===- GArray.h - the garray dialect's one public header --------*- C++ -*-===//
//
// Ops, attributes and the sharding-rule interface of the global view, plus the
// few helpers every pass needs to read and write placements:
//
//   - a value's sharding lives on its definition: `garray.sharding` on the op
//     (one ShardingAttr for a one-result op) or on the function argument;
//   - toCore()/fromCore() translate between the attribute and the IR-free
//     shardc::TensorSharding (axis names <-> indices into the mesh).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_DIALECTS_GARRAY_GARRAY_H
#define SHARDC_DIALECTS_GARRAY_GARRAY_H

#include "sharding/FactorRule.h"
#include "sharding/Limits.h"
#include "sharding/Sharding.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/garray/GArrayDialect.h.inc"
#include "dialects/garray/GArrayEnums.h.inc"

namespace mlir::garray {
class DimShardingAttr;
} // namespace mlir::garray

#define GET_ATTRDEF_CLASSES
#include "dialects/garray/GArrayAttrs.h.inc"

#include "dialects/garray/GArrayInterfaces.h.inc"

#define GET_OP_CLASSES
#include "dialects/garray/GArrayOps.h.inc"

namespace mlir::garray {

/// Name of the discardable attribute carrying a sharding on ops and args.
inline constexpr llvm::StringLiteral kShardingAttrName = "garray.sharding";
/// Name of the unit attribute on an entry's i8, i16, i32 or i64 argument or
/// result that the host reads and writes as unsigned (u8, u16, u32, u64): the
/// program computes on the same bits as signless integers (a JAX PRNG key).
inline constexpr llvm::StringLiteral kUnsignedAttrName = "garray.unsigned";
/// Name of the discardable attribute that ties values to one sharding (a
/// parameter and its optimizer moments): an integer group id.
inline constexpr llvm::StringLiteral kGroupAttrName = "garray.sharding_group";
/// How the `reason` of a reshard (and of the collectives it becomes) starts
/// when the user asked for the layout: a sharding_constraint or a reshard
/// written in the program (insert-reshards writes them; the memory
/// estimate reads them to say the value is placed by its annotation).
inline constexpr llvm::StringLiteral kConstraintReasonPrefix = "garray.sharding_constraint at ";
inline constexpr llvm::StringLiteral kWrittenReshardReasonPrefix = "garray.reshard written at ";
using shardc::kMaxMeshDevices; // sharding/Limits.h

/// A collective of the global program (all_reduce, all_gather, all_slice,
/// reduce_scatter, all_to_all, collective_permute): inserted by the
/// collectives passes, turned into comm ops by global-to-local. The one list
/// every pass that treats them alike asks.
inline bool isGlobalCollective(Operation *op) {
  return isa<AllReduceOp, AllGatherOp, AllSliceOp, ReduceScatterOp, AllToAllOp,
             CollectivePermuteOp>(op);
}

/// Whether `module` places by hand: it has ops that say where data lives,
/// or move it, by themselves (a shard_map, a reshard, a global collective,
/// a comm op). Passes that choose layouts for the program leave such a
/// module's layouts to its author.
bool placesByHand(ModuleOp module);

/// The sharding recorded for `value` (on its defining op or function
/// argument), or null.
ShardingAttr getSharding(Value value);
void setSharding(Value value, ShardingAttr sharding);
/// The sharding a function declares for result `i`, or null.
ShardingAttr getResultSharding(func::FuncOp func, unsigned i);

/// The mesh `sharding` names, looked up from `from`; null if missing.
MeshOp lookupMesh(Operation *from, FlatSymbolRefAttr mesh);
/// The mesh as IR-free data; fails on `?` sizes.
FailureOr<shardc::Mesh> toCoreMesh(MeshOp mesh);

shardc::Reduction toCore(ReductionKind kind);
ReductionKind fromCore(shardc::Reduction kind);

/// The neutral element of `kind` for `element` (0, 1, -inf, +inf, or the
/// integer extremes): a reduction's initial value, and what the padding of
/// uneven shards holds so that it never changes a result. On i1 the kinds
/// are logical (sum, max: or; prod, min: and), as the runtime combines i1
/// partials.
TypedAttr reductionIdentity(Builder &b, Type element, ReductionKind kind);
/// Whether every element of `v` is zero in every layout: a splat zero
/// constant, seen through broadcasts, reshapes and ops that only move the
/// value between layouts (reshards, gathers, slices of the mesh). Such an
/// operand of a sum may be read as a pending sum over any axes (each device
/// holding 0 sums to 0), which the factor rules of add, sub, select, pad and
/// scatter_add use.
bool isAllZeros(Value v);
/// The operands of `op` that are all zeros, as a bit mask, for the ops whose
/// factor rule depends on it (add, sub, select, scatter_add, pad); 0 for every
/// other op. A cache of factor rules keys on it with the op's signature.
unsigned zeroOperandMask(Operation *op);
/// Translates axis names to indices; `rank` pads missing trailing dims.
/// Unknown axes are reported through `emitError` when given.
FailureOr<shardc::TensorSharding>
toCore(ShardingAttr sharding, MeshOp mesh, unsigned rank,
       llvm::function_ref<InFlightDiagnostic()> emitError = {});
ShardingAttr fromCore(MLIRContext *ctx, FlatSymbolRefAttr mesh, const shardc::Mesh &coreMesh,
                      const shardc::TensorSharding &sharding);

/// "file:line:col" of `loc` (the first of a fused location), for messages
/// and remarks that point at source; an op the compiler derived from
/// another says what it is: "m.mlir:22:10 [gradient of garray.dot_general]"
/// (a location made by `derivedLoc`).
std::string locationText(Location loc);

/// The location of an op the compiler writes for the op at `from`, labelled
/// with what it is ("gradient of garray.dot_general", "from garray.mean"):
/// explain, reasons and the memory list then tell it from the user's op at
/// the same place.
/// (A fused location whose metadata is {shardc.derived = "label"}: a name
/// location of the user's own input keeps meaning what it says.)
Location derivedLoc(Location from, const llvm::Twine &label);
/// Where the ops a pass expands `op` into are: its location, labelled
/// "from <op name>" ("from garray.mean", "from garray.adam_update").
Location derivedFrom(Operation *op);
/// The label derivedLoc gave `loc`, or "" for a location of the input.
std::string derivedLabel(Location loc);

/// The sharding as a user writes it, without the mesh: `P("a" p0, ?)`,
/// priorities, open dims and unreduced axes included (for messages that quote
/// an annotation).
std::string writtenSpec(ShardingAttr sharding);

/// Checks `sharding` against `type` and its mesh (sharding_c2..c4); `what`
/// names the value in messages ("argument 'X'", "result #0 of garray.add").
/// Sizes need not divide over their axes (uneven shards follow the ceil
/// layout; see passes/local/UnevenShards.h).
LogicalResult verifyShardingFor(ShardingAttr sharding, Type type, Operation *scope,
                                llvm::function_ref<InFlightDiagnostic()> emitError,
                                llvm::StringRef what);

/// The block each device holds of a `global` value laid out by `sharding`
/// in a garray.shard_map on `mesh` (fully sized): every sharded dim divided
/// by its axes' sizes; an error through `error` when one does not divide.
FailureOr<RankedTensorType> shardMapBlockType(RankedTensorType global, ShardingAttr sharding,
                                              MeshOp mesh,
                                              llvm::function_ref<InFlightDiagnostic()> error);

/// Registers the garray and comm dialects (kept out of line so heavy TUs do
/// not include generated headers).
void registerShardcDialects(DialectRegistry &registry);

/// Attaches every differentiable op's adjoint (VjpOpInterface, VjpRules.cpp)
/// when the garray dialect loads; registerShardcDialects calls it.
void registerVjpModels(DialectRegistry &registry);

} // namespace mlir::garray

#endif // SHARDC_DIALECTS_GARRAY_GARRAY_H
