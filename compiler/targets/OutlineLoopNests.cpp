//===- OutlineLoopNests.cpp - cpu-outline-loop-nests ----------------------===//
//
// Each top-level loop nest of a large function becomes a private no_inline
// function of its own (see CpuPasses.td): LLVM's cost per function grows
// faster than its size, so many small functions compile in linear time.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/CpuPasses.h"
#include "compiler/targets/Outlining.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace shardc {
#define GEN_PASS_DEF_CPUOUTLINELOOPNESTS
#include "compiler/targets/CpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

struct CpuOutlineLoopNests : shardc::impl::CpuOutlineLoopNestsBase<CpuOutlineLoopNests> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    for (func::FuncOp fn : funcs) {
      // An outlined kernel (a parallel loop's chunk function) is one
      // profiling site already: splitting it again only costs what LLVM
      // knew across its nests (with --profile, a GEMM's block loop became
      // a function of its own without its operands' noalias, so the
      // profile timed other code than the unprofiled object runs).
      if (fn.isExternal() || !fn.getBody().hasOneBlock() ||
          fn->hasAttr(shardc::kOutlinedNestAttr))
        continue;
      SmallVector<Operation *> nests;
      for (Operation &op : fn.getBody().front())
        if (isa<LoopLikeOpInterface, linalg::LinalgOp>(op) && op.getNumResults() == 0)
          nests.push_back(&op);
      if (nests.size() <= minNests)
        continue;
      Operation *after = fn; // new functions follow their parent, in order
      for (auto [index, nest] : llvm::enumerate(nests))
        after = outline(fn, nest, index, after, symbols);
    }
  }

  /// Replaces `nest` by a call of a new function holding it, placed after
  /// `after`; returns the new function.
  Operation *outline(func::FuncOp parent, Operation *nest, size_t index, Operation *after,
                     SymbolTable &symbols) {
    // What the nest reads from outside: constants are cloned, the rest
    // passed in.
    shardc::NestInputs in = shardc::nestInputs(nest);
    std::string name = (parent.getSymName() + "_nest" + llvm::Twine(index)).str();
    shardc::OutlinedFunction out =
        shardc::createOutlinedFunction(after, name, nest->getLoc(), {}, in, symbols);
    OpBuilder inner = OpBuilder::atBlockEnd(&out.fn.getBody().front());
    inner.clone(*nest, out.map);
    func::ReturnOp::create(inner, nest->getLoc());

    OpBuilder at(nest);
    func::CallOp::create(at, nest->getLoc(), out.fn, in.captured.getArrayRef());
    nest->erase();
    return out.fn;
  }
};

} // namespace
