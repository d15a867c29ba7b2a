// RUN: shardc-opt %s --garray-autodiff --garray-decompose --garray-propagate=explain=true -o /dev/null 2>&1 | FileCheck %s
//
// Ops the compiler writes for a user's op keep its location and say what
// they are: the adjoints autodiff builds ("gradient of garray.mul"), the sum
// of a value's cotangents, and the parts of a decomposed mean ("sum of
// garray.mean", "from garray.mean"; a weighted mean's second reduction is
// "sum of weights of garray.mean"), in explain's header and in every
// location it prints
// ("m.mlir:13:8 [gradient of garray.mul]"). They read as the user's own
// ops before.
// CHECK lines match the parts of each remark (value, sharding, origin and its location), not its wording.

garray.mesh @mesh ["data" = 2]

// CHECK-DAG: remark: %{{[0-9]+}} (garray.mul): P("data")
// CHECK-DAG: remark: %{{[0-9]+}} (garray.reduce, sum of garray.mean): P()
// CHECK-DAG: remark: %{{[0-9]+}} (garray.constant, global count of garray.mean): P()
// CHECK-DAG: remark: %{{[0-9]+}} (garray.div, from garray.mean): P()
// CHECK-DAG: remark: %{{[0-9]+}} (garray.mul, gradient of garray.mul): P("data") <- {{.*}}garray.mul ({{[^)]*}}derived_ops.mlir:[[@LINE+3]]:8 [gradient of garray.mul])
// CHECK-DAG: remark: %{{[0-9]+}} (garray.add, sum of gradients): P("data")
func.func private @loss(%w: tensor<8xf32>, %x: tensor<8xf32>) -> tensor<f32> {
  %p = garray.mul %w, %x : tensor<8xf32>
  %s = garray.add %p, %w : tensor<8xf32>
  %m = garray.mean %s, dims = [0] : (tensor<8xf32>) -> tensor<f32>
  return %m : tensor<f32>
}
func.func @step(%w: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>},
                %x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>})
    -> (tensor<f32>, tensor<8xf32>) {
  %l, %g = garray.value_and_grad @loss(%w, %x) wrt [0] : (tensor<8xf32>, tensor<8xf32>) -> (tensor<f32>, tensor<8xf32>)
  return %l, %g : tensor<f32>, tensor<8xf32>
}

// A name location of the input (as JAX exports write) is the user's: no label.
// CHECK-DAG: remark: %{{[0-9]+}} (garray.exp): P("data") <- {{.*}}argument #0 (%arg0){{.*}}P("data"){{[^\[]*}}garray.exp ({{[^)\[]*}}){{$}}
func.func @named_input(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<8xf32> {
  %e = garray.exp %x : tensor<8xf32> loc("jit(f)/exp"("named.py":3:8))
  return %e : tensor<8xf32>
}

// A masked mean: its two reductions (the masked sum, the count of valid
// elements) are two all-reduces at one place, told apart by their labels.
// CHECK-DAG: remark: %{{[0-9]+}} (garray.mul, from garray.mean): P("data")
// CHECK-DAG: remark: %{{[0-9]+}} (garray.reduce, sum of garray.mean): P(){{.*}}partial result over "data"
// CHECK-DAG: remark: %{{[0-9]+}} (garray.reduce, sum of weights of garray.mean): P(){{.*}}partial result over "data"
func.func @masked(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>},
                  %m: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<f32> {
  %r = garray.mean %x, dims = [0] weights %m : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
  return %r : tensor<f32>
}
