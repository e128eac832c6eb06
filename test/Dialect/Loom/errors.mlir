// RUN: loom-opt %s -split-input-file -verify-diagnostics

// Verifier and ODS-constraint errors of the loom dialect, one per case.

//===----------------------------------------------------------------------===//
// loom.layer / loom.yield / loom.param
//===----------------------------------------------------------------------===//

func.func @layer_arg_count(%x: tensor<4xf32>) {
  // expected-error @+1 {{'loom.layer' op has 1 inputs but its body takes 0 arguments}}
  loom.layer 0 (%x) : (tensor<4xf32>) -> () {
    loom.yield
  }
  return
}

// -----

func.func @layer_arg_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'loom.layer' op input #0 has type 'tensor<4xf32>' but body argument #0 has type 'tensor<4xbf16>'}}
  loom.layer 0 (%x) : (tensor<4xf32>) -> () {
  ^bb0(%a: tensor<4xbf16>):
    loom.yield
  }
  return
}

// -----

func.func @yield_type(%x: tensor<4xf32>) -> tensor<4xbf16> {
  %0 = loom.layer 0 (%x) : (tensor<4xf32>) -> tensor<4xbf16> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{'loom.yield' op yields 1 values whose types do not match the layer's 1 result types}}
    loom.yield %a : tensor<4xf32>
  }
  return %0 : tensor<4xbf16>
}

// -----

func.func @yield_count(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = loom.layer 0 (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{'loom.yield' op yields 0 values whose types do not match the layer's 1 result types}}
    loom.yield
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @yield_outside_layer(%x: tensor<4xf32>) {
  // expected-error @+1 {{'loom.yield' op expects parent op to be one of 'loom.layer, loom.layer_grad'}}
  loom.yield %x : tensor<4xf32>
}

// -----

func.func @layer_empty_body() {
  // expected-error @+1 {{'loom.layer' op expects a non-empty block}}
  loom.layer 0 () : () -> () {
  }
  return
}

// -----

func.func @layer_negative_index() {
  // expected-error @+1 {{attribute 'index' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  loom.layer -1 () : () -> () {
    loom.yield
  }
  return
}

// -----

func.func @param_dynamic_shape() {
  // expected-error @+1 {{'loom.param' op result #0 must be statically shaped tensor of any type values, but got 'tensor<?xf32>'}}
  %0 = loom.param "w" : tensor<?xf32>
  return
}

//===----------------------------------------------------------------------===//
// loom.embed / loom.position_embed
//===----------------------------------------------------------------------===//

// -----

func.func @embed_float_ids(%ids: tensor<1x8xf32>) {
  // expected-error @+1 {{'loom.embed' op expects integer ids, got 'tensor<1x8xf32>'}}
  %0 = loom.embed %ids {vocab = 128} : tensor<1x8xf32> -> tensor<1x8x64xbf16>
  return
}

// -----

func.func @embed_integer_result(%ids: tensor<1x8xi32>) {
  // expected-error @+1 {{'loom.embed' op expects the result to have a floating-point element type, got 'tensor<1x8x64xi32>'}}
  %0 = loom.embed %ids {vocab = 128} : tensor<1x8xi32> -> tensor<1x8x64xi32>
  return
}

// -----

func.func @embed_result_shape(%ids: tensor<1x8xi32>) {
  // expected-error @+1 {{'loom.embed' op expects the result shape to be the ids shape [1, 8] plus a hidden dimension, got [1, 4, 64]}}
  %0 = loom.embed %ids {vocab = 128} : tensor<1x8xi32> -> tensor<1x4x64xbf16>
  return
}

// -----

func.func @embed_zero_vocab(%ids: tensor<1x8xi32>) {
  // expected-error @+1 {{attribute 'vocab' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = loom.embed %ids {vocab = 0} : tensor<1x8xi32> -> tensor<1x8x64xbf16>
  return
}

// -----

func.func @position_embed_too_long(%x: tensor<1x16x64xf32>) {
  // expected-error @+1 {{'loom.position_embed' op sequence length 16 exceeds max_positions 8}}
  %0 = loom.position_embed %x {max_positions = 8} : tensor<1x16x64xf32>
  return
}

// -----

func.func @position_embed_rank(%x: tensor<16x64xf32>) {
  // expected-error @+1 {{'loom.position_embed' op expects input of rank 3 [batch, seq, hidden], got [16, 64]}}
  %0 = loom.position_embed %x {max_positions = 32} : tensor<16x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// loom.linear
//===----------------------------------------------------------------------===//

// -----

func.func @linear_rank_one(%x: tensor<64xbf16>) {
  // expected-error @+1 {{'loom.linear' op expects input and result of the same rank >= 2, got [64] and [32]}}
  %0 = loom.linear q %x : tensor<64xbf16> -> tensor<32xbf16>
  return
}

// -----

func.func @linear_rank_mismatch(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.linear' op expects input and result of the same rank >= 2, got [1, 8, 64] and [8, 64]}}
  %0 = loom.linear q %x : tensor<1x8x64xbf16> -> tensor<8x64xbf16>
  return
}

// -----

func.func @linear_leading_dims(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.linear' op expects input and result to agree on all but the last dimension, got [1, 8, 64] and [1, 4, 64]}}
  %0 = loom.linear o %x : tensor<1x8x64xbf16> -> tensor<1x4x64xbf16>
  return
}

// -----

func.func @linear_element_type(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.linear' op expects input and result of the same element type}}
  %0 = loom.linear up %x : tensor<1x8x64xbf16> -> tensor<1x8x128xf32>
  return
}

// -----

func.func @linear_integer(%x: tensor<1x8x64xi8>) {
  // expected-error @+1 {{'loom.linear' op expects the input to have a floating-point element type, got 'tensor<1x8x64xi8>'}}
  %0 = loom.linear down %x : tensor<1x8x64xi8> -> tensor<1x8x32xi8>
  return
}

// -----

func.func @linear_unknown_role(%x: tensor<1x8x64xbf16>) {
  // expected-error @+2 {{failed to parse Loom_LinearRoleAttr parameter 'value' which is to be a `::loom::LinearRole`}}
  // expected-error @+1 {{expected ::loom::LinearRole to be one of: q, k, v, qkv, o, gate, up, down, fc1, fc2, modulation, embed, cond, context, lm_head, proj_out}}
  %0 = loom.linear ffn %x : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

//===----------------------------------------------------------------------===//
// loom.patchify / loom.unpatchify / loom.timestep_embed
//===----------------------------------------------------------------------===//

// -----

func.func @patchify_input_rank(%x: tensor<2x4x8xbf16>) {
  // expected-error @+1 {{'loom.patchify' op expects input of rank 4 [batch, channels, height, width] or 5 [batch, channels, frames, height, width], got [2, 4, 8]}}
  %0 = loom.patchify %x {patch_size = 2} : tensor<2x4x8xbf16> -> tensor<2x16x64xbf16>
  return
}

// -----

func.func @patchify_result_rank(%x: tensor<2x4x8x8xbf16>) {
  // expected-error @+1 {{'loom.patchify' op expects result of rank 3 [batch, patches, hidden], got [32, 64]}}
  %0 = loom.patchify %x {patch_size = 2} : tensor<2x4x8x8xbf16> -> tensor<32x64xbf16>
  return
}

// -----

func.func @patchify_not_divisible(%x: tensor<2x4x8x8xbf16>) {
  // expected-error @+1 {{'loom.patchify' op expects height and width divisible by patch_size 3, got 8x8}}
  %0 = loom.patchify %x {patch_size = 3} : tensor<2x4x8x8xbf16> -> tensor<2x4x64xbf16>
  return
}

// -----

func.func @patchify_result_shape(%x: tensor<2x4x8x8xbf16>) {
  // expected-error @+1 {{'loom.patchify' op expects result shape [2, 16, hidden], got [2, 64, 64]}}
  %0 = loom.patchify %x {patch_size = 2} : tensor<2x4x8x8xbf16> -> tensor<2x64x64xbf16>
  return
}

// -----

func.func @patchify_integer_result(%x: tensor<2x4x8x8xbf16>) {
  // expected-error @+1 {{'loom.patchify' op expects the result to have a floating-point element type, got 'tensor<2x16x64xi32>'}}
  %0 = loom.patchify %x {patch_size = 2} : tensor<2x4x8x8xbf16> -> tensor<2x16x64xi32>
  return
}

// -----

func.func @patchify_zero_patch(%x: tensor<2x4x8x8xbf16>) {
  // expected-error @+1 {{attribute 'patch_size' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = loom.patchify %x {patch_size = 0} : tensor<2x4x8x8xbf16> -> tensor<2x16x64xbf16>
  return
}

// -----

func.func @unpatchify_input_rank(%x: tensor<32x32xbf16>) {
  // expected-error @+1 {{'loom.unpatchify' op expects input of rank 3 [batch, patches, p*p*channels], got [32, 32]}}
  %0 = loom.unpatchify %x {patch_size = 2} : tensor<32x32xbf16> -> tensor<2x8x8x8xbf16>
  return
}

// -----

func.func @unpatchify_result_rank(%x: tensor<2x16x32xbf16>) {
  // expected-error @+1 {{'loom.unpatchify' op expects result of rank 4 [batch, channels, height, width] or 5 [batch, channels, frames, height, width], got [2, 8, 64]}}
  %0 = loom.unpatchify %x {patch_size = 2} : tensor<2x16x32xbf16> -> tensor<2x8x64xbf16>
  return
}

// -----

func.func @unpatchify_not_divisible(%x: tensor<2x16x32xbf16>) {
  // expected-error @+1 {{'loom.unpatchify' op expects height and width divisible by patch_size 2, got 8x7}}
  %0 = loom.unpatchify %x {patch_size = 2} : tensor<2x16x32xbf16> -> tensor<2x8x8x7xbf16>
  return
}

// -----

func.func @unpatchify_shape(%x: tensor<2x16x16xbf16>) {
  // expected-error @+1 {{'loom.unpatchify' op expects input shape [2, 16, 32] for result [2, 8, 8, 8], got [2, 16, 16]}}
  %0 = loom.unpatchify %x {patch_size = 2} : tensor<2x16x16xbf16> -> tensor<2x8x8x8xbf16>
  return
}

// -----

func.func @timestep_embed_odd_dim(%t: tensor<2xf32>) {
  // expected-error @+1 {{'loom.timestep_embed' op expects an even embedding dim (sin and cos halves), got 257}}
  %0 = loom.timestep_embed %t : tensor<2xf32> -> tensor<2x257xf32>
  return
}

// -----

func.func @timestep_embed_input_rank(%t: tensor<2x1xf32>) {
  // expected-error @+1 {{'loom.timestep_embed' op expects input of rank 1 [batch], got [2, 1]}}
  %0 = loom.timestep_embed %t : tensor<2x1xf32> -> tensor<2x256xf32>
  return
}

// -----

func.func @timestep_embed_result_rank(%t: tensor<2xf32>) {
  // expected-error @+1 {{'loom.timestep_embed' op expects result of rank 2 [batch, dim], got [2, 1, 256]}}
  %0 = loom.timestep_embed %t : tensor<2xf32> -> tensor<2x1x256xf32>
  return
}

// -----

func.func @timestep_embed_batch(%t: tensor<2xf32>) {
  // expected-error @+1 {{'loom.timestep_embed' op expects the result batch 4 to equal the input batch 2}}
  %0 = loom.timestep_embed %t : tensor<2xf32> -> tensor<4x256xf32>
  return
}

// -----

func.func @timestep_embed_integer_result(%t: tensor<2xi64>) {
  // expected-error @+1 {{'loom.timestep_embed' op expects the result to have a floating-point element type, got 'tensor<2x256xi64>'}}
  %0 = loom.timestep_embed %t : tensor<2xi64> -> tensor<2x256xi64>
  return
}

//===----------------------------------------------------------------------===//
// loom.rms_norm / loom.layer_norm / loom.rope
//===----------------------------------------------------------------------===//

// -----

func.func @rms_norm_group(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.rms_norm' op expects group 24 to divide the innermost dimension 64}}
  %0 = loom.rms_norm %x {group = 24} : tensor<1x8x64xbf16>
  return
}

// -----

func.func @layer_norm_group(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.layer_norm' op expects group 48 to divide the innermost dimension 64}}
  %0 = loom.layer_norm %x {affine = false, group = 48} : tensor<1x8x64xbf16>
  return
}

// -----

func.func @layer_norm_integer(%x: tensor<1x8x64xi32>) {
  // expected-error @+1 {{'loom.layer_norm' op expects the input to have a floating-point element type, got 'tensor<1x8x64xi32>'}}
  %0 = loom.layer_norm %x : tensor<1x8x64xi32>
  return
}

// -----

func.func @rms_norm_zero_group(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{attribute 'group' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = loom.rms_norm %x {group = 0} : tensor<1x8x64xbf16>
  return
}

// -----

func.func @rms_norm_type(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.rms_norm' op requires the same type for all operands and results}}
  %0 = "loom.rms_norm"(%x) : (tensor<1x8x64xbf16>) -> tensor<1x8x64xf32>
  return
}

// -----

func.func @rope_odd_head_dim(%x: tensor<1x8x60xbf16>) {
  // expected-error @+1 {{'loom.rope' op expects an even head_dim dividing the innermost dimension 60, got head_dim 15}}
  %0 = loom.rope %x {head_dim = 15} : tensor<1x8x60xbf16>
  return
}

// -----

func.func @rope_not_dividing(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.rope' op expects an even head_dim dividing the innermost dimension 64, got head_dim 24}}
  %0 = loom.rope %x {head_dim = 24} : tensor<1x8x64xbf16>
  return
}

//===----------------------------------------------------------------------===//
// loom.activation / loom.swiglu
//===----------------------------------------------------------------------===//

// -----

func.func @activation_integer(%x: tensor<1x8x64xi32>) {
  // expected-error @+1 {{'loom.activation' op expects the input to have a floating-point element type, got 'tensor<1x8x64xi32>'}}
  %0 = loom.activation relu %x : tensor<1x8x64xi32>
  return
}

// -----

func.func @activation_unknown_kind(%x: tensor<1x8x64xbf16>) {
  // expected-error @+2 {{failed to parse Loom_ActivationKindAttr parameter 'value' which is to be a `::loom::ActivationKind`}}
  // expected-error @+1 {{expected ::loom::ActivationKind to be one of: gelu, gelu_tanh, silu, relu}}
  %0 = loom.activation tanh %x : tensor<1x8x64xbf16>
  return
}

// -----

func.func @swiglu_integer(%g: tensor<1x8x128xi32>) {
  // expected-error @+1 {{'loom.swiglu' op expects gate to have a floating-point element type, got 'tensor<1x8x128xi32>'}}
  %0 = loom.swiglu %g, %g : tensor<1x8x128xi32>
  return
}

// -----

func.func @swiglu_types(%g: tensor<1x8x128xbf16>, %u: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.swiglu' op requires the same type for all operands and results}}
  %0 = "loom.swiglu"(%g, %u) : (tensor<1x8x128xbf16>, tensor<1x8x64xbf16>) -> tensor<1x8x128xbf16>
  return
}

//===----------------------------------------------------------------------===//
// loom.add / loom.mul
//===----------------------------------------------------------------------===//

// -----

func.func @add_not_suffix(%x: tensor<2x8x64xbf16>, %b: tensor<2x64xbf16>) {
  // expected-error @+1 {{'loom.add' op expects the rhs shape [2, 64] to equal or be a suffix of the lhs shape [2, 8, 64]}}
  %0 = loom.add %x, %b : tensor<2x8x64xbf16>, tensor<2x64xbf16>
  return
}

// -----

func.func @mul_rhs_higher_rank(%x: tensor<8x64xbf16>, %b: tensor<2x8x64xbf16>) {
  // expected-error @+1 {{'loom.mul' op expects the rhs shape [2, 8, 64] to equal or be a suffix of the lhs shape [8, 64]}}
  %0 = loom.mul %x, %b : tensor<8x64xbf16>, tensor<2x8x64xbf16>
  return
}

// -----

func.func @add_element_type(%x: tensor<2x8x64xbf16>, %b: tensor<64xf32>) {
  // expected-error @+1 {{'loom.add' op expects operands of the same element type, got 'tensor<2x8x64xbf16>' and 'tensor<64xf32>'}}
  %0 = loom.add %x, %b : tensor<2x8x64xbf16>, tensor<64xf32>
  return
}

// -----

func.func @add_result_type(%x: tensor<2x8x64xbf16>) {
  // expected-error @+1 {{'loom.add' op failed to verify that all of {lhs, result} have same type}}
  %0 = "loom.add"(%x, %x) : (tensor<2x8x64xbf16>, tensor<2x8x64xbf16>) -> tensor<2x8x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// loom.modulate / loom.gate
//===----------------------------------------------------------------------===//

// -----

func.func @modulate_shape(%x: tensor<2x16x64xbf16>, %s: tensor<2x32xbf16>) {
  // expected-error @+1 {{'loom.modulate' op expects shift of shape [2, 64] (batch, hidden of the input), got [2, 32]}}
  %0 = loom.modulate %x, %s, %s : tensor<2x16x64xbf16>, tensor<2x32xbf16>
  return
}

// -----

func.func @modulate_input_rank(%x: tensor<2x64xbf16>, %s: tensor<2x64xbf16>) {
  // expected-error @+1 {{'loom.modulate' op expects input of rank 3 [batch, seq, hidden], got [2, 64]}}
  %0 = loom.modulate %x, %s, %s : tensor<2x64xbf16>, tensor<2x64xbf16>
  return
}

// -----

func.func @modulate_shift_rank(%x: tensor<2x16x64xbf16>, %s: tensor<2x1x64xbf16>) {
  // expected-error @+1 {{'loom.modulate' op expects shift of rank 2 [batch, hidden], got [2, 1, 64]}}
  %0 = loom.modulate %x, %s, %s : tensor<2x16x64xbf16>, tensor<2x1x64xbf16>
  return
}

// -----

func.func @modulate_element_type(%x: tensor<2x16x64xbf16>, %s: tensor<2x64xf32>) {
  // expected-error @+1 {{'loom.modulate' op expects shift to have the input's element type}}
  %0 = loom.modulate %x, %s, %s : tensor<2x16x64xbf16>, tensor<2x64xf32>
  return
}

// -----

func.func @modulate_shift_scale(%x: tensor<2x16x64xbf16>, %s: tensor<2x64xbf16>, %c: tensor<2x64xf32>) {
  // expected-error @+1 {{'loom.modulate' op failed to verify that all of {shift, scale} have same type}}
  %0 = "loom.modulate"(%x, %s, %c) : (tensor<2x16x64xbf16>, tensor<2x64xbf16>, tensor<2x64xf32>) -> tensor<2x16x64xbf16>
  return
}

// -----

func.func @gate_shape(%x: tensor<2x16x64xbf16>, %g: tensor<1x64xbf16>) {
  // expected-error @+1 {{'loom.gate' op expects gate of shape [2, 64] (batch, hidden of the input), got [1, 64]}}
  %0 = loom.gate %x, %g : tensor<2x16x64xbf16>, tensor<1x64xbf16>
  return
}

// -----

func.func @gate_rank(%x: tensor<2x16x64xbf16>, %g: tensor<64xbf16>) {
  // expected-error @+1 {{'loom.gate' op expects gate of rank 2 [batch, hidden], got [64]}}
  %0 = loom.gate %x, %g : tensor<2x16x64xbf16>, tensor<64xbf16>
  return
}

// -----

func.func @gate_element_type(%x: tensor<2x16x64xbf16>, %g: tensor<2x64xf16>) {
  // expected-error @+1 {{'loom.gate' op expects gate to have the input's element type}}
  %0 = loom.gate %x, %g : tensor<2x16x64xbf16>, tensor<2x64xf16>
  return
}

//===----------------------------------------------------------------------===//
// loom.concat / loom.slice / loom.reshape / loom.chunk
//===----------------------------------------------------------------------===//

// -----

func.func @concat_mismatch(%t: tensor<1x6x64xbf16>, %i: tensor<1x16x32xbf16>) {
  // expected-error @+1 {{'loom.concat' op input #1 of shape [1, 16, 32] does not match the result [1, 22, 64] outside dimension 1}}
  %0 = loom.concat %t, %i {dim = 1} : (tensor<1x6x64xbf16>, tensor<1x16x32xbf16>) -> tensor<1x22x64xbf16>
  return
}

// -----

func.func @concat_sum(%t: tensor<1x6x64xbf16>, %i: tensor<1x16x64xbf16>) {
  // expected-error @+1 {{'loom.concat' op inputs add up to 22 along dimension 1 but the result has 24}}
  %0 = loom.concat %t, %i {dim = 1} : (tensor<1x6x64xbf16>, tensor<1x16x64xbf16>) -> tensor<1x24x64xbf16>
  return
}

// -----

func.func @concat_dim_range(%t: tensor<1x6x64xbf16>) {
  // expected-error @+1 {{'loom.concat' op dim 3 is out of range for rank 3}}
  %0 = loom.concat %t, %t {dim = 3} : (tensor<1x6x64xbf16>, tensor<1x6x64xbf16>) -> tensor<1x6x128xbf16>
  return
}

// -----

func.func @concat_rank(%t: tensor<6x64xbf16>, %i: tensor<1x16x64xbf16>) {
  // expected-error @+1 {{'loom.concat' op input #0 of shape [6, 64] does not match the result [1, 22, 64] outside dimension 1}}
  %0 = loom.concat %t, %i {dim = 1} : (tensor<6x64xbf16>, tensor<1x16x64xbf16>) -> tensor<1x22x64xbf16>
  return
}

// -----

func.func @concat_no_inputs() {
  // expected-error @+1 {{'loom.concat' op expects at least one input}}
  %0 = loom.concat {dim = 0} : () -> tensor<4xf32>
  return
}

// -----

func.func @slice_out_of_bounds(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.slice' op slice [4, 12) is out of bounds for size 8}}
  %0 = loom.slice %x {dim = 1, offset = 4} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

// -----

func.func @slice_dim_range(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.slice' op expects input and result of the same rank with dim in range, got dim 3 for [1, 8, 64] -> [1, 8, 32]}}
  %0 = loom.slice %x {dim = 3, offset = 0} : tensor<1x8x64xbf16> -> tensor<1x8x32xbf16>
  return
}

// -----

func.func @slice_other_dim(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.slice' op expects the result to differ from the input only in dimension 2}}
  %0 = loom.slice %x {dim = 2, offset = 0} : tensor<1x8x64xbf16> -> tensor<1x4x32xbf16>
  return
}

// -----

func.func @reshape_count(%x: tensor<2x6x64xbf16>) {
  // expected-error @+1 {{'loom.reshape' op cannot reshape 'tensor<2x6x64xbf16>' to 'tensor<2x380xbf16>': element count or type differs}}
  %0 = loom.reshape %x : tensor<2x6x64xbf16> -> tensor<2x380xbf16>
  return
}

// -----

func.func @reshape_element_type(%x: tensor<2x6x64xbf16>) {
  // expected-error @+1 {{'loom.reshape' op cannot reshape 'tensor<2x6x64xbf16>' to 'tensor<2x384xf32>': element count or type differs}}
  %0 = loom.reshape %x : tensor<2x6x64xbf16> -> tensor<2x384xf32>
  return
}

// -----

func.func @chunk_uneven(%x: tensor<2x384xbf16>) {
  // expected-error @+1 {{'loom.chunk' op cannot split [2, 384] into 5 equal pieces}}
  %0:5 = loom.chunk %x : tensor<2x384xbf16> -> tensor<2x76xbf16>, tensor<2x76xbf16>, tensor<2x76xbf16>, tensor<2x76xbf16>, tensor<2x76xbf16>
  return
}

// -----

func.func @chunk_shape(%x: tensor<2x384xbf16>) {
  // expected-error @+1 {{'loom.chunk' op expects results of shape [2, 192], got [2, 128]}}
  %0:2 = loom.chunk %x : tensor<2x384xbf16> -> tensor<2x128xbf16>, tensor<2x128xbf16>
  return
}

// -----

func.func @chunk_mixed_types(%x: tensor<2x384xbf16>) {
  // expected-error @+1 {{'loom.chunk' op expects all results of one type}}
  %0:2 = loom.chunk %x : tensor<2x384xbf16> -> tensor<2x192xbf16>, tensor<2x192xf32>
  return
}

// -----

func.func @chunk_scalar(%x: tensor<bf16>) {
  // expected-error @+1 {{'loom.chunk' op cannot split [] into 2 equal pieces}}
  %0:2 = loom.chunk %x : tensor<bf16> -> tensor<bf16>, tensor<bf16>
  return
}

// -----

func.func @chunk_no_results(%x: tensor<2x384xbf16>) {
  // expected-error @+1 {{'loom.chunk' op expects at least one result}}
  "loom.chunk"(%x) : (tensor<2x384xbf16>) -> ()
  return
}

//===----------------------------------------------------------------------===//
// loom.attention
//===----------------------------------------------------------------------===//

// -----

func.func @attention_hidden(%q: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.attention' op heads * head_dim (4 * 8 = 32) does not match q's hidden size 64}}
  %0 = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 8} : tensor<1x8x64xbf16>, tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

// -----

func.func @attention_kv_heads_divide(%q: tensor<1x8x64xbf16>, %k: tensor<1x8x48xbf16>) {
  // expected-error @+1 {{'loom.attention' op kv_heads 3 does not divide heads 4}}
  %0 = loom.attention %q, %k, %k {heads = 4, kv_heads = 3, head_dim = 16} : tensor<1x8x64xbf16>, tensor<1x8x48xbf16> -> tensor<1x8x64xbf16>
  return
}

// -----

func.func @attention_kv_hidden(%q: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.attention' op kv_heads * head_dim (2 * 16 = 32) does not match k's hidden size 64}}
  %0 = loom.attention %q, %q, %q {heads = 4, kv_heads = 2, head_dim = 16} : tensor<1x8x64xbf16>, tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

// -----

func.func @attention_batch(%q: tensor<1x8x64xbf16>, %k: tensor<2x8x64xbf16>) {
  // expected-error @+1 {{'loom.attention' op q has batch 1 but k has batch 2}}
  %0 = loom.attention %q, %k, %k {heads = 4, kv_heads = 4, head_dim = 16} : tensor<1x8x64xbf16>, tensor<2x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

// -----

func.func @attention_causal_cross(%q: tensor<2x16x64xbf16>, %c: tensor<2x10x64xbf16>) {
  // expected-error @+1 {{'loom.attention' op cross attention cannot be causal}}
  %0 = loom.attention %q, %c, %c {heads = 4, kv_heads = 4, head_dim = 16, causal, cross} : tensor<2x16x64xbf16>, tensor<2x10x64xbf16> -> tensor<2x16x64xbf16>
  return
}

// -----

func.func @attention_causal_lengths(%q: tensor<1x1x64xbf16>, %k: tensor<1x8x32xbf16>) {
  // expected-error @+1 {{'loom.attention' op causal attention expects as many queries as new keys, got 1 and 8 (earlier tokens belong in 'cached')}}
  %0 = loom.attention %q, %k, %k {heads = 4, kv_heads = 2, head_dim = 16, causal} : tensor<1x1x64xbf16>, tensor<1x8x32xbf16> -> tensor<1x1x64xbf16>
  return
}

// -----

func.func @attention_cross_cached(%q: tensor<2x16x64xbf16>, %c: tensor<2x10x64xbf16>) {
  // expected-error @+1 {{'loom.attention' op cross attention has no cached context}}
  %0 = loom.attention %q, %c, %c {heads = 4, kv_heads = 4, head_dim = 16, cross, cached = 4} : tensor<2x16x64xbf16>, tensor<2x10x64xbf16> -> tensor<2x16x64xbf16>
  return
}

// -----

func.func @attention_integer(%q: tensor<1x8x64xi8>) {
  // expected-error @+1 {{'loom.attention' op expects q to have a floating-point element type, got 'tensor<1x8x64xi8>'}}
  %0 = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 16} : tensor<1x8x64xi8>, tensor<1x8x64xi8> -> tensor<1x8x64xi8>
  return
}

// -----

func.func @attention_q_rank(%q: tensor<8x64xbf16>, %k: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.attention' op expects q of rank 3 [batch, seq, heads * head_dim], got [8, 64]}}
  %0 = loom.attention %q, %k, %k {heads = 4, kv_heads = 4, head_dim = 16} : tensor<8x64xbf16>, tensor<1x8x64xbf16> -> tensor<8x64xbf16>
  return
}

// -----

func.func @attention_k_rank(%q: tensor<1x8x64xbf16>, %k: tensor<1x8x4x16xbf16>) {
  // expected-error @+1 {{'loom.attention' op expects k of rank 3 [batch, seq, heads * head_dim], got [1, 8, 4, 16]}}
  %0 = loom.attention %q, %k, %k {heads = 4, kv_heads = 4, head_dim = 16} : tensor<1x8x64xbf16>, tensor<1x8x4x16xbf16> -> tensor<1x8x64xbf16>
  return
}

// -----

func.func @attention_k_v_types(%q: tensor<1x8x64xbf16>, %v: tensor<1x4x64xbf16>) {
  // expected-error @+1 {{'loom.attention' op failed to verify that all of {k, v} have same type}}
  %0 = "loom.attention"(%q, %q, %v) {heads = 4 : i64, kv_heads = 4 : i64, head_dim = 16 : i64} : (tensor<1x8x64xbf16>, tensor<1x8x64xbf16>, tensor<1x4x64xbf16>) -> tensor<1x8x64xbf16>
  return
}

// -----

func.func @attention_zero_heads(%q: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{attribute 'heads' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = loom.attention %q, %q, %q {heads = 0, kv_heads = 4, head_dim = 16} : tensor<1x8x64xbf16>, tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

// -----

func.func @attention_negative_head_dim(%q: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{attribute 'head_dim' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = -16} : tensor<1x8x64xbf16>, tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

// -----

func.func @attention_negative_cached(%q: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{attribute 'cached' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 16, causal, cached = -1} : tensor<1x8x64xbf16>, tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

// -----

func.func @attention_missing_heads(%q: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{requires attribute 'heads'}}
  %0 = loom.attention %q, %q, %q {kv_heads = 4, head_dim = 16} : tensor<1x8x64xbf16>, tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

//===----------------------------------------------------------------------===//
// loom.joint_attention
//===----------------------------------------------------------------------===//

// -----

func.func @joint_attention_hidden(%i: tensor<1x16x64xbf16>, %t: tensor<1x6x32xbf16>) {
  // expected-error @+1 {{'loom.joint_attention' op heads * head_dim (4 * 16 = 64) does not match the image and text hidden sizes 64 and 32}}
  %0:2 = loom.joint_attention %i, %i, %i, %t, %t, %t {heads = 4, head_dim = 16} : tensor<1x16x64xbf16>, tensor<1x6x32xbf16>
  return
}

// -----

func.func @joint_attention_batch(%i: tensor<1x16x64xbf16>, %t: tensor<2x6x64xbf16>) {
  // expected-error @+1 {{'loom.joint_attention' op image batch 1 differs from text batch 2}}
  %0:2 = loom.joint_attention %i, %i, %i, %t, %t, %t {heads = 4, head_dim = 16} : tensor<1x16x64xbf16>, tensor<2x6x64xbf16>
  return
}

// -----

func.func @joint_attention_rank(%i: tensor<16x64xbf16>, %t: tensor<1x6x64xbf16>) {
  // expected-error @+1 {{'loom.joint_attention' op expects q_img of rank 3 [batch, seq, heads * head_dim], got [16, 64]}}
  %0:2 = loom.joint_attention %i, %i, %i, %t, %t, %t {heads = 4, head_dim = 16} : tensor<16x64xbf16>, tensor<1x6x64xbf16>
  return
}

// -----

func.func @joint_attention_integer(%i: tensor<1x16x64xi32>, %t: tensor<1x6x64xi32>) {
  // expected-error @+1 {{'loom.joint_attention' op expects q_img to have a floating-point element type, got 'tensor<1x16x64xi32>'}}
  %0:2 = loom.joint_attention %i, %i, %i, %t, %t, %t {heads = 4, head_dim = 16} : tensor<1x16x64xi32>, tensor<1x6x64xi32>
  return
}

// -----

func.func @joint_attention_stream_types(%i: tensor<1x16x64xbf16>, %k: tensor<1x8x64xbf16>, %t: tensor<1x6x64xbf16>) {
  // expected-error @+1 {{'loom.joint_attention' op failed to verify that all of {q_img, k_img, v_img, img} have same type}}
  %0:2 = "loom.joint_attention"(%i, %k, %i, %t, %t, %t) {heads = 4 : i64, head_dim = 16 : i64} : (tensor<1x16x64xbf16>, tensor<1x8x64xbf16>, tensor<1x16x64xbf16>, tensor<1x6x64xbf16>, tensor<1x6x64xbf16>, tensor<1x6x64xbf16>) -> (tensor<1x16x64xbf16>, tensor<1x6x64xbf16>)
  return
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

// -----

func.func @all_gather_missing_dim(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.all_gather' op expects a 'dim' attribute}}
  %0 = loom.all_gather %x {group = "sp", group_size = 2} : tensor<1x8x64xbf16> -> tensor<1x16x64xbf16>
  return
}

// -----

func.func @all_gather_size(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.all_gather' op expects a result of shape [1, 16, 64], got [1, 8, 128]}}
  %0 = loom.all_gather %x {group = "sp", group_size = 2, dim = 1} : tensor<1x8x64xbf16> -> tensor<1x8x128xbf16>
  return
}

// -----

func.func @all_gather_dim_range(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.all_gather' op dim 3 is out of range for rank 3}}
  %0 = loom.all_gather %x {group = "tp", group_size = 2, dim = 3} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

// -----

func.func @reduce_scatter_not_divisible(%x: tensor<1x9x64xbf16>) {
  // expected-error @+1 {{'loom.reduce_scatter' op dimension 1 of size 9 is not divisible by group_size 2}}
  %0 = loom.reduce_scatter %x {group = "sp", group_size = 2, dim = 1} : tensor<1x9x64xbf16> -> tensor<1x4x64xbf16>
  return
}

// -----

func.func @reduce_scatter_size(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.reduce_scatter' op expects a result of shape [1, 2, 64], got [1, 4, 64]}}
  %0 = loom.reduce_scatter %x {group = "sp", group_size = 4, dim = 1} : tensor<1x8x64xbf16> -> tensor<1x4x64xbf16>
  return
}

// -----

func.func @all_reduce_with_dim(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.all_reduce' op takes no 'dim' attribute}}
  %0 = loom.all_reduce %x {group = "tp", group_size = 4, dim = 2} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

// -----

func.func @all_reduce_shape(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.all_reduce' op expects a result of shape [1, 8, 64], got [1, 8, 16]}}
  %0 = loom.all_reduce %x {group = "tp", group_size = 4} : tensor<1x8x64xbf16> -> tensor<1x8x16xbf16>
  return
}

// -----

func.func @all_reduce_element_type(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.all_reduce' op expects a result of shape [1, 8, 64], got [1, 8, 64]}}
  %0 = loom.all_reduce %x {group = "tp", group_size = 4} : tensor<1x8x64xbf16> -> tensor<1x8x64xf32>
  return
}

// -----

func.func @all_to_all_missing_dim(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.all_to_all' op expects a 'dim' attribute}}
  %0 = loom.all_to_all %x {group = "ep", group_size = 8} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

// -----

func.func @all_to_all_shape(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.all_to_all' op expects a result of shape [1, 8, 64], got [1, 64, 8]}}
  %0 = loom.all_to_all %x {group = "ep", group_size = 8, dim = 1} : tensor<1x8x64xbf16> -> tensor<1x64x8xbf16>
  return
}

// -----

func.func @collective_zero_group(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{attribute 'group_size' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = loom.all_reduce %x {group = "tp", group_size = 0} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

// -----

func.func @collective_missing_group(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{requires attribute 'group'}}
  %0 = loom.all_reduce %x {group_size = 4} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

// -----

func.func @rope_scalar(%x: tensor<f32>) {
  // expected-error @+1 {{'loom.rope' op expects a tensor of rank >= 1, got 'tensor<f32>'}}
  %0 = loom.rope %x {head_dim = 2} : tensor<f32>
  return
}

// -----

func.func @norm_scalar(%x: tensor<f32>) {
  // expected-error @+1 {{'loom.rms_norm' op expects a tensor of rank >= 1}}
  %0 = loom.rms_norm %x : tensor<f32>
  return
}

// -----

func.func @rope_integer(%x: tensor<1x2x4xi32>) {
  // expected-error @+1 {{'loom.rope' op expects the input to have a floating-point element type}}
  %0 = loom.rope %x {head_dim = 2} : tensor<1x2x4xi32>
  return
}

// -----

func.func @slice_offset_overflow(%x: tensor<4xf32>) {
  // expected-error @+1 {{is out of bounds for size 4}}
  %0 = loom.slice %x {dim = 0, offset = 9223372036854775807} : tensor<4xf32> -> tensor<1xf32>
  return
}

// -----

func.func @unpatchify_element_type(%x: tensor<1x4x16xbf16>) {
  // expected-error @+1 {{'loom.unpatchify' op expects input and result of the same element type}}
  %0 = loom.unpatchify %x {patch_size = 2} : tensor<1x4x16xbf16> -> tensor<1x4x4x4xi32>
  return
}

// -----

func.func @attention_mixed_types(%q: tensor<1x2x4xbf16>, %k: tensor<1x2x4xf32>) {
  // expected-error @+1 {{'loom.attention' op expects q and k of the same element type}}
  %0 = loom.attention %q, %k, %k {heads = 1, kv_heads = 1, head_dim = 4} : tensor<1x2x4xbf16>, tensor<1x2x4xf32> -> tensor<1x2x4xbf16>
  return
}

// -----

func.func @joint_mixed_types(%i: tensor<1x2x4xbf16>, %t: tensor<1x2x4xf32>) {
  // expected-error @+1 {{'loom.joint_attention' op expects image and text streams of the same element type}}
  %a, %b = loom.joint_attention %i, %i, %i, %t, %t, %t {heads = 1, head_dim = 4} : tensor<1x2x4xbf16>, tensor<1x2x4xf32>
  return
}

// -----

func.func @all_to_all_indivisible(%x: tensor<1x3x8xbf16>) {
  // expected-error @+1 {{'loom.all_to_all' op dimension 1 of size 3 is not divisible by group_size 8}}
  %0 = loom.all_to_all %x {dim = 1, group = "tp", group_size = 8} : tensor<1x3x8xbf16> -> tensor<1x3x8xbf16>
  return
}

//===----------------------------------------------------------------------===//
// Cost figures past 64 bits (CostOpInterface's verifier, kCostLimit = 2^62)
//===----------------------------------------------------------------------===//

// -----

// 2 * 2^40 rows * 2^20 * 2^20 FLOPs: the product saturates instead of wrapping.
func.func @cost_saturates(%x: tensor<1048576x1048576x1048576xbf16>) {
  // expected-error @+1 {{'loom.linear' op needs 2^63 or more FLOPs, past Loom's 64-bit cost figures (at most 2^62 for one op); use a smaller batch, sequence or width}}
  %0 = loom.linear o %x : tensor<1048576x1048576x1048576xbf16> -> tensor<1048576x1048576x1048576xbf16>
  return
}

// -----

// 4 * 128 * 2^20 queries * (2^33 - 2^20 cached + 2^20 keys) = 2^62 exactly.
func.func @cost_at_limit(%q: tensor<1x1048576x128xbf16>) {
  // expected-error @+1 {{'loom.attention' op needs 4611686018427387904 FLOPs, past Loom's 64-bit cost figures}}
  %0 = loom.attention %q, %q, %q {heads = 1, kv_heads = 1, head_dim = 128, cached = 8588886016} : tensor<1x1048576x128xbf16>, tensor<1x1048576x128xbf16> -> tensor<1x1048576x128xbf16>
  return
}

// -----

// One cached token short of the limit passes; a layer of three ops of 2^61
// FLOPs each does not.
func.func @cost_layer_sum(%q: tensor<1x1048576x128xbf16>) {
  %ok = loom.attention %q, %q, %q {heads = 1, kv_heads = 1, head_dim = 128, cached = 8588886015} : tensor<1x1048576x128xbf16>, tensor<1x1048576x128xbf16> -> tensor<1x1048576x128xbf16>
  // expected-error @+1 {{'loom.layer' op needs 6917529027641081856 FLOPs}}
  loom.layer 0 (%q) : (tensor<1x1048576x128xbf16>) -> () {
  ^bb0(%x: tensor<1x1048576x128xbf16>):
    %a = loom.attention %x, %x, %x {heads = 1, kv_heads = 1, head_dim = 128, cached = 4293918720} : tensor<1x1048576x128xbf16>, tensor<1x1048576x128xbf16> -> tensor<1x1048576x128xbf16>
    %b = loom.attention %x, %x, %x {heads = 1, kv_heads = 1, head_dim = 128, cached = 4293918720} : tensor<1x1048576x128xbf16>, tensor<1x1048576x128xbf16> -> tensor<1x1048576x128xbf16>
    %c = loom.attention %x, %x, %x {heads = 1, kv_heads = 1, head_dim = 128, cached = 4293918720} : tensor<1x1048576x128xbf16>, tensor<1x1048576x128xbf16> -> tensor<1x1048576x128xbf16>
    loom.yield
  }
  return
}

// -----

// Shape arithmetic in the verifiers saturates too: no wrapped product may
// match a real size.
func.func @heads_wrap(%q: tensor<1x8x4294967296xbf16>) {
  // expected-error @+1 {{'loom.attention' op heads * head_dim (4294967297 * 4294967296 = 2^63 or more) does not match q's hidden size 4294967296}}
  %0 = loom.attention %q, %q, %q {heads = 4294967297, kv_heads = 4294967297, head_dim = 4294967296} : tensor<1x8x4294967296xbf16>, tensor<1x8x4294967296xbf16> -> tensor<1x8x4294967296xbf16>
  return
}

// -----

func.func @gather_wrap(%x: tensor<1x4x8xbf16>) {
  // expected-error @+1 {{'loom.all_gather' op dimension 1 of size 4 times group_size 4611686018427387905 does not fit in 64 bits}}
  %0 = loom.all_gather %x {dim = 1, group = "tp", group_size = 4611686018427387905} : tensor<1x4x8xbf16> -> tensor<1x4x8xbf16>
  return
}

// -----

func.func @reshape_wrap(%x: tensor<4294967296x4294967297xbf16>) {
  // expected-error @+1 {{'loom.reshape' op cannot reshape 'tensor<4294967296x4294967297xbf16>' to 'tensor<4294967296xbf16>': element count or type differs}}
  %0 = loom.reshape %x : tensor<4294967296x4294967297xbf16> -> tensor<4294967296xbf16>
  return
}

// -----

func.func @patchify_video_frames(%x: tensor<1x16x5x8x8xbf16>) {
  // expected-error @+1 {{'loom.patchify' op expects frames divisible by patch_t 2, got 5}}
  %0 = loom.patchify %x {patch_size = 2, patch_t = 2} : tensor<1x16x5x8x8xbf16> -> tensor<1x32x64xbf16>
  return
}

// -----

func.func @patchify_video_tokens(%x: tensor<1x16x4x8x8xbf16>) {
  // expected-error @+1 {{'loom.patchify' op expects result shape [1, 32, hidden], got [1, 16, 64]}}
  %0 = loom.patchify %x {patch_size = 2, patch_t = 2} : tensor<1x16x4x8x8xbf16> -> tensor<1x16x64xbf16>
  return
}

// -----

func.func @patchify_image_patch_t(%x: tensor<1x16x8x8xbf16>) {
  // expected-error @+1 {{'loom.patchify' op has patch_t but an image (rank 4) input}}
  %0 = loom.patchify %x {patch_size = 2, patch_t = 2} : tensor<1x16x8x8xbf16> -> tensor<1x16x64xbf16>
  return
}

// -----

func.func @unpatchify_video_features(%x: tensor<1x32x64xbf16>) {
  // expected-error @+1 {{'loom.unpatchify' op expects input shape [1, 32, 128] for result [1, 16, 4, 8, 8], got [1, 32, 64]}}
  %0 = loom.unpatchify %x {patch_size = 2, patch_t = 2} : tensor<1x32x64xbf16> -> tensor<1x16x4x8x8xbf16>
  return
}
