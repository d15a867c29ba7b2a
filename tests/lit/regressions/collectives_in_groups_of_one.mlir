// RUN: shardc compile %s --emit=partitioned | FileCheck %s --check-prefix=PART
// RUN: shardc compile %s --emit=local | FileCheck %s --check-prefix=LOCAL
// RUN: shardc report %s | FileCheck %s --check-prefix=REPORT
//
// On a mesh whose "model" axis has size 1, the dot's pending sum over
// "model" is reduced before the add (the partitioned program has that
// all_reduce), but its groups have one member each: the local program runs
// no such collective and the report does not list it. The sum over "data"
// stays.

garray.mesh @mesh ["data" = 2, "model" = 1]
func.func @main(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", "model")>},
                %w: tensor<4x3xf32> {garray.sharding = #garray.sharding<@mesh, P("model", None)>},
                %b: tensor<8x3xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> tensor<3xf32> {
  %y = garray.dot_general %x, %w, batch = [] x [], contracting = [1] x [0] : (tensor<8x4xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
  %z = garray.add %y, %b : tensor<8x3xf32>
  %s = garray.reduce <sum> %z, dims = [0] : (tensor<8x3xf32>) -> tensor<3xf32>
  return %s : tensor<3xf32>
}

// PART: garray.all_reduce <sum> %{{.*}} on @mesh ["model"]
// PART: garray.all_reduce <sum> %{{.*}} on @mesh ["data"]

// LOCAL: %[[Y:.*]] = garray.dot_general
// LOCAL-NEXT: garray.add %[[Y]], %arg2 : tensor<4x3xf32>
// LOCAL: comm.all_reduce <sum> %{{.*}} groups = {{\[}}[0, 1]]
// LOCAL-NOT: comm.
// LOCAL: return

// REPORT: collectives on mesh ["data"=2, "model"=1]: 1
// REPORT-NEXT: all_reduce  tensor<3xf32>  over ["data"] group 2
// REPORT-NOT: group 1
