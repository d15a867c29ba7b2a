//===- GArrayBase.td - the garray dialect: global arrays ---*- tablegen -*-===//
//
// garray is shardc's global view: values are builtin tensors with their full
// logical shapes; where they live on a mesh is an attribute, never part of the
// type, so propagation edits attributes only and upstream tensor code works
// unchanged. Types change once, in global-to-local.
//
//===----------------------------------------------------------------------===//
#ifndef GARRAY_BASE_TD
#define GARRAY_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def GArray_Dialect : Dialect {
  let name = "garray";
  let cppNamespace = "::mlir::garray";
  let summary = "Global arrays on a named device mesh";
  let description = [{
    A program in `garray` is written against global arrays. A few values carry
    a placement (`#garray.sharding<@mesh, P("data", None)>`); shardc derives
    every other value's placement and each device's local program.
  }];
  let useDefaultAttributePrinterParser = 1;
  // `garray.sharding` / `garray.name` on ops, arguments and results are
  // checked wherever they appear (sharding_c2..c4 need the value's type).
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let dependentDialects = ["::mlir::func::FuncDialect"];
  let extraClassDeclaration = [{
    /// `garray.sharding`, uniqued once: the verifier compares every op's
    /// attribute names with it after every pass.
    ::mlir::StringAttr shardingName;
  }];
}

def GArray_ReductionKind : I32EnumAttr<"ReductionKind", "how partial values combine", [
    I32EnumAttrCase<"sum", 0>,
    I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>,
    I32EnumAttrCase<"prod", 3>]> {
  let cppNamespace = "::mlir::garray";
  let genSpecializedAttr = 0;
}

def GArray_ReductionKindAttr : EnumAttr<GArray_Dialect, GArray_ReductionKind, "reduction"> {
  let assemblyFormat = "`<` $value `>`";
}

#endif // GARRAY_BASE_TD
