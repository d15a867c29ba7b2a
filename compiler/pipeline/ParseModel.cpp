//===- ParseModel.cpp - a model's text to a module, hostile input first ---===//
//
// The one way a model enters the compiler. Before MLIR's parser sees the
// text, its bracket nesting is bounded (the parser recurses once per level
// and overflows the stack past a few thousand); before MLIR's verifier runs,
// the input contract (passes/verify/InputContract.h) refuses foreign ops and
// sizes that cannot be addressed (a foreign op's verifier is upstream code
// that need not survive hostile attributes). Then the module is verified.
//
// A file in JAX's generic StableHLO form (compiler/import/ModelForm.h) is
// parsed with unregistered dialects allowed and imported into garray
// (compiler/import/ImportStableHlo.h) before those checks, which then hold
// for the import's output as for any model.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/ImportStableHlo.h"
#include "compiler/import/ModelForm.h"
#include "compiler/pipeline/Pipeline.h"
#include "passes/verify/EndlessRecursion.h"
#include "passes/verify/InputContract.h"

#include "dialects/garray/GArray.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

namespace shardc {

namespace {

/// The first place where `text` nests brackets ( [ { < deeper than `limit`,
/// as (line, column), 1-based; nullopt when it does not. String literals and
/// `//` comments are skipped; `->` is an arrow, not a closing bracket.
std::optional<std::pair<unsigned, unsigned>> tooDeep(llvm::StringRef text, int limit) {
  int depth = 0;
  unsigned line = 1, col = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    ++col;
    if (c == '\n') {
      ++line;
      col = 0;
    } else if (c == '"') { // a string literal, escapes included
      for (++i; i < text.size() && text[i] != '"' && text[i] != '\n'; ++i, ++col)
        if (text[i] == '\\')
          ++i, ++col;
      ++col;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i + 1 < text.size() && text[i + 1] != '\n')
        ++i;
    } else if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > limit)
        return std::make_pair(line, col);
    } else if (c == ')' || c == ']' || c == '}' || (c == '>' && (i == 0 || text[i - 1] != '-'))) {
      depth = std::max(0, depth - 1);
    }
  }
  return std::nullopt;
}

/// Parses JAX's generic form and gives every op whose location names no
/// file (JAX writes `loc(unknown)` or `loc("square")` for some) its place in
/// the model's text instead, keeping JAX's name: an error about it then
/// points at the line, not at "<unknown>".
OwningOpRef<ModuleOp> parseWithTextLocations(llvm::SourceMgr &sourceMgr,
                                             const ParserConfig &config) {
  MLIRContext *ctx = config.getContext();
  AsmParserState state;
  Block block;
  if (failed(parseAsmSourceFile(sourceMgr, &block, config, &state)))
    return nullptr;
  llvm::StringRef file =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBufferIdentifier();
  for (const AsmParserState::OperationDefinition &def : state.getOpDefs()) {
    Location loc = def.op->getLoc();
    std::string anyFile;
    unsigned anyLine, anyColumn;
    if (fileLocationOf(loc, anyFile, anyLine, anyColumn))
      continue;
    auto [line, col] = sourceMgr.getLineAndColumn(def.loc.Start);
    Location place = FileLineColLoc::get(ctx, file, line, col);
    if (auto n = dyn_cast<NameLoc>(loc))
      place = NameLoc::get(n.getName(), place);
    def.op->setLoc(place);
  }
  return detail::constructContainerOpForParserIfNecessary<ModuleOp>(
      &block, ctx, FileLineColLoc::get(ctx, file, 1, 1));
}

/// SSA dominance inside the regions of unregistered ops (a shard_map's
/// body, `sdy.manual_computation`), which MLIR's verifier and DominanceInfo
/// leave unchecked since such a region could be a graph region. The
/// importer rewrites those bodies as SSA code, so a value used before its
/// definition there (`%1 = op(%1)`) is an error in the model. A result is
/// usable by an op when it is defined in the same block as that op (or
/// one of its ancestors), earlier.
LogicalResult verifyUnregisteredRegionDominance(ModuleOp module) {
  WalkResult walk = module.walk([&](Operation *op) {
    Operation *parent = op->getParentOp();
    if (!parent || parent->isRegistered())
      return WalkResult::advance();
    for (OpOperand &use : op->getOpOperands()) {
      Operation *def = use.get().getDefiningOp();
      if (!def)
        continue; // a block argument of an enclosing block
      Operation *user = def->getBlock()->findAncestorOpInBlock(*op);
      if (user && user != def && def->isBeforeInBlock(user))
        continue;
      op->emitError() << "operand #" << use.getOperandNumber()
                      << " is used before it is defined (inside '" << parent->getName()
                      << "'); define each value before its uses";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

} // namespace

void registerModelDialects(DialectRegistry &registry) {
  registry.insert<arith::ArithDialect, cf::ControlFlowDialect, math::MathDialect,
                  scf::SCFDialect, tensor::TensorDialect>();
  garray::registerShardcDialects(registry);
}

OwningOpRef<ModuleOp> parseModel(llvm::SourceMgr &sourceMgr, MLIRContext &ctx) {
  const llvm::MemoryBuffer *buffer = sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  // Bytecode would reach the bytecode reader, which none of the checks below
  // cover, and the pretty StableHLO form needs dialects shardc does not have.
  ModelForm form = detectModelForm(buffer->getBuffer());
  if (const char *advice = refusedFormAdvice(form); *advice) {
    emitError(FileLineColLoc::get(&ctx, buffer->getBufferIdentifier(), 1, 1)) << advice;
    return nullptr;
  }
  if (auto at = tooDeep(buffer->getBuffer(), kMaxNesting)) {
    emitError(FileLineColLoc::get(&ctx, buffer->getBufferIdentifier(), at->first, at->second))
        << "brackets nest deeper than " << kMaxNesting
        << " levels here; shardc refuses such a model before parsing it (a model's types, "
           "attributes and regions nest a few levels deep)";
    return nullptr;
  }
  ParserConfig config(&ctx, /*verifyAfterParse=*/false);
  // JAX's generic form names StableHLO and Shardy ops and attributes the
  // context does not know: only for such a file does the parser keep them,
  // unregistered, for the importer, which refuses every one it does not map.
  bool stableHlo = form == ModelForm::StableHloGeneric;
  ctx.allowUnregisteredDialects(stableHlo);
  llvm::scope_exit restore([&] { ctx.allowUnregisteredDialects(false); });
  // An op of a dialect the context does not know stops the parser; say what
  // a model may contain instead of how to register that dialect.
  ScopedDiagnosticHandler foreign(&ctx, [&](Diagnostic &d) -> LogicalResult {
    std::string text = d.str();
    llvm::StringRef m(text);
    if (d.getSeverity() != DiagnosticSeverity::Error || !m.starts_with("Dialect `") ||
        !m.contains("not found for custom op '"))
      return failure(); // not ours: on to the caller's handler
    llvm::StringRef op = m.split("custom op '").second.split('\'').first;
    emitError(d.getLocation()) << "'" << op << "' " << kNotAModelOp;
    return success();
  });
  OwningOpRef<ModuleOp> module =
      stableHlo ? parseWithTextLocations(sourceMgr, config) : parseSourceFile<ModuleOp>(sourceMgr, config);
  if (!module)
    return nullptr;
  // MLIR's verifier first (function types against their blocks, SSA
  // dominance), so that the importer walks a well-formed module; for the
  // generic form each function alone, as the module verifies only once
  // calls in op bodies are inlined.
  if (stableHlo) {
    if (failed(checkCalls(*module)))
      return nullptr;
    locateAtCallSites(*module);
    inlineCallsInBodies(*module);
  }
  if (stableHlo && (failed(verify(*module)) || failed(verifyUnregisteredRegionDominance(*module)) ||
                    failed(importStableHlo(*module))))
    return nullptr;
  ctx.allowUnregisteredDialects(false);
  if (failed(verifyInputContract(*module)) || failed(verify(*module)) ||
      failed(refuseEndlessRecursion(*module)))
    return nullptr;
  DialectRegistry compiler;
  registerCompilerDialects(compiler);
  ctx.appendDialectRegistry(compiler);
  ctx.loadAllAvailableDialects();
  return module;
}

} // namespace shardc
