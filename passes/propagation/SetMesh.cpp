//===- SetMesh.cpp - garray-set-mesh: axis sizes from the command line ----===//
#include "dialects/garray/GArray.h"
#include "passes/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"

namespace shardc {
#define GEN_PASS_DEF_GARRAYSETMESH
#include "passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace mlir::garray;

namespace {
struct SetMesh : shardc::impl::GArraySetMeshBase<SetMesh> {
  using GArraySetMeshBase::GArraySetMeshBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<StringRef> pairs;
    StringRef(sizes).split(pairs, ',', -1, /*KeepEmpty=*/false);
    for (StringRef pair : pairs) {
      auto [axis, sizeText] = pair.split('=');
      axis = axis.trim();
      int64_t size;
      if (sizeText.trim().getAsInteger(10, size) || size < 1) {
        module.emitError("--mesh: '") << pair << "' is not AXIS=SIZE with a positive size";
        return signalPassFailure();
      }
      bool found = false;
      StringRef axisName = axis; // (a structured binding; lambdas capture it from C++20 on)
      module.walk([&](MeshOp mesh) {
        int a = mesh.axisIndex(axisName);
        if (a < 0)
          return;
        written.try_emplace(mesh.getSymNameAttr(), mesh.getSizes());
        SmallVector<int64_t> s(mesh.getSizes());
        s[a] = size;
        mesh.setSizes(s);
        found = true;
      });
      if (!found) {
        InFlightDiagnostic d = module.emitError("--mesh: no garray.mesh has an axis named \"")
                               << axis << "\"";
        module.walk([&](MeshOp mesh) {
          d.attachNote(mesh.getLoc()) << "mesh @" << mesh.getSymName() << " has axes "
                                      << mesh.getAxes();
        });
        return signalPassFailure();
      }
    }
    if (failed(checkShardMaps(module)) || failed(checkDeviceIds(module)))
      signalPassFailure();
  }

private:
  /// A shard_map's body is written for one block shape and names devices
  /// by id: only the mesh sizes it was written for compile it.
  LogicalResult checkShardMaps(ModuleOp module) {
    LogicalResult ok = success();
    module.walk([&](ShardMapOp map) {
      if (failed(ok) || (map.getArgs().empty() && map.getNumResults() == 0))
        return;
      ShardingAttr s = map.getArgs().empty() ? map.getOutSharding(0) : map.getInSharding(0);
      MeshOp mesh = lookupMesh(map, s.getMesh());
      auto it = mesh ? written.find(mesh.getSymNameAttr()) : written.end();
      if (it == written.end() || llvm::equal(it->second, mesh.getSizes()))
        return;
      InFlightDiagnostic d = map.emitError("--mesh ")
                             << sizes << " resizes mesh @" << mesh.getSymName()
                             << ", but this shard_map's body is written for the blocks and "
                                "devices of its sizes as written; compile it without --mesh";
      d.attachNote(mesh.getLoc()) << "mesh @" << mesh.getSymName() << " is written here";
      ok = failure();
    });
    return ok;
  }

  /// A collective_permute names devices by id: the sizes --mesh gave may no
  /// longer have them. Its verifier says which; a note says that --mesh,
  /// not the program as written, made the mesh that small.
  LogicalResult checkDeviceIds(ModuleOp module) {
    ScopedDiagnosticHandler note(module.getContext(), [&](Diagnostic &d) {
      if (d.getSeverity() == DiagnosticSeverity::Error && current) {
        MeshOp mesh = lookupMesh(current, current.getMeshAttr());
        FailureOr<shardc::Mesh> core = toCoreMesh(mesh);
        int64_t devices = succeeded(core) ? core->deviceCount() : 0;
        Diagnostic &n = d.attachNote(mesh.getLoc());
        n << "--mesh " << sizes << " gives @" << mesh.getSymName() << " " << devices
          << " devices; the program wrote [";
        for (auto [i, axis, size] :
             llvm::enumerate(mesh.getAxes(), written.lookup(mesh.getSymNameAttr())))
          n << (i ? ", \"" : "\"") << cast<StringAttr>(axis).getValue() << "\" = " << size;
        n << "]: write the pairs for the new mesh, or compile without that --mesh";
      }
      return failure(); // the note rides on the error, which is reported as usual
    });
    bool ok = true;
    module.walk([&](CollectivePermuteOp op) {
      if (!written.contains(op.getMeshAttr().getAttr()))
        return;
      current = op;
      ok &= succeeded(verify(op));
      current = {};
    });
    return success(ok);
  }

  /// Each mesh --mesh changed, with the sizes the program wrote.
  llvm::DenseMap<StringAttr, SmallVector<int64_t>> written;
  CollectivePermuteOp current; // the op being checked, for the note
};
} // namespace
