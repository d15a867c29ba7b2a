// RUN: shardc-opt %s -split-input-file --comm-combine-all-reduces | FileCheck %s
// RUN: shardc-opt %s -split-input-file --comm-combine-all-reduces="max-bytes=40" | FileCheck %s --check-prefix=BOUND
// RUN: shardc-opt %s -split-input-file --comm-combine-all-reduces="max-bytes=0" | FileCheck %s --check-prefix=OFF
// RUN: shardc-opt %s -split-input-file --comm-combine-all-reduces="overlap-work=100" | FileCheck %s --check-prefix=GAP
//
// comm-combine-all-reduces: independent all-reduces over the same groups,
// kind and element type become one, emitted where the last of their
// operands is ready; each result is sliced back out before its first use.

// CHECK-LABEL: func.func @independent
// CHECK: %[[A:.*]] = garray.reshape %arg0 : (tensor<4x2xf32>) -> tensor<8xf32>
// CHECK: %[[CAT:.*]] = garray.concatenate %[[A]], %arg1, dim = 0 : (tensor<8xf32>, tensor<3xf32>) -> tensor<11xf32>
// CHECK: %[[R:.*]] = comm.all_reduce <sum> %[[CAT]] groups = {{\[\[}}0, 1]] {parts = [{bytes = 32 : i64, location = "{{.*}}", reason = "first", type = tensor<4x2xf32>}, {bytes = 12 : i64, location = "{{.*}}", reason = "second", type = tensor<3xf32>}], reason = "combined 2 independent all-reduces"} : tensor<11xf32> -> tensor<11xf32>
// CHECK: %[[S0:.*]] = garray.slice %[[R]], start = [0], limit = [8], strides = [1]
// CHECK: %[[X:.*]] = garray.reshape %[[S0]] : (tensor<8xf32>) -> tensor<4x2xf32>
// CHECK: %[[Y:.*]] = garray.slice %[[R]], start = [8], limit = [11], strides = [1]
// CHECK: return %[[X]], %[[Y]]
// OFF-LABEL: func.func @independent
// OFF-COUNT-2: comm.all_reduce
// BOUND-LABEL: func.func @independent
// BOUND-COUNT-2: comm.all_reduce
func.func @independent(%a: tensor<4x2xf32>, %b: tensor<3xf32>) -> (tensor<4x2xf32>, tensor<3xf32>) {
  %0 = comm.all_reduce <sum> %a groups = [[0, 1]] {reason = "first"} : tensor<4x2xf32> -> tensor<4x2xf32>
  %1 = comm.all_reduce <sum> %b groups = [[0, 1]] {reason = "second"} : tensor<3xf32> -> tensor<3xf32>
  return %0, %1 : tensor<4x2xf32>, tensor<3xf32>
}

// -----

// The second reduces a value computed from the first's result: the first
// is emitted (alone) before that use.
// CHECK-LABEL: func.func @dependent
// CHECK: %[[R0:.*]] = comm.all_reduce <sum> %arg0 groups = {{\[\[}}0, 1]] : tensor<3xf32>
// CHECK: %[[M:.*]] = garray.mul %[[R0]], %arg1
// CHECK-NOT: parts
// CHECK: comm.all_reduce <sum> %[[M]]
// CHECK-NOT: parts
// CHECK: return
func.func @dependent(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %0 = comm.all_reduce <sum> %a groups = [[0, 1]] : tensor<3xf32> -> tensor<3xf32>
  %1 = garray.mul %0, %b : tensor<3xf32>
  %2 = comm.all_reduce <sum> %1 groups = [[0, 1]] : tensor<3xf32> -> tensor<3xf32>
  return %2 : tensor<3xf32>
}

// -----

// Different groups (same flat list, other group size), kinds or element
// types do not mix.
// CHECK-LABEL: func.func @unlike
// CHECK-COUNT-4: comm.all_reduce
// CHECK-NOT: parts
// CHECK: return
func.func @unlike(%a: tensor<3xf32>, %b: tensor<3xf32>, %c: tensor<3xf64>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf64>) {
  %0 = comm.all_reduce <sum> %a groups = [[0, 1]] : tensor<3xf32> -> tensor<3xf32>
  %1 = comm.all_reduce <sum> %b groups = [[0], [1]] : tensor<3xf32> -> tensor<3xf32>
  %2 = comm.all_reduce <max> %b groups = [[0, 1]] : tensor<3xf32> -> tensor<3xf32>
  %3 = comm.all_reduce <sum> %c groups = [[0, 1]] : tensor<3xf64> -> tensor<3xf64>
  return %0, %1, %2, %3 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf64>
}

// -----

// With max-bytes=40, three 16-byte reductions make a bucket of two and one
// left alone.
// BOUND-LABEL: func.func @bounded
// BOUND: comm.all_reduce <sum> %{{.*}} groups = {{\[\[}}0, 1]] {parts = [{{.*}}, {{.*}}]{{.*}} : tensor<8xf32> -> tensor<8xf32>
// BOUND: comm.all_reduce <sum> %arg2 groups = {{\[\[}}0, 1]] : tensor<4xf32> -> tensor<4xf32>
func.func @bounded(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = comm.all_reduce <sum> %a groups = [[0, 1]] : tensor<4xf32> -> tensor<4xf32>
  %1 = comm.all_reduce <sum> %b groups = [[0, 1]] : tensor<4xf32> -> tensor<4xf32>
  %2 = comm.all_reduce <sum> %c groups = [[0, 1]] : tensor<4xf32> -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Gradients ready one by one during a backward pass, reduced together at
// the end: the bucket goes right after the last gradient is computed (not
// where the all-reduces were written), in readiness order, and each
// result is sliced out just before it is first read. With overlap-work=100
// the 8x8x8 contraction (1024 operations) between the first and second
// gradient closes the bucket: each stays alone (comm-lower-to-runtime
// starts the first right after its operand, before the contraction).
// CHECK-LABEL: func.func @backward
// CHECK: %[[G1:.*]] = garray.mul %arg0, %arg0
// CHECK: %[[D:.*]] = garray.dot_general
// CHECK: %[[G2:.*]] = garray.add %[[D]], %[[D]]
// CHECK-NEXT: garray.reshape %[[G2]]
// CHECK-NEXT: garray.concatenate %[[G1]], %{{.*}}
// CHECK-NEXT: %[[R:.*]] = comm.all_reduce <sum> {{.*}}location = "{{.*}}", reason = "grad1"{{.*}}reason = "grad2"
// CHECK-NEXT: %[[U:.*]] = garray.exp %[[D]]
// CHECK-NEXT: garray.slice %[[R]], start = [0], limit = [8]
// CHECK-NEXT: garray.add
// CHECK: garray.slice %[[R]], start = [8], limit = [72]
// CHECK-NEXT: garray.reshape
// CHECK-NEXT: garray.mul
// GAP-LABEL: func.func @backward
// GAP-NOT: parts
// GAP: comm.all_reduce <sum> %{{.*}} groups = {{\[\[}}0, 1]] {reason = "grad1"}
// GAP: comm.all_reduce <sum> %{{.*}} groups = {{\[\[}}0, 1]] {reason = "grad2"}
func.func @backward(%x: tensor<8xf32>, %a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> (tensor<8xf32>, tensor<8x8xf32>) {
  %g1 = garray.mul %x, %x : tensor<8xf32>
  %d = garray.dot_general %a, %b, batch = [] x [], contracting = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %g2 = garray.add %d, %d : tensor<8x8xf32>
  %u = garray.exp %d : tensor<8x8xf32>
  %r1 = comm.all_reduce <sum> %g1 groups = [[0, 1]] {reason = "grad1"} : tensor<8xf32> -> tensor<8xf32>
  %w1 = garray.add %r1, %x : tensor<8xf32>
  %r2 = comm.all_reduce <sum> %g2 groups = [[0, 1]] {reason = "grad2"} : tensor<8x8xf32> -> tensor<8x8xf32>
  %w2 = garray.mul %r2, %u : tensor<8x8xf32>
  return %w1, %w2 : tensor<8xf32>, tensor<8x8xf32>
}

// -----

// The first result is read before the second operand is ready: the first
// goes alone. An all-reduce of another's result stays where it is.
// CHECK-LABEL: func.func @read_before_ready
// CHECK: %[[R1:.*]] = comm.all_reduce <sum> %arg0 groups = {{\[\[}}0, 1]] : tensor<4xf32>
// CHECK-NEXT: %[[M:.*]] = garray.mul %[[R1]], %arg1
// CHECK-NEXT: comm.all_reduce <sum> %[[M]]
// CHECK-NEXT: comm.all_reduce <sum> %[[R1]]
// CHECK-NOT: parts
func.func @read_before_ready(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r1 = comm.all_reduce <sum> %a groups = [[0, 1]] : tensor<4xf32> -> tensor<4xf32>
  %m = garray.mul %r1, %b : tensor<4xf32>
  %r2 = comm.all_reduce <sum> %m groups = [[0, 1]] : tensor<4xf32> -> tensor<4xf32>
  %r3 = comm.all_reduce <sum> %r1 groups = [[0, 1]] : tensor<4xf32> -> tensor<4xf32>
  return %r2, %r3 : tensor<4xf32>, tensor<4xf32>
}
