// RUN: shardc compile %s --emit=llvm | FileCheck %s
//
// Two parallel loops compile to identical chunk functions, and
// cpu-merge-identical-functions keeps one; their dispatches stay two, as
// only one runs on the rank's own kernel threads. Both must hand the
// runtime the one task of the chunk function kept (defining a task per
// dispatch failed the compile with "redefinition of symbol"). JAX's
// gradient of mean(take_along_axis(einsum("btd,vd->btv", h @ W2, U), tgt))
// with respect to W2 and U, on a 2x2 mesh, exported by tools/jax_export.py.

// The loops over the 240 local rows of [16, 15] (batch, sequence):
// CHECK: call void @shardrt_parallel_for(i64 240, ptr nonnull @[[TASK:main_shardc_body_par[0-9]+_task]],
// CHECK: call void @shardrt_parallel_for_own(i64 240, ptr nonnull @[[TASK]],
#loc1 = loc("W2")
#loc2 = loc("U")
#loc3 = loc("h")
#loc4 = loc("tgt")
"builtin.module"() <{sym_name = "jit_loss"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["data"=2, "model"=2]>, sym_name = "mesh"}> {stablehlo.mesh = {axes = [{name = "data", size = 2 : i64}, {name = "model", size = 2 : i64}]}} : () -> () loc(#loc)
  "func.func"() <{arg_attrs = [{sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}, {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}, {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}, {"model"}]>}, {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}, {}]>}], function_type = (tensor<256x64xf32>, tensor<512x64xf32>, tensor<32x15x256xf32>, tensor<32x15x512xf32>) -> (tensor<256x64xf32>, tensor<512x64xf32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<256x64xf32> loc("W2"), %arg1: tensor<512x64xf32> loc("U"), %arg2: tensor<32x15x256xf32> loc("h"), %arg3: tensor<32x15x512xf32> loc("tgt")):
    %0 = "stablehlo.dot_general"(%arg2, %arg0) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<32x15x256xf32>, tensor<256x64xf32>) -> tensor<32x15x64xf32> loc(#loc26)
    %1 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32> loc(#loc22)
    %2 = "stablehlo.constant"() <{value = dense<2.457600e+05> : tensor<f32>}> : () -> tensor<f32> loc(#loc22)
    %3 = "stablehlo.divide"(%1, %2) : (tensor<f32>, tensor<f32>) -> tensor<f32> loc(#loc27)
    %4 = "stablehlo.broadcast_in_dim"(%3) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32x15x512xf32> loc(#loc28)
    %5 = "stablehlo.multiply"(%4, %arg3) : (tensor<32x15x512xf32>, tensor<32x15x512xf32>) -> tensor<32x15x512xf32> loc(#loc29)
    %6 = "stablehlo.dot_general"(%5, %0) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0, 1], rhs_contracting_dimensions = [0, 1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<32x15x512xf32>, tensor<32x15x64xf32>) -> tensor<512x64xf32> loc(#loc30)
    %7 = "stablehlo.dot_general"(%5, %arg1) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<32x15x512xf32>, tensor<512x64xf32>) -> tensor<32x15x64xf32> loc(#loc30)
    %8 = "stablehlo.dot_general"(%7, %arg2) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0, 1], rhs_contracting_dimensions = [0, 1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<32x15x64xf32>, tensor<32x15x256xf32>) -> tensor<64x256xf32> loc(#loc31)
    %9 = "stablehlo.transpose"(%8) <{permutation = array<i64: 1, 0>}> : (tensor<64x256xf32>) -> tensor<256x64xf32> loc(#loc32)
    "func.return"(%9, %6) : (tensor<256x64xf32>, tensor<512x64xf32>) -> () loc(#loc22)
  }) : () -> () loc(#loc)
}) {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} : () -> () loc(#loc)
#loc = loc(unknown)
#loc5 = loc("model.py":14:39 to :45)
#loc6 = loc("tools/jax_export.py":169:14 to :35)
#loc7 = loc("tools/jax_export.py":231:8 to :51)
#loc8 = loc("tools/jax_export.py":235:4 to :10)
#loc9 = loc("model.py":16:15 to :37)
#loc10 = loc("model.py":16:24 to :36)
#loc11 = loc("model.py":14:13 to :49)
#loc12 = loc("loss"(#loc5))
#loc13 = loc("export"(#loc6))
#loc14 = loc("main"(#loc7))
#loc15 = loc("<module>"(#loc8))
#loc16 = loc("loss"(#loc9))
#loc17 = loc("loss"(#loc10))
#loc18 = loc("loss"(#loc11))
#loc19 = loc(callsite(#loc14 at #loc15))
#loc20 = loc(callsite(#loc13 at #loc19))
#loc21 = loc(callsite(#loc12 at #loc20))
#loc22 = loc("jit(loss)"(#loc20))
#loc23 = loc(callsite(#loc16 at #loc20))
#loc24 = loc(callsite(#loc17 at #loc20))
#loc25 = loc(callsite(#loc18 at #loc20))
#loc26 = loc("jit(loss)/jvp()/dot_general"(#loc21))
#loc27 = loc("jit(loss)/transpose(jvp())/div"(#loc23))
#loc28 = loc("jit(loss)/transpose(jvp())/broadcast_in_dim"(#loc23))
#loc29 = loc("jit(loss)/transpose(jvp())/mul"(#loc24))
#loc30 = loc("jit(loss)/transpose(jvp(btd,vd->btv))/dot_general"(#loc25))
#loc31 = loc("jit(loss)/transpose(jvp())/dot_general"(#loc21))
#loc32 = loc("jit(loss)/transpose(jvp())/transpose"(#loc21))
