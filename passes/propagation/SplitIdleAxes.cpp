//===- SplitIdleAxes.cpp - garray-split-idle-axes ------------------------===//
//
// A mesh axis that no placement names is idle: every value is replicated
// over it, so the devices along it all compute the same thing. A model
// placed on ["data" = 2, "model" = 2] with only P("data") inputs (a small
// model run on the mesh of a large one) does each step twice over.
//
// Idle axes take part in the split of the inputs that are already split:
// an input placed P("data", ...) is read through a constraint to
// P(("data", "model"), ...), appended minor so that each device's part lies
// inside its "data" block. That reshard is a local slice (no bytes move);
// propagation carries the finer split on from there as from any input, and
// the cost is where the program meets a placement again: a result declared
// P("data") is gathered over "model", and a sum over the split dim is
// reduced over both axes. The inputs' own placements (what a caller hands
// each device) do not change; a result whose placement is left to
// propagation may come out split over the idle axes too.
//
// Left alone: inputs that feed back (an output of the same name: training
// state), whose splitting would gather them again every step; inputs with
// an open dim, which the constraint's split could flow back into; and
// programs that place by hand (shard_map bodies, garray collectives,
// reshards, comm ops).
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/StringSet.h"

namespace shardc {
#define GEN_PASS_DEF_GARRAYSPLITIDLEAXES
#include "passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace mlir::garray;

namespace {

/// "mesh/axis" for every axis some sharding in the module names.
llvm::StringSet<> namedAxes(ModuleOp module) {
  llvm::StringSet<> named;
  auto note = [&](ShardingAttr s) {
    StringRef mesh = s.getMesh().getValue();
    for (DimShardingAttr d : s.getDims())
      for (StringAttr a : d.getAxes())
        named.insert((mesh + "/" + a.getValue()).str());
    for (StringAttr a : s.getUnreduced())
      named.insert((mesh + "/" + a.getValue()).str());
  };
  module.walk([&](Operation *op) {
    for (NamedAttribute attr : op->getAttrs())
      attr.getValue().walk([&](ShardingAttr s) { note(s); });
  });
  return named;
}

struct SplitIdleAxes : shardc::impl::GArraySplitIdleAxesBase<SplitIdleAxes> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (placesByHand(module))
      return;
    llvm::StringSet<> named = namedAxes(module);
    idleByMesh.clear();
    for (auto func : module.getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal())
        splitInputs(func, named);
  }

  void splitInputs(func::FuncOp func, const llvm::StringSet<> &named) {
    llvm::StringSet<> fedBack;
    for (unsigned r = 0; r < func.getNumResults(); ++r)
      if (auto name = func.getResultAttrOfType<StringAttr>(r, "garray.name"))
        fedBack.insert(name.getValue());
    OpBuilder b = OpBuilder::atBlockBegin(&func.front());
    for (BlockArgument arg : func.getArguments()) {
      auto s = func.getArgAttrOfType<ShardingAttr>(arg.getArgNumber(), kShardingAttrName);
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "garray.name");
      if (!s || !type || s.isPending() || arg.use_empty() ||
          (name && fedBack.contains(name.getValue())) ||
          llvm::any_of(s.getDims(), [](DimShardingAttr d) { return d.getOpen(); }))
        continue;
      MeshOp mesh = lookupMesh(func, s.getMesh());
      if (!mesh || !mesh.isFullySized())
        continue;
      const IdleAxes &idle = idleAxesOf(mesh, named);
      if (idle.axes.empty())
        continue;
      std::optional<ShardingAttr> finer = splitFirstSplitDim(s, type, mesh, idle);
      if (!finer)
        continue;
      // The reshard this causes is reported at the input, by name.
      Location loc = arg.getLoc();
      if (isa<UnknownLoc>(loc) && name)
        loc = NameLoc::get(name, func.getLoc());
      auto pin = ShardingConstraintOp::create(b, loc, arg, *finer);
      pin->setAttr("reason", b.getStringAttr(idle.reason));
      arg.replaceAllUsesExcept(pin, pin);
    }
  }

  /// The idle axes of one mesh, in mesh order, their product, and the
  /// reason a constraint that splits over them gives.
  struct IdleAxes {
    SmallVector<StringAttr> axes;
    int64_t size = 1;
    std::string reason;
  };

  const IdleAxes &idleAxesOf(MeshOp mesh, const llvm::StringSet<> &named) {
    auto [it, inserted] = idleByMesh.try_emplace(mesh.getSymName());
    IdleAxes &idle = it->second;
    if (!inserted)
      return idle;
    std::string list;
    for (auto [axis, size] :
         llvm::zip(mesh.getAxes().getAsRange<StringAttr>(), mesh.getSizes())) {
      if (size <= 1 || named.contains((mesh.getSymName() + "/" + axis.getValue()).str()))
        continue;
      idle.axes.push_back(axis);
      idle.size *= size;
      list += (list.empty() ? "\"" : ", \"") + axis.getValue().str() + "\"";
    }
    idle.reason = idle.axes.size() == 1
                      ? "mesh axis " + list +
                            " is idle (no placement names it): inputs are split over it too"
                      : "mesh axes " + list +
                            " are idle (no placement names them): inputs are split over them "
                            "too";
    return idle;
  }

  /// `s` with the idle axes appended to its first split dim, when that dim
  /// divides evenly into the finer blocks (uneven blocks would leave some
  /// devices short: not worth it for work that was only repeated).
  static std::optional<ShardingAttr> splitFirstSplitDim(ShardingAttr s, RankedTensorType type,
                                                        MeshOp mesh, const IdleAxes &idle) {
    for (unsigned d = 0; d < type.getRank(); ++d) {
      DimShardingAttr dim = s.getDim(d);
      if (dim.getAxes().empty())
        continue;
      int64_t parts = idle.size;
      for (StringAttr a : dim.getAxes()) {
        int index = mesh.axisIndex(a.getValue());
        if (index < 0) // not this mesh's axis: the verifier's to report
          return std::nullopt;
        parts *= mesh.getSizes()[index];
      }
      if (type.getDimSize(d) % parts != 0)
        return std::nullopt;
      SmallVector<StringAttr> axes(dim.getAxes());
      axes.append(idle.axes.begin(), idle.axes.end());
      SmallVector<DimShardingAttr> dims(s.withRank(type.getRank()).getDims());
      // The input's priority steers what the split reaches, as before.
      dims[d] = DimShardingAttr::get(s.getContext(), axes, /*open=*/false, dim.getPriority());
      return ShardingAttr::get(s.getContext(), s.getMesh(), dims, s.getUnreduced(),
                               s.getUnreducedKind());
    }
    return std::nullopt;
  }

  llvm::StringMap<IdleAxes> idleByMesh;
};

} // namespace
