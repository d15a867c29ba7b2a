//===- ImportOps.h - the importer's op table, shared inside -----*- C++ -*-===//
//
// One entry per StableHLO/Shardy op the importer maps: its name, the
// inherent attributes it reads, and a builder that emits the garray ops
// meaning the same at the op's position and returns the values that replace
// its results. The driver (ImportStableHlo.cpp) has already checked that
// every operand and result is a static tensor of a supported element type
// and that the op has no attribute outside the entry's list; a builder
// checks the rest and reports through `op->emitError()`, returning failure.
//
// Builders see operands that are already garray values: the driver walks
// each function in order, so an op's operands were imported before it.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_IMPORT_IMPORTOPS_H
#define SHARDC_COMPILER_IMPORT_IMPORTOPS_H

#include "dialects/garray/OpEmitter.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir {
class SymbolTable;
namespace func {
class CallOp;
} // namespace func
} // namespace mlir

namespace shardc::import {

using Values = llvm::SmallVector<mlir::Value>;
using BuildFn = mlir::FailureOr<Values> (*)(mlir::Operation *op, mlir::garray::OpEmitter &e);

struct OpImport {
  llvm::StringLiteral name;
  /// The inherent attributes the builder reads (others are refused).
  llvm::ArrayRef<llvm::StringLiteral> attrs;
  BuildFn build;
};

/// The entry for `name`, or null when the op has no garray counterpart.
const OpImport *lookupOpImport(llvm::StringRef name);

/// Every op named `name` in `module`, nested ones before those that hold
/// them (post-order), for passes that rewrite them one by one.
llvm::SmallVector<mlir::Operation *> opsNamed(mlir::ModuleOp module, llvm::StringRef name);

/// Replaces every stablehlo.case by all of its branches and selects of
/// their results by the index (CaseToSelect.cpp), before the ops are
/// imported.
mlir::LogicalResult flattenCases(mlir::ModuleOp module);

/// Replaces every stablehlo.sort and chlo.top_k by a sorting network of
/// StableHLO ops (SortToNetwork.cpp), before the ops are imported.
mlir::LogicalResult sortsToNetworks(mlir::ModuleOp module);

/// Replaces every stablehlo.reduce_window that the importer does not map
/// directly (a body other than one add, multiply, maximum or minimum;
/// several inputs) by its window taps folded with the body, in StableHLO
/// ops (ReduceWindowTaps.cpp), before the ops are imported.
mlir::LogicalResult reduceWindowsToTaps(mlir::ModuleOp module);

/// A StableHLO op `name`, in the generic form the importer reads, on
/// `operands` with one result of `result`: how the rewrites that run
/// before the import (case, while, unsigned) build the ops they add.
mlir::Operation *createStableHlo(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef name,
                                 mlir::ValueRange operands, mlir::Type result,
                                 llvm::ArrayRef<mlir::NamedAttribute> attrs = {});

/// A `stablehlo.constant` holding `value`; a splat of more than one
/// element as a scalar constant broadcast, so that the importer's own
/// constants count one element each against the input contract's bound on
/// constants (a mask the size of a large activation would pass it).
mlir::Value stableHloConstant(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::DenseElementsAttr value);

/// A `garray.constant` of tensor type `type` with every element `element`,
/// as a scalar constant broadcast when it has more than one element (see
/// stableHloConstant).
mlir::Value filledConstant(mlir::garray::OpEmitter &e, mlir::RankedTensorType type,
                           mlir::Attribute element);

/// The rank-0 `scalar` broadcast to `type` by a `stablehlo.broadcast_in_dim`.
mlir::Value stableHloBroadcastScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Value scalar,
                                     mlir::Type type);

/// Removes every `sdy.sharding_constraint` that constrains nothing (in a
/// reducer's body, on a scalar, every dim open without axes), before the
/// ops are imported (DropVacuousConstraints.cpp).
void dropVacuousConstraints(mlir::ModuleOp module);

/// Makes every unsigned integer type signless, first rewriting the ops
/// whose results depend on the reading (UnsignedToSignless.cpp), before the
/// ops are imported; an error on an op that has no such rewrite.
mlir::LogicalResult unsignedToSignless(mlir::ModuleOp module);

/// Removes every zero-size tensor (DropEmptyTensors.cpp), before the ops
/// are imported; an error on an op that reads one where it matters.
mlir::LogicalResult dropEmptyTensors(mlir::ModuleOp module);

/// Unrolls every stablehlo.while whose trip count is known (UnrollWhile.cpp),
/// before the ops are imported; an error on a loop of another form.
mlir::LogicalResult unrollStaticWhileLoops(mlir::ModuleOp module);

/// Replaces `call` by a copy of its callee's body, and the calls in that
/// copy likewise (InlineCalls.cpp); returns the values that replace its
/// results. A call to an external or multi-block function stays.
llvm::SmallVector<mlir::Value> inlineCall(mlir::func::CallOp call, mlir::SymbolTable &symbols);

/// What the importer maps, for error messages.
std::string supportedOpsSummary();

// Shared readers. Each reports a missing or malformed attribute on `op`.
std::optional<llvm::SmallVector<int64_t>> readI64Array(mlir::Operation *op, llvm::StringRef name);
std::optional<int64_t> readI64(mlir::Operation *op, llvm::StringRef name);
/// The text of an opaque attribute (as printed).
std::optional<std::string> readAttrText(mlir::Operation *op, llvm::StringRef name);

mlir::RankedTensorType tensorType(mlir::Value v);

/// Every attribute of an unregistered op: its inherent ones (printed in
/// `<{...}>`, held as properties) and its discardable ones.
llvm::SmallVector<mlir::NamedAttribute> attributesOf(mlir::Operation *op);

/// The `padding` attribute of a window op (convolution, reduce_window), an
/// n x 2 list of (low, high) per spatial dim, into `low` and `high` (zeros
/// when absent); an error on `op` when malformed.
mlir::LogicalResult readPadding(mlir::Operation *op, size_t n,
                                llvm::SmallVectorImpl<int64_t> &low,
                                llvm::SmallVectorImpl<int64_t> &high);

/// A window op's window (reduce_window, select_and_scatter): sizes,
/// strides and dilations per dim (an absent attribute is all ones) and
/// the padding's low and high edges.
struct WindowAttrs {
  llvm::SmallVector<int64_t> window, strides, baseDilation, windowDilation, low, high;
};

/// Reads `op`'s window attributes for an operand of `rank` dims; an error
/// on `op` when one is malformed or not positive.
mlir::FailureOr<WindowAttrs> readWindow(mlir::Operation *op, size_t rank);

/// `x` padded with the rank-0 `value` as stablehlo.pad pads: `low`/`high`
/// edges per dim (negative: cut) and `interior` copies between neighbours.
mlir::Value padGeneral(mlir::garray::OpEmitter &e, mlir::Value x, mlir::Value value,
                       llvm::ArrayRef<int64_t> low, llvm::ArrayRef<int64_t> high,
                       llvm::ArrayRef<int64_t> interior);

/// Window ops import at most this many window positions (taps): each is a
/// slice and a few elementwise ops of the program.
constexpr int64_t kMaxTaps = 1024;

/// Runs `body` for every index below `bounds`, in row-major order, with
/// `index` (of bounds.size() entries) set to it.
void forEachIndex(llvm::ArrayRef<int64_t> bounds, llvm::SmallVector<int64_t> &index,
                  llvm::function_ref<void()> body, size_t d = 0);

/// `x[start:limit:stride]` per dim; `x` itself when that is all of it.
mlir::Value stridedSlice(mlir::garray::OpEmitter &e, mlir::Value x,
                         llvm::ArrayRef<int64_t> start, llvm::ArrayRef<int64_t> limit,
                         llvm::ArrayRef<int64_t> stride);

/// `x` transposed by `perm` (result dim i is x's dim perm[i]); `x` itself
/// for the identity.
mlir::Value transposed(mlir::garray::OpEmitter &e, mlir::Value x, llvm::ArrayRef<int64_t> perm);

/// broadcast_in_dim with `dims` in any order (garray wants them increasing:
/// the operand is transposed first when they are not).
mlir::Value broadcastAnyOrder(mlir::garray::OpEmitter &e, mlir::Value x, mlir::Type to,
                              llvm::ArrayRef<int64_t> dims);

/// Whether `v` is a garray constant, or one broadcast, whose every element
/// equals `want` (compared as doubles; integers and i1 included).
bool isSplat(mlir::Value v, double want);

/// The reduction a one-op combiner body computes (add, multiply, maximum,
/// minimum of its two arguments; and/or on i1), or nullopt.
std::optional<mlir::garray::ReductionKind> combinerKind(mlir::Block &body, mlir::Type element);

/// x[starts : starts + sizes]: each start a rank-0 integer (null: 0),
/// clamped so the slice fits, as dynamic_slice defines; errors are
/// reported at `op`.
mlir::FailureOr<mlir::Value> dynamicSlice(mlir::Operation *op, mlir::garray::OpEmitter &e,
                                          mlir::Value x, llvm::ArrayRef<mlir::Value> starts,
                                          llvm::ArrayRef<int64_t> sizes);

/// `x` with `u` written at `starts` (each a rank-0 integer, null: 0),
/// clamped so the update fits, as dynamic_update_slice defines; errors
/// are reported at `op`.
mlir::FailureOr<mlir::Value> dynamicUpdateSlice(mlir::Operation *op, mlir::garray::OpEmitter &e,
                                                mlir::Value x, mlir::Value u,
                                                llvm::ArrayRef<mlir::Value> starts);

/// Moves the body of every sdy.manual_computation (`jax.shard_map`) into a
/// private function and replaces the op by a garray.shard_map of it
/// (ShardMapImport.cpp), once the meshes are imported and before the
/// functions are; marks each body so that its collectives import.
mlir::LogicalResult outlineManualComputations(mlir::ModuleOp module);

/// Removes the marks outlineManualComputations left, after the import.
void dropShardMapMarks(mlir::ModuleOp module);

// Builders living in their own files.
mlir::FailureOr<Values> importAllReduce(mlir::Operation *op, mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importAllGather(mlir::Operation *op, mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importReduceScatter(mlir::Operation *op, mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importAllToAll(mlir::Operation *op, mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importCollectivePermute(mlir::Operation *op,
                                                mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importPartitionId(mlir::Operation *op, mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importReduce(mlir::Operation *op, mlir::garray::OpEmitter &e);
// ElementaryFunctions.cpp
mlir::FailureOr<Values> importAtan2(mlir::Operation *op, mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importAtan(mlir::Operation *op, mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importAsin(mlir::Operation *op, mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importAcos(mlir::Operation *op, mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importTan(mlir::Operation *op, mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importSinh(mlir::Operation *op, mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importCosh(mlir::Operation *op, mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importAsinh(mlir::Operation *op, mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importAcosh(mlir::Operation *op, mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importAtanh(mlir::Operation *op, mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importCbrt(mlir::Operation *op, mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importRoundAway(mlir::Operation *op, mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importPopcnt(mlir::Operation *op, mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importCountLeadingZeros(mlir::Operation *op, mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importNextAfter(mlir::Operation *op, mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importGather(mlir::Operation *op, mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importScatter(mlir::Operation *op, mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importPad(mlir::Operation *op, mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importReduceWindow(mlir::Operation *op, mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importSelectAndScatter(mlir::Operation *op, mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importDynamicSlice(mlir::Operation *op, mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importDynamicUpdateSlice(mlir::Operation *op,
                                                 mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importConvolution(mlir::Operation *op, mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importErf(mlir::Operation *op, mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importErfc(mlir::Operation *op, mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importErfInv(mlir::Operation *op, mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importLgamma(mlir::Operation *op, mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importDigamma(mlir::Operation *op, mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importZeta(mlir::Operation *op, mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importPolygamma(mlir::Operation *op, mlir::garray::OpEmitter &e);
mlir::FailureOr<Values> importIsFinite(mlir::Operation *op, mlir::garray::OpEmitter &e);

} // namespace shardc::import

#endif
