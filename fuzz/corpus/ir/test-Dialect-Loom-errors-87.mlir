

func.func @attention_missing_heads(%q: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{requires attribute 'heads'}}
  %0 = loom.attention %q, %q, %q {kv_heads = 4, head_dim = 16} : tensor<1x8x64xbf16>, tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

//===----------------------------------------------------------------------===//
// loom.joint_attention
//===----------------------------------------------------------------------===//

