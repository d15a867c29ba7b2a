//===- Core.h - the sharding core: four objects and how they compose -*- C++ -*-===//
//
// This is the bottom layer of shardc: plain C++ with no IR, no MLIR and no
// runtime. Everything above it (the garray dialect's verifiers, propagation,
// reshard insertion, global-to-local, the report) asks it the questions
// below, so it can be read, and unit-tested (tests/sharding), on its own.
//
// Four objects
// ------------
//
//   Mesh            (Sharding.h)   named axes with sizes, ["data"=4] or
//                                  ["data"=2, "model"=2]; device ids are
//                                  row-major over the axes.
//
//   TensorSharding  (Sharding.h)   how one global value lies on the mesh:
//                                  per dimension, the axes that split it
//                                  (major to minor), plus the *pending* axes
//                                  over which each device holds only a
//                                  partial sum (max, min, prod) of the value.
//                                  Written P("data", None) unreduced=sum("model").
//                                  Shards follow the ceil layout: n elements
//                                  over k shards give shards of ceil(n/k),
//                                  the trailing ones short or empty.
//
//   FactorRule      (FactorRule.h) what one op means for sharding, as data:
//                                  the einsum factors indexing each operand
//                                  and result dim, which of them are
//                                  reductions, and how pending operands may
//                                  flow through (linear ops only).
//                                  dot_general: ([i,k],[k,j])->([i,j]), k a
//                                  reduction.
//
//   ReshardPlan     (ReshardPlan.h) the collectives that turn one
//                                  TensorSharding of a value into another,
//                                  chosen by bytes moved per device.
//
// How they compose
// ----------------
//
//   propagation      FactorMerge.h projects each tensor's sharding onto its
//                    op's factors, merges the candidates per factor, and
//                    projects back onto open dims, to a fixed point
//                    (Steering.h orders it: priorities, op classes, groups).
//   partitioning     executionAxes() says which axes an op runs with; a
//                    sharded reduction factor makes its results pending; an
//                    operand whose layout differs from what the op runs with,
//                    or that is pending where the rule's PendingFlow does not
//                    let it through, gets a reshard, and planReshard() turns
//                    each reshard into collectives.
//   local program    localShape() gives every value's per-device type;
//                    Halo.h turns shifts (stencils) into neighbour exchanges.
//
// Worked example: the seed (samples/linear_regression_step.mlir)
// ---------------------------------------------------------------
//
// Mesh ["data"=4]. X: tensor<8x2xf32> at P("data", None), y: tensor<8xf32>
// at P("data"), w: tensor<2xf32> at P().
//
//   pred = dot_general X, w, contracting [1]x[0]
//       rule ([i,k],[k])->([i]), k a reduction. X puts {data} on i, nothing
//       on k, so pred is P("data"): each device computes its 2 rows whole.
//   err = pred - y, sq = err * err                      P("data")
//   loss = mean(sq, dims=[0]) = reduce<sum>(sq) / 8
//       reduce<sum> has rule ([i])->(), i a reduction factor holding
//       {data}: each device sums its own rows, so the sum is P() with
//       unreduced=sum("data"). The division by the *global* count 8 is
//       linear in its numerator (PendingFlow OneOf), so it stays pending:
//       every device divides its partial by 8, never by its local count.
//   return loss
//       a function result must be whole, so insert-reshards asks for
//       P() unreduced=sum("data") -> P(). planReshard() finds one
//       all_reduce over "data" (group of 4): 2(n-1)/n * B = 2*3/4 * 4 B
//       = 6 B per device, the figure `shardc report` prints.
//   grad = dot_general X, err, contracting [0]x[0]
//       rule ([k,j],[k])->([j]): k holds {data}, so grad is pending too;
//       the 8-byte gradient is reduced once for both its uses (the output
//       and the update of w): one all_reduce of 2*3/4 * 8 B = 12 B.
//
// Two all-reduces, 18 B per device, and nothing moves w.
//
// Alternatives rejected
// ---------------------
//
//   - Layouts in the tensor type (as GPU layout systems do): the global
//     program keeps global types, so every upstream pattern and verifier
//     works on it unchanged; shardings are attributes on definitions, and
//     only global-to-local changes types, once.
//   - Propagation that switches on op kinds: a new op is one FactorRule,
//     and propagation, reshard insertion, global-to-local and the report
//     follow without a change.
//   - Searching for the best sharding of the whole program: the merge is
//     monotone (dims only grow by appending axes), so a worklist reaches a
//     fixed point in time about linear in the program; conflicts are kept
//     (longest common prefix) and paid for by reshards, which the report
//     names.
//   - Averaging local means, or reducing each partial where it is made:
//     pending values flow through linear ops and are reduced once, where a
//     non-linear user or a result needs the whole value, so denominators
//     are global and each value crosses the network at most once.
//   - Always gather-then-slice: the planner searches cheaper moves
//     (reduce-scatter, all-to-all, permutes), bounded by kMaxSearchStates,
//     and is never worse than gather-then-slice, which is its fallback.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_SHARDING_CORE_H
#define SHARDC_SHARDING_CORE_H

#include "sharding/FactorMerge.h"
#include "sharding/FactorRule.h"
#include "sharding/ReshardPlan.h"
#include "sharding/Sharding.h"

#endif // SHARDC_SHARDING_CORE_H
