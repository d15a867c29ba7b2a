//===- SetMesh.cpp - garray-set-mesh: axis sizes from the command line ----===//
#include "dialects/garray/GArray.h"
#include "passes/Passes.h"

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
      module.walk([&](MeshOp mesh) {
        int a = mesh.axisIndex(axis);
        if (a < 0)
          return;
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
  }
};
} // namespace
