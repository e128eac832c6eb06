

func.func @norm_scalar(%x: tensor<f32>) {
  // expected-error @+1 {{'loom.rms_norm' op expects a tensor of rank >= 1}}
  %0 = loom.rms_norm %x : tensor<f32>
  return
}

