// Parsing `shardc_signature` (SignatureText.h).
#include "runtime/exe/SignatureText.h"

#include <sstream>

namespace shardrt::exe {
namespace {

std::vector<std::string> split(const std::string &s, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep))
    parts.push_back(part);
  return parts;
}

bool parseInt(const std::string &s, int64_t &v) {
  if (s.empty() || s.size() > 18 || s.find_first_not_of("0123456789") != std::string::npos)
    return false;
  v = std::stoll(s);
  return true;
}

} // namespace

int64_t Signature::ranks() const {
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  return n;
}

shardrt_placement Signature::placement(const Tensor &t) const {
  shardrt_placement p{};
  p.mesh_rank = static_cast<int32_t>(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i)
    p.mesh_shape[i] = sizes[i];
  p.rank = static_cast<int32_t>(t.shape.size());
  for (size_t d = 0; d < t.dimAxes.size(); ++d) {
    p.dim_num_axes[d] = static_cast<int32_t>(t.dimAxes[d].size());
    for (size_t k = 0; k < t.dimAxes[d].size(); ++k)
      p.dim_axes[d][k] = t.dimAxes[d][k];
  }
  return p;
}

bool parseSignature(const std::string &text, Signature &sig, std::string &error) {
  std::vector<std::string> lines = split(text, '\n');
  if (lines.empty() || lines[0] != "shardc-signature 1") {
    error = "the object's signature is not shardc-signature 1 (recompile with this shardc)";
    return false;
  }
  for (size_t l = 1; l < lines.size(); ++l) {
    std::vector<std::string> f = split(lines[l], ' ');
    auto bad = [&](const std::string &why) {
      error = "the object's signature, line " + std::to_string(l + 1) + " ('" + lines[l] +
              "'): " + why;
      return false;
    };
    if (f.empty() || f[0].empty())
      continue;
    if (f[0] == "entry" && f.size() == 2) {
      sig.entry = f[1];
    } else if (f[0] == "target" && f.size() == 2) {
      sig.target = f[1];
    } else if (f[0] == "mesh" && f.size() % 2 == 1) {
      for (size_t i = 1; i + 1 < f.size(); i += 2) {
        int64_t size;
        if (!parseInt(f[i + 1], size) || size < 1)
          return bad("mesh size '" + f[i + 1] + "'");
        sig.axes.push_back(f[i]);
        sig.sizes.push_back(size);
      }
      if (sig.axes.size() > SHARDRT_MAX_MESH_AXES)
        return bad("more mesh axes than the runtime supports");
    } else if ((f[0] == "in" || f[0] == "out") && f.size() == 5) {
      Tensor t;
      t.name = f[1];
      t.dtype = shardrt_dtype_from_name(f[2].c_str());
      if (t.dtype < 0)
        return bad("dtype '" + f[2] + "'");
      if (f[3] != "()") {
        for (const std::string &d : split(f[3], 'x')) {
          int64_t size;
          if (!parseInt(d, size))
            return bad("shape '" + f[3] + "'");
          t.shape.push_back(size);
        }
        std::vector<std::string> dims = split(f[4], '|');
        if (dims.size() != t.shape.size())
          return bad("placement '" + f[4] + "' does not have one entry per dim");
        for (const std::string &d : dims) {
          std::vector<int32_t> axes;
          if (d != "-")
            for (const std::string &a : split(d, ',')) {
              int64_t axis;
              if (!parseInt(a, axis) || axis >= static_cast<int64_t>(sig.axes.size()))
                return bad("mesh axis '" + a + "'");
              axes.push_back(static_cast<int32_t>(axis));
            }
          t.dimAxes.push_back(axes);
        }
      }
      if (t.shape.size() > SHARDRT_MAX_RANK)
        return bad("rank above the runtime's maximum");
      (f[0] == "in" ? sig.inputs : sig.outputs).push_back(std::move(t));
    } else {
      return bad("not an entry, target, mesh, in or out line");
    }
  }
  if (sig.entry.empty() || sig.target.empty()) {
    error = "the object's signature names no entry or target";
    return false;
  }
  return true;
}

} // namespace shardrt::exe
