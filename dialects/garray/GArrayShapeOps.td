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
