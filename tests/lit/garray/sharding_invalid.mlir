// RUN: shardc-opt %s -split-input-file -verify-diagnostics --garray-propagate
//
// #garray.sharding and the ops that carry one (sharding_constraint, reshard).
// sharding_c1 is checked when the attribute is parsed; sharding_c2..c4 need
// the value and the mesh, so they are checked where the attribute is used: by
// the sharding_constraint / reshard verifiers (inside their own label) and, for
// function arguments and results, by garray-propagate (hence the pass in the
// RUN line; cases that fail verification never reach it).

garray.mesh @mesh ["data" = 2]
// expected-error @+1 {{sharding_c1: mesh axis "data" appears twice (again in dim 1)}}
func.func @c1_two_dims(%x: tensor<8x2xf32> {garray.sharding = #garray.sharding<@mesh, P("data", "data")>}) {
  return
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]
// expected-error @+1 {{sharding_c1: mesh axis "data" appears twice (again in dim 1)}}
func.func @c1_in_tuple(%x: tensor<8x2xf32> {garray.sharding = #garray.sharding<@mesh, P(("model", "data"), ("data"))>}) {
  return
}

// -----

garray.mesh @mesh ["data" = 2]
// expected-error @+1 {{sharding_c1: mesh axis "data" appears twice (again in unreduced)}}
func.func @c1_unreduced(%x: tensor<8x2xf32> {garray.sharding = #garray.sharding<@mesh, P("data"), unreduced = sum("data")>}) {
  return
}

// -----

garray.mesh @mesh ["data" = 2]
func.func @c1_on_constraint(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{sharding_c1: mesh axis "data" appears twice (again in dim 0)}}
  %0 = garray.sharding_constraint %x : tensor<8xf32> to #garray.sharding<@mesh, P(("data", "data"))>
  return %0 : tensor<8xf32>
}

// -----

// Syntax errors name what was expected.

garray.mesh @mesh ["data" = 2]
// expected-error @+1 {{unknown reduction 'avg'; expected sum, max, min or prod}}
func.func @bad_kind(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(), unreduced = avg("data")>}) {
  return
}

// -----

garray.mesh @mesh ["data" = 2]
// expected-error @+1 {{expected a dimension entry: None, ?, "axis" or ("a", "b")}}
func.func @bare_axis(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(data)>}) {
  return
}

// -----

garray.mesh @mesh ["data" = 2]
func.func @c2_constraint(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{sharding_constraint_c1: the constraint: sharding_c2: the sharding has 2 entries but the value has rank 1}}
  %0 = garray.sharding_constraint %x : tensor<8xf32> to #garray.sharding<@mesh, P("data", None)>
  return %0 : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]
func.func @c3_constraint(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{sharding_constraint_c1: the constraint: sharding_c3: "model" is not an axis of mesh @mesh}}
  %0 = garray.sharding_constraint %x : tensor<8xf32> to #garray.sharding<@mesh, P("model")>
  return %0 : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]
func.func @c3_constraint_unreduced(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{sharding_constraint_c1: the constraint: sharding_c3: "model" is not an axis of mesh @mesh}}
  %0 = garray.sharding_constraint %x : tensor<8xf32> to #garray.sharding<@mesh, P(), unreduced = sum("model")>
  return %0 : tensor<8xf32>
}

// -----

// With a `?` size the constraint verifies, and the pass stops on the
// unsized mesh.
// expected-error @+1 {{mesh axis "data" has no size; give one with --mesh data=N}}
garray.mesh @mesh ["data" = ?]
func.func @c4_waits_for_size(%x: tensor<7xf32>) -> tensor<7xf32> {
  %0 = garray.sharding_constraint %x : tensor<7xf32> to #garray.sharding<@mesh, P("data")>
  return %0 : tensor<7xf32>
}

// -----

func.func @constraint_c1_no_mesh(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{sharding_constraint_c1: the constraint names mesh @mesh, but no garray.mesh with that name is in scope}}
  %0 = garray.sharding_constraint %x : tensor<8xf32> to #garray.sharding<@mesh, P()>
  return %0 : tensor<8xf32>
}

// -----

func.func private @mesh()
func.func @constraint_c1_not_a_mesh(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{sharding_constraint_c1: the constraint names mesh @mesh, but no garray.mesh with that name is in scope}}
  %0 = garray.sharding_constraint %x : tensor<8xf32> to #garray.sharding<@mesh, P()>
  return %0 : tensor<8xf32>
}

// -----

func.func @reshard_c1_no_mesh(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{reshard_c1: the target names mesh @nomesh, but no garray.mesh with that name is in scope}}
  %0 = garray.reshard %x : tensor<8xf32> to #garray.sharding<@nomesh, P("data")>
  return %0 : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]
func.func @reshard_c1_rank(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{reshard_c1: the target: sharding_c2: the sharding has 2 entries but the value has rank 1}}
  %0 = garray.reshard %x : tensor<8xf32> to #garray.sharding<@mesh, P("data", None)>
  return %0 : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]
func.func @reshard_c2_priority(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{reshard_c2: the target #garray.sharding<@mesh, P("data" p0)> is not exact: a reshard's target has no open dims ('?') and no priorities ('pN'); use garray.sharding_constraint to steer propagation}}
  %0 = garray.reshard %x : tensor<8xf32> to #garray.sharding<@mesh, P("data" p0)>
  return %0 : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]
func.func @reshard_c2_open(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{reshard_c2: the target #garray.sharding<@mesh, P("data"?)> is not exact}}
  %0 = garray.reshard %x : tensor<8xf32> to #garray.sharding<@mesh, P("data"?)>
  return %0 : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]
func.func @reshard_c1_axis(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{reshard_c1: the target: sharding_c3: "model" is not an axis of mesh @mesh}}
  %0 = garray.reshard %x : tensor<8xf32> to #garray.sharding<@mesh, P(), unreduced = max("model")>
  return %0 : tensor<8xf32>
}

// -----

// sharding_c2..c4 on function arguments and results, found by garray-propagate;
// a named argument or result (garray.name) is called by its name.

garray.mesh @mesh ["data" = 2]
// expected-error @+1 {{argument #0: sharding_c2: the sharding has 2 entries but the value has rank 1}}
func.func @c2_argument(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]
// expected-error @+1 {{argument 'X': sharding_c3: "model" is not an axis of mesh @mesh}}
func.func @c3_argument(%x: tensor<8xf32> {garray.name = "X", garray.sharding = #garray.sharding<@mesh, P("model")>}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 3]
// expected-error @+1 {{result #0: sharding_c3: "nope" is not an axis of mesh @mesh}}
func.func @c3_result(%x: tensor<9xf32>) -> (tensor<9xf32> {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("nope")>}) {
  return %x : tensor<9xf32>
}

// -----

garray.mesh @mesh ["data" = 3]
// expected-error @+1 {{result #0 is placed on a mesh but has type 'i32', not a ranked tensor}}
func.func @result_not_a_tensor(%x: tensor<9xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> (i32 {garray.sharding = #garray.sharding<@mesh, P()>}) {
  %c = arith.constant 1 : i32
  return %c : i32
}

// -----

// expected-error @+1 {{mesh @mesh, but no garray.mesh with that name is in scope}}
func.func @argument_no_mesh(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]
garray.mesh @other ["data" = 2]
// expected-error @+2 {{argument #1 of @two_meshes names mesh @other, but argument #0 of @two_meshes names @mesh: the values of one function live on one mesh; place both on one mesh, which may have the axes of both}}
// expected-note @+1 {{@mesh is named here}}
func.func @two_meshes(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}, %y: tensor<8xf32> {garray.sharding = #garray.sharding<@other, P("data")>}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

// The error points at the argument that names the second mesh, by its name.
garray.mesh @mesh ["data" = 2]
garray.mesh @other ["data" = 2]
// expected-note @+1 {{@mesh is named here}}
func.func @two_meshes_named(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>},
                            // expected-error @+1 {{argument 'y' of @two_meshes_named names mesh @other, but argument #0 of @two_meshes_named names @mesh}}
                            %y: tensor<8xf32> {garray.name = "y", garray.sharding = #garray.sharding<@other, P("data")>}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

// Sizes need not divide over their axes (ceil layout; the padding is masked
// in global-to-local): 8 over 3 and 4 over 6 verify, on constraints,
// reshards, arguments and results alike.
garray.mesh @mesh ["data" = 2, "model" = 3]
func.func @uneven_accepted(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("model")>})
    -> (tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("model", None)>}) {
  %0 = garray.sharding_constraint %x : tensor<8x4xf32> to #garray.sharding<@mesh, P(None, ("data", "model"))>
  %1 = garray.reshard %0 : tensor<8x4xf32> to #garray.sharding<@mesh, P("model")>
  return %1 : tensor<8x4xf32>
}

// -----

// An op's annotation in the body must name the signature's mesh too
// (propagation reads the body's annotations on that mesh).
garray.mesh @mesh ["data" = 2]
garray.mesh @other ["data" = 2]
// expected-note @+1 {{@mesh is named here}}
func.func @body_names_other_mesh(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<8xf32> {
  // expected-error @+1 {{the sharding written on this 'garray.add' names mesh @other, but the signature of @body_names_other_mesh names @mesh}}
  %y = garray.add %x, %x {garray.sharding = #garray.sharding<@other, P("data")>} : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// A second placement written on a reshard's result is not silently replaced
// by the target.
garray.mesh @mesh ["a" = 2, "b" = 2]
func.func @reshard_c3_disagrees(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{reshard_c3: its garray.sharding #garray.sharding<@mesh, P("a")> places the result differently from the target #garray.sharding<@mesh, P("b")>; the target is the result's placement: drop the garray.sharding attribute or make it equal the target}}
  %0 = garray.reshard %x : tensor<8xf32> to #garray.sharding<@mesh, P("b")> {garray.sharding = #garray.sharding<@mesh, P("a")>}
  return %0 : tensor<8xf32>
}

// -----

garray.mesh @mesh ["a" = 2, "b" = 2]
func.func @sharding_constraint_c2_disagrees(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{sharding_constraint_c2: its garray.sharding #garray.sharding<@mesh, P("a", None)> places the result differently from the target #garray.sharding<@mesh, P("b", None)>}}
  %0 = garray.sharding_constraint %x : tensor<8x8xf32> to #garray.sharding<@mesh, P("b", None)> {garray.sharding = #garray.sharding<@mesh, P("a", None)>}
  return %0 : tensor<8x8xf32>
}

// -----

// A written placement that extends an open target dim is not read (the
// target is the annotation), so it is an error too; propagation writes the
// extended target along with it.
garray.mesh @mesh ["a" = 2, "b" = 2]
func.func @sharding_constraint_c2_open_extended(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{sharding_constraint_c2: its garray.sharding #garray.sharding<@mesh, P("a", "b")> places the result differently from the target #garray.sharding<@mesh, P("a" p1, ?)>}}
  %0 = garray.sharding_constraint %x : tensor<8x8xf32> to #garray.sharding<@mesh, P("a" p1, ?)> {garray.sharding = #garray.sharding<@mesh, P("a", "b")>}
  return %0 : tensor<8x8xf32>
}

// -----

// The same layout, open where the target is, agrees; priorities aside.
garray.mesh @mesh ["a" = 2, "b" = 2]
func.func @sharding_constraint_c2_same_layout(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = garray.sharding_constraint %x : tensor<8x8xf32> to #garray.sharding<@mesh, P("b"? p0, ?)> {garray.sharding = #garray.sharding<@mesh, P("b"?, ?)>}
  return %0 : tensor<8x8xf32>
}

// -----

// A placement that closes a dim the target leaves open says the result
// cannot grow there, while propagation grows it: an error (it was accepted
// and overwritten).
garray.mesh @mesh ["a" = 2, "b" = 2]
func.func @sharding_constraint_c2_closes_open_dim(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{sharding_constraint_c2: its garray.sharding #garray.sharding<@mesh, P("b", None)> places the result differently from the target #garray.sharding<@mesh, P("b"?, None)>}}
  %0 = garray.sharding_constraint %x : tensor<8x8xf32> to #garray.sharding<@mesh, P("b"?, None)> {garray.sharding = #garray.sharding<@mesh, P("b", None)>}
  return %0 : tensor<8x8xf32>
}

// -----

garray.mesh @mesh ["a" = 2, "b" = 2]
func.func @sharding_constraint_c2_open_prefix(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{sharding_constraint_c2: its garray.sharding #garray.sharding<@mesh, P(("a", "b"), None)> places the result differently from the target #garray.sharding<@mesh, P("b"?, None)>}}
  %0 = garray.sharding_constraint %x : tensor<8x8xf32> to #garray.sharding<@mesh, P("b"?, None)> {garray.sharding = #garray.sharding<@mesh, P(("a", "b"), None)>}
  return %0 : tensor<8x8xf32>
}
