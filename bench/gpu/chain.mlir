// bench/gpu: a fused elementwise chain over 64 Mi f32 (256 MiB in, 256 MiB
// out), against a device-to-device copy of the same bytes.
garray.mesh @mesh ["x" = 1]
func.func @main(%x: tensor<8192x8192xf32> {garray.name = "x"})
    -> (tensor<8192x8192xf32> {garray.name = "y"}) {
  %a = garray.mul %x, %x : tensor<8192x8192xf32>
  %b = garray.add %a, %x : tensor<8192x8192xf32>
  %y = garray.tanh %b : tensor<8192x8192xf32>
  return %y : tensor<8192x8192xf32>
}
