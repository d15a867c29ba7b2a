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
  let dependentDialects = ["::mlir::func::FuncDialect"];
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

// Shared with the elementwise family (garray.compare); kept identical there.
def GArray_ComparisonDirection : I32EnumAttr<"ComparisonDirection",
    "how garray.compare relates its operands", [
    I32EnumAttrCase<"eq", 0>,
    I32EnumAttrCase<"ne", 1>,
    I32EnumAttrCase<"lt", 2>,
    I32EnumAttrCase<"le", 3>,
    I32EnumAttrCase<"gt", 4>,
    I32EnumAttrCase<"ge", 5>]> {
  let cppNamespace = "::mlir::garray";
  let genSpecializedAttr = 0;
}

def GArray_ComparisonDirectionAttr : EnumAttr<GArray_Dialect, GArray_ComparisonDirection,
    "comparison_direction"> {
  let assemblyFormat = "`<` $value `>`";
}

#endif // GARRAY_BASE_TD
