// RUN: split-file --leading-lines %s %t
// RUN: shardc import %t/psum.mlir | FileCheck %s
// RUN: shardc import %t/psum.mlir -o %t/psum.garray.mlir && shardc report %t/psum.garray.mlir | FileCheck %s --check-prefix=REPORT
// RUN: not shardc import %t/outside.mlir 2>&1 | FileCheck %s --check-prefix=OUTSIDE
// RUN: not shardc import %t/replica_ids.mlir 2>&1 | FileCheck %s --check-prefix=REPLICAS
// RUN: not shardc import %t/groups.mlir 2>&1 | FileCheck %s --check-prefix=GROUPS
// RUN: shardc import %t/partial.mlir | FileCheck %s --check-prefix=PARTIAL
// RUN: not shardc import %t/free_major.mlir 2>&1 | FileCheck %s --check-prefix=FREEMAJOR
// RUN: not shardc import %t/nested_split.mlir 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: not shardc import %t/use_before_def.mlir 2>&1 | FileCheck %s --check-prefix=USEDEF

// jax.shard_map: the manual computation's region becomes a private function
// that a garray.shard_map runs; its collectives become comm ops over the
// same device ids, and partition_id (axis_index) a per-device table.

//--- psum.mlir
// CHECK-LABEL: func.func public @main(
// CHECK: %[[R:.*]]:2 = garray.shard_map @main_shard_map(%{{.*}}) in [#garray.sharding<@mesh, P("data", None)>] out [#garray.sharding<@mesh, P()>, #garray.sharding<@mesh, P("data", "model")>] : (tensor<8x4xf32>) -> (tensor<4xf32>, tensor<8x4xf32>)
// CHECK: return %[[R]]#0, %[[R]]#1
// CHECK-LABEL: func.func private @main_shard_map(
// CHECK-SAME: %[[B:.*]]: tensor<4x4xf32>) -> (tensor<4xf32>, tensor<4x2xf32>)
// CHECK: %[[S:.*]] = garray.reduce <sum> %[[B]], dims = [0]
// CHECK: %[[T:.*]] = comm.all_reduce <sum> %[[S]] groups = {{\[\[0, 2\], \[1, 3\]\]}} : tensor<4xf32> -> tensor<4xf32>
// CHECK: %[[ID:.*]] = comm.device_value [0, 1, 2, 3] : tensor<i32>
// CHECK: %[[P:.*]] = comm.collective_permute %[[B]] pairs = {{\[\[0, 2\], \[2, 0\], \[1, 3\], \[3, 1\]\]}}
// CHECK: %[[Q:.*]] = comm.reduce_scatter <sum> %[[P]], dim = 1 groups = {{\[\[0, 1\], \[2, 3\]\]}} : tensor<4x4xf32> -> tensor<4x2xf32>
// CHECK: %[[M:.*]] = comm.all_reduce <max> %[[T]] groups = {{\[\[0, 1, 2, 3\]\]}}
// CHECK: return %[[M]], %{{.*}} : tensor<4xf32>, tensor<4x2xf32>
// REPORT: all_reduce  tensor<4xf32>  over ["data"] group 2        16 B/device
// REPORT-NEXT: in @main_shard_map (the shard_map at
// REPORT: why: written in the shard_map's body
// REPORT: collective_permute tensor<4x4xf32> over [] group 2        64 B/device
// REPORT: reduce_scatter tensor<4x4xf32> over ["model"] group 2        32 B/device
// REPORT: all_reduce  tensor<4xf32>  over ["data","model"] group 4        24 B/device
"builtin.module"() <{sym_name = "jit_step"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["data"=2, "model"=2]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{arg_attrs = [{sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}],
                  function_type = (tensor<8x4xf32>) -> (tensor<4xf32>, tensor<8x4xf32>),
                  sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%x: tensor<8x4xf32>):
    %r:2 = "sdy.manual_computation"(%x) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"data"}, {}]>]>, manual_axes = #sdy<manual_axes{"data", "model"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, []>, <@mesh, [{"data"}, {"model"}]>]>}> ({
    ^bb0(%b: tensor<4x4xf32>):
      %zero = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
      %s = "stablehlo.reduce"(%b, %zero) <{dimensions = array<i64: 0>}> ({
      ^bb1(%p: tensor<f32>, %q: tensor<f32>):
        %a = "stablehlo.add"(%p, %q) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%a) : (tensor<f32>) -> ()
      }) : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
      %t = "stablehlo.all_reduce"(%s) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>, use_global_device_ids}> ({
      ^bb2(%p: tensor<f32>, %q: tensor<f32>):
        %a = "stablehlo.add"(%p, %q) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%a) : (tensor<f32>) -> ()
      }) : (tensor<4xf32>) -> tensor<4xf32>
      %id = "stablehlo.partition_id"() : () -> tensor<ui32>
      %i = "stablehlo.convert"(%id) : (tensor<ui32>) -> tensor<i32>
      %p = "stablehlo.collective_permute"(%b) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 2], [2, 0], [1, 3], [3, 1]]> : tensor<4x2xi64>}> : (tensor<4x4xf32>) -> tensor<4x4xf32>
      %q = "stablehlo.reduce_scatter"(%p) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
      ^bb3(%u: tensor<f32>, %v: tensor<f32>):
        %a = "stablehlo.add"(%u, %v) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%a) : (tensor<f32>) -> ()
      }) : (tensor<4x4xf32>) -> tensor<4x2xf32>
      %f = "stablehlo.convert"(%i) : (tensor<i32>) -> tensor<f32>
      %fb = "stablehlo.broadcast_in_dim"(%f) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x2xf32>
      %qi = "stablehlo.add"(%q, %fb) : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
      %m = "stablehlo.all_reduce"(%t) <{channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb4(%u: tensor<f32>, %v: tensor<f32>):
        %a = "stablehlo.maximum"(%u, %v) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%a) : (tensor<f32>) -> ()
      }) : (tensor<4xf32>) -> tensor<4xf32>
      "sdy.return"(%m, %qi) : (tensor<4xf32>, tensor<4x2xf32>) -> ()
    }) : (tensor<8x4xf32>) -> (tensor<4xf32>, tensor<8x4xf32>)
    "func.return"(%r#0, %r#1) : (tensor<4xf32>, tensor<8x4xf32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- outside.mlir
// A collective outside a shard_map: JAX writes none there (shardc derives
// them from the shardings).
// OUTSIDE: error: 'stablehlo.all_reduce' outside a shard_map is not supported
"builtin.module"() ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["data"=2]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "main"}> ({
  ^bb0(%a: tensor<4xf32>):
    %t = "stablehlo.all_reduce"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
    ^bb2(%p: tensor<f32>, %q: tensor<f32>):
      %s = "stablehlo.add"(%p, %q) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%t) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- replica_ids.mlir
// Groups of replica ids (no use_global_device_ids) are not device ids.
// REPLICAS: error: 'stablehlo.all_reduce' without `use_global_device_ids` groups replicas, not devices
"builtin.module"() ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["data"=2]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "main"}> ({
  ^bb0(%a: tensor<4xf32>):
    %0 = "sdy.manual_computation"(%a) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>, manual_axes = #sdy<manual_axes{"data"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>}> ({
    ^bb0(%x: tensor<2xf32>):
      %t = "stablehlo.all_reduce"(%x) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
      ^bb2(%p: tensor<f32>, %q: tensor<f32>):
        %s = "stablehlo.add"(%p, %q) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%s) : (tensor<f32>) -> ()
      }) : (tensor<2xf32>) -> tensor<2xf32>
      "sdy.return"(%t) : (tensor<2xf32>) -> ()
    }) : (tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- groups.mlir
// Every device takes part in a collective: groups that leave one out would
// wait forever for it.
// GROUPS: error: 'comm.all_reduce' op has groups of 2 devices in all, but every device of the 4-device mesh takes part in a collective, so the groups must cover each device once (shard_map_c4)
"builtin.module"() ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["data"=4]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "main"}> ({
  ^bb0(%a: tensor<4xf32>):
    %0 = "sdy.manual_computation"(%a) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>, manual_axes = #sdy<manual_axes{"data"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>}> ({
    ^bb0(%x: tensor<1xf32>):
      %t = "stablehlo.all_reduce"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
      ^bb2(%p: tensor<f32>, %q: tensor<f32>):
        %s = "stablehlo.add"(%p, %q) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%s) : (tensor<f32>) -> ()
      }) : (tensor<1xf32>) -> tensor<1xf32>
      "sdy.return"(%t) : (tensor<1xf32>) -> ()
    }) : (tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- partial.mlir
// A shard_map over "data" only (`axis_names`): JAX leaves "model" open in
// its shardings and constraints, and writes axis_index as a shard_map over
// "model" nested in it. The body runs per device over every axis, whole
// along "model": its shardings keep "data", the constraint goes, the
// nested body is inlined.
// PARTIAL: garray.shard_map @main_shard_map(%{{.*}}) in [#garray.sharding<@mesh, P("data", None)>] out [#garray.sharding<@mesh, P("data", None)>] : (tensor<8x4xf32>) -> tensor<8x4xf32>
// PARTIAL-LABEL: func.func private @main_shard_map(
// PARTIAL-SAME: %[[B:.*]]: tensor<4x4xf32>) -> tensor<4x4xf32>
// PARTIAL-NOT: sharding_constraint
// PARTIAL: comm.device_value [0, 1, 2, 3] : tensor<i32>
// PARTIAL: comm.all_reduce <sum> %{{.*}} groups = {{\[\[0, 2\], \[1, 3\]\]}}
"builtin.module"() ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["data"=2, "model"=2]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{function_type = (tensor<8x4xf32>) -> tensor<8x4xf32>, sym_name = "main"}> ({
  ^bb0(%a: tensor<8x4xf32>):
    %0 = "sdy.manual_computation"(%a) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"data", ?}, {?}]>]>, manual_axes = #sdy<manual_axes{"data"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"data", ?}, {?}]>]>}> ({
    ^bb0(%x: tensor<4x4xf32>):
      %i = "sdy.manual_computation"() <{in_shardings = #sdy.sharding_per_value<[]>, manual_axes = #sdy<manual_axes{"model"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, []>]>}> ({
        %p = "stablehlo.partition_id"() : () -> tensor<ui32>
        %c = "stablehlo.convert"(%p) : (tensor<ui32>) -> tensor<f32>
        "sdy.return"(%c) : (tensor<f32>) -> ()
      }) : () -> tensor<f32>
      %b = "stablehlo.broadcast_in_dim"(%i) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x4xf32>
      %y = "stablehlo.add"(%x, %b) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
      %k = "sdy.sharding_constraint"(%y) <{sharding = #sdy.sharding<@mesh, [{?}, {?}]>}> : (tensor<4x4xf32>) -> tensor<4x4xf32>
      %s = "stablehlo.all_reduce"(%k) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>, use_global_device_ids}> ({
      ^bb0(%l: tensor<f32>, %r: tensor<f32>):
        %t = "stablehlo.add"(%l, %r) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%t) : (tensor<f32>) -> ()
      }) : (tensor<4x4xf32>) -> tensor<4x4xf32>
      "sdy.return"(%s) : (tensor<4x4xf32>) -> ()
    }) : (tensor<8x4xf32>) -> tensor<8x4xf32>
    "func.return"(%0) : (tensor<8x4xf32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- free_major.mlir
// A free axis major to the manual one in a dim: each device's block would
// be a strided part of its "data" block, which the body cannot be given.
// FREEMAJOR: free_major.mlir:[[@LINE+5]]:{{[0-9]+}}: error: dim 0 of value #0 of this shard_map's `in_shardings` splits over free axis "model" before manual axis "data"; list the manual axes first, or map over every axis
"builtin.module"() ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["data"=2, "model"=2]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main"}> ({
  ^bb0(%a: tensor<8xf32>):
    %0 = "sdy.manual_computation"(%a) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"model", "data"}]>]>, manual_axes = #sdy<manual_axes{"data"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>}> ({
    ^bb0(%x: tensor<4xf32>):
      "sdy.return"(%x) : (tensor<4xf32>) -> ()
    }) : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%0) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- nested_split.mlir
// A shard_map over the free axis nested in one over "data", taking a value
// split over "model": the outer body holds it whole, so it is refused.
// NESTED: nested_split.mlir:[[@LINE+7]]:{{[0-9]+}}: error: a shard_map inside a shard_map over some mesh axes only is supported when it is manual over the other axes and takes and returns whole values
"builtin.module"() ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["data"=2, "model"=2]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{function_type = (tensor<8x4xf32>) -> tensor<8x4xf32>, sym_name = "main"}> ({
  ^bb0(%a: tensor<8x4xf32>):
    %0 = "sdy.manual_computation"(%a) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"data"}, {}]>]>, manual_axes = #sdy<manual_axes{"data"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"data"}, {}]>]>}> ({
    ^bb0(%x: tensor<4x4xf32>):
      %y = "sdy.manual_computation"(%x) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {"model"}]>]>, manual_axes = #sdy<manual_axes{"model"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {"model"}]>]>}> ({
      ^bb0(%z: tensor<4x2xf32>):
        "sdy.return"(%z) : (tensor<4x2xf32>) -> ()
      }) : (tensor<4x4xf32>) -> tensor<4x4xf32>
      "sdy.return"(%y) : (tensor<4x4xf32>) -> ()
    }) : (tensor<8x4xf32>) -> tensor<8x4xf32>
    "func.return"(%0) : (tensor<8x4xf32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- use_before_def.mlir
// A shard_map's body is a region of an op MLIR does not know, which its
// verifier leaves unchecked; a value used by its own definition is an
// error there, not a crash of the importer.
// USEDEF: use_before_def.mlir:[[@LINE+9]]:{{[0-9]+}}: error: operand #0 is used before it is defined (inside 'sdy.manual_computation')
"builtin.module"() <{sym_name = "jit_step"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["data"=2, "model"=2]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{arg_attrs = [{sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}],
                  function_type = (tensor<8x4xf32>) -> (tensor<8x4xf32>),
                  sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%x: tensor<8x4xf32>):
    %r = "sdy.manual_computation"(%x) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"data"}, {}]>]>, manual_axes = #sdy<manual_axes{"data"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"data"}, {}]>]>}> ({
    ^bb0(%b: tensor<4x4xf32>):
      %c = "sdy.sharding_constraint"(%c) <{sharding = #sdy.sharding<@mesh, [{?}, {?}]>}> : (tensor<4x4xf32>) -> tensor<4x4xf32>
      "sdy.return"(%c) : (tensor<4x4xf32>) -> ()
    }) : (tensor<8x4xf32>) -> tensor<8x4xf32>
    "func.return"(%r) : (tensor<8x4xf32>) -> ()
  }) : () -> ()
}) : () -> ()
