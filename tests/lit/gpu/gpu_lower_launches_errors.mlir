// RUN: shardc-opt %s --gpu-lower-launches --verify-diagnostics
//
// gpu-lower-launches refuses what it cannot pass to a kernel.

// A view as a kernel argument is refused: kernels take dense buffers.
module attributes {gpu.container_module} {
  gpu.binary @k [#gpu.object<#nvvm.target<chip = "sm_90">, bin = "ELF">]
  func.func @view(%buf: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    %v = memref.subview %buf[4] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: 4>>
    // expected-error@+1 {{is not a dense, statically shaped buffer}}
    gpu.launch_func @k::@kern blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%v : memref<4xf32, strided<[1], offset: 4>>)
    return
  }
}
