//===- ReadSignature.cpp - names, dtypes, shapes and placements -----------===//
#include "compiler/report/ReadSignature.h"

#include "dialects/garray/GArray.h"
#include "dialects/garray/RuntimeTypes.h"
#include "sharding/Limits.h"

#include <limits>

using namespace mlir;

namespace shardc {

std::string dtypeName(Type t) {
  std::optional<shardrt_dtype> code = garray::runtimeDtype(t);
  return code ? shardrt_dtype_name(*code) : "";
}

FailureOr<func::FuncOp> findEntry(ModuleOp module, llvm::StringRef name) {
  if (!name.empty()) {
    auto f = module.lookupSymbol<func::FuncOp>(name.starts_with("@") ? name.drop_front() : name);
    if (f && f.isExternal())
      return f.emitError("--entry @")
             << f.getSymName() << " is a declaration (no body): name a function with a body";
    if (!f) {
      std::string defined;
      for (auto g : module.getOps<func::FuncOp>())
        if (!g.isExternal())
          defined += (defined.empty() ? "@" : ", @") + g.getSymName().str();
      return module.emitError("--entry: no function named '")
             << name << "' to compile; the model defines "
             << (defined.empty() ? "no function with a body" : defined);
    }
    return f;
  }
  if (auto main = module.lookupSymbol<func::FuncOp>("main"))
    return main;
  func::FuncOp only;
  for (auto f : module.getOps<func::FuncOp>())
    if (f.isPublic() && !f.isExternal()) {
      if (only)
        return module.emitError("several public functions and none named 'main'; name the "
                                "entry with --entry");
      only = f;
    }
  if (!only)
    return module.emitError("the model has no function to compile");
  return only;
}

LogicalResult readSignature(func::FuncOp func, Signature &sig) {
  garray::MeshOp mesh;
  for (unsigned i = 0; i < func.getNumArguments() && !mesh; ++i)
    if (auto s = garray::getSharding(func.getArgument(i)))
      mesh = garray::lookupMesh(func, s.getMesh());
  for (unsigned i = 0; i < func.getNumResults() && !mesh; ++i)
    if (auto s = garray::getResultSharding(func, i))
      mesh = garray::lookupMesh(func, s.getMesh());
  if (!mesh) {
    // Nothing placed: every value is replicated. With exactly one mesh in the
    // module, still run on all its devices (each computes the whole program).
    auto meshes = func->getParentOfType<ModuleOp>().getOps<garray::MeshOp>();
    if (std::distance(meshes.begin(), meshes.end()) == 1)
      mesh = *meshes.begin();
  }
  if (mesh) {
    FailureOr<Mesh> m = garray::toCoreMesh(mesh);
    if (failed(m))
      return failure();
    sig.mesh = *m;
  } else {
    sig.mesh.axes = {"devices"};
    sig.mesh.sizes = {1};
  }
  auto describe = [&](Type type, garray::ShardingAttr s, std::string name, std::string what,
                      bool isUnsigned) -> FailureOr<TensorSignature> {
    auto t = dyn_cast<RankedTensorType>(type);
    if (!t || !t.hasStaticShape())
      return func.emitError() << what << " must be a tensor with a static shape, not " << type;
    TensorSignature ts;
    ts.name = std::move(name);
    ts.dtype = dtypeName(t.getElementType());
    // garray.unsigned: the same bits, exchanged as u8, u16, u32 or u64.
    if (isUnsigned && ts.dtype.size() > 1 && ts.dtype[0] == 'i')
      ts.dtype[0] = 'u';
    if (ts.dtype.empty())
      return func.emitError() << what << " has element type " << t.getElementType()
                              << ", which the runtime cannot exchange";
    ts.shape.assign(t.getShape().begin(), t.getShape().end());
    ts.sharding = s && mesh ? *garray::toCore(s, mesh, t.getRank())
                            : TensorSharding::replicated(t.getRank());
    for (DimSharding &d : ts.sharding.dims)
      d.open = false;
    ts.localShape = localShape(ts.shape, ts.sharding, sig.mesh);
    ts.spec = ts.sharding.str(sig.mesh);
    return ts;
  };
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    auto name = func.getArgAttrOfType<StringAttr>(i, "garray.name");
    FailureOr<TensorSignature> t =
        describe(func.getArgument(i).getType(), garray::getSharding(func.getArgument(i)),
                 name ? name.str() : "arg" + std::to_string(i),
                 name ? "argument '" + name.str() + "'" : "argument #" + std::to_string(i),
                 bool(func.getArgAttr(i, garray::kUnsignedAttrName)));
    if (failed(t))
      return failure();
    sig.inputs.push_back(std::move(*t));
  }
  for (unsigned i = 0; i < func.getNumResults(); ++i) {
    auto name = func.getResultAttrOfType<StringAttr>(i, "garray.name");
    FailureOr<TensorSignature> t =
        describe(func.getResultTypes()[i], garray::getResultSharding(func, i),
                 name ? name.str() : "result" + std::to_string(i),
                 name ? "result '" + name.str() + "'" : "result #" + std::to_string(i),
                 bool(func.getResultAttr(i, garray::kUnsignedAttrName)));
    if (failed(t))
      return failure();
    sig.outputs.push_back(std::move(*t));
  }
  // A name is a file name too (run --out DIR writes DIR/<name>.npy).
  for (auto *list : {&sig.inputs, &sig.outputs})
    for (size_t a = 0; a < list->size(); ++a)
      if (std::string why = valueNameProblem((*list)[a].name); !why.empty())
        return func.emitError() << (list == &sig.inputs ? "argument #" : "result #") << a
                                << " is named '" << (*list)[a].name << "': " << why
                                << ": a name is also the file `shardc run --out DIR` writes "
                                   "(DIR/<name>.npy), so it is 1 to 200 of A-Z a-z 0-9 _ - . "
                                   "and does not start with '.'";
  // Two arguments or results with one name could not be told apart on the
  // command line.
  for (auto *list : {&sig.inputs, &sig.outputs})
    for (size_t a = 0; a < list->size(); ++a)
      for (size_t b = a + 1; b < list->size(); ++b)
        if ((*list)[a].name == (*list)[b].name)
          return func.emitError() << "two " << (list == &sig.inputs ? "arguments" : "results")
                                  << " are named '" << (*list)[a].name
                                  << "'; give each a distinct garray.name";
  return success();
}

std::string localTypeText(llvm::ArrayRef<int64_t> shape, Type element, int64_t &bytes) {
  std::optional<int64_t> b = std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8);
  for (int64_t d : shape)
    if (b)
      b = checkedMul(*b, d);
  bytes = b.value_or(std::numeric_limits<int64_t>::max()); // past the input contract

  std::string text;
  llvm::raw_string_ostream os(text);
  os << RankedTensorType::get(shape, element);
  return text;
}

} // namespace shardc
