//===- Signature.cpp - manifest.json and the collectives report -----------===//
#include "compiler/host/Signature.h"

#include "sharding/Limits.h"
#include "shardrt.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <cctype>

namespace shardc {

namespace json = llvm::json;

static json::Array ints(const std::vector<int64_t> &v) {
  json::Array a;
  for (int64_t x : v)
    a.push_back(x);
  return a;
}

static json::Object tensorJson(const TensorSignature &t) {
  json::Array dimAxes;
  for (const DimSharding &d : t.sharding.dims) {
    json::Array axes;
    for (int a : d.axes)
      axes.push_back(a);
    dimAxes.push_back(std::move(axes));
  }
  return json::Object{{"name", t.name},           {"dtype", t.dtype},
                      {"shape", ints(t.shape)},   {"local_shape", ints(t.localShape)},
                      {"spec", t.spec},           {"dim_axes", std::move(dimAxes)}};
}

static constexpr llvm::StringLiteral kRecordMarker = "shardc-artifact-record:";

std::string artifactRecord(const Signature &sig) {
  std::string out = (kRecordMarker + "v1;abi=" + llvm::Twine(SHARDRT_ABI_VERSION) + ";mesh=").str();
  for (size_t a = 0; a < sig.mesh.axes.size(); ++a)
    out += (a ? "," : "") + sig.mesh.axes[a] + "=" + std::to_string(sig.mesh.sizes[a]);
  for (auto [key, list] : {std::make_pair("in", &sig.inputs), std::make_pair("out", &sig.outputs)})
    for (const TensorSignature &t : *list) {
      out += std::string(";") + key + "=" + t.name + ":" + t.dtype + ":";
      for (size_t d = 0; d < t.localShape.size(); ++d)
        out += (d ? "x" : "") + std::to_string(t.localShape[d]);
    }
  return out;
}

std::string signatureText(const Signature &sig) {
  std::string out = "shardc-signature 1\nentry " + sig.entry + "\ntarget " + sig.target + "\nmesh";
  for (size_t a = 0; a < sig.mesh.axes.size(); ++a)
    out += " " + sig.mesh.axes[a] + " " + std::to_string(sig.mesh.sizes[a]);
  out += "\n";
  for (auto [key, list] : {std::make_pair("in", &sig.inputs), std::make_pair("out", &sig.outputs)})
    for (const TensorSignature &t : *list) {
      std::string shape, dims;
      for (size_t d = 0; d < t.shape.size(); ++d) {
        shape += (d ? "x" : "") + std::to_string(t.shape[d]);
        std::string axes;
        if (d < t.sharding.dims.size())
          for (size_t k = 0; k < t.sharding.dims[d].axes.size(); ++k)
            axes += (k ? "," : "") + std::to_string(t.sharding.dims[d].axes[k]);
        dims += (d ? "|" : "") + (axes.empty() ? std::string("-") : axes);
      }
      if (t.shape.empty())
        shape = dims = "()";
      out += std::string(key) + " " + t.name + " " + t.dtype + " " + shape + " " + dims + "\n";
    }
  return out;
}

std::string embeddedArtifactRecord(llvm::StringRef object) {
  size_t at = object.find(kRecordMarker);
  if (at == llvm::StringRef::npos)
    return "";
  llvm::StringRef rest = object.drop_front(at);
  return rest.take_until([](char c) { return c == '\0'; }).str();
}

std::string sha256Hex(llvm::StringRef bytes) {
  std::array<uint8_t, 32> digest = llvm::SHA256::hash(
      llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
  return llvm::toHex(digest, /*LowerCase=*/true);
}

namespace {

json::Array collectivesJson(const Signature &sig) {
  json::Array collectives;
  for (const CollectiveRecord &c : sig.collectives) {
    json::Array caxes;
    for (const std::string &a : c.axes)
      caxes.push_back(a);
    collectives.push_back(json::Object{{"kind", c.kind},
                                       {"reduction", c.reduction},
                                       {"location", c.location},
                                       {"within", c.within},
                                       {"axes", std::move(caxes)},
                                       {"group_size", c.groupSize},
                                       {"bytes_per_device", c.bytesPerDevice},
                                       {"type", c.valueType},
                                       {"reason", c.reason},
                                       {"order", static_cast<int64_t>(collectives.size())},
                                       {"local_in_type", c.localInType},
                                       {"local_out_type", c.localOutType},
                                       {"local_in_bytes", c.localInBytes},
                                       {"local_out_bytes", c.localOutBytes}});
  }
  return collectives;
}

json::Array combinedJson(const Signature &sig) {
  json::Array combined;
  for (const CombinedCollective &c : sig.combined) {
    json::Array parts;
    for (const CombinedCollective::Part &p : c.parts)
      parts.push_back(json::Object{{"location", p.location},
                                   {"reason", p.reason},
                                   {"local_type", p.localType},
                                   {"bytes", p.bytes}});
    combined.push_back(json::Object{{"kind", c.kind},
                                    {"reduction", c.reduction},
                                    {"local_type", c.localType},
                                    {"group_size", c.groupSize},
                                    {"bytes", c.bytes},
                                    {"within", c.within},
                                    {"parts", std::move(parts)}});
  }
  return combined;
}

} // namespace

std::string reportJson(const Signature &sig) {
  json::Array axes;
  for (const std::string &a : sig.mesh.axes)
    axes.push_back(a);
  int64_t total = 0;
  for (const CollectiveRecord &c : sig.collectives)
    total += c.bytesPerDevice;
  json::Object root{
      {"mesh", json::Object{{"axes", std::move(axes)}, {"sizes", ints(sig.mesh.sizes)}}},
      {"collectives", collectivesJson(sig)},
      {"combined", combinedJson(sig)},
      {"bytes_per_device", total}};
  if (sig.memory.known)
    root["peak_bytes_per_device"] = sig.memory.peakBytesPerDevice;
  std::string out;
  llvm::raw_string_ostream os(out);
  os << json::Value(std::move(root));
  return out;
}

std::string writeManifest(const Signature &sig, const std::string &objectFile,
                          llvm::StringRef object) {
  json::Array inputs, outputs, axes;
  for (const TensorSignature &t : sig.inputs)
    inputs.push_back(tensorJson(t));
  for (const TensorSignature &t : sig.outputs)
    outputs.push_back(tensorJson(t));
  for (const std::string &a : sig.mesh.axes)
    axes.push_back(a);
  json::Array collectives = collectivesJson(sig);
  json::Array largest;
  for (const MemoryValue &v : sig.memory.largest) {
    json::Array unused;
    for (const std::string &a : v.unusedAxes)
      unused.push_back(a);
    largest.push_back(json::Object{{"name", v.name},
                                   {"location", v.location},
                                   {"dtype", v.dtype},
                                   {"shape", ints(v.shape)},
                                   {"local_shape", ints(v.localShape)},
                                   {"spec", v.spec},
                                   {"local_bytes", v.localBytes},
                                   {"replicated_over", std::move(unused)},
                                   {"why", v.why},
                                   {"gathered", v.gathered},
                                   {"group", v.group},
                                   {"suggested_dim", v.suggestedDim}});
  }
  json::Object root{{"format", "shardc-manifest-2"},
                    {"target", sig.target},
                    {"object", objectFile},
                    {"object_sha256", sha256Hex(object)},
                    {"entry", sig.entry},
                    {"mesh", json::Object{{"axes", std::move(axes)}, {"sizes", ints(sig.mesh.sizes)}}},
                    {"inputs", std::move(inputs)},
                    {"outputs", std::move(outputs)},
                    {"collectives", std::move(collectives)},
                    {"combined", combinedJson(sig)}};
  if (!sig.kernels.empty()) {
    json::Array kernels;
    for (const KernelRecord &k : sig.kernels)
      kernels.push_back(json::Object{
          {"module", k.module},
          {"name", k.name},
          {"location", k.location},
          {"grid", json::Array{k.grid[0], k.grid[1], k.grid[2]}},
          {"block", json::Array{k.block[0], k.block[1], k.block[2]}},
          {"registers", k.registers},
          {"shared_bytes", k.sharedBytes},
          {"stack_bytes", k.stackBytes},
          {"spill_store_bytes", k.spillStoreBytes},
          {"spill_load_bytes", k.spillLoadBytes}});
    root["kernels"] = std::move(kernels);
  }
  if (sig.memory.known)
    root["memory"] = json::Object{{"peak_bytes_per_device", sig.memory.peakBytesPerDevice},
                                  {"largest", std::move(largest)}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", json::Value(std::move(root))) << "\n";
  return text;
}

static bool readInts(const json::Array *a, std::vector<int64_t> &out) {
  if (!a)
    return false;
  for (const json::Value &v : *a) {
    auto i = v.getAsInteger();
    if (!i)
      return false;
    out.push_back(*i);
  }
  return true;
}

std::string valueNameProblem(const std::string &name) {
  if (name.empty())
    return "it is empty";
  if (name.size() > 200)
    return "it is longer than 200 characters";
  if (name[0] == '.')
    return "it starts with '.'";
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'))
      return "it holds a character other than A-Z a-z 0-9 _ - .";
  return "";
}

static bool readTensor(const json::Value &v, const Mesh &mesh, TensorSignature &t) {
  const json::Object *o = v.getAsObject();
  if (!o)
    return false;
  auto name = o->getString("name");
  auto dtype = o->getString("dtype");
  auto spec = o->getString("spec");
  const json::Array *dimAxes = o->getArray("dim_axes");
  if (!name || !dtype || !spec || !dimAxes || !readInts(o->getArray("shape"), t.shape) ||
      !readInts(o->getArray("local_shape"), t.localShape))
    return false;
  t.name = name->str();
  if (!valueNameProblem(t.name).empty())
    return false;
  t.dtype = dtype->str();
  t.spec = spec->str();
  t.sharding = TensorSharding::replicated(t.shape.size());
  if (dimAxes->size() != t.shape.size())
    return false;
  for (size_t d = 0; d < dimAxes->size(); ++d) {
    std::vector<int64_t> axes;
    if (!readInts((*dimAxes)[d].getAsArray(), axes))
      return false;
    for (int64_t a : axes) {
      if (a < 0 || a >= static_cast<int64_t>(mesh.axes.size()))
        return false;
      t.sharding.dims[d].axes.push_back(static_cast<int>(a));
    }
  }
  return true;
}

/// "" when `t` is within the bounds a model is compiled under and its local
/// shape is the ceil layout of its global shape on `mesh`; else what is not.
static std::string tensorProblem(const TensorSignature &t, const Mesh &mesh) {
  int32_t dtype = shardrt_dtype_from_name(t.dtype.c_str());
  if (dtype < 0)
    return "dtype '" + t.dtype + "' is not one the runtime knows";
  if (t.shape.size() > SHARDRT_MAX_RANK)
    return "rank " + std::to_string(t.shape.size()) + " is past the runtime's " +
           std::to_string(SHARDRT_MAX_RANK);
  std::optional<int64_t> bytes = static_cast<int64_t>(shardrt_dtype_size(dtype));
  for (int64_t d : t.shape)
    if (d < 0 || d > kMaxDimSize || !(bytes = checkedMul(*bytes, d)))
      return "a dim is negative or past shardc's limits";
  if (*bytes > kMaxTensorBytes)
    return "its size is past shardc's limit of 4 TiB per tensor";
  if (std::string why = t.sharding.validate(mesh); !why.empty())
    return why;
  if (t.localShape != localShape(t.shape, t.sharding, mesh))
    return "its local shape is not the ceil layout of its global shape on the mesh";
  return "";
}

bool readManifest(const std::string &text, Signature &sig, ManifestObject &objectFile,
                  std::string &error) {
  llvm::Expected<json::Value> parsed = json::parse(text);
  if (!parsed) {
    error = "manifest.json is not valid JSON: " + llvm::toString(parsed.takeError());
    return false;
  }
  const json::Object *root = parsed->getAsObject();
  auto bad = [&](const std::string &what) {
    error = "manifest.json: " + what;
    return false;
  };
  if (!root || root->getString("format") != "shardc-manifest-2")
    return bad("not a shardc-manifest-2 file (recompile with this shardc)");
  auto object = root->getString("object");
  auto sha = root->getString("object_sha256");
  auto entry = root->getString("entry");
  const json::Object *mesh = root->getObject("mesh");
  if (!object || !sha || !entry || !mesh)
    return bad("missing object, object_sha256, entry or mesh");
  objectFile.file = object->str();
  objectFile.sha256 = sha->str();
  // The object is a file of the artifact folder itself, named plainly.
  if (objectFile.file.empty() || objectFile.file[0] == '.' ||
      objectFile.file.find('/') != std::string::npos)
    return bad("object '" + objectFile.file + "' is not a file name inside the artifact folder");
  sig.entry = entry->str();
  auto target = root->getString("target");
  if (!target || (*target != "cpu-x86_64" && *target != "ptx-sm_90" && *target != "ptx-sm_90a"))
    return bad("target must be cpu-x86_64, ptx-sm_90 or ptx-sm_90a");
  sig.target = target->str();
  if (sig.entry.empty() || !llvm::all_of(sig.entry, [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
      }))
    return bad("entry '" + sig.entry + "' is not a C symbol name");
  const json::Array *axes = mesh->getArray("axes");
  if (!axes || !readInts(mesh->getArray("sizes"), sig.mesh.sizes))
    return bad("mesh needs axes and sizes");
  for (const json::Value &a : *axes) {
    auto s = a.getAsString();
    if (!s)
      return bad("mesh axes must be strings");
    sig.mesh.axes.push_back(s->str());
  }
  if (sig.mesh.axes.size() != sig.mesh.sizes.size())
    return bad("mesh axes and sizes differ in length");
  if (sig.mesh.axes.empty() || sig.mesh.axes.size() > SHARDRT_MAX_MESH_AXES)
    return bad("a mesh has 1 to " + std::to_string(SHARDRT_MAX_MESH_AXES) + " axes");
  std::optional<int64_t> devices = 1;
  for (size_t i = 0; i < sig.mesh.sizes.size(); ++i) {
    if (sig.mesh.sizes[i] < 1 || !(devices = checkedMul(*devices, sig.mesh.sizes[i])) ||
        *devices > kMaxMeshDevices)
      return bad("mesh sizes must be positive, with at most " + std::to_string(kMaxMeshDevices) +
                 " devices in all");
    for (size_t j = 0; j < i; ++j)
      if (sig.mesh.axes[j] == sig.mesh.axes[i])
        return bad("mesh axis \"" + sig.mesh.axes[i] + "\" appears twice");
  }
  for (auto [key, list] : {std::make_pair("inputs", &sig.inputs),
                           std::make_pair("outputs", &sig.outputs)}) {
    const json::Array *a = root->getArray(key);
    if (!a)
      return bad(std::string("missing ") + key);
    for (const json::Value &v : *a) {
      TensorSignature t;
      if (!readTensor(v, sig.mesh, t))
        return bad(std::string("malformed entry in ") + key);
      if (std::string why = tensorProblem(t, sig.mesh); !why.empty())
        return bad(std::string(key) + " '" + t.name + "': " + why);
      for (const TensorSignature &other : *list)
        if (other.name == t.name)
          return bad(std::string(key) + " name '" + t.name + "' appears twice");
      list->push_back(std::move(t));
    }
  }
  if (const json::Array *cs = root->getArray("collectives"))
    for (const json::Value &v : *cs) {
      const json::Object *o = v.getAsObject();
      if (!o)
        continue;
      CollectiveRecord c;
      c.kind = o->getString("kind").value_or("").str();
      c.reduction = o->getString("reduction").value_or("").str();
      c.location = o->getString("location").value_or("").str();
      c.within = o->getString("within").value_or("").str();
      c.groupSize = o->getInteger("group_size").value_or(1);
      c.bytesPerDevice = o->getInteger("bytes_per_device").value_or(0);
      c.valueType = o->getString("type").value_or("").str();
      c.reason = o->getString("reason").value_or("").str();
      c.localInType = o->getString("local_in_type").value_or("").str();
      c.localOutType = o->getString("local_out_type").value_or("").str();
      c.localInBytes = o->getInteger("local_in_bytes").value_or(0);
      c.localOutBytes = o->getInteger("local_out_bytes").value_or(0);
      if (const json::Array *ax = o->getArray("axes"))
        for (const json::Value &a : *ax)
          if (auto s = a.getAsString())
            c.axes.push_back(s->str());
      sig.collectives.push_back(std::move(c));
    }
  if (const json::Array *cs = root->getArray("combined"))
    for (const json::Value &v : *cs) {
      const json::Object *o = v.getAsObject();
      if (!o)
        continue;
      CombinedCollective c;
      c.kind = o->getString("kind").value_or("all_reduce").str();
      c.reduction = o->getString("reduction").value_or("").str();
      c.localType = o->getString("local_type").value_or("").str();
      c.groupSize = o->getInteger("group_size").value_or(1);
      c.bytes = o->getInteger("bytes").value_or(0);
      c.within = o->getString("within").value_or("").str();
      if (const json::Array *ps = o->getArray("parts"))
        for (const json::Value &pv : *ps)
          if (const json::Object *po = pv.getAsObject())
            c.parts.push_back({po->getString("location").value_or("").str(),
                               po->getString("reason").value_or("").str(),
                               po->getString("local_type").value_or("").str(),
                               po->getInteger("bytes").value_or(0)});
      sig.combined.push_back(std::move(c));
    }
  if (const json::Object *mem = root->getObject("memory")) {
    auto peak = mem->getInteger("peak_bytes_per_device");
    if (!peak)
      return bad("memory needs peak_bytes_per_device");
    sig.memory.known = true;
    sig.memory.peakBytesPerDevice = *peak;
    if (const json::Array *ls = mem->getArray("largest"))
      for (const json::Value &v : *ls) {
        const json::Object *o = v.getAsObject();
        if (!o)
          return bad("malformed entry in memory.largest");
        MemoryValue m;
        m.name = o->getString("name").value_or("").str();
        m.location = o->getString("location").value_or("").str();
        m.dtype = o->getString("dtype").value_or("").str();
        m.spec = o->getString("spec").value_or("").str();
        m.localBytes = o->getInteger("local_bytes").value_or(0);
        m.suggestedDim = static_cast<int>(o->getInteger("suggested_dim").value_or(-1));
        m.why = o->getString("why").value_or("").str();
        m.gathered = o->getBoolean("gathered").value_or(false);
        m.group = o->getInteger("group").value_or(-1);
        readInts(o->getArray("shape"), m.shape);
        readInts(o->getArray("local_shape"), m.localShape);
        if (const json::Array *ax = o->getArray("replicated_over"))
          for (const json::Value &a : *ax)
            if (auto s = a.getAsString())
              m.unusedAxes.push_back(s->str());
        sig.memory.largest.push_back(std::move(m));
      }
  }
  return true;
}

std::string formatReport(const Signature &sig) {
  std::string text;
  llvm::raw_string_ostream os(text);
  int64_t total = 0;
  os << "collectives on mesh " << sig.mesh.str() << ": " << sig.collectives.size() << "\n";
  for (const CollectiveRecord &c : sig.collectives) {
    std::string axes;
    for (const std::string &a : c.axes)
      axes += (axes.empty() ? "" : ",") + ("\"" + a + "\"");
    os << llvm::format("  %-11s %-14s over [%s] group %lld  %8lld B/device  at %s\n",
                       c.kind.c_str(), c.valueType.c_str(), axes.c_str(),
                       static_cast<long long>(c.groupSize),
                       static_cast<long long>(c.bytesPerDevice), c.location.c_str());
    if (!c.within.empty())
      os << "      in " << c.within << "\n";
    if (!c.localInType.empty())
      os << "      local: " << c.localInType << " -> " << c.localOutType << "\n";
    if (!c.reason.empty())
      os << "      why: " << c.reason << "\n";
    total += c.bytesPerDevice;
  }
  os << "  total " << total << " B/device per step\n";
  if (!sig.combined.empty()) {
    size_t parts = 0;
    for (const CombinedCollective &c : sig.combined)
      parts += c.parts.size();
    os << "combined in the local program: " << parts << " all-reduces issued as "
       << sig.combined.size() << "\n";
    for (const CombinedCollective &c : sig.combined) {
      os << llvm::format("  combined %s <%s> %-18s group %lld  %8lld B local", c.kind.c_str(),
                         c.reduction.c_str(), c.localType.c_str(),
                         static_cast<long long>(c.groupSize), static_cast<long long>(c.bytes));
      os << (c.within.empty() ? "" : "  in " + c.within) << "\n";
      for (const CombinedCollective::Part &p : c.parts)
        os << llvm::format("      part %-18s %8lld B  at %s\n", p.localType.c_str(),
                           static_cast<long long>(p.bytes), p.location.c_str());
    }
  }
  if (!sig.overlaps.empty()) {
    size_t exposed = 0, allReduces = 0;
    int64_t exposedBytes = 0;
    for (const OverlapRecord &o : sig.overlaps) {
      allReduces += o.collective == "all_reduce";
      if (o.ops == 0) {
        ++exposed;
        exposedBytes += o.bytes;
      }
    }
    const size_t reduceScatters = sig.overlaps.size() - allReduces;
    os << "asynchronous in the local program: ";
    if (allReduces)
      os << allReduces << (allReduces == 1 ? " all-reduce, " : " all-reduces, ");
    if (reduceScatters)
      os << reduceScatters << (reduceScatters == 1 ? " reduce-scatter, " : " reduce-scatters, ");
    os << exposed << " exposed (" << exposedBytes
       << " B/device with no independent work before the first use)\n";
    for (const OverlapRecord &o : sig.overlaps) {
      os << llvm::format("  async %s <%s> %-18s %8lld B  at %s", o.collective.c_str(),
                         o.reduction.c_str(), o.localType.c_str(),
                         static_cast<long long>(o.bytes), o.location.c_str());
      os << (o.within.empty() ? "" : "  in " + o.within) << "\n";
      if (o.ops == 0)
        os << "      exposed: its result is needed before any other work\n";
      else
        os << llvm::format("      overlaps %lld op%s, ~%.3g arithmetic operations\n",
                           static_cast<long long>(o.ops), o.ops == 1 ? "" : "s",
                           static_cast<double>(o.work));
    }
  }
  if (!sig.kernels.empty()) {
    // A GPU artifact: its kernels, and the ones ptxas says spill.
    int64_t spilling = 0;
    for (const KernelRecord &k : sig.kernels)
      spilling += k.spillStoreBytes + k.spillLoadBytes > 0;
    os << "GPU kernels (" << sig.target << "): " << sig.kernels.size() << ", " << spilling
       << " spilling registers\n";
    for (const KernelRecord &k : sig.kernels)
      os << llvm::format("  %-28s grid %lldx%lldx%lld block %lldx%lldx%lld %3lld registers "
                         "%6lld B shared%s  at %s\n",
                         k.module.c_str(), static_cast<long long>(k.grid[0]),
                         static_cast<long long>(k.grid[1]), static_cast<long long>(k.grid[2]),
                         static_cast<long long>(k.block[0]), static_cast<long long>(k.block[1]),
                         static_cast<long long>(k.block[2]), static_cast<long long>(k.registers),
                         static_cast<long long>(k.sharedBytes),
                         k.spillStoreBytes + k.spillLoadBytes > 0 ? "  SPILLS" : "",
                         k.location.c_str());
  }
  os << formatMemory(sig);
  return text;
}

static std::string shapeStr(const std::vector<int64_t> &shape, const std::string &dtype) {
  std::string s;
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return "tensor<" + s + dtype + ">";
}

static std::string bytesStr(int64_t bytes) {
  std::string s = std::to_string(bytes) + " B";
  if (bytes >= (int64_t(1) << 30))
    s += llvm::formatv(" ({0:F2} GiB)", double(bytes) / double(int64_t(1) << 30)).str();
  else if (bytes >= (int64_t(1) << 20))
    s += llvm::formatv(" ({0:F2} MiB)", double(bytes) / double(1 << 20)).str();
  else if (bytes >= 1024)
    s += llvm::formatv(" ({0:F2} KiB)", double(bytes) / 1024.0).str();
  return s;
}

/// One line per value, and for values replicated over some axis, how to
/// split them.
static void describeLargest(llvm::raw_ostream &os, const Signature &sig, bool advise) {
  int64_t devices = sig.mesh.deviceCount();
  for (const MemoryValue &v : sig.memory.largest) {
    os << "    " << v.name << ": " << shapeStr(v.shape, v.dtype) << " " << v.spec << ", "
       << bytesStr(v.localBytes) << " per device (local " << shapeStr(v.localShape, v.dtype)
       << ") at " << v.location << "\n";
    if (!advise || v.unusedAxes.empty())
      continue;
    std::string axes;
    for (const std::string &a : v.unusedAxes)
      axes += (axes.empty() ? "\"" : ", \"") + a + "\"";
    bool all = v.unusedAxes.size() == sig.mesh.axes.size() ||
               v.spec.find('"') == std::string::npos;
    if (all)
      os << "      replicated: each of the " << devices
         << " devices holds the whole value; no mesh axis splits it";
    else
      os << "      replicated over mesh axis " << axes << " (not used by this value)";
    if (!v.why.empty())
      os << "; " << v.why;
    // A collective's result was made whole by partitioning for an op that
    // needs it so: the fix is at that op's operands, not on this value.
    if (v.gathered) {
      os << "\n";
      continue;
    }
    const std::string &first = v.unusedAxes.front();
    if (v.group >= 0 && v.suggestedDim >= 0)
      os << "; shard the group: annotate its members alike, e.g. dimension " << v.suggestedDim
         << " over \"" << first << "\" on each annotated member, to divide it by that axis' size\n";
    else if (v.group >= 0)
      os << "; no dimension is large enough to split over \"" << first << "\"\n";
    else if (v.suggestedDim >= 0)
      os << "; shard it, e.g. dimension " << v.suggestedDim << " over \"" << first
         << "\" (a garray.sharding annotation or a garray.sharding_constraint), to divide it "
            "by that axis' size\n";
    else
      os << "; no dimension is large enough to split over \"" << first << "\"\n";
  }
}

std::string formatMemory(const Signature &sig) {
  if (!sig.memory.known)
    return "";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "memory: peak " << bytesStr(sig.memory.peakBytesPerDevice)
     << " live per device (estimate)\n";
  if (!sig.memory.largest.empty())
    os << "  largest values:\n";
  describeLargest(os, sig, /*advise=*/false);
  return text;
}

std::string memoryBudgetError(const Signature &sig, int64_t budgetBytes) {
  if (!sig.memory.known || sig.memory.peakBytesPerDevice <= budgetBytes)
    return "";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "estimated peak memory " << bytesStr(sig.memory.peakBytesPerDevice)
     << " per device exceeds --memory-budget=" << budgetBytes << " on mesh " << sig.mesh.str()
     << "\n  largest values:\n";
  describeLargest(os, sig, /*advise=*/true);
  return text;
}

bool parseByteSize(const std::string &text, int64_t &bytes) {
  llvm::StringRef s = llvm::StringRef(text).trim();
  int shift = 0;
  std::string lower = s.lower();
  llvm::StringRef l(lower);
  for (auto [suffix, sh] : {std::make_pair("kib", 10), std::make_pair("mib", 20),
                            std::make_pair("gib", 30), std::make_pair("kb", 10),
                            std::make_pair("mb", 20), std::make_pair("gb", 30),
                            std::make_pair("k", 10), std::make_pair("m", 20),
                            std::make_pair("g", 30), std::make_pair("b", 0)})
    if (l.consume_back(suffix)) {
      shift = sh;
      break;
    }
  unsigned long long n;
  if (l.empty() || l.getAsInteger(10, n) || n == 0 || n > (~0ULL >> (shift + 1)))
    return false;
  bytes = static_cast<int64_t>(n << shift);
  return true;
}

std::string formatCollectiveReasons(const Signature &signature) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << "collectives inserted by partitioning (" << signature.collectives.size() << "):\n";
  for (const CollectiveRecord &c : signature.collectives) {
    os << "  " << c.kind << " over (";
    llvm::interleaveComma(c.axes, os, [&](const std::string &a) { os << '"' << a << '"'; });
    os << ") at " << c.location << (c.within.empty() ? "" : " in " + c.within) << ": "
       << c.valueType << "\n";
    os << "    because: " << (c.reason.empty() ? "(no reason recorded)" : c.reason) << "\n";
  }
  return out;
}

} // namespace shardc
