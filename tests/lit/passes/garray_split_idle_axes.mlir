// RUN: shardc-opt %s -split-input-file --garray-split-idle-axes | FileCheck %s
// RUN: shardc-opt %s -split-input-file --garray-split-idle-axes --garray-split-idle-axes \
// RUN:   | FileCheck %s
// RUN: shardc-opt %s -split-input-file --shardc-global-phase --shardc-propagation-phase \
// RUN:   --shardc-partition-phase --shardc-local-phase | FileCheck %s --check-prefix=LOCAL

// "model" is named by no placement: the batch, split over "data", is split
// over "model" too (minor), so the four devices each take a quarter. The
// weights feed back (a result of the same name): they stay as placed.
garray.mesh @mesh ["data" = 2, "model" = 2]

// CHECK-LABEL: func.func @mlp
// CHECK-NEXT: %[[X:.*]] = garray.sharding_constraint %arg0 : tensor<8x4xf32> to #garray.sharding<@mesh, P(("data", "model"), None)> {reason = "mesh axis \22model\22 is idle
// CHECK-NOT: sharding_constraint
// CHECK: garray.dot_general %[[X]], %arg1
// LOCAL-LABEL: func.func @mlp
// LOCAL-SAME: (%arg0: tensor<4x4xf32> {garray.name = "x"}, %arg1: tensor<4x3xf32> {garray.name = "w"})
// LOCAL: comm.all_slice %arg0, dim = 0 groups = {{\[\[}}0, 1], [2, 3]] {{.*}} : tensor<4x4xf32> -> tensor<2x4xf32>
// LOCAL: garray.dot_general {{.*}} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
// LOCAL: comm.all_gather {{.*}} groups = {{\[\[}}0, 1], [2, 3]] {{.*}} : tensor<2x3xf32> -> tensor<4x3xf32>
// LOCAL: comm.all_reduce <sum> {{.*}} groups = {{\[\[}}0, 1, 2, 3]]
func.func @mlp(%x: tensor<8x4xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P("data", None)>},
               %w: tensor<4x3xf32> {garray.name = "w", garray.sharding = #garray.sharding<@mesh, P()>})
    -> (tensor<8x3xf32> {garray.name = "y", garray.sharding = #garray.sharding<@mesh, P("data", None)>},
        tensor<4x3xf32> {garray.name = "w", garray.sharding = #garray.sharding<@mesh, P()>}) {
  %y = garray.dot_general %x, %w, batch = [] x [], contracting = [1] x [0] : (tensor<8x4xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
  %g = garray.dot_general %x, %y, batch = [] x [], contracting = [0] x [0] : (tensor<8x4xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  %w1 = garray.sub %w, %g : tensor<4x3xf32>
  return %y, %w1 : tensor<8x3xf32>, tensor<4x3xf32>
}

// -----

// Both idle axes join, in mesh order; an input split over no dim, and an
// input whose split dim does not divide into the finer blocks, stay.
garray.mesh @mesh ["a" = 2, "b" = 2, "c" = 2]

// CHECK-LABEL: func.func @two_idle
// CHECK-NEXT: garray.sharding_constraint %arg0 : tensor<2x16xf32> to #garray.sharding<@mesh, P(None, ("a", "b", "c"))>
// CHECK-SAME: mesh axes \22b\22, \22c\22 are idle
// CHECK-NOT: sharding_constraint
// CHECK: return
func.func @two_idle(%x: tensor<2x16xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "a")>},
                    %r: tensor<16xf32> {garray.sharding = #garray.sharding<@mesh, P()>},
                    %u: tensor<12xf32> {garray.sharding = #garray.sharding<@mesh, P("a")>})
    -> (tensor<2x16xf32>, tensor<16xf32>, tensor<12xf32>) {
  return %x, %r, %u : tensor<2x16xf32>, tensor<16xf32>, tensor<12xf32>
}

// -----

// A constraint names "model": no axis is idle. A size-1 axis is not idle
// either (it has nothing to share).
garray.mesh @mesh ["data" = 2, "model" = 2, "one" = 1]

// CHECK-LABEL: func.func @named_inside
// CHECK-NOT: idle
func.func @named_inside(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> tensor<8x4xf32> {
  %c = garray.sharding_constraint %x : tensor<8x4xf32> to #garray.sharding<@mesh, P("data", "model")>
  return %c : tensor<8x4xf32>
}

// -----

// A program that places by hand keeps its layout.
garray.mesh @mesh ["data" = 2, "model" = 2]

// CHECK-LABEL: func.func @by_hand
// CHECK-NOT: sharding_constraint
func.func @by_hand(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> tensor<8x4xf32> {
  %r = garray.reshard %x : tensor<8x4xf32> to #garray.sharding<@mesh, P(None, None)>
  return %r : tensor<8x4xf32>
}

// -----

// An input with an open dim is left as written (the constraint's split
// could flow back into it); a priority stays on the split dim; an input
// without a name is not state, so it is split.
garray.mesh @mesh ["data" = 2, "model" = 2]

// CHECK-LABEL: func.func @open_and_priority
// CHECK-NEXT: garray.sharding_constraint %arg1 : tensor<8x4xf32> to #garray.sharding<@mesh, P(("data", "model") p0, None)>
// CHECK-NEXT: garray.sharding_constraint %arg2 : tensor<8xf32> to #garray.sharding<@mesh, P(("data", "model"))>
// CHECK-NOT: sharding_constraint
func.func @open_and_priority(
    %o: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data"?, None)>},
    %p: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data" p0, None)>},
    %u: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>})
    -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8xf32>) {
  return %o, %p, %u : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8xf32>
}

// -----

// Idle axes are each mesh's own: "b" of @m2 is named, "y" of @m1 is not.
garray.mesh @m1 ["x" = 2, "y" = 2]
garray.mesh @m2 ["a" = 2, "b" = 2]

// CHECK-LABEL: func.func @two_meshes
// CHECK-NEXT: garray.sharding_constraint %arg0 : tensor<8xf32> to #garray.sharding<@m1, P(("x", "y"))>
// CHECK-NOT: sharding_constraint
func.func @two_meshes(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@m1, P("x")>})
    -> tensor<8xf32> {
  return %x : tensor<8xf32>
}
func.func @other(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@m2, P("a")>},
                 %y: tensor<8xf32> {garray.sharding = #garray.sharding<@m2, P("b")>})
    -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

// A comm op anywhere (a program placed by hand): nothing is split.
garray.mesh @mesh ["data" = 2, "model" = 2]

// CHECK-LABEL: func.func @comm_inside
// CHECK-NOT: sharding_constraint
func.func @comm_inside(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>})
    -> tensor<8xf32> {
  return %x : tensor<8xf32>
}
func.func private @body(%b: tensor<2xf32>) -> tensor<2xf32> {
  %s = comm.all_reduce <sum> %b groups = [[0, 1, 2, 3]] : tensor<2xf32> -> tensor<2xf32>
  return %s : tensor<2xf32>
}
