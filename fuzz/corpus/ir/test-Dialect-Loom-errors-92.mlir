

func.func @joint_attention_stream_types(%i: tensor<1x16x64xbf16>, %k: tensor<1x8x64xbf16>, %t: tensor<1x6x64xbf16>) {
  // expected-error @+1 {{'loom.joint_attention' op failed to verify that all of {q_img, k_img, v_img, img} have same type}}
  %0:2 = "loom.joint_attention"(%i, %k, %i, %t, %t, %t) {heads = 4 : i64, head_dim = 16 : i64} : (tensor<1x16x64xbf16>, tensor<1x8x64xbf16>, tensor<1x16x64xbf16>, tensor<1x6x64xbf16>, tensor<1x6x64xbf16>, tensor<1x6x64xbf16>) -> (tensor<1x16x64xbf16>, tensor<1x6x64xbf16>)
  return
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

