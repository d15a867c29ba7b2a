//===- LocalizeShift.h - a sharded shift as a halo exchange -----*- C++ -*-===//
//
// garray-global-to-local calls this for a garray.shift whose shifted dim is
// sharded, after its operand and result have their local types. With s the
// local shard size, |offset| = q*s + r, each local result is two pieces:
// r elements from the shard q+1 away and s-r from the shard q away (q = 0:
// the device's own), each moved by one comm.collective_permute between the
// devices of a group (the devices that differ only along the dim's axes).
// A final select puts the fill wherever the global source index i - offset
// falls outside [0, n) — the array's edge, a device with no neighbour, and
// the padding of a short trailing shard alike — so no boundary case needs
// its own code.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_LOCAL_LOCALIZESHIFT_H
#define SHARDC_PASSES_LOCAL_LOCALIZESHIFT_H

#include "dialects/garray/GArray.h"
#include "sharding/Sharding.h"

namespace shardc {

/// `axes`: the mesh axes the shifted dim is split over (non-empty);
/// `globalSize`: that dim's global extent.
mlir::LogicalResult localizeShift(mlir::garray::ShiftOp shift, const std::vector<int> &axes,
                                  const Mesh &mesh, int64_t globalSize);

} // namespace shardc

#endif // SHARDC_PASSES_LOCAL_LOCALIZESHIFT_H
