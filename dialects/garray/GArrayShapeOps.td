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

#endif
