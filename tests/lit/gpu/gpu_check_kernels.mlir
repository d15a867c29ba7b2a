// RUN: shardc-opt %s --split-input-file --gpu-check-kernels --verify-diagnostics
//
// gpu-check-kernels refuses what ptxas would accept but would run wrongly,
// or what the host's launches cannot pass; a kernel of the recipes passes.

module attributes {gpu.container_module} {
  gpu.module @ok {
    gpu.func @k(%a: memref<16xf32>, %n: index, %x: f32) kernel {
      %t = gpu.thread_id x
      memref.store %x, %a[%t] : memref<16xf32>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @shared {
    gpu.func @k() kernel {
      // expected-error@+1 {{in workgroup memory would be a per-thread buffer}}
      %s = memref.alloc() : memref<32xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @heap {
    gpu.func @k() kernel {
      // expected-error@+1 {{would be a malloc per thread}}
      %s = memref.alloc() : memref<32xf32>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @view {
    // expected-error@+1 {{argument #0 of kernel @k has type 'memref<4xf32, strided<[2]>>'}}
    gpu.func @k(%a: memref<4xf32, strided<[2]>>) kernel {
      gpu.return
    }
  }
}
