//===- ImportStableHlo.h - JAX's StableHLO + Shardy, as garray --*- C++ -*-===//
//
// `jax.jit(f, in_shardings=..., out_shardings=...).lower(...)` gives a
// StableHLO module with a Shardy mesh and shardings. Printed in MLIR's
// generic op form, it parses without those dialects (its ops and
// attributes arrive unregistered and opaque); importStableHlo rewrites it
// in place into the garray model the rest of shardc compiles:
//
//   "sdy.mesh"() <{mesh = #sdy.mesh<["data"=2]>, sym_name = "mesh"}>
//       -> garray.mesh @mesh ["data" = 2]
//   {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}   (args, results)
//       -> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
//   "sdy.sharding_constraint"(%x) <{sharding = ...}>
//       -> garray.sharding_constraint
//   "stablehlo.add"(%a, %b) -> garray.add %a, %b    (the op table: ImportOps.h)
//   func.func, func.call, func.return               kept
//
// Names: an argument takes the name JAX recorded in its location, pytree
// paths joined with '.' (`params['W1']` -> `params.W1`, `x[0]` -> `x.0`);
// a result takes its `jax.result_info` made valid (`result[0]` ->
// `result0`), or, when it is aliased to a donated argument
// (`tf.aliasing_output`, `jax.buffer_donor`), that argument's name, so
// that `run --steps` feeds it back; pytree paths correct JAX's pairing
// by type (docs/import.md, "Names"). Two arguments with one name are an
// error naming both.
//
// Everything outside the table is an error naming the op or attribute at
// its location (JAX records the Python file:line), so the input contract of
// a garray model still holds for what comes out: no unregistered op or
// attribute survives a successful import.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_IMPORT_IMPORTSTABLEHLO_H
#define SHARDC_COMPILER_IMPORT_IMPORTSTABLEHLO_H

#include "llvm/Support/LogicalResult.h"

#include <string>

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace shardc {

/// Rewrites `module`, parsed from the generic form with unregistered
/// dialects allowed, into garray. On failure the module is left partly
/// rewritten and must be discarded; errors went to the context's handler.
llvm::LogicalResult importStableHlo(mlir::ModuleOp module);

/// Checks what locateAtCallSites and inlineCallsInBodies rely on before
/// the module as a whole can be verified: each function verifies on its
/// own, and every func.call names a function of the module, with its
/// types, through no chain of calls that comes back to it (a recursive
/// helper cannot be inlined; JAX emits none). Errors go to the context's
/// handler at the call (InlineCalls.cpp).
llvm::LogicalResult checkCalls(mlir::ModuleOp module);

/// Gives each op of a private function that has no file location the
/// location `callsite(its own at the function's first call)`, so that
/// errors on a helper's ops name the user's line (CallSiteLocations.cpp).
void locateAtCallSites(mlir::ModuleOp module);

/// Inlines every func.call that lies in another op's region (a reduce or
/// sort body, a while loop), as the importer would; run before the module
/// is first verified, which would look such a callee up in the body.
/// Requires checkCalls.
void inlineCallsInBodies(mlir::ModuleOp module);

/// A JAX pytree path made a garray value name: `params['W1']` ->
/// `params.W1`, `x[0]` -> `x.0`, `result[0]` -> `result0`. Empty when the
/// path has characters a name cannot hold.
std::string jaxPathToName(const std::string &path);

} // namespace shardc

#endif
