//===- CommOps.td - the comm dialect: local collectives ----*- tablegen -*-===//
//
// comm is the local view: collectives on local tensors over explicit device
// groups, exactly as the runtime executes them. A local program contains no
// meshes and no shardings; each comm op lists every group, and a device takes
// part in the one that contains it (see runtime/include/shardrt.h).
//
//===----------------------------------------------------------------------===//
#ifndef COMM_OPS_TD
#define COMM_OPS_TD

include "dialects/garray/GArrayBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def Comm_Dialect : Dialect {
  let name = "comm";
  let cppNamespace = "::mlir::comm";
  let summary = "Collectives on local tensors over explicit device groups";
  let dependentDialects = ["::mlir::garray::GArrayDialect"];
}

class Comm_Op<string mnemonic, list<Trait> traits = []> : Op<Comm_Dialect, mnemonic, traits> {
  let hasVerifier = 1;
}

// Groups print as `groups = [[0, 1], [2, 3]]`; stored flat with a group size.
class Comm_GroupedOp<string mnemonic> : Comm_Op<mnemonic, [Pure]> {
  code commonExtra = [{
    int64_t getNumGroups() { return getGroups().size() / getGroupSize(); }
    /// The members of group `g`, in collective order.
    ::llvm::ArrayRef<int64_t> getGroup(int64_t g) {
      return getGroups().slice(g * getGroupSize(), getGroupSize());
    }
  }];
  let extraClassDeclaration = commonExtra;
}

def Comm_AllReduceOp : Comm_GroupedOp<"all_reduce"> {
  let summary = "Combine each group's buffers elementwise";
  let description = [{
    ```mlir
    %r = comm.all_reduce <sum> %x groups = [[0, 1, 2, 3]] : tensor<2xf32>
    ```
    **Constraints:**
    - `comm_all_reduce_c1`: groups are non-empty, of one size, and disjoint;
    - `comm_all_reduce_c2`: operand and result types are equal.
  }];
  let arguments = (ins GArray_ReductionKindAttr:$kind, AnyStaticShapeTensor:$operand,
                       DenseI64ArrayAttr:$groups, I64Attr:$group_size);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $kind $operand `groups` `=` custom<Groups>($groups, $group_size) attr-dict
    `:` type($operand) `->` type($result)
  }];
}

def Comm_AllGatherOp : Comm_GroupedOp<"all_gather"> {
  let summary = "Concatenate each group's buffers along one dimension";
  let description = [{
    ```mlir
    %g = comm.all_gather %x, dim = 0 groups = [[0, 1, 2, 3]] : tensor<2x2xf32> -> tensor<8x2xf32>
    ```
    **Constraints:**
    - `comm_all_gather_c1`: groups are non-empty, of one size, and disjoint;
    - `comm_all_gather_c2`: `dim` is in range; the result equals the operand
      with dimension `dim` multiplied by the group size.
  }];
  let arguments = (ins AnyStaticShapeTensor:$operand, I64Attr:$dim, DenseI64ArrayAttr:$groups,
                       I64Attr:$group_size);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $operand `,` `dim` `=` $dim `groups` `=` custom<Groups>($groups, $group_size) attr-dict
    `:` type($operand) `->` type($result)
  }];
}

def Comm_AllSliceOp : Comm_GroupedOp<"all_slice"> {
  let summary = "Keep this device's part of one dimension (no communication)";
  let description = [{
    Device at position p of its group keeps block p of dimension `dim`.

    ```mlir
    %s = comm.all_slice %x, dim = 0 groups = [[0, 1, 2, 3]] : tensor<8x2xf32> -> tensor<2x2xf32>
    ```
    **Constraints:**
    - `comm_all_slice_c1`: groups are non-empty, of one size, and disjoint;
    - `comm_all_slice_c2`: `dim` is in range; the operand's dimension `dim` is
      the result's multiplied by the group size.
  }];
  let arguments = (ins AnyStaticShapeTensor:$operand, I64Attr:$dim, DenseI64ArrayAttr:$groups,
                       I64Attr:$group_size);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $operand `,` `dim` `=` $dim `groups` `=` custom<Groups>($groups, $group_size) attr-dict
    `:` type($operand) `->` type($result)
  }];
}

def Comm_DeviceValueOp : Comm_Op<"device_value", [Pure]> {
  let summary = "This device's entry of a per-device table";
  let description = [{
    The local program is the same on every device; values that depend on the
    device (a shard's offset, the number of valid rows in an uneven shard)
    are read from a table indexed by the device id.

    ```mlir
    %offset = comm.device_value [0, 2, 4, 6] : tensor<i64>
    ```
    **Constraints:**
    - `comm_device_value_c1`: the table is non-empty and the result is a
      rank-0 tensor of integers or floats.
  }];
  let arguments = (ins DenseI64ArrayAttr:$values);
  let results = (outs RankedTensorOf<[AnySignlessInteger, AnyFloat]>:$result);
  let assemblyFormat = "$values attr-dict `:` type($result)";
}

def Comm_ReduceScatterOp : Comm_GroupedOp<"reduce_scatter"> {
  let summary = "Combine each group's buffers elementwise; member p keeps block p of one dim";
  let description = [{
    Member p of a group receives block p (along `dim`) of the elementwise
    combination of the group's buffers, combined in group order on every
    member (deterministic, like `all_reduce`).

    ```mlir
    %s = comm.reduce_scatter <sum> %x, dim = 0 groups = [[0, 1, 2, 3]] : tensor<8x2xf32> -> tensor<2x2xf32>
    ```
    **Constraints:**
    - `comm_reduce_scatter_c1`: groups are non-empty, of one size, and disjoint;
    - `comm_reduce_scatter_c2`: `dim` is in range; the operand's dimension
      `dim` is the result's multiplied by the group size, the others equal.
  }];
  let arguments = (ins GArray_ReductionKindAttr:$kind, AnyStaticShapeTensor:$operand, I64Attr:$dim,
                       DenseI64ArrayAttr:$groups, I64Attr:$group_size);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $kind $operand `,` `dim` `=` $dim `groups` `=` custom<Groups>($groups, $group_size) attr-dict
    `:` type($operand) `->` type($result)
  }];
}

def Comm_AllToAllOp : Comm_GroupedOp<"all_to_all"> {
  let summary = "Split one dim into pieces, send piece j to member j, concatenate another dim";
  let description = [{
    Each member splits its buffer along `split_dim` into group-size pieces and
    sends piece j to the member at position j; it concatenates the pieces it
    receives, in member order, along `concat_dim`.

    ```mlir
    %t = comm.all_to_all %x, split_dim = 1, concat_dim = 0 groups = [[0, 1]] : tensor<4x4xf32> -> tensor<8x2xf32>
    ```
    **Constraints:**
    - `comm_all_to_all_c1`: groups are non-empty, of one size, and disjoint;
    - `comm_all_to_all_c2`: both dims are in range and differ; the result is
      the operand with `split_dim` divided by the group size and `concat_dim`
      multiplied by it, with the same element type.
  }];
  let arguments = (ins AnyStaticShapeTensor:$operand, I64Attr:$split_dim, I64Attr:$concat_dim,
                       DenseI64ArrayAttr:$groups, I64Attr:$group_size);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $operand `,` `split_dim` `=` $split_dim `,` `concat_dim` `=` $concat_dim
    `groups` `=` custom<Groups>($groups, $group_size) attr-dict
    `:` type($operand) `->` type($result)
  }];
}

def Comm_CollectivePermuteOp : Comm_Op<"collective_permute", [Pure]> {
  let summary = "Each target device receives its source device's buffer";
  let description = [{
    `pairs` lists (source, target) device ids: the target's result is the
    source's operand. A device that is no pair's target gets zeros (as in
    XLA); a device in no pair takes no part. A pair (d, d) is a local copy.

    ```mlir
    %p = comm.collective_permute %x pairs = [[0, 1], [1, 0]] : tensor<4xf32> -> tensor<4xf32>
    ```
    **Constraints:**
    - `comm_collective_permute_c1`: pairs are non-empty, ids are not negative,
      no device is a source twice or a target twice;
    - `comm_collective_permute_c2`: operand and result types are equal.
  }];
  let arguments = (ins AnyStaticShapeTensor:$operand, DenseI64ArrayAttr:$pairs);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $operand `pairs` `=` custom<Pairs>($pairs) attr-dict `:` type($operand) `->` type($result)
  }];
  let extraClassDeclaration = [{
    int64_t getNumPairs() { return getPairs().size() / 2; }
  }];
}

#endif // COMM_OPS_TD
