//===- InstrumentProfile.cpp - cpu-instrument-profile ---------------------===//
//
// Brackets every kernel and collective call of the program with the
// runtime's profiling probes and names the sites in the object (see
// CpuPasses.td), for `shardc run --profile`.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/CpuPasses.h"
#include "dialects/garray/GArray.h"
#include "shardrt.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSet.h"

namespace shardc {
#define GEN_PASS_DEF_CPUINSTRUMENTPROFILE
#include "compiler/targets/CpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

/// What a site is called in the profile, "" when `call` is not a site.
std::string siteName(func::CallOp call, SymbolTable &symbols) {
  static const llvm::StringSet<> kCollectives = {
      "shardrt_all_reduce", "shardrt_all_reduce_start", "shardrt_all_reduce_done",
      "shardrt_all_gather", "shardrt_reduce_scatter", "shardrt_reduce_scatter_start",
      "shardrt_reduce_scatter_done",
      "shardrt_all_to_all", "shardrt_collective_permute"};
  llvm::StringRef callee = call.getCallee();
  // Where the call came from, as the report names places.
  std::string suffix = " " + mlir::garray::locationText(call.getLoc());
  if (kCollectives.contains(callee))
    return callee.drop_front(llvm::StringRef("shardrt_").size()).str() + suffix;
  auto fn = symbols.lookup<func::FuncOp>(callee);
  if (!fn)
    return "";
  if (fn->hasAttr(shardc::kOutlinedNestAttr))
    return "kernel " + callee.str() + suffix;
  if (fn->hasAttr(shardc::kParallelBodyAttr))
    return "kernel " + callee.drop_back(llvm::StringRef("_dispatch").size()).str() + suffix;
  return "";
}

struct CpuInstrumentProfile : shardc::impl::CpuInstrumentProfileBase<CpuInstrumentProfile> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    if (symbols.lookup(SHARDRT_PROFILE_SITES_SYMBOL)) {
      module.emitError() << "the program already defines @" << SHARDRT_PROFILE_SITES_SYMBOL
                         << ", which profiling needs for its site names";
      return signalPassFailure();
    }
    OpBuilder b(module.getContext());
    auto probe = [&](llvm::StringRef name) {
      if (auto fn = symbols.lookup<func::FuncOp>(name))
        return fn;
      b.setInsertionPointToStart(module.getBody());
      auto fn = func::FuncOp::create(b, module.getLoc(), name,
                                     b.getFunctionType({b.getI64Type()}, {}));
      fn.setPrivate();
      symbols.insert(fn);
      return fn;
    };

    // Sites: calls in the program's own functions, not inside kernels
    // (those run on the kernel threads, within their caller's site).
    std::string names;
    int64_t sites = 0;
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    for (func::FuncOp fn : funcs) {
      if (fn.isExternal() || fn->hasAttr(shardc::kOutlinedNestAttr))
        continue;
      SmallVector<std::pair<func::CallOp, std::string>> calls;
      fn.walk([&](func::CallOp call) {
        if (std::string name = siteName(call, symbols); !name.empty())
          calls.push_back({call, std::move(name)});
      });
      if (calls.empty())
        continue;
      func::FuncOp begin = probe("shardrt_profile_begin");
      func::FuncOp end = probe("shardrt_profile_end");
      for (auto &[call, name] : calls) {
        b.setInsertionPoint(call);
        Value site = arith::ConstantIntOp::create(b, call.getLoc(), sites, 64);
        func::CallOp::create(b, call.getLoc(), begin, site);
        b.setInsertionPointAfter(call);
        func::CallOp::create(b, call.getLoc(), end, site);
        names += name + "\n";
        ++sites;
      }
    }

    // The names, one line per site, NUL-terminated: a C string the host
    // reads from the loaded object.
    SmallVector<int8_t> bytes(names.begin(), names.end());
    bytes.push_back(0);
    auto type = MemRefType::get({static_cast<int64_t>(bytes.size())}, b.getI8Type());
    auto value = DenseElementsAttr::get(RankedTensorType::get(type.getShape(), b.getI8Type()),
                                        ArrayRef<int8_t>(bytes));
    b.setInsertionPointToEnd(module.getBody());
    memref::GlobalOp::create(b, module.getLoc(), SHARDRT_PROFILE_SITES_SYMBOL,
                             b.getStringAttr("public"), type, value, /*constant=*/true,
                             /*alignment=*/nullptr);
  }
};

} // namespace
