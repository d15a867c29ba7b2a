//===- GArrayOps.td - garray operations --------------------*- tablegen -*-===//
//
// Every op documents its constraints with labels (`dot_general_c1`); the
// verifier's messages and the negative lit tests use the same labels.
//
//===----------------------------------------------------------------------===//
#ifndef GARRAY_OPS_TD
#define GARRAY_OPS_TD

include "dialects/garray/GArrayAttrs.td"
include "dialects/garray/GArrayInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/OpBase.td"

class GArray_Op<string mnemonic, list<Trait> traits = []> :
    Op<GArray_Dialect, mnemonic, traits>;

// garray arrays have static shapes: local shapes are derived from them.
// Same set, summary and C++ type as StaticShapeTensorOf<[AnyFloat,
// AnySignlessInteger]>, with the predicate written against RankedTensorType:
// the generic one asks the ShapedType interface twice per value, and the
// verifier checks every operand and result after every pass (measured: a
// tenth of shardc-opt's instructions on a 10k-op chain).
// The common element types are tested by TypeID before asking the FloatType
// interface (an interface-map search per value), and the shape is read
// directly rather than through the ShapedType trait: same set, fewer
// instructions in the verifier's hottest check.
def GArray_Tensor : Type<
    CPred<"::llvm::isa<::mlir::RankedTensorType>($_self) && "
          "::llvm::none_of(::llvm::cast<::mlir::RankedTensorType>($_self).getShape(), "
          "::mlir::ShapedType::isDynamic) && "
          "[](::mlir::Type e) { return ::llvm::isa<::mlir::Float32Type, ::mlir::Float64Type, "
          "::mlir::Float16Type, ::mlir::BFloat16Type>(e) || ::llvm::isa<::mlir::FloatType>(e) || "
          "e.isSignlessInteger(); }("
          "::llvm::cast<::mlir::RankedTensorType>($_self).getElementType())">,
    StaticShapeTensorOf<[AnyFloat, AnySignlessInteger]>.summary,
    StaticShapeTensorOf<[AnyFloat, AnySignlessInteger]>.cppType>;

// An operand of a same-typed elementwise op: the op's verifier
// (verifySameTypeElementwise) requires it to have the result's type, and the
// result is a GArray_Tensor, so together they hold it to the same set; the
// full check then runs once per op instead of once per value (two of the
// three per binary op were 4% of the verifier on a propagated chain). The
// operand needs no check of its own (the predicate is always true and
// compiles away): one of another type, unranked included, fails `<op>_c1`,
// which compares types before reading any as a tensor.
def GArray_SameAsResultTensor : Type<CPred<"true">, GArray_Tensor.summary, GArray_Tensor.cppType>;

// Property storage for an op with no inherent attribute of its own.
// MLIR keeps such an op's discardable attributes with nothing to split off,
// and answers Operation::getDiscardableAttrDictionary() by copying them into
// a new dictionary and uniquing it (a hash and a lock in the context); the
// verifier asks that of every op after every pass, and after propagation
// every op carries garray.sharding. An op with property storage hands out
// its dictionary as it is. Measured on bench/propagation's 20k-op
// elementwise chain: 8% fewer instructions in the six sharding passes
// (verifier included). The attribute is optional and never set (nothing is
// printed for it, in the custom or the generic form); the verifier rejects
// it where a program writes it.
def GArray_PropertyStorage : OptionalAttr<ConfinedAttr<UnitAttr, [
    AttrConstraint<CPred<"false">,
      "never set: it only gives the op property storage (GArrayOps.td)">]>>;

//===----------------------------------------------------------------------===//
// Mesh
//===----------------------------------------------------------------------===//

def GArray_MeshOp : GArray_Op<"mesh", [Symbol]> {
  let summary = "A named device mesh";
  let description = [{
    ```mlir
    garray.mesh @mesh ["data" = 4]
    garray.mesh @mesh2d ["data" = 2, "model" = ?]   // size given by --mesh
    ```
    Devices are numbered row-major over the axes in order. Sizes written in
    the file are defaults; `shardc --mesh data=8` overrides them, so one
    model compiles for any device count.

    **Constraints:**
    - `mesh_c1`: at least one axis;
    - `mesh_c2`: axis names are unique and non-empty;
    - `mesh_c3`: every size is positive or `?`.
    - `mesh_c4`: at most 65536 devices (the product of the known sizes):
      collectives list their device groups, and a rank runs per device.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrArrayAttr:$axes, DenseI64ArrayAttr:$sizes);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Index of axis `name`, or -1.
    int axisIndex(::llvm::StringRef name);
    bool isFullySized();
  }];
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def GArray_ConstantOp : GArray_Op<"constant", [ConstantLike, Pure,
    DeclareOpInterfaceMethods<GArray_ShardingRuleOpInterface>]> {
  let summary = "A constant global array";
  let description = [{
    ```mlir
    %c = garray.constant dense<0.125> : tensor<f32>
    ```
    **Constraints:**
    - `constant_c1`: the value is a dense elements attribute whose type is
      the result type.
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs GArray_Tensor:$result);
  let hasCustomAssemblyFormat = 1;
  let builders = [
    OpBuilder<(ins "::mlir::ElementsAttr":$value), [{
      build($_builder, $_state, value.getType(), value);
    }]>,
  ];
  let hasVerifier = 1;
  let hasFolder = 1;
}

include "dialects/garray/GArrayElementwiseOps.td"
include "dialects/garray/GArrayShapeOps.td"
include "dialects/garray/GArrayReductionOps.td"
include "dialects/garray/GArrayTrainingOps.td"

//===----------------------------------------------------------------------===//
// Placement
//===----------------------------------------------------------------------===//

def GArray_ShardingConstraintOp : GArray_Op<"sharding_constraint",
    [Pure, SameOperandsAndResultType]> {
  let summary = "Pin a value's sharding (a hard constraint)";
  let description = [{
    ```mlir
    %h2 = garray.sharding_constraint %h : tensor<8x16xf32> to #garray.sharding<@mesh, P("data", "model")>
    ```
    Propagation never changes the result's sharding; a mismatch with the
    operand becomes a reshard.

    **Constraints:**
    - `sharding_constraint_c1`: the sharding is valid for the value (see
      `#garray.sharding`) and names a `garray.mesh` in scope.
    - `sharding_constraint_c2`: a `garray.sharding` written on the op (the
      result's placement, which propagation writes, with the target) has
      the target's layout: the same axes on every dim and in the pending set,
      and open dims where the target's are open (priorities aside). A
      second, different placement of the same value would otherwise be
      overwritten without a word.
  }];
  let arguments = (ins GArray_Tensor:$operand, GArray_ShardingAttr:$sharding);
  let results = (outs GArray_Tensor:$result);
  let assemblyFormat = "$operand `:` type($result) `to` custom<ShardingRef>($sharding) attr-dict";
  let hasVerifier = 1;
}

def GArray_ShardMapOp : GArray_Op<"shard_map",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Run a per-device function on each device's blocks (JAX's shard_map)";
  let description = [{
    The manual escape from propagation: `body` is a local program, written
    for one device's blocks and its collectives over explicit device groups
    (`comm` ops), as JAX's `shard_map` writes `psum`, `all_gather` and
    `ppermute`. Each argument is laid out as its `in_shardings` entry says
    (a reshard first where it is not) and the body receives the device's
    block; each value the body returns is the device's block of a result
    laid out as its `out_shardings` entry says. A mesh axis a result's
    sharding does not name is one the body promises to have made that
    result equal over (`psum` does); `shardc run` checks that promise on
    the results it gathers.

    ```mlir
    %y = garray.shard_map @block_sum(%x)
        in [#garray.sharding<@mesh, P("data", None)>]
        out [#garray.sharding<@mesh, P()>] : (tensor<8x4xf32>) -> tensor<4xf32>
    func.func private @block_sum(%b: tensor<2x4xf32>) -> tensor<4xf32> {
      %s = garray.reduce <sum> %b, dims = [0] : (tensor<2x4xf32>) -> tensor<4xf32>
      %t = comm.all_reduce <sum> %s groups = [[0, 1, 2, 3]] : tensor<4xf32> -> tensor<4xf32>
      return %t : tensor<4xf32>
    }
    ```
    It has no factor rule: garray-decompose pins its boundary with
    `sharding_constraint`s, propagation takes its results as annotated with
    `out_shardings`, reshard insertion gives its operands `in_shardings`
    (as it gives a call its callee's), and garray-global-to-local inlines
    the body in place of the op once its operands have their local types.

    **Constraints:**
    - `shard_map_c1`: one sharding per argument and per result, each valid
      for its value, closed (no open dim, no priority), with nothing
      pending, and all on one mesh;
    - `shard_map_c2`: every sharded dim divides evenly over its axes (the
      body has one block shape);
    - `shard_map_c3`: `body` is a private `func.func` with a body whose
      arguments and results are the blocks' types, used by shard_maps only;
    - `shard_map_c4`: every collective in `body` names devices of the mesh,
      and a grouped one (all but `collective_permute`) has groups that cover
      every device once;
    - `shard_map_c5`: nothing in `body` is placed on a mesh (no sharding on
      its arguments, results or ops, no constraint, reshard or global
      collective): it computes on blocks.
  }];
  let arguments = (ins FlatSymbolRefAttr:$body, Variadic<GArray_Tensor>:$args,
                       ArrayAttr:$in_shardings, ArrayAttr:$out_shardings);
  let results = (outs Variadic<GArray_Tensor>:$results);
  let assemblyFormat = [{
    $body `(` $args `)` `in` $in_shardings `out` $out_shardings attr-dict `:`
    functional-type($args, $results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::garray::ShardingAttr getInSharding(unsigned i) {
      return ::llvm::cast<::mlir::garray::ShardingAttr>(getInShardings()[i]);
    }
    ::mlir::garray::ShardingAttr getOutSharding(unsigned i) {
      return ::llvm::cast<::mlir::garray::ShardingAttr>(getOutShardings()[i]);
    }
  }];
}

def GArray_ReshardOp : GArray_Op<"reshard", [Pure, SameOperandsAndResultType]> {
  let summary = "Change a value's sharding (inserted by shardc)";
  let description = [{
    Identity on the global value; its result has `sharding`. Inserted by
    `garray-insert-reshards` where an op's factor rule needs a different
    layout, and turned into collectives by `garray-reshard-to-collectives`.

    **Constraints:**
    - `reshard_c1`: the sharding is valid for the value.
    - `reshard_c2`: the target has no open dims and no priorities.
    - `reshard_c3`: a `garray.sharding` written on the op has the target's
      layout (the result is exactly the target).
  }];
  let arguments = (ins GArray_Tensor:$operand, GArray_ShardingAttr:$sharding);
  let results = (outs GArray_Tensor:$result);
  let assemblyFormat = "$operand `:` type($result) `to` custom<ShardingRef>($sharding) attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Global collectives: identities on global values that change their layout.
//===----------------------------------------------------------------------===//

class GArray_CollectiveOp<string mnemonic> : GArray_Op<mnemonic,
    [Pure, SameOperandsAndResultType]> {
  let results = (outs GArray_Tensor:$result);
  let hasVerifier = 1;
}

def GArray_AllReduceOp : GArray_CollectiveOp<"all_reduce"> {
  let summary = "Combine pending partials over mesh axes";
  let description = [{
    ```mlir
    %g = garray.all_reduce <sum> %p on @mesh ["data"] : tensor<2xf32>
    ```
    **Constraints:**
    - `all_reduce_c1`: `axes` is non-empty, has no repeats and names axes
      of `mesh`;
    - `all_reduce_c2`: when the operand has a sharding, it is pending over
      every axis in `axes` with reduction `kind`.
  }];
  let arguments = (ins GArray_ReductionKindAttr:$kind, GArray_Tensor:$operand,
                       FlatSymbolRefAttr:$mesh, StrArrayAttr:$axes);
  let assemblyFormat = "$kind $operand `on` $mesh $axes attr-dict `:` type($result)";
}

def GArray_AllGatherOp : GArray_CollectiveOp<"all_gather"> {
  let summary = "Concatenate the shards of one dimension over mesh axes";
  let description = [{
    ```mlir
    %r = garray.all_gather %x, dim = 0 on @mesh ["data"] : tensor<8x2xf32>
    ```
    **Constraints:**
    - `all_gather_c1`: `axes` is non-empty, has no repeats and names axes of
      `mesh`; `dim` is in range;
    - `all_gather_c2`: when the operand has a sharding, `axes` are the
      trailing (minor) axes of dimension `dim`.
  }];
  let arguments = (ins GArray_Tensor:$operand, I64Attr:$dim, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes);
  let assemblyFormat = "$operand `,` `dim` `=` $dim `on` $mesh $axes attr-dict `:` type($result)";
}

def GArray_AllSliceOp : GArray_CollectiveOp<"all_slice"> {
  let summary = "Keep this device's part of one dimension (no communication)";
  let description = [{
    ```mlir
    %s = garray.all_slice %x, dim = 0 on @mesh ["data"] : tensor<8x2xf32>
    ```
    **Constraints:**
    - `all_slice_c1`: `axes` is non-empty, has no repeats and names axes of
      `mesh`; `dim` is in range;
    - `all_slice_c2`: when the operand has a sharding, no axis in `axes` is
      already used by it.
  }];
  let arguments = (ins GArray_Tensor:$operand, I64Attr:$dim, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes);
  let assemblyFormat = "$operand `,` `dim` `=` $dim `on` $mesh $axes attr-dict `:` type($result)";
}

def GArray_ReduceScatterOp : GArray_CollectiveOp<"reduce_scatter"> {
  let summary = "Combine pending partials over mesh axes and keep one block of a dim";
  let description = [{
    An `all_reduce` over `axes` followed by an `all_slice` of `dim` over the
    same axes, fused: each device receives only its block of the reduced
    value, so it moves half the bytes of the all_reduce alone.

    ```mlir
    %s = garray.reduce_scatter <sum> %p, dim = 0 on @mesh ["data"] : tensor<8x2xf32>
    ```
    **Constraints:**
    - `reduce_scatter_c1`: `axes` is non-empty, has no repeats and names axes
      of `mesh`; `dim` is in range;
    - `reduce_scatter_c2`: when the operand has a sharding, it is pending over
      every axis in `axes` with reduction `kind`.
  }];
  let arguments = (ins GArray_ReductionKindAttr:$kind, GArray_Tensor:$operand, I64Attr:$dim,
                       FlatSymbolRefAttr:$mesh, StrArrayAttr:$axes);
  let assemblyFormat = [{
    $kind $operand `,` `dim` `=` $dim `on` $mesh $axes attr-dict `:` type($result)
  }];
}

def GArray_AllToAllOp : GArray_CollectiveOp<"all_to_all"> {
  let summary = "Move mesh axes from one dim to another (gather-free)";
  let description = [{
    The trailing `axes` of dimension `concat_dim` become the trailing axes of
    dimension `split_dim`: locally, each device splits its block along
    `split_dim` into one piece per group member, sends piece j to member j,
    and concatenates what it receives along `concat_dim`.

    ```mlir
    // P("x", None) -> P(None, "x")
    %t = garray.all_to_all %x, split_dim = 1, concat_dim = 0 on @mesh ["x"] : tensor<8x4xf32>
    ```
    **Constraints:**
    - `all_to_all_c1`: `axes` is non-empty, has no repeats and names axes of
      `mesh`; both dims are in range and differ;
    - `all_to_all_c2`: when the operand has a sharding, `axes` are the
      trailing (minor) axes of dimension `concat_dim`.
  }];
  let arguments = (ins GArray_Tensor:$operand, I64Attr:$split_dim, I64Attr:$concat_dim,
                       FlatSymbolRefAttr:$mesh, StrArrayAttr:$axes);
  let assemblyFormat = [{
    $operand `,` `split_dim` `=` $split_dim `,` `concat_dim` `=` $concat_dim `on` $mesh $axes
    attr-dict `:` type($result)
  }];
}

def GArray_CollectivePermuteOp : GArray_CollectiveOp<"collective_permute"> {
  let summary = "Send each device's block to another device (same block sizes)";
  let description = [{
    `pairs` lists (source, target) device ids flat: device `target` receives
    the local block of device `source`. Used where the layout changes which
    block a device holds but not the block sizes, e.g. P(("x","y")) ->
    P(("y","x")), or P("x") -> P("y"). `axes` are the mesh axes the two
    layouts use (for reports).

    ```mlir
    %p = garray.collective_permute %x on @mesh ["x", "y"] pairs = [0, 0, 2, 1, 1, 2, 3, 3] : tensor<8xf32>
    ```
    **Constraints:**
    - `collective_permute_c1`: `axes` has no repeats and names axes of `mesh`;
    - `collective_permute_c2`: `pairs` has an even length, its ids are devices
      of the mesh, and no device is a source twice or a target twice.
  }];
  let arguments = (ins GArray_Tensor:$operand, FlatSymbolRefAttr:$mesh, StrArrayAttr:$axes,
                       DenseI64ArrayAttr:$pairs);
  let assemblyFormat = [{
    $operand `on` $mesh $axes `pairs` `=` $pairs attr-dict `:` type($result)
  }];
}

#endif // GARRAY_OPS_TD
