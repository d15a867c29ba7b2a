//===- OutlineLoopNests.cpp - cpu-outline-loop-nests ----------------------===//
//
// Each top-level loop nest of a large function becomes a private no_inline
// function of its own (see CpuPasses.td): LLVM's cost per function grows
// faster than its size, so many small functions compile in linear time.
// A matmul goes with what the GEMM recipe reads around it (its zero fill,
// the elementwise consumer it computes in its tiles, and C's allocation when
// nothing else uses C), so that outlining before the recipe keeps what it
// finds.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/CpuPasses.h"
#include "compiler/targets/GemmEpilogue.h"
#include "compiler/targets/Outlining.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace shardc {
#define GEN_PASS_DEF_CPUOUTLINELOOPNESTS
#include "compiler/targets/CpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

/// Marks the scf.execute_region that holds a matmul's group until it is
/// outlined (the function then takes the region's body).
constexpr llvm::StringLiteral kGemmGroupAttr = "shardc.gemm_group";

/// The ops that go with `op` into one function, in program order: C's
/// allocation, its fill and its deallocation when those and the epilogue
/// are C's only users (C is then private to the group), else a fill right
/// before `op`; then `op` and its epilogue (GemmEpilogue.h). Moving them
/// together is safe: nothing else touches a private C, and only
/// memory-effect-free ops and fresh allocations lie between `op` and its
/// epilogue.
SmallVector<Operation *> gemmGroup(linalg::MatmulOp op) {
  Value c = op.getDpsInits()[0];
  Block *block = op->getBlock();
  linalg::GenericOp epilogue = shardc::gemm::findEpilogue(op);
  auto alloc = c.getDefiningOp<memref::AllocOp>();
  linalg::FillOp fill;
  SmallVector<Operation *> deallocs;
  bool privateC = alloc && alloc->getBlock() == block;
  for (Operation *user : c.getUsers()) {
    if (user == op.getOperation() || user == epilogue.getOperation())
      continue;
    auto f = dyn_cast<linalg::FillOp>(user);
    if (f && f->getBlock() == block && f->isBeforeInBlock(op) && !fill)
      fill = f;
    else if (isa<memref::DeallocOp>(user) && user->getBlock() == block && op->isBeforeInBlock(user))
      deallocs.push_back(user);
    else
      privateC = false;
  }
  SmallVector<Operation *> group;
  if (privateC) {
    group.push_back(alloc);
    if (fill)
      group.push_back(fill);
  } else if (auto prev = dyn_cast_or_null<linalg::FillOp>(op->getPrevNode());
             prev && prev.getDpsInits()[0] == c) {
    group.push_back(prev);
  }
  group.push_back(op);
  if (epilogue)
    group.push_back(epilogue);
  if (privateC)
    llvm::append_range(group, deallocs);
  return group;
}

/// Puts each matmul of `body` with its group (gemmGroup) into a marked
/// scf.execute_region where its last compute op was, so that it is one nest.
void groupGemms(Block &body) {
  SmallVector<linalg::MatmulOp> matmuls;
  for (auto op : body.getOps<linalg::MatmulOp>())
    if (op.hasPureBufferSemantics())
      matmuls.push_back(op);
  for (linalg::MatmulOp op : matmuls) {
    SmallVector<Operation *> group = gemmGroup(op);
    if (group.size() == 1)
      continue;
    // Where the epilogue (else the matmul) was: every value the group
    // reads is defined above it.
    Operation *last = op;
    for (Operation *member : group)
      if (!isa<memref::DeallocOp>(member) && last->isBeforeInBlock(member))
        last = member;
    OpBuilder b(last);
    auto region = scf::ExecuteRegionOp::create(b, op.getLoc(), TypeRange{});
    region->setAttr(kGemmGroupAttr, b.getUnitAttr());
    Block *inner = b.createBlock(&region.getRegion());
    for (Operation *member : group)
      member->moveBefore(inner, inner->end());
    b.setInsertionPointToEnd(inner);
    scf::YieldOp::create(b, op.getLoc());
  }
}

bool isGemmGroup(Operation *op) {
  return isa<scf::ExecuteRegionOp>(op) && op->hasAttr(kGemmGroupAttr);
}

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
      auto isNest = [](Operation &op) {
        return isa<LoopLikeOpInterface, linalg::LinalgOp>(op) && op.getNumResults() == 0;
      };
      if (static_cast<unsigned>(llvm::count_if(fn.getBody().front(), isNest)) <= minNests)
        continue;
      groupGemms(fn.getBody().front());
      SmallVector<Operation *> nests;
      for (Operation &op : fn.getBody().front())
        if (isNest(op) || isGemmGroup(&op))
          nests.push_back(&op);
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
    if (isGemmGroup(nest))
      for (Operation &op : nest->getRegion(0).front().without_terminator())
        inner.clone(op, out.map);
    else
      inner.clone(*nest, out.map);
    func::ReturnOp::create(inner, nest->getLoc());

    OpBuilder at(nest);
    func::CallOp::create(at, nest->getLoc(), out.fn, in.captured.getArrayRef());
    nest->erase();
    return out.fn;
  }
};

} // namespace
