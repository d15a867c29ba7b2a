//===- GArrayShapeOps.td - garray ops that move or make shape -*- tablegen -*-===//
//
// Included from GArrayOps.td; shares its GArray_Op / GArray_Tensor classes.
//
//===----------------------------------------------------------------------===//
#ifndef GARRAYSHAPEOPS_TD
#define GARRAYSHAPEOPS_TD

//===----------------------------------------------------------------------===//
// Shape
//===----------------------------------------------------------------------===//

def GArray_BroadcastInDimOp : GArray_Op<"broadcast_in_dim", [Pure,
    DeclareOpInterfaceMethods<GArray_ShardingRuleOpInterface>]> {
  let summary = "Broadcast into a larger shape";
  let description = [{
    Operand dimension `i` becomes result dimension `dims[i]`; a size-1
    operand dimension stretches to the result's size.

    ```mlir
    %b = garray.broadcast_in_dim %w, dims = [1] : (tensor<2xf32>) -> tensor<8x2xf32>
    ```
    **Constraints:**
    - `broadcast_in_dim_c1`: one entry in `dims` per operand dimension;
    - `broadcast_in_dim_c2`: `dims` are in range and strictly increasing;
    - `broadcast_in_dim_c3`: each operand dimension has size 1 or the size of
      the result dimension it maps to;
    - `broadcast_in_dim_c4`: operand and result element types are equal.
  }];
  let arguments = (ins GArray_Tensor:$operand, DenseI64ArrayAttr:$dims);
  let results = (outs GArray_Tensor:$result);
  let assemblyFormat = "$operand `,` `dims` `=` $dims attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def GArray_ReshapeOp : GArray_Op<"reshape", [Pure,
    DeclareOpInterfaceMethods<GArray_ShardingRuleOpInterface>]> {
  let summary = "Reinterpret an array's elements in a new shape (row-major)";
  let description = [{
    The elements in row-major order are unchanged; only the shape is new.

    ```mlir
    %flat = garray.reshape %x : (tensor<8x4xf32>) -> tensor<32xf32>
    %grid = garray.reshape %flat : (tensor<32xf32>) -> tensor<8x4xf32>
    ```
    Factor rule: both shapes are decomposed into common factors, major to
    minor, so that a dimension that is split or merged keeps its sharding:
    `[8,4] -> [32]` is `([i,j])->([i j])` and `[32] -> [8,4]` is
    `([i j])->([i,j])`; `[8,4] -> [4,8]` is `([i j,k])->([i,j k])`. Where the
    two shapes have no common factorisation (`[4,6] -> [6,4]` after the common
    major 2), the leftover factors must be replicated. Pending partial sums
    stay pending (a reshape is linear).

    **Constraints:**
    - `reshape_c1`: operand and result have the same number of elements;
    - `reshape_c2`: operand and result element types are equal.
  }];
  let arguments = (ins GArray_Tensor:$operand,
                       GArray_PropertyStorage:$property_storage);
  let results = (outs GArray_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` functional-type(operands, results)";
  let builders = [OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$operand), [{
    build($_builder, $_state, result, operand, ::mlir::UnitAttr());
  }]>];
  let hasVerifier = 1;
}

def GArray_TransposeOp : GArray_Op<"transpose", [Pure,
    DeclareOpInterfaceMethods<GArray_ShardingRuleOpInterface>]> {
  let summary = "Permute the dimensions of an array";
  let description = [{
    Result dimension `i` is operand dimension `permutation[i]`.

    ```mlir
    %t = garray.transpose %x, permutation = [1, 0] : (tensor<8x4xf32>) -> tensor<4x8xf32>
    ```
    Factor rule: the factors are permuted (`([i,j])->([j,i])`), so every
    dimension keeps its sharding. Pending partial sums stay pending.

    **Constraints:**
    - `transpose_c1`: `permutation` is a permutation of `[0, rank)`;
    - `transpose_c2`: result dimension `i` has the size of operand dimension
      `permutation[i]`;
    - `transpose_c3`: operand and result element types are equal.
  }];
  let arguments = (ins GArray_Tensor:$operand, DenseI64ArrayAttr:$permutation);
  let results = (outs GArray_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` `permutation` `=` $permutation attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def GArray_SliceOp : GArray_Op<"slice", [Pure,
    DeclareOpInterfaceMethods<GArray_ShardingRuleOpInterface>,
    DeclareOpInterfaceMethods<GArray_LocalizeOpInterface>]> {
  let summary = "A strided rectangular part of an array (static bounds)";
  let description = [{
    Along dimension `d` the result holds operand elements `start[d]`,
    `start[d] + strides[d]`, ... below `limit[d]`, so it has
    `ceil((limit[d] - start[d]) / strides[d])` elements.

    ```mlir
    %s = garray.slice %x, start = [0, 1], limit = [8, 3], strides = [2, 1]
           : (tensor<8x4xf32>) -> tensor<4x2xf32>
    ```
    Factor rule: a dimension kept whole (`start = 0`, `limit` = its size,
    `stride = 1`) is a shared parallel factor and keeps its sharding; a
    dimension sliced to less than its full extent needs the whole dimension on
    every device (it is gathered first). Pending partial sums stay pending.

    **Constraints:**
    - `slice_c1`: `start`, `limit` and `strides` have one entry per operand
      dimension;
    - `slice_c2`: `0 <= start < limit <= size` in every dimension (a slice
      keeps at least one element per dimension);
    - `slice_c3`: every stride is positive;
    - `slice_c4`: result dimension `d` has `ceil((limit - start) / stride)`
      elements;
    - `slice_c5`: operand and result element types are equal.
  }];
  let arguments = (ins GArray_Tensor:$operand, DenseI64ArrayAttr:$start,
                       DenseI64ArrayAttr:$limit, DenseI64ArrayAttr:$strides);
  let results = (outs GArray_Tensor:$result);
  let extraClassDeclaration = [{
    /// Whether dim `d` is taken whole (start 0, limit its size, stride 1).
    bool keepsWholeDim(int64_t d);
  }];
  let assemblyFormat = [{
    $operand `,` `start` `=` $start `,` `limit` `=` $limit `,` `strides` `=` $strides
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def GArray_PadOp : GArray_Op<"pad", [Pure,
    DeclareOpInterfaceMethods<GArray_ShardingRuleOpInterface>]> {
  let summary = "Surround an array with a constant (low/high edge padding)";
  let description = [{
    Adds `low[d]` elements before and `high[d]` elements after dimension `d`,
    all equal to the scalar `padding_value` (a rank-0 tensor).

    ```mlir
    %zero = garray.constant dense<0.0> : tensor<f32>
    %p = garray.pad %x, %zero, low = [1, 0], high = [2, 0]
           : (tensor<8x4xf32>, tensor<f32>) -> tensor<11x4xf32>
    ```
    Factor rule: an unpadded dimension is a shared parallel factor; a padded
    dimension needs the whole dimension on every device. Pending partial sums
    are reduced first (padding a partial sum with `v` on every device would
    add `v` once per device), unless `v` is zero: the result is then pending
    too.

    **Constraints:**
    - `pad_c1`: `low` and `high` have one entry per operand dimension;
    - `pad_c2`: every `low` and `high` is non-negative (use `garray.slice` to
      cut);
    - `pad_c3`: result dimension `d` has `low[d] + size + high[d]` elements;
    - `pad_c4`: `padding_value` is a rank-0 tensor, and it and the result have
      the operand's element type.
  }];
  let arguments = (ins GArray_Tensor:$operand, GArray_Tensor:$padding_value,
                       DenseI64ArrayAttr:$low, DenseI64ArrayAttr:$high);
  let results = (outs GArray_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` $padding_value `,` `low` `=` $low `,` `high` `=` $high
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def GArray_ConcatenateOp : GArray_Op<"concatenate", [Pure,
    DeclareOpInterfaceMethods<GArray_ShardingRuleOpInterface>]> {
  let summary = "Join arrays along one dimension";
  let description = [{
    The operands, in order, side by side along `dim`; every other dimension
    is the same in all of them.

    ```mlir
    %c = garray.concatenate %a, %b, dim = 0
           : (tensor<4x4xf32>, tensor<8x4xf32>) -> tensor<12x4xf32>
    ```
    Factor rule: every other dimension is a factor shared by all operands and
    the result; the concatenated dimension needs the whole dimension on every
    device. Pending partial sums stay pending when every operand is a pending
    sum over the same axes.

    **Constraints:**
    - `concatenate_c1`: at least one operand, all of one rank, and `dim` is
      in range;
    - `concatenate_c2`: operands agree with the result on every dimension
      other than `dim`;
    - `concatenate_c3`: the result's `dim` is the sum of the operands';
    - `concatenate_c4`: all operands and the result have one element type.
  }];
  let arguments = (ins Variadic<GArray_Tensor>:$inputs, I64Attr:$dim);
  let results = (outs GArray_Tensor:$result);
  // Custom: a generated parser would read `dim` as one more operand after
  // the comma.
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def GArray_ReverseOp : GArray_Op<"reverse", [Pure, SameOperandsAndResultType,
    DeclareOpInterfaceMethods<GArray_ShardingRuleOpInterface>]> {
  let summary = "Reverse the order of elements along a set of dimensions";
  let description = [{
    Element `i` of each dimension in `dims` moves to `size - 1 - i`.

    ```mlir
    %r = garray.reverse %x, dims = [0] : tensor<8x4xf32>
    ```
    Factor rule: a reversed dimension needs the whole dimension on every
    device; the others are shared parallel factors. Pending partial sums stay
    pending. Operand and result have one type (like elementwise ops).

    **Constraints:**
    - `reverse_c1`: `dims` are in range and listed once.
  }];
  let arguments = (ins GArray_Tensor:$operand, DenseI64ArrayAttr:$dims);
  let results = (outs GArray_Tensor:$result);
  let assemblyFormat = "$operand `,` `dims` `=` $dims attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shift (the stencil primitive; garray-recognize-shifts writes it)
//===----------------------------------------------------------------------===//

def GArray_ShiftOp : GArray_Op<"shift", [Pure,
    DeclareOpInterfaceMethods<GArray_ShardingRuleOpInterface>]> {
  let summary = "Move elements along one dimension, filling the vacated edge";
  let description = [{
    `result[.., i, ..] = operand[.., i - offset, ..]` along `dim` where
    `0 <= i - offset < size`, and `fill` (a rank-0 tensor) elsewhere: a
    positive offset moves elements to higher indices. It is what a stencil
    written with slice and pad (or concatenate with a constant) means, and
    `garray-recognize-shifts` rewrites those forms into it:

    ```mlir
    %l = garray.slice %x, start = [0], limit = [15], strides = [1]
           : (tensor<16xf32>) -> tensor<15xf32>
    %r = garray.pad %l, %zero, low = [1], high = [0]
           : (tensor<15xf32>, tensor<f32>) -> tensor<16xf32>
    →
    %r = garray.shift %x, %zero, dim = 0, offset = 1
           : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
    ```
    Factor rule: every dimension, `dim` included, is a shared parallel
    factor, so a sharded `dim` stays sharded. In the local program each
    device receives the `|offset|` boundary elements it lacks from its
    neighbouring shard with a `comm.collective_permute` (a halo exchange),
    never an all-gather. The fill is added per element, so a pending partial
    sum is reduced first.

    **Constraints:**
    - `shift_c1`: `dim` is in range and `|offset|` is less than its size;
    - `shift_c2`: the result has the operand's type;
    - `shift_c3`: `fill` is a rank-0 tensor of the operand's element type.
  }];
  let arguments = (ins GArray_Tensor:$operand, GArray_Tensor:$fill, I64Attr:$dim,
                       I64Attr:$offset);
  let results = (outs GArray_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` $fill `,` `dim` `=` $dim `,` `offset` `=` $offset
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Iota (owned by the reductions & indexing family; keep it last)
//===----------------------------------------------------------------------===//

def GArray_IotaOp : GArray_Op<"iota", [Pure,
    DeclareOpInterfaceMethods<GArray_ShardingRuleOpInterface>]> {
  let summary = "The global index along one dimension";
  let description = [{
    Element `(i0, ..., in)` is `i_dim`, converted to the element type.

    ```mlir
    %i = garray.iota dim = 1 : tensor<8x4xi64>     // [[0, 1, 2, 3], [0, 1, 2, 3], ...]
    %f = garray.iota dim = 0 : tensor<8xf32>       // [0.0, 1.0, ..., 7.0]
    ```
    Every dimension is a parallel factor, so the result may be sharded any
    way. Indices stay *global*: when `dim` is sharded, each device's local
    iota is offset by its shard's global start (a per-device table read with
    `comm.device_value` in global-to-local), which is what makes argmax and
    argmin over a sharded dimension compare global positions.

    **Constraints:**
    - `iota_c1`: the result has rank >= 1 and `dim` is in range;
    - `iota_c2`: the element type is a float or an integer wider than `i1`;
    - `iota_c3`: every index along `dim` (up to its size - 1) is exactly
      representable in the element type.
  }];
  let arguments = (ins I64Attr:$dim);
  let results = (outs GArray_Tensor:$result);
  let assemblyFormat = "`dim` `=` $dim attr-dict `:` type($result)";
  let hasVerifier = 1;
}

#endif
