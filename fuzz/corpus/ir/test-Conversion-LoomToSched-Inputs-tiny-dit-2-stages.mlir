// Inputs/tiny-dit.json imported with --steps 3 --target v5e-4 and cut by
// loom-partition-layers=stages=2: the pipelined DiT pipefusion.test lowers.
module attributes {loom.model = #loom.model<name = "tiny-dit", family = "dit", mode = diffusion, batch = 2, seq = 16, resolution = 64, steps = 3>, loom.parallel = #loom.parallel<>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @tiny_dit(%arg0: tensor<2x4x8x8xbf16> {loom.name = "latent"}, %arg1: tensor<2xf32> {loom.name = "timestep"}, %arg2: tensor<2xi32> {loom.name = "class_labels"}) -> tensor<2x8x8x8xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [16], patches, steps = 3>} {
    %0 = loom.patchify %arg0 {patch_size = 2 : i64} : tensor<2x4x8x8xbf16> -> tensor<2x16x1152xbf16>
    %1 = loom.embed %arg2 {vocab = 1001 : i64} : tensor<2xi32> -> tensor<2x1152xbf16>
    %2 = loom.timestep_embed %arg1 : tensor<2xf32> -> tensor<2x256xbf16>
    %3 = loom.linear  cond %2 {bias} : tensor<2x256xbf16> -> tensor<2x1152xbf16>
    %4 = loom.activation  silu %3 : tensor<2x1152xbf16>
    %5 = loom.linear  cond %4 {bias} : tensor<2x1152xbf16> -> tensor<2x1152xbf16>
    %6 = loom.add %5, %1 : tensor<2x1152xbf16>, tensor<2x1152xbf16>
    %7 = loom.layer 0(%0, %6) {kind = "dit", stage = 0 : i64} : (tensor<2x16x1152xbf16>, tensor<2x1152xbf16>) -> tensor<2x16x1152xbf16> {
    ^bb0(%arg3: tensor<2x16x1152xbf16>, %arg4: tensor<2x1152xbf16>):
      %16 = loom.activation  silu %arg4 : tensor<2x1152xbf16>
      %17 = loom.linear  modulation %16 {bias} : tensor<2x1152xbf16> -> tensor<2x6912xbf16>
      %18:6 = loom.chunk %17 : tensor<2x6912xbf16> -> tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>
      %19 = loom.layer_norm %arg3 {affine = false} : tensor<2x16x1152xbf16>
      %20 = loom.modulate %19, %18#0, %18#1 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %21 = loom.linear  q %20 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %22 = loom.linear  k %20 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %23 = loom.linear  v %20 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %24 = loom.attention %21, %22, %23 {head_dim = 72 : i64, heads = 16 : i64, kv_heads = 16 : i64} : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %25 = loom.linear  o %24 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %26 = loom.gate %25, %18#2 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %27 = loom.add %arg3, %26 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      %28 = loom.layer_norm %27 {affine = false} : tensor<2x16x1152xbf16>
      %29 = loom.modulate %28, %18#3, %18#4 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %30 = loom.linear  fc1 %29 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x4608xbf16>
      %31 = loom.activation  gelu_tanh %30 : tensor<2x16x4608xbf16>
      %32 = loom.linear  fc2 %31 {bias} : tensor<2x16x4608xbf16> -> tensor<2x16x1152xbf16>
      %33 = loom.gate %32, %18#5 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %34 = loom.add %27, %33 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      loom.yield %34 : tensor<2x16x1152xbf16>
    }
    %8 = loom.layer 1(%7, %6) {kind = "dit", stage = 1 : i64} : (tensor<2x16x1152xbf16>, tensor<2x1152xbf16>) -> tensor<2x16x1152xbf16> {
    ^bb0(%arg3: tensor<2x16x1152xbf16>, %arg4: tensor<2x1152xbf16>):
      %16 = loom.activation  silu %arg4 : tensor<2x1152xbf16>
      %17 = loom.linear  modulation %16 {bias} : tensor<2x1152xbf16> -> tensor<2x6912xbf16>
      %18:6 = loom.chunk %17 : tensor<2x6912xbf16> -> tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>
      %19 = loom.layer_norm %arg3 {affine = false} : tensor<2x16x1152xbf16>
      %20 = loom.modulate %19, %18#0, %18#1 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %21 = loom.linear  q %20 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %22 = loom.linear  k %20 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %23 = loom.linear  v %20 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %24 = loom.attention %21, %22, %23 {head_dim = 72 : i64, heads = 16 : i64, kv_heads = 16 : i64} : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %25 = loom.linear  o %24 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %26 = loom.gate %25, %18#2 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %27 = loom.add %arg3, %26 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      %28 = loom.layer_norm %27 {affine = false} : tensor<2x16x1152xbf16>
      %29 = loom.modulate %28, %18#3, %18#4 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %30 = loom.linear  fc1 %29 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x4608xbf16>
      %31 = loom.activation  gelu_tanh %30 : tensor<2x16x4608xbf16>
      %32 = loom.linear  fc2 %31 {bias} : tensor<2x16x4608xbf16> -> tensor<2x16x1152xbf16>
      %33 = loom.gate %32, %18#5 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %34 = loom.add %27, %33 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      loom.yield %34 : tensor<2x16x1152xbf16>
    }
    %9 = loom.activation  silu %6 : tensor<2x1152xbf16>
    %10 = loom.linear  modulation %9 {bias} : tensor<2x1152xbf16> -> tensor<2x2304xbf16>
    %11:2 = loom.chunk %10 : tensor<2x2304xbf16> -> tensor<2x1152xbf16>, tensor<2x1152xbf16>
    %12 = loom.layer_norm %8 {affine = false} : tensor<2x16x1152xbf16>
    %13 = loom.modulate %12, %11#0, %11#1 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
    %14 = loom.linear  proj_out %13 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x32xbf16>
    %15 = loom.unpatchify %14 {patch_size = 2 : i64} : tensor<2x16x32xbf16> -> tensor<2x8x8x8xbf16>
    return %15 : tensor<2x8x8x8xbf16>
  }
}

