// A function whose entry block calls itself, directly or through others,
// never returns: compiled, it recursed until the rank's stack overflowed
// (a crash at run time). It is a compile error at the call closing the
// cycle. Recursion under an scf.if can stop and compiles.
// RUN: split-file --leading-lines %s %t
// RUN: not shardc compile %t/direct.mlir -o %t/out 2>&1 | FileCheck %s --check-prefix=DIRECT
// RUN: not shardc compile %t/mutual.mlir -o %t/out 2>&1 | FileCheck %s --check-prefix=MUTUAL
// RUN: not shardc compile %t/mixed.mlir -o %t/out 2>&1 | FileCheck %s --check-prefix=MIXED
// RUN: shardc compile %t/conditional.mlir -o %t/out --quiet
//
// The passes that follow calls recurse once per level: a chain of 300 calls
// (5,000 crashed the report's reader) is refused, one of 250 compiles.
// RUN: bash -c 'for i in $(seq 0 299); do echo "func.func private @f$i(%%x: tensor<4xf32>) -> tensor<4xf32> { %%y = call @f$((i + 1))(%%x) : (tensor<4xf32>) -> tensor<4xf32> return %%y : tensor<4xf32> }"; done; echo "func.func private @f300(%%x: tensor<4xf32>) -> tensor<4xf32> { return %%x : tensor<4xf32> }"' > %t/deep.mlir
// RUN: not shardc compile %t/deep.mlir -o %t/out 2>&1 | FileCheck %s --check-prefix=DEEP
// RUN: bash -c 'for i in $(seq 0 249); do echo "func.func private @f$i(%%x: tensor<4xf32>) -> tensor<4xf32> { %%y = call @f$((i + 1))(%%x) : (tensor<4xf32>) -> tensor<4xf32> return %%y : tensor<4xf32> }"; done; echo "func.func @f250(%%x: tensor<4xf32>) -> tensor<4xf32> { return %%x : tensor<4xf32> }"' > %t/shallow.mlir
// RUN: shardc compile %t/shallow.mlir --entry f0 -o %t/out --quiet
// DEEP: deep.mlir:257:{{[0-9]+}}: error: calls nest deeper than 256 functions here

//--- direct.mlir
// DIRECT: direct.mlir:[[@LINE+2]]:8: error: @f calls itself on every path (@f -> @f), so it never returns
func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = call @f(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %z = garray.add %y, %x : tensor<4xf32>
  return %z : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = call @f(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

//--- mutual.mlir
// MUTUAL: mutual.mlir:[[@LINE+8]]:8: error: @f calls itself on every path (@f -> @g -> @f)
// MUTUAL-NOT: error
func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = garray.exp %x : tensor<4xf32>
  %y = call @g(%e) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func private @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = call @f(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = call @f(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

//--- mixed.mlir
// A conditional call to @g comes first and an unconditional cycle through
// it after: found all the same.
// MIXED: mixed.mlir:[[@LINE+20]]:8: error: @f calls itself on every path (@f -> @h -> @g -> @f)
func.func private @f(%x: tensor<4xf32>, %n: tensor<i32>) -> tensor<4xf32> {
  %i = tensor.extract %n[] : tensor<i32>
  %zero = arith.constant 0 : i32
  %stop = arith.cmpi sle, %i, %zero : i32
  %r = scf.if %stop -> tensor<4xf32> {
    scf.yield %x : tensor<4xf32>
  } else {
    %z = func.call @g(%x, %n) : (tensor<4xf32>, tensor<i32>) -> tensor<4xf32>
    scf.yield %z : tensor<4xf32>
  }
  %y = call @h(%r, %n) : (tensor<4xf32>, tensor<i32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func private @h(%x: tensor<4xf32>, %n: tensor<i32>) -> tensor<4xf32> {
  %y = call @g(%x, %n) : (tensor<4xf32>, tensor<i32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func private @g(%x: tensor<4xf32>, %n: tensor<i32>) -> tensor<4xf32> {
  %e = garray.exp %x : tensor<4xf32>
  %y = call @f(%e, %n) : (tensor<4xf32>, tensor<i32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %n: tensor<i32>) -> tensor<4xf32> {
  %r = call @f(%x, %n) : (tensor<4xf32>, tensor<i32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

//--- conditional.mlir
func.func private @down(%x: tensor<4xf32>, %n: tensor<i32>) -> tensor<4xf32> {
  %i = tensor.extract %n[] : tensor<i32>
  %zero = arith.constant 0 : i32
  %stop = arith.cmpi sle, %i, %zero : i32
  %r = scf.if %stop -> tensor<4xf32> {
    scf.yield %x : tensor<4xf32>
  } else {
    %one = garray.constant dense<1> : tensor<i32>
    %m = garray.sub %n, %one : tensor<i32>
    %y = garray.add %x, %x : tensor<4xf32>
    %z = func.call @down(%y, %m) : (tensor<4xf32>, tensor<i32>) -> tensor<4xf32>
    scf.yield %z : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %n: tensor<i32>) -> tensor<4xf32> {
  %r = call @down(%x, %n) : (tensor<4xf32>, tensor<i32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
