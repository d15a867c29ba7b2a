//===- GArrayDialect.cpp - dialect registration and attributes ------------===//
//
// The sharding attribute's JAX-like syntax: `#garray.sharding<@mesh,
// P("data", None), unreduced = sum("model")>`. Parsing checks only what the
// attribute can check alone (sharding_c1); checks that need the value's rank
// or the mesh live in verifyShardingFor().
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "sharding/Steering.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::garray;

#include "dialects/garray/GArrayDialect.cpp.inc"
#include "dialects/garray/GArrayEnums.cpp.inc"
#include "dialects/garray/GArrayInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/garray/GArrayAttrs.cpp.inc"

void GArrayDialect::initialize() {
  shardingName = StringAttr::get(getContext(), kShardingAttrName);
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/garray/GArrayAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialects/garray/GArrayOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Dimension entries: None | ? | "a" | ("a", "b"), then an optional `?`, then
// an optional priority `pN` (N >= 0; p0 is the strongest).
//===----------------------------------------------------------------------===//

static ParseResult parsePriority(AsmParser &parser, int64_t &priority) {
  priority = -1;
  llvm::SMLoc loc = parser.getCurrentLocation();
  StringRef kw;
  if (failed(parser.parseOptionalKeyword(&kw)))
    return success();
  // Digits only, no leading zero (p01 would print back as p1).
  StringRef digits = kw.drop_front();
  if (kw.size() < 2 || kw[0] != 'p' || !llvm::all_of(digits, llvm::isDigit) ||
      (digits.size() > 1 && digits[0] == '0') || digits.getAsInteger(10, priority))
    return parser.emitError(loc, "expected a priority such as p0 or p1 after a dimension "
                                 "entry, not '")
           << kw << "'";
  // Said here too, at the written number (ShardingAttr::verify checks
  // attributes built in C++).
  if (priority > shardc::kMaxPriority)
    return parser.emitError(loc, "priority '")
           << kw << "' is too large: priorities go from p0 (strongest) to p"
           << shardc::kMaxPriority;
  return success();
}

static ParseResult parseDimEntryAxes(AsmParser &parser, SmallVectorImpl<StringAttr> &axes,
                                     bool &open);

static ParseResult parseDimEntry(AsmParser &parser, SmallVectorImpl<StringAttr> &axes,
                                 bool &open, int64_t &priority) {
  if (parseDimEntryAxes(parser, axes, open) || parsePriority(parser, priority))
    return failure();
  // What users write out of order gets its own words, not "expected ')'".
  llvm::SMLoc loc = parser.getCurrentLocation();
  if (priority >= 0 && succeeded(parser.parseOptionalQuestion()))
    return parser.emitError(loc, "'?' comes before the priority: write \"axis\"? p0");
  StringRef extra;
  if (priority >= 0 && succeeded(parser.parseOptionalKeyword(&extra)))
    return parser.emitError(loc, "a dimension entry takes one priority, written last; found '")
           << extra << "' after p" << priority;
  return success();
}

static ParseResult parseDimEntryAxes(AsmParser &parser, SmallVectorImpl<StringAttr> &axes,
                                     bool &open) {
  MLIRContext *ctx = parser.getContext();
  open = false;
  if (succeeded(parser.parseOptionalQuestion())) {
    open = true;
    return success();
  }
  if (succeeded(parser.parseOptionalKeyword("None")))
    return success();
  std::string name;
  if (succeeded(parser.parseOptionalString(&name))) {
    axes.push_back(StringAttr::get(ctx, name));
  } else if (succeeded(parser.parseOptionalLParen())) {
    do {
      if (parser.parseString(&name))
        return failure();
      axes.push_back(StringAttr::get(ctx, name));
      llvm::SMLoc loc = parser.getCurrentLocation();
      StringRef inside;
      if (succeeded(parser.parseOptionalKeyword(&inside)) ||
          succeeded(parser.parseOptionalQuestion()))
        return parser.emitError(loc, "'?' and a priority apply to the whole dimension: write "
                                     "(\"a\", \"b\")? p0, outside the parentheses");
    } while (succeeded(parser.parseOptionalComma()));
    if (parser.parseRParen())
      return failure();
  } else {
    return parser.emitError(parser.getCurrentLocation(),
                            "expected a dimension entry: None, ?, \"axis\" or (\"a\", \"b\")");
  }
  if (succeeded(parser.parseOptionalQuestion()))
    open = true;
  return success();
}

static void printDimEntry(AsmPrinter &printer, ArrayRef<StringAttr> axes, bool open,
                          int64_t priority) {
  if (priority >= 0) {
    printDimEntry(printer, axes, open, -1);
    printer << " p" << priority;
    return;
  }
  if (axes.empty()) {
    printer << (open ? "?" : "None");
    return;
  }
  if (axes.size() == 1) {
    printer << axes[0];
  } else {
    printer << "(";
    llvm::interleaveComma(axes, printer, [&](StringAttr a) { printer << a; });
    printer << ")";
  }
  if (open)
    printer << "?";
}

Attribute DimShardingAttr::parse(AsmParser &parser, Type) {
  SmallVector<StringAttr> axes;
  bool open;
  int64_t priority;
  if (parser.parseLess() || parseDimEntry(parser, axes, open, priority) ||
      parser.parseGreater())
    return {};
  return DimShardingAttr::get(parser.getContext(), axes, open, priority);
}

void DimShardingAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printDimEntry(printer, getAxes(), getOpen(), getPriority());
  printer << ">";
}

//===----------------------------------------------------------------------===//
// ShardingAttr
//===----------------------------------------------------------------------===//

Attribute ShardingAttr::parse(AsmParser &parser, Type) {
  MLIRContext *ctx = parser.getContext();
  StringAttr meshName;
  if (parser.parseLess() || parser.parseSymbolName(meshName) || parser.parseComma() ||
      parser.parseKeyword("P") || parser.parseLParen())
    return {};
  SmallVector<DimShardingAttr> dims;
  if (failed(parser.parseOptionalRParen())) {
    do {
      SmallVector<StringAttr> axes;
      bool open;
      int64_t priority;
      if (parseDimEntry(parser, axes, open, priority))
        return {};
      dims.push_back(DimShardingAttr::get(ctx, axes, open, priority));
    } while (succeeded(parser.parseOptionalComma()));
    if (parser.parseRParen())
      return {};
  }
  SmallVector<StringAttr> unreduced;
  ReductionKind kind = ReductionKind::sum;
  if (succeeded(parser.parseOptionalComma())) {
    std::string kindName;
    if (parser.parseKeyword("unreduced") || parser.parseEqual() ||
        parser.parseKeywordOrString(&kindName))
      return {};
    std::optional<ReductionKind> k = symbolizeReductionKind(kindName);
    if (!k) {
      parser.emitError(parser.getCurrentLocation(), "unknown reduction '")
          << kindName << "'; expected sum, max, min or prod";
      return {};
    }
    kind = *k;
    if (parser.parseLParen())
      return {};
    do {
      std::string name;
      if (parser.parseString(&name))
        return {};
      unreduced.push_back(StringAttr::get(ctx, name));
    } while (succeeded(parser.parseOptionalComma()));
    if (parser.parseRParen())
      return {};
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<ShardingAttr>(ctx, FlatSymbolRefAttr::get(meshName), dims,
                                         unreduced, kind);
}

void ShardingAttr::print(AsmPrinter &printer) const {
  printer << "<" << getMesh() << ", P(";
  llvm::interleaveComma(getDims(), printer,
                        [&](DimShardingAttr d) {
    printDimEntry(printer, d.getAxes(), d.getOpen(), d.getPriority());
  });
  printer << ")";
  if (isPending()) {
    printer << ", unreduced = " << stringifyReductionKind(getUnreducedKind()) << "(";
    llvm::interleaveComma(getUnreduced(), printer, [&](StringAttr a) { printer << a; });
    printer << ")";
  }
  printer << ">";
}

LogicalResult ShardingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   FlatSymbolRefAttr mesh, ArrayRef<DimShardingAttr> dims,
                                   ArrayRef<StringAttr> unreduced, ReductionKind) {
  llvm::SmallSet<StringRef, 8> seen;
  for (auto [d, dim] : llvm::enumerate(dims))
    for (StringAttr axis : dim.getAxes())
      if (!seen.insert(axis.getValue()).second)
        return emitError() << "sharding_c1: mesh axis \"" << axis.getValue()
                           << "\" appears twice (again in dim " << d
                           << "); each axis may split a value only once";
  // Propagation runs dims without a priority in a round after every
  // number (shardc::kLastRound), so the numbers stop well before it.
  for (auto [d, dim] : llvm::enumerate(dims))
    if (dim.getPriority() > shardc::kMaxPriority)
      return emitError() << "sharding_c5: dim " << d << " has priority p" << dim.getPriority()
                         << ", too large: priorities go from p0 (strongest) to p"
                         << shardc::kMaxPriority;
  for (StringAttr axis : unreduced)
    if (!seen.insert(axis.getValue()).second)
      return emitError() << "sharding_c1: mesh axis \"" << axis.getValue()
                         << "\" appears twice (again in unreduced); each axis may split or "
                            "reduce a value only once";
  return success();
}

DimShardingAttr ShardingAttr::getDim(unsigned d) const {
  if (d < getDims().size())
    return getDims()[d];
  return DimShardingAttr::get(getContext(), {}, false);
}

ShardingAttr ShardingAttr::withRank(unsigned rank) const {
  SmallVector<DimShardingAttr> dims;
  for (unsigned d = 0; d < rank; ++d)
    dims.push_back(getDim(d));
  return ShardingAttr::get(getContext(), getMesh(), dims, getUnreduced(), getUnreducedKind());
}
