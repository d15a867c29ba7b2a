//===- GArrayAttrs.td - placement attributes ---------------*- tablegen -*-===//
#ifndef GARRAY_ATTRS_TD
#define GARRAY_ATTRS_TD

include "dialects/garray/GArrayBase.td"

class GArray_Attr<string name, string attrMnemonic> : AttrDef<GArray_Dialect, name> {
  let mnemonic = attrMnemonic;
}

def GArray_ShardingAttr : GArray_Attr<"Sharding", "sharding"> {
  let summary = "Where a global value lives on a mesh";
  let description = [{
    Names a mesh and, per tensor dimension, the mesh axes that split it,
    major to minor, written as in JAX:

    ```mlir
    #garray.sharding<@mesh, P("data", None)>          // rows split over "data"
    #garray.sharding<@mesh, P(("data", "model"))>     // one dim over two axes
    #garray.sharding<@mesh, P()>                      // replicated
    #garray.sharding<@mesh, P("data"?, ?)>            // open: propagation may extend
    #garray.sharding<@mesh, P(None), unreduced = sum("data")>  // pending partial sums
    #garray.sharding<@mesh, P("data" p0, "model"? p1)>  // propagation priorities
    ```

    Entries: `None` (replicated, closed), `?` (replicated, open), an axis
    `"a"` or a tuple of axes `("a", "b")`, optionally followed by `?` (open:
    propagation may append axes), then optionally a priority `pN` (N >= 0,
    `p0` strongest). Missing trailing entries are `None`. Priorities steer
    garray-propagate (docs/propagation.md): a dimension with priority N is a
    source from round N on; dimensions without a priority come after every
    numbered round. Propagation drops priorities from the shardings it writes.
    `unreduced = KIND(axes)` says the value is a pending KIND-reduction over
    those axes: each device holds one partial.

    **Constraints:**
    - `sharding_c1`: no mesh axis appears twice (in dims or unreduced);
    - `sharding_c2`: at most as many entries as the value's rank;
    - `sharding_c3`: every axis is an axis of the named mesh;
    - `sharding_c4`: every dimension of the value is static. Sizes need not
      divide over their axes: shards follow the ceil layout (size
      `ceil(n/k)`, trailing shards short or empty) and global-to-local masks
      the padding.
    c2–c4 need the value and the mesh and are checked where the attribute is
    used (`verifyShardingFor`).
  }];
  let parameters = (ins
    "::mlir::FlatSymbolRefAttr":$mesh,
    ArrayRefParameter<"::mlir::garray::DimShardingAttr", "per-dimension axes">:$dims,
    OptionalArrayRefParameter<"::mlir::StringAttr", "pending axes">:$unreduced,
    DefaultValuedParameter<"::mlir::garray::ReductionKind", "::mlir::garray::ReductionKind::sum">:$unreducedKind
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The entry for dimension `d` (replicated/closed past the last entry).
    ::mlir::garray::DimShardingAttr getDim(unsigned d) const;
    bool isPending() const { return !getUnreduced().empty(); }
    /// This sharding with `dims` padded/truncated to `rank` entries.
    ShardingAttr withRank(unsigned rank) const;
  }];
}

def GArray_DimShardingAttr : GArray_Attr<"DimSharding", "dim"> {
  let summary = "The mesh axes splitting one dimension";
  let description = [{
    Printed inside `#garray.sharding` as `None`, `?`, `"a"`, `("a", "b")`,
    each optionally followed by `?` (open) and a priority `pN`.
    Standalone: `#garray.dim<"a"? p1>`. `priority` is -1 when none is written.
  }];
  let parameters = (ins
    OptionalArrayRefParameter<"::mlir::StringAttr", "axes, major to minor">:$axes,
    "bool":$open,
    DefaultValuedParameter<"int64_t", "-1">:$priority
  );
  let builders = [
    AttrBuilder<(ins "::llvm::ArrayRef<::mlir::StringAttr>":$axes, "bool":$open), [{
      return $_get($_ctxt, axes, open, -1);
    }]>
  ];
  let extraClassDeclaration = [{
    bool hasPriority() const { return getPriority() >= 0; }
  }];
  let hasCustomAssemblyFormat = 1;
}

#endif // GARRAY_ATTRS_TD
