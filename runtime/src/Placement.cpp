// Placement: how a global array is laid out over a mesh under the ceil layout
// (see shardrt.h), and the scatter/gather between global and local arrays.
//
// Invariants: a placement is validated before use (axis indices in range, each
// mesh axis splitting at most one dimension, once).  Local buffers always have
// the padded shard size; scatter zero-fills the padding and gather never reads
// it.  Replicas are compared against the copy gather used (coordinate 0 on the
// unused axes) so a caller can tell "the replicas disagree" from "the answer
// is wrong".
#include "shardrt_layout.h"
#include "Array.h"
#include "Dtype.h"
#include "Error.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace shardrt {
namespace {

struct DimLayout {
  int64_t local = 0;  // padded shard size
  int64_t offset = 0; // start in the global array (clamped to n for empty shards)
  int64_t valid = 0;  // non-padding elements
};

/// Empty when `p` is well formed, else what is wrong.
std::string checkPlacement(const shardrt_placement &p) {
  if (p.mesh_rank < 0 || p.mesh_rank > SHARDRT_MAX_MESH_AXES)
    return format("mesh rank %d is outside 0..%d (SHARDRT_MAX_MESH_AXES)", p.mesh_rank,
                  SHARDRT_MAX_MESH_AXES);
  int64_t meshSize = 1;
  for (int32_t a = 0; a < p.mesh_rank; ++a) {
    if (p.mesh_shape[a] < 1)
      return format("mesh axis %d has size %lld; sizes must be at least 1", a,
                    (long long)p.mesh_shape[a]);
    if (__builtin_mul_overflow(meshSize, p.mesh_shape[a], &meshSize) || meshSize > INT32_MAX)
      return format("the mesh %s has too many devices",
                    formatIds(p.mesh_shape, p.mesh_rank).c_str());
  }
  if (p.rank < 0 || p.rank > SHARDRT_MAX_RANK)
    return format("tensor rank %d is outside 0..%d (SHARDRT_MAX_RANK)", p.rank,
                  SHARDRT_MAX_RANK);
  int32_t usedBy[SHARDRT_MAX_MESH_AXES];
  std::fill(usedBy, usedBy + SHARDRT_MAX_MESH_AXES, -1);
  for (int32_t d = 0; d < p.rank; ++d) {
    if (p.dim_num_axes[d] < 0 || p.dim_num_axes[d] > p.mesh_rank)
      return format("dim %d is split over %d mesh axes but the mesh has %d", d,
                    p.dim_num_axes[d], p.mesh_rank);
    for (int32_t t = 0; t < p.dim_num_axes[d]; ++t) {
      int32_t a = p.dim_axes[d][t];
      if (a < 0 || a >= p.mesh_rank)
        return format("dim %d names mesh axis %d but the mesh has %d axes (0..%d)", d, a,
                      p.mesh_rank, p.mesh_rank - 1);
      if (usedBy[a] == d)
        return format("mesh axis %d appears twice in dim %d", a, d);
      if (usedBy[a] >= 0)
        return format("mesh axis %d splits both dim %d and dim %d; an axis may split at most "
                      "one dimension",
                      a, usedBy[a], d);
      usedBy[a] = d;
    }
  }
  return std::string();
}

int64_t meshSizeOf(const shardrt_placement &p) {
  int64_t n = 1;
  for (int32_t a = 0; a < p.mesh_rank; ++a)
    n *= p.mesh_shape[a];
  return n;
}

/// Row-major coordinates of `device` on the mesh axes.
void deviceCoords(const shardrt_placement &p, int64_t device, int64_t *coords) {
  for (int32_t a = p.mesh_rank - 1; a >= 0; --a) {
    coords[a] = device % p.mesh_shape[a];
    device /= p.mesh_shape[a];
  }
}

void layoutOf(const shardrt_placement &p, const int64_t *globalShape, int64_t device,
              DimLayout *out) {
  int64_t coords[SHARDRT_MAX_MESH_AXES];
  deviceCoords(p, device, coords);
  for (int32_t d = 0; d < p.rank; ++d) {
    int64_t k = 1, j = 0;
    for (int32_t t = 0; t < p.dim_num_axes[d]; ++t) {
      int32_t a = p.dim_axes[d][t];
      k *= p.mesh_shape[a];
      j = j * p.mesh_shape[a] + coords[a];
    }
    const int64_t n = globalShape[d];
    out[d].local = shardrt_shard_size(n, k);
    out[d].offset = shardrt_shard_offset(n, k, j);
    out[d].valid = shardrt_shard_valid(n, k, j);
  }
}

/// Whether `device` holds the copy gather uses: coordinate 0 on every mesh
/// axis that splits no dimension.
bool isPrimary(const shardrt_placement &p, int64_t device) {
  bool used[SHARDRT_MAX_MESH_AXES] = {};
  for (int32_t d = 0; d < p.rank; ++d)
    for (int32_t t = 0; t < p.dim_num_axes[d]; ++t)
      used[p.dim_axes[d][t]] = true;
  int64_t coords[SHARDRT_MAX_MESH_AXES];
  deviceCoords(p, device, coords);
  for (int32_t a = 0; a < p.mesh_rank; ++a)
    if (!used[a] && coords[a] != 0)
      return false;
  return true;
}

/// Calls fn(dstIndex, srcIndex, length) for each innermost row of an `extent`
/// box placed at `dstOff` in an array of `dstShape` and at `srcOff` in one of
/// `srcShape` (indices in elements).
template <typename Fn>
void forEachRow(int32_t rank, const int64_t *extent, const int64_t *dstShape,
                const int64_t *dstOff, const int64_t *srcShape, const int64_t *srcOff, Fn fn) {
  if (rank == 0) {
    fn(0, 0, 1);
    return;
  }
  for (int32_t d = 0; d < rank; ++d)
    if (extent[d] == 0)
      return;
  int64_t dstStride[SHARDRT_MAX_RANK], srcStride[SHARDRT_MAX_RANK];
  dstStride[rank - 1] = srcStride[rank - 1] = 1;
  for (int32_t d = rank - 2; d >= 0; --d) {
    dstStride[d] = dstStride[d + 1] * dstShape[d + 1];
    srcStride[d] = srcStride[d + 1] * srcShape[d + 1];
  }
  int64_t idx[SHARDRT_MAX_RANK] = {};
  while (true) {
    int64_t dst = 0, src = 0;
    for (int32_t d = 0; d < rank; ++d) {
      dst += (dstOff[d] + idx[d]) * dstStride[d];
      src += (srcOff[d] + idx[d]) * srcStride[d];
    }
    fn(dst, src, extent[rank - 1]);
    int32_t d = rank - 2;
    for (; d >= 0; --d) {
      if (++idx[d] < extent[d])
        break;
      idx[d] = 0;
    }
    if (d < 0)
      return;
  }
}

double absDiff(const void *a, int64_t i, const void *b, int64_t j, int32_t dtype) {
  if (dtype == SHARDRT_I64) { // exact, where a double round trip would not be
    int64_t x, y;
    std::memcpy(&x, static_cast<const char *>(a) + i * 8, 8);
    std::memcpy(&y, static_cast<const char *>(b) + j * 8, 8);
    uint64_t d = x > y ? static_cast<uint64_t>(x) - static_cast<uint64_t>(y)
                       : static_cast<uint64_t>(y) - static_cast<uint64_t>(x);
    return static_cast<double>(d);
  }
  double x = loadAsDouble(a, i, dtype), y = loadAsDouble(b, j, dtype);
  if (x == y || (std::isnan(x) && std::isnan(y)))
    return 0;
  if (std::isnan(x) || std::isnan(y))
    return std::numeric_limits<double>::infinity();
  return std::fabs(x - y);
}

shardrt_status scatter(const shardrt_array *global, const shardrt_placement *p, int64_t device,
                       shardrt_array *local) {
  std::string bad = checkPlacement(*p);
  if (!bad.empty())
    return fail(SHARDRT_ERR_ARGUMENT, "shardrt_scatter: placement: %s", bad.c_str());
  if (global->rank != p->rank)
    return fail(SHARDRT_ERR_ARGUMENT,
                "shardrt_scatter: the global array has rank %d but the placement is for rank %d",
                global->rank, p->rank);
  if (!isValidDtype(global->dtype))
    return fail(SHARDRT_ERR_ARGUMENT, "shardrt_scatter: dtype %d is not a shardrt_dtype",
                global->dtype);
  const size_t es = shardrt_dtype_size(global->dtype);
  int64_t numel = checkedNumel(global->rank, global->shape, es);
  if (numel < 0)
    return fail(SHARDRT_ERR_ARGUMENT,
                "shardrt_scatter: global shape %s has a negative dimension or is too large",
                formatShape(global->rank, global->shape).c_str());
  if (numel > 0 && !global->data)
    return fail(SHARDRT_ERR_ARGUMENT, "shardrt_scatter: the global array's data is NULL");
  const int64_t meshSize = meshSizeOf(*p);
  if (device < 0 || device >= meshSize)
    return fail(SHARDRT_ERR_ARGUMENT, "shardrt_scatter: device %lld is outside the mesh (0..%lld)",
                (long long)device, (long long)(meshSize - 1));

  DimLayout lay[SHARDRT_MAX_RANK];
  layoutOf(*p, global->shape, device, lay);
  int64_t localShape[SHARDRT_MAX_RANK], offset[SHARDRT_MAX_RANK], valid[SHARDRT_MAX_RANK];
  const int64_t zero[SHARDRT_MAX_RANK] = {};
  for (int32_t d = 0; d < p->rank; ++d) {
    localShape[d] = lay[d].local;
    offset[d] = lay[d].offset;
    valid[d] = lay[d].valid;
  }
  if (shardrt_status s = shardrt_array_alloc(local, global->dtype, p->rank, localShape))
    return fail(s, "shardrt_scatter: %s", lastError().c_str());
  char *dst = static_cast<char *>(local->data);
  const char *src = static_cast<const char *>(global->data);
  forEachRow(p->rank, valid, localShape, zero, global->shape, offset,
             [&](int64_t di, int64_t si, int64_t len) {
               std::memcpy(dst + di * es, src + si * es, static_cast<size_t>(len) * es);
             });
  return SHARDRT_OK;
}

shardrt_status gather(const shardrt_array *locals, const shardrt_placement *p,
                      const int64_t *globalShape, int32_t dtype, shardrt_array *global,
                      double *maxReplicaDiff) {
  std::string bad = checkPlacement(*p);
  if (!bad.empty())
    return fail(SHARDRT_ERR_ARGUMENT, "shardrt_gather: placement: %s", bad.c_str());
  if (!isValidDtype(dtype))
    return fail(SHARDRT_ERR_ARGUMENT, "shardrt_gather: dtype %d is not a shardrt_dtype", dtype);
  if (p->rank > 0 && !globalShape)
    return fail(SHARDRT_ERR_ARGUMENT, "shardrt_gather: global_shape is NULL");
  const size_t es = shardrt_dtype_size(dtype);
  if (checkedNumel(p->rank, globalShape, es) < 0)
    return fail(SHARDRT_ERR_ARGUMENT,
                "shardrt_gather: global shape %s has a negative dimension or is too large",
                formatShape(p->rank, globalShape).c_str());

  const int64_t meshSize = meshSizeOf(*p);
  DimLayout lay[SHARDRT_MAX_RANK];
  int64_t localShape[SHARDRT_MAX_RANK];
  for (int64_t dev = 0; dev < meshSize; ++dev) {
    const shardrt_array &l = locals[dev];
    layoutOf(*p, globalShape, dev, lay);
    for (int32_t d = 0; d < p->rank; ++d)
      localShape[d] = lay[d].local;
    if (l.dtype != dtype)
      return fail(SHARDRT_ERR_ARGUMENT, "shardrt_gather: locals[%lld] has dtype %s, expected %s",
                  (long long)dev, shardrt_dtype_name(l.dtype) ? shardrt_dtype_name(l.dtype) : "?",
                  shardrt_dtype_name(dtype));
    if (l.rank != p->rank ||
        !std::equal(localShape, localShape + p->rank, static_cast<const int64_t *>(l.shape)))
      return fail(SHARDRT_ERR_ARGUMENT,
                  "shardrt_gather: locals[%lld] has shape %s but device %lld's padded local "
                  "shape is %s",
                  (long long)dev, formatShape(l.rank, l.shape).c_str(), (long long)dev,
                  formatShape(p->rank, localShape).c_str());
    if (!l.data && checkedNumel(p->rank, localShape, es) > 0)
      return fail(SHARDRT_ERR_ARGUMENT, "shardrt_gather: locals[%lld] has NULL data",
                  (long long)dev);
  }

  if (shardrt_status s = shardrt_array_alloc(global, dtype, p->rank, globalShape))
    return fail(s, "shardrt_gather: %s", lastError().c_str());
  char *dst = static_cast<char *>(global->data);
  const int64_t zero[SHARDRT_MAX_RANK] = {};
  int64_t offset[SHARDRT_MAX_RANK], valid[SHARDRT_MAX_RANK];
  double diff = 0;
  // Primaries first, so that every replica is compared with the final copy.
  for (int pass = 0; pass < (maxReplicaDiff ? 2 : 1); ++pass) {
    for (int64_t dev = 0; dev < meshSize; ++dev) {
      if (isPrimary(*p, dev) != (pass == 0))
        continue;
      layoutOf(*p, globalShape, dev, lay);
      for (int32_t d = 0; d < p->rank; ++d) {
        localShape[d] = lay[d].local;
        offset[d] = lay[d].offset;
        valid[d] = lay[d].valid;
      }
      const char *src = static_cast<const char *>(locals[dev].data);
      forEachRow(p->rank, valid, globalShape, offset, localShape, zero,
                 [&](int64_t di, int64_t si, int64_t len) {
                   if (pass == 0) {
                     std::memcpy(dst + di * es, src + si * es, static_cast<size_t>(len) * es);
                     return;
                   }
                   for (int64_t k = 0; k < len; ++k)
                     diff = std::max(diff, absDiff(dst, di + k, src, si + k, dtype));
                 });
    }
  }
  if (maxReplicaDiff)
    *maxReplicaDiff = diff;
  return SHARDRT_OK;
}

} // namespace
} // namespace shardrt

using namespace shardrt;

extern "C" {

int64_t shardrt_mesh_size(const shardrt_placement *p) {
  if (!p || !checkPlacement(*p).empty())
    return 0;
  return meshSizeOf(*p);
}

shardrt_status shardrt_local_layout(const shardrt_placement *p, const int64_t *global_shape,
                                    int64_t device, int64_t *local_shape, int64_t *offset,
                                    int64_t *valid) {
  if (!p)
    return fail(SHARDRT_ERR_ARGUMENT, "shardrt_local_layout: placement is NULL");
  std::string bad = checkPlacement(*p);
  if (!bad.empty())
    return fail(SHARDRT_ERR_ARGUMENT, "shardrt_local_layout: placement: %s", bad.c_str());
  if (p->rank > 0 && (!global_shape || !local_shape || !offset || !valid))
    return fail(SHARDRT_ERR_ARGUMENT,
                "shardrt_local_layout: global_shape, local_shape, offset and valid must not be "
                "NULL");
  for (int32_t d = 0; d < p->rank; ++d)
    if (global_shape[d] < 0)
      return fail(SHARDRT_ERR_ARGUMENT, "shardrt_local_layout: dim %d has size %lld", d,
                  (long long)global_shape[d]);
  const int64_t meshSize = meshSizeOf(*p);
  if (device < 0 || device >= meshSize)
    return fail(SHARDRT_ERR_ARGUMENT,
                "shardrt_local_layout: device %lld is outside the mesh (0..%lld)",
                (long long)device, (long long)(meshSize - 1));
  DimLayout lay[SHARDRT_MAX_RANK];
  layoutOf(*p, global_shape, device, lay);
  for (int32_t d = 0; d < p->rank; ++d) {
    local_shape[d] = lay[d].local;
    offset[d] = lay[d].offset;
    valid[d] = lay[d].valid;
  }
  return SHARDRT_OK;
}

shardrt_status shardrt_scatter(const shardrt_array *global, const shardrt_placement *p,
                               int64_t device, shardrt_array *local) {
  if (!local)
    return fail(SHARDRT_ERR_ARGUMENT, "shardrt_scatter: local is NULL");
  std::memset(local, 0, sizeof *local);
  if (!global || !p)
    return fail(SHARDRT_ERR_ARGUMENT, "shardrt_scatter: %s is NULL", !global ? "global" : "placement");
  return scatter(global, p, device, local);
}

shardrt_status shardrt_gather(const shardrt_array *locals, const shardrt_placement *p,
                              const int64_t *global_shape, int32_t dtype, shardrt_array *global,
                              double *max_replica_diff) {
  if (!global)
    return fail(SHARDRT_ERR_ARGUMENT, "shardrt_gather: global is NULL");
  std::memset(global, 0, sizeof *global);
  if (!locals || !p)
    return fail(SHARDRT_ERR_ARGUMENT, "shardrt_gather: %s is NULL", !locals ? "locals" : "placement");
  return gather(locals, p, global_shape, dtype, global, max_replica_diff);
}

} // extern "C"
