//===- GArrayReductionOps.td - contractions and reductions -*- tablegen -*-===//
//
// Included from GArrayOps.td; shares its GArray_Op / GArray_Tensor classes.
//
//===----------------------------------------------------------------------===//
#ifndef GARRAYREDUCTIONOPS_TD
#define GARRAYREDUCTIONOPS_TD

//===----------------------------------------------------------------------===//
// Contractions and reductions
//===----------------------------------------------------------------------===//

def GArray_DotGeneralOp : GArray_Op<"dot_general", [Pure,
    DeclareOpInterfaceMethods<GArray_ShardingRuleOpInterface>]> {
  let summary = "Generalised matrix product";
  let description = [{
    Contracts `lhs_contracting` of `lhs` with `rhs_contracting` of `rhs`,
    batching over `lhs_batch`/`rhs_batch`. Result dimensions: batch dims, then
    the remaining lhs dims, then the remaining rhs dims, each in order.

    ```mlir
    %p = garray.dot_general %X, %w, batch = [] x [], contracting = [1] x [0]
           : (tensor<8x2xf32>, tensor<2xf32>) -> tensor<8xf32>
    ```
    Factor rule: `([i,k],[k])->([i]) sum={k}`; a sharded contracting
    dimension leaves a pending sum. Products of `bf16` and `f16` are summed
    in `f32` and rounded once to the element type (as XLA does on CPUs);
    other types sum in the element type.

    **Constraints:**
    - `dot_general_c1`: batch lists have equal length, as do contracting lists;
    - `dot_general_c2`: every listed dimension is in range and listed once;
    - `dot_general_c3`: paired batch and contracting dimensions have equal sizes;
    - `dot_general_c4`: the result shape is batch ++ lhs free ++ rhs free;
    - `dot_general_c5`: operand and result element types are equal.
  }];
  let arguments = (ins GArray_Tensor:$lhs, GArray_Tensor:$rhs,
                       DenseI64ArrayAttr:$lhs_batch, DenseI64ArrayAttr:$rhs_batch,
                       DenseI64ArrayAttr:$lhs_contracting, DenseI64ArrayAttr:$rhs_contracting);
  let results = (outs GArray_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` `batch` `=` $lhs_batch `x` $rhs_batch `,`
    `contracting` `=` $lhs_contracting `x` $rhs_contracting attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def GArray_ReduceOp : GArray_Op<"reduce", [Pure,
    DeclareOpInterfaceMethods<GArray_ShardingRuleOpInterface>]> {
  let summary = "Reduce over a set of dimensions";
  let description = [{
    ```mlir
    %s = garray.reduce <sum> %x, dims = [0] : (tensor<8x2xf32>) -> tensor<2xf32>
    %m = garray.reduce <max> %x, dims = [1] keepdims : (tensor<8x2xf32>) -> tensor<8x1xf32>
    ```
    Reducing a sharded dimension leaves a pending partial (`unreduced =
    sum(...)`), combined by one collective where a consumer needs the value.
    On `i1`, `sum` and `max` are a logical or, `prod` and `min` a logical and
    (as XLA, and as the runtime combines `i1` partials).

    **Constraints:**
    - `reduce_c1`: `dims` is non-empty, in range and has no repeats;
    - `reduce_c2`: the result shape is the operand's without `dims` (or
      with them as 1 under `keepdims`);
    - `reduce_c3`: operand and result element types are equal.
  }];
  let arguments = (ins GArray_ReductionKindAttr:$kind, GArray_Tensor:$operand,
                       DenseI64ArrayAttr:$dims, UnitAttr:$keepdims);
  let results = (outs GArray_Tensor:$result);
  let assemblyFormat = [{
    $kind $operand `,` `dims` `=` $dims (`keepdims` $keepdims^)? attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def GArray_MeanOp : GArray_Op<"mean", [Pure,
    DeclareOpInterfaceMethods<GArray_ShardingRuleOpInterface>]> {
  let summary = "Mean over a set of dimensions, by the global count";
  let description = [{
    The mean the global program defines: the sum over `dims` divided by the
    *global* number of elements reduced (the product of those dims' global
    sizes), never an average of per-device means.

    ```mlir
    %m = garray.mean %sq, dims = [0] : (tensor<8xf32>) -> tensor<f32>
    %w = garray.mean %x, dims = [0] weights %mask : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
    ```
    `garray-decompose` rewrites it, before propagation, into
    `reduce <sum>` and a division by the count as an explicit constant
    (`dense<8.0>`), so the denominator is visible in every later IR.

    With `weights` (same type as the operand) it is the weighted mean
    `sum(x * w) / sum(w)` over `dims`, decomposed into those two sums and a
    division. Both sums are pending partials where `dims` are sharded; the
    denominator is all-reduced before the division, so a masked mean (weights
    0 and 1) divides by the *global* number of valid elements, however they
    are spread over the devices. Pass an `i1` mask by converting it to the
    operand's float type first (`garray.convert`). All-zero weights give
    0/0 = NaN, as `jnp.average` does.

    **Constraints:** as `reduce` (`mean_c1`..`mean_c3`), and
    - `mean_c4`: the element type is a float;
    - `mean_c5`: `weights`, when given, has the operand's type;
    - `mean_c6`: without weights, the global count is exactly representable
      in the element type (e.g. 70000 is not an f16: compute in f32).
  }];
  let arguments = (ins GArray_Tensor:$operand, DenseI64ArrayAttr:$dims, UnitAttr:$keepdims,
                       Optional<GArray_Tensor>:$weights);
  let results = (outs GArray_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` `dims` `=` $dims (`keepdims` $keepdims^)? (`weights` $weights^)? attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The global number of elements each result element averages.
    int64_t getGlobalCount();
  }];
}

//===----------------------------------------------------------------------===//
// Arg-reductions
//===----------------------------------------------------------------------===//

class GArray_ArgReduceOp<string mnemonic, string kind, string order> : GArray_Op<mnemonic,
    [Pure, DeclareOpInterfaceMethods<GArray_ShardingRuleOpInterface>]> {
  let summary = "Index of the " # kind # " along one dimension (first on ties)";
  let description = [{
    ```mlir
    %i = garray.}] # mnemonic # [{ %x, dim = 1 : (tensor<8x4xf32>) -> tensor<8xi64>
    ```
    The *global* index of the }] # kind # [{ along `dim`; on ties the lowest
    index wins, also across shards; a NaN counts as }] # order # [{ than every
    number, so the first NaN wins (as `jnp.}] # mnemonic # [{`).

    `garray-decompose` rewrites it, before propagation, into global ops:
    `m = reduce <}] # kind # [{> x keepdims`, `cand = select(x == m, iota(dim),
    INT_MAX)` (NaN positions are candidates too), `reduce <min> cand`. Over a
    sharded `dim` this combines (value, global index) pairs with one
    }] # kind # [{ all-reduce and one min all-reduce; indices are never summed
    or maxed. Its own factor rule (for tools that ask before decomposing)
    keeps `dim` whole.

    **Constraints:**
    - `}] # mnemonic # [{_c1`: `dim` is in range and not empty (size >= 1);
    - `}] # mnemonic # [{_c2`: the result shape is the operand's without `dim`;
    - `}] # mnemonic # [{_c3`: the result element type is an integer wider than
      `i1` whose largest value exceeds every index along `dim`.
  }];
  let arguments = (ins GArray_Tensor:$operand, I64Attr:$dim);
  let results = (outs GArray_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` `dim` `=` $dim attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def GArray_ArgMaxOp : GArray_ArgReduceOp<"argmax", "max", "greater">;
def GArray_ArgMinOp : GArray_ArgReduceOp<"argmin", "min", "smaller">;

//===----------------------------------------------------------------------===//
// Indexing: gather of rows and its adjoint
//===----------------------------------------------------------------------===//

def GArray_GatherOp : GArray_Op<"gather", [Pure,
    DeclareOpInterfaceMethods<GArray_ShardingRuleOpInterface>]> {
  let summary = "Rows of a table at integer indices (embedding lookup)";
  let description = [{
    `result[b..., t...] = table[clamp(indices[b...], 0, V - 1), t...]` where
    `V` is the table's first dimension: the result shape is
    `indices.shape ++ table.shape[1:]`.

    ```mlir
    %e = garray.gather %table[%idx] : (tensor<16x8xf32>, tensor<4xi64>) -> tensor<4x8xf32>
    ```
    Indices of any integer type and rank are read as signed (`i1` as 0/1).
    **Out-of-range indices are clamped** to `[0, V - 1]`, as XLA does: -3
    reads row 0 and 100 reads row V - 1. Nothing traps and nothing reads out
    of bounds.

    Factor rule: index dims and the table's trailing dims are parallel; the
    row dimension `V` must be whole on every device (a device may look up any
    row). Pending partial sums of the table stay pending (a gather is linear
    in the table).

    **Constraints:**
    - `gather_c1`: the indices have an integer element type;
    - `gather_c2`: the table has rank >= 1 and at least one row;
    - `gather_c3`: the result shape is `indices.shape ++ table.shape[1:]`;
    - `gather_c4`: the result element type is the table's.
  }];
  let arguments = (ins GArray_Tensor:$table, GArray_Tensor:$indices,
                       GArray_PropertyStorage:$property_storage);
  let builders = [OpBuilder<(ins "::mlir::Type":$result,
                                 "::mlir::Value":$table, "::mlir::Value":$indices), [{
    build($_builder, $_state, result, table, indices, ::mlir::UnitAttr());
  }]>];
  let results = (outs GArray_Tensor:$result);
  let assemblyFormat = [{
    $table `[` $indices `]` attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def GArray_ScatterAddOp : GArray_Op<"scatter_add", [Pure,
    DeclareOpInterfaceMethods<GArray_ShardingRuleOpInterface>]> {
  let summary = "Add rows of updates into base at integer indices (gather's adjoint)";
  let description = [{
    `result = base`, then for every index position `b...`:
    `result[clamp(indices[b...], 0, V - 1), t...] += updates[b..., t...]`.
    Duplicate indices accumulate. Indices are clamped exactly as `gather`
    clamps them, so this is gather's adjoint: the gradient of a lookup goes
    to the row it read.

    ```mlir
    %r = garray.scatter_add %base, %idx, %updates
           : (tensor<16x8xf32>, tensor<4xi64>, tensor<4x8xf32>) -> tensor<16x8xf32>
    ```
    Factor rule: the index dims (shared by `indices` and `updates`) are a
    sum-reduction factor: if they are sharded, each device adds its rows and
    the result is a pending sum, all-reduced where needed. That is only right
    when `base` is added once, so `garray-decompose` rewrites a non-zero base
    into `base + scatter_add(zeros, ...)`, and the rule of an op whose base is
    not a zero constant keeps the index dims whole instead. `base`'s row
    dimension `V` is always whole; its trailing dims are parallel.

    **Constraints:**
    - `scatter_add_c1`: the indices have an integer element type;
    - `scatter_add_c2`: `base` has rank >= 1 and at least one row;
    - `scatter_add_c3`: `updates` has shape `indices.shape ++ base.shape[1:]`;
    - `scatter_add_c4`: the result has `base`'s type, and `updates` its element type;
    - `scatter_add_c5`: that element type is a float or an integer wider than `i1`.
  }];
  let arguments = (ins GArray_Tensor:$base, GArray_Tensor:$indices, GArray_Tensor:$updates,
                       GArray_PropertyStorage:$property_storage);
  let builders = [OpBuilder<(ins "::mlir::Type":$result,
                                 "::mlir::Value":$base, "::mlir::Value":$indices,
                                 "::mlir::Value":$updates), [{
    build($_builder, $_state, result, base, indices, updates, ::mlir::UnitAttr());
  }]>];
  let results = (outs GArray_Tensor:$result);
  let assemblyFormat = [{
    $base `,` $indices `,` $updates attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether `base` is a constant zero (then the index dims may be sharded).
    bool hasZeroBase();
  }];
}

def GArray_ScatterReduceOp : GArray_Op<"scatter_reduce", [Pure,
    DeclareOpInterfaceMethods<GArray_ShardingRuleOpInterface>]> {
  let summary = "Combine rows of updates into base by max, min or product at integer indices";
  let description = [{
    `result = base`, then for every index position `b...`, in row-major
    order: `result[clamp(indices[b...], 0, V - 1), t...] =
    kind(result[...], updates[b..., t...])`. Kinds are `max`, `min` and
    `prod` (`scatter_add` adds); on floats max and min propagate NaN, as
    `garray.max` does. `jax.ops.segment_max` and `x.at[ids].max(y)`,
    `segment_prod` and `x.at[ids].mul(y)` import as this op;
    `x.at[ids].set(y)` imports as the `max` of each update's position
    (the last write wins, as XLA's CPU scatter applies them in order)
    followed by a gather of the winning rows. Indices clamp as `gather`'s.

    ```mlir
    %r = garray.scatter_reduce <max> %base, %idx, %updates
           : (tensor<16x8xf32>, tensor<4xi64>, tensor<4x8xf32>) -> tensor<16x8xf32>
    ```
    Factor rule: with a base of the kind's identity (-inf for `max` on
    floats: `segment_max`'s; 1 for `prod`), the index dims are a reduction
    factor of that kind: devices holding different index positions each
    combine theirs and the result is a pending max (or min, or product),
    all-reduced where needed. With any other base they stay whole, since each device would
    combine the base again. `base`'s row dimension `V` is always whole;
    its trailing dims are parallel. No operand may be pending (a max of
    pending sums is no pending max).

    **Constraints:**
    - `scatter_reduce_c1`: the indices have an integer element type;
    - `scatter_reduce_c2`: `base` has rank >= 1 and at least one row;
    - `scatter_reduce_c3`: `updates` has shape `indices.shape ++ base.shape[1:]`;
    - `scatter_reduce_c4`: the result has `base`'s type, and `updates` its element type;
    - `scatter_reduce_c5`: the kind is `max`, `min` or `prod`, and the
      element type a float or an integer wider than `i1`.
  }];
  let arguments = (ins GArray_ReductionKindAttr:$kind, GArray_Tensor:$base,
                       GArray_Tensor:$indices, GArray_Tensor:$updates);
  let results = (outs GArray_Tensor:$result);
  let assemblyFormat = [{
    $kind $base `,` $indices `,` $updates attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether `base` is a constant of the kind's identity (then the index
    /// dims may be sharded).
    bool hasIdentityBase();
  }];
}

#endif
