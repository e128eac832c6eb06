module attributes {loom.model = #loom.model<name = "dit-xl-2", family = "dit", mode = diffusion, batch = 2, seq = 16, resolution = 64, steps = 50>, loom.target = #loom.target<"tpu-v5e", topology = "v5e-4", shape = [2, 2], wrap_axes = [], chip = #loom.chip<peak_bf16 = 1.97e+14, peak_int8 = 3.94e+14, mxu_tile = 128, mxu_efficiency = 0.9568, hbm_capacity = 1.6e+10, hbm_bandwidth = 8.192e+11, hbm_efficiency = 0.9, host_bandwidth = 1.6e+10, host_memory = 4.8e+10>, ici = #loom.ici<link_bandwidth = 4.5e+10, hop_latency = 1.0e-06>, calibration = #loom.calibration<file = "targets/tpu-v5e.json", name = "tpu-v5e-published", version = 1, program_dispatch = 0.000112, kernel_step = 2.672e-07, collective_sync = 2.365e-06, link_efficiency_ring = 0.9556, link_efficiency_line = 0.829>>} {
  func.func @dit_xl_2(%arg0: tensor<2x4x8x8xbf16> {loom.name = "latent"}, %arg1: tensor<2xf32> {loom.name = "timestep"}, %arg2: tensor<2xi32> {loom.name = "class_labels"}) -> tensor<2x8x8x8xbf16> {
    %0 = loom.patchify %arg0 {patch_size = 2 : i64} : tensor<2x4x8x8xbf16> -> tensor<2x16x1152xbf16>
    %1 = loom.embed %arg2 {vocab = 1001 : i64} : tensor<2xi32> -> tensor<2x1152xbf16>
    %2 = loom.timestep_embed %arg1 : tensor<2xf32> -> tensor<2x256xbf16>
    %3 = loom.linear  cond %2 {bias} : tensor<2x256xbf16> -> tensor<2x1152xbf16>
    %4 = loom.activation  silu %3 : tensor<2x1152xbf16>
    %5 = loom.linear  cond %4 {bias} : tensor<2x1152xbf16> -> tensor<2x1152xbf16>
    %6 = loom.add %5, %1 : tensor<2x1152xbf16>, tensor<2x1152xbf16>
    %7 = loom.layer 0(%0, %6) {kind = "dit"} : (tensor<2x16x1152xbf16>, tensor<2x1152xbf16>) -> tensor<2x16x1152xbf16> {
    ^bb0(%arg3: tensor<2x16x1152xbf16>, %arg4: tensor<2x1152xbf16>):
      %42 = loom.activation  silu %arg4 : tensor<2x1152xbf16>
      %43 = loom.linear  modulation %42 {bias} : tensor<2x1152xbf16> -> tensor<2x6912xbf16>
      %44:6 = loom.chunk %43 : tensor<2x6912xbf16> -> tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>
      %45 = loom.layer_norm %arg3 {affine = false} : tensor<2x16x1152xbf16>
      %46 = loom.modulate %45, %44#0, %44#1 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %47 = loom.linear  q %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %48 = loom.linear  k %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %49 = loom.linear  v %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %50 = loom.attention %47, %48, %49 {head_dim = 72 : i64, heads = 16 : i64, kv_heads = 16 : i64} : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %51 = loom.linear  o %50 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %52 = loom.gate %51, %44#2 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %53 = loom.add %arg3, %52 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      %54 = loom.layer_norm %53 {affine = false} : tensor<2x16x1152xbf16>
      %55 = loom.modulate %54, %44#3, %44#4 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %56 = loom.linear  fc1 %55 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x4608xbf16>
      %57 = loom.activation  gelu_tanh %56 : tensor<2x16x4608xbf16>
      %58 = loom.linear  fc2 %57 {bias} : tensor<2x16x4608xbf16> -> tensor<2x16x1152xbf16>
      %59 = loom.gate %58, %44#5 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %60 = loom.add %53, %59 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      loom.yield %60 : tensor<2x16x1152xbf16>
    }
    %8 = loom.layer 1(%7, %6) {kind = "dit"} : (tensor<2x16x1152xbf16>, tensor<2x1152xbf16>) -> tensor<2x16x1152xbf16> {
    ^bb0(%arg3: tensor<2x16x1152xbf16>, %arg4: tensor<2x1152xbf16>):
      %42 = loom.activation  silu %arg4 : tensor<2x1152xbf16>
      %43 = loom.linear  modulation %42 {bias} : tensor<2x1152xbf16> -> tensor<2x6912xbf16>
      %44:6 = loom.chunk %43 : tensor<2x6912xbf16> -> tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>
      %45 = loom.layer_norm %arg3 {affine = false} : tensor<2x16x1152xbf16>
      %46 = loom.modulate %45, %44#0, %44#1 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %47 = loom.linear  q %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %48 = loom.linear  k %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %49 = loom.linear  v %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %50 = loom.attention %47, %48, %49 {head_dim = 72 : i64, heads = 16 : i64, kv_heads = 16 : i64} : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %51 = loom.linear  o %50 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %52 = loom.gate %51, %44#2 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %53 = loom.add %arg3, %52 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      %54 = loom.layer_norm %53 {affine = false} : tensor<2x16x1152xbf16>
      %55 = loom.modulate %54, %44#3, %44#4 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %56 = loom.linear  fc1 %55 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x4608xbf16>
      %57 = loom.activation  gelu_tanh %56 : tensor<2x16x4608xbf16>
      %58 = loom.linear  fc2 %57 {bias} : tensor<2x16x4608xbf16> -> tensor<2x16x1152xbf16>
      %59 = loom.gate %58, %44#5 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %60 = loom.add %53, %59 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      loom.yield %60 : tensor<2x16x1152xbf16>
    }
    %9 = loom.layer 2(%8, %6) {kind = "dit"} : (tensor<2x16x1152xbf16>, tensor<2x1152xbf16>) -> tensor<2x16x1152xbf16> {
    ^bb0(%arg3: tensor<2x16x1152xbf16>, %arg4: tensor<2x1152xbf16>):
      %42 = loom.activation  silu %arg4 : tensor<2x1152xbf16>
      %43 = loom.linear  modulation %42 {bias} : tensor<2x1152xbf16> -> tensor<2x6912xbf16>
      %44:6 = loom.chunk %43 : tensor<2x6912xbf16> -> tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>
      %45 = loom.layer_norm %arg3 {affine = false} : tensor<2x16x1152xbf16>
      %46 = loom.modulate %45, %44#0, %44#1 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %47 = loom.linear  q %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %48 = loom.linear  k %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %49 = loom.linear  v %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %50 = loom.attention %47, %48, %49 {head_dim = 72 : i64, heads = 16 : i64, kv_heads = 16 : i64} : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %51 = loom.linear  o %50 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %52 = loom.gate %51, %44#2 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %53 = loom.add %arg3, %52 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      %54 = loom.layer_norm %53 {affine = false} : tensor<2x16x1152xbf16>
      %55 = loom.modulate %54, %44#3, %44#4 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %56 = loom.linear  fc1 %55 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x4608xbf16>
      %57 = loom.activation  gelu_tanh %56 : tensor<2x16x4608xbf16>
      %58 = loom.linear  fc2 %57 {bias} : tensor<2x16x4608xbf16> -> tensor<2x16x1152xbf16>
      %59 = loom.gate %58, %44#5 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %60 = loom.add %53, %59 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      loom.yield %60 : tensor<2x16x1152xbf16>
    }
    %10 = loom.layer 3(%9, %6) {kind = "dit"} : (tensor<2x16x1152xbf16>, tensor<2x1152xbf16>) -> tensor<2x16x1152xbf16> {
    ^bb0(%arg3: tensor<2x16x1152xbf16>, %arg4: tensor<2x1152xbf16>):
      %42 = loom.activation  silu %arg4 : tensor<2x1152xbf16>
      %43 = loom.linear  modulation %42 {bias} : tensor<2x1152xbf16> -> tensor<2x6912xbf16>
      %44:6 = loom.chunk %43 : tensor<2x6912xbf16> -> tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>
      %45 = loom.layer_norm %arg3 {affine = false} : tensor<2x16x1152xbf16>
      %46 = loom.modulate %45, %44#0, %44#1 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %47 = loom.linear  q %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %48 = loom.linear  k %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %49 = loom.linear  v %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %50 = loom.attention %47, %48, %49 {head_dim = 72 : i64, heads = 16 : i64, kv_heads = 16 : i64} : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %51 = loom.linear  o %50 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %52 = loom.gate %51, %44#2 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %53 = loom.add %arg3, %52 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      %54 = loom.layer_norm %53 {affine = false} : tensor<2x16x1152xbf16>
      %55 = loom.modulate %54, %44#3, %44#4 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %56 = loom.linear  fc1 %55 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x4608xbf16>
      %57 = loom.activation  gelu_tanh %56 : tensor<2x16x4608xbf16>
      %58 = loom.linear  fc2 %57 {bias} : tensor<2x16x4608xbf16> -> tensor<2x16x1152xbf16>
      %59 = loom.gate %58, %44#5 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %60 = loom.add %53, %59 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      loom.yield %60 : tensor<2x16x1152xbf16>
    }
    %11 = loom.layer 4(%10, %6) {kind = "dit"} : (tensor<2x16x1152xbf16>, tensor<2x1152xbf16>) -> tensor<2x16x1152xbf16> {
    ^bb0(%arg3: tensor<2x16x1152xbf16>, %arg4: tensor<2x1152xbf16>):
      %42 = loom.activation  silu %arg4 : tensor<2x1152xbf16>
      %43 = loom.linear  modulation %42 {bias} : tensor<2x1152xbf16> -> tensor<2x6912xbf16>
      %44:6 = loom.chunk %43 : tensor<2x6912xbf16> -> tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>
      %45 = loom.layer_norm %arg3 {affine = false} : tensor<2x16x1152xbf16>
      %46 = loom.modulate %45, %44#0, %44#1 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %47 = loom.linear  q %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %48 = loom.linear  k %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %49 = loom.linear  v %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %50 = loom.attention %47, %48, %49 {head_dim = 72 : i64, heads = 16 : i64, kv_heads = 16 : i64} : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %51 = loom.linear  o %50 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %52 = loom.gate %51, %44#2 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %53 = loom.add %arg3, %52 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      %54 = loom.layer_norm %53 {affine = false} : tensor<2x16x1152xbf16>
      %55 = loom.modulate %54, %44#3, %44#4 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %56 = loom.linear  fc1 %55 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x4608xbf16>
      %57 = loom.activation  gelu_tanh %56 : tensor<2x16x4608xbf16>
      %58 = loom.linear  fc2 %57 {bias} : tensor<2x16x4608xbf16> -> tensor<2x16x1152xbf16>
      %59 = loom.gate %58, %44#5 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %60 = loom.add %53, %59 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      loom.yield %60 : tensor<2x16x1152xbf16>
    }
    %12 = loom.layer 5(%11, %6) {kind = "dit"} : (tensor<2x16x1152xbf16>, tensor<2x1152xbf16>) -> tensor<2x16x1152xbf16> {
    ^bb0(%arg3: tensor<2x16x1152xbf16>, %arg4: tensor<2x1152xbf16>):
      %42 = loom.activation  silu %arg4 : tensor<2x1152xbf16>
      %43 = loom.linear  modulation %42 {bias} : tensor<2x1152xbf16> -> tensor<2x6912xbf16>
      %44:6 = loom.chunk %43 : tensor<2x6912xbf16> -> tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>
      %45 = loom.layer_norm %arg3 {affine = false} : tensor<2x16x1152xbf16>
      %46 = loom.modulate %45, %44#0, %44#1 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %47 = loom.linear  q %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %48 = loom.linear  k %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %49 = loom.linear  v %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %50 = loom.attention %47, %48, %49 {head_dim = 72 : i64, heads = 16 : i64, kv_heads = 16 : i64} : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %51 = loom.linear  o %50 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %52 = loom.gate %51, %44#2 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %53 = loom.add %arg3, %52 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      %54 = loom.layer_norm %53 {affine = false} : tensor<2x16x1152xbf16>
      %55 = loom.modulate %54, %44#3, %44#4 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %56 = loom.linear  fc1 %55 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x4608xbf16>
      %57 = loom.activation  gelu_tanh %56 : tensor<2x16x4608xbf16>
      %58 = loom.linear  fc2 %57 {bias} : tensor<2x16x4608xbf16> -> tensor<2x16x1152xbf16>
      %59 = loom.gate %58, %44#5 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %60 = loom.add %53, %59 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      loom.yield %60 : tensor<2x16x1152xbf16>
    }
    %13 = loom.layer 6(%12, %6) {kind = "dit"} : (tensor<2x16x1152xbf16>, tensor<2x1152xbf16>) -> tensor<2x16x1152xbf16> {
    ^bb0(%arg3: tensor<2x16x1152xbf16>, %arg4: tensor<2x1152xbf16>):
      %42 = loom.activation  silu %arg4 : tensor<2x1152xbf16>
      %43 = loom.linear  modulation %42 {bias} : tensor<2x1152xbf16> -> tensor<2x6912xbf16>
      %44:6 = loom.chunk %43 : tensor<2x6912xbf16> -> tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>
      %45 = loom.layer_norm %arg3 {affine = false} : tensor<2x16x1152xbf16>
      %46 = loom.modulate %45, %44#0, %44#1 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %47 = loom.linear  q %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %48 = loom.linear  k %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %49 = loom.linear  v %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %50 = loom.attention %47, %48, %49 {head_dim = 72 : i64, heads = 16 : i64, kv_heads = 16 : i64} : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %51 = loom.linear  o %50 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %52 = loom.gate %51, %44#2 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %53 = loom.add %arg3, %52 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      %54 = loom.layer_norm %53 {affine = false} : tensor<2x16x1152xbf16>
      %55 = loom.modulate %54, %44#3, %44#4 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %56 = loom.linear  fc1 %55 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x4608xbf16>
      %57 = loom.activation  gelu_tanh %56 : tensor<2x16x4608xbf16>
      %58 = loom.linear  fc2 %57 {bias} : tensor<2x16x4608xbf16> -> tensor<2x16x1152xbf16>
      %59 = loom.gate %58, %44#5 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %60 = loom.add %53, %59 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      loom.yield %60 : tensor<2x16x1152xbf16>
    }
    %14 = loom.layer 7(%13, %6) {kind = "dit"} : (tensor<2x16x1152xbf16>, tensor<2x1152xbf16>) -> tensor<2x16x1152xbf16> {
    ^bb0(%arg3: tensor<2x16x1152xbf16>, %arg4: tensor<2x1152xbf16>):
      %42 = loom.activation  silu %arg4 : tensor<2x1152xbf16>
      %43 = loom.linear  modulation %42 {bias} : tensor<2x1152xbf16> -> tensor<2x6912xbf16>
      %44:6 = loom.chunk %43 : tensor<2x6912xbf16> -> tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>
      %45 = loom.layer_norm %arg3 {affine = false} : tensor<2x16x1152xbf16>
      %46 = loom.modulate %45, %44#0, %44#1 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %47 = loom.linear  q %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %48 = loom.linear  k %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %49 = loom.linear  v %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %50 = loom.attention %47, %48, %49 {head_dim = 72 : i64, heads = 16 : i64, kv_heads = 16 : i64} : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %51 = loom.linear  o %50 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %52 = loom.gate %51, %44#2 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %53 = loom.add %arg3, %52 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      %54 = loom.layer_norm %53 {affine = false} : tensor<2x16x1152xbf16>
      %55 = loom.modulate %54, %44#3, %44#4 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %56 = loom.linear  fc1 %55 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x4608xbf16>
      %57 = loom.activation  gelu_tanh %56 : tensor<2x16x4608xbf16>
      %58 = loom.linear  fc2 %57 {bias} : tensor<2x16x4608xbf16> -> tensor<2x16x1152xbf16>
      %59 = loom.gate %58, %44#5 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %60 = loom.add %53, %59 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      loom.yield %60 : tensor<2x16x1152xbf16>
    }
    %15 = loom.layer 8(%14, %6) {kind = "dit"} : (tensor<2x16x1152xbf16>, tensor<2x1152xbf16>) -> tensor<2x16x1152xbf16> {
    ^bb0(%arg3: tensor<2x16x1152xbf16>, %arg4: tensor<2x1152xbf16>):
      %42 = loom.activation  silu %arg4 : tensor<2x1152xbf16>
      %43 = loom.linear  modulation %42 {bias} : tensor<2x1152xbf16> -> tensor<2x6912xbf16>
      %44:6 = loom.chunk %43 : tensor<2x6912xbf16> -> tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>
      %45 = loom.layer_norm %arg3 {affine = false} : tensor<2x16x1152xbf16>
      %46 = loom.modulate %45, %44#0, %44#1 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %47 = loom.linear  q %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %48 = loom.linear  k %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %49 = loom.linear  v %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %50 = loom.attention %47, %48, %49 {head_dim = 72 : i64, heads = 16 : i64, kv_heads = 16 : i64} : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %51 = loom.linear  o %50 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %52 = loom.gate %51, %44#2 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %53 = loom.add %arg3, %52 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      %54 = loom.layer_norm %53 {affine = false} : tensor<2x16x1152xbf16>
      %55 = loom.modulate %54, %44#3, %44#4 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %56 = loom.linear  fc1 %55 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x4608xbf16>
      %57 = loom.activation  gelu_tanh %56 : tensor<2x16x4608xbf16>
      %58 = loom.linear  fc2 %57 {bias} : tensor<2x16x4608xbf16> -> tensor<2x16x1152xbf16>
      %59 = loom.gate %58, %44#5 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %60 = loom.add %53, %59 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      loom.yield %60 : tensor<2x16x1152xbf16>
    }
    %16 = loom.layer 9(%15, %6) {kind = "dit"} : (tensor<2x16x1152xbf16>, tensor<2x1152xbf16>) -> tensor<2x16x1152xbf16> {
    ^bb0(%arg3: tensor<2x16x1152xbf16>, %arg4: tensor<2x1152xbf16>):
      %42 = loom.activation  silu %arg4 : tensor<2x1152xbf16>
      %43 = loom.linear  modulation %42 {bias} : tensor<2x1152xbf16> -> tensor<2x6912xbf16>
      %44:6 = loom.chunk %43 : tensor<2x6912xbf16> -> tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>
      %45 = loom.layer_norm %arg3 {affine = false} : tensor<2x16x1152xbf16>
      %46 = loom.modulate %45, %44#0, %44#1 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %47 = loom.linear  q %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %48 = loom.linear  k %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %49 = loom.linear  v %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %50 = loom.attention %47, %48, %49 {head_dim = 72 : i64, heads = 16 : i64, kv_heads = 16 : i64} : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %51 = loom.linear  o %50 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %52 = loom.gate %51, %44#2 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %53 = loom.add %arg3, %52 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      %54 = loom.layer_norm %53 {affine = false} : tensor<2x16x1152xbf16>
      %55 = loom.modulate %54, %44#3, %44#4 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %56 = loom.linear  fc1 %55 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x4608xbf16>
      %57 = loom.activation  gelu_tanh %56 : tensor<2x16x4608xbf16>
      %58 = loom.linear  fc2 %57 {bias} : tensor<2x16x4608xbf16> -> tensor<2x16x1152xbf16>
      %59 = loom.gate %58, %44#5 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %60 = loom.add %53, %59 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      loom.yield %60 : tensor<2x16x1152xbf16>
    }
    %17 = loom.layer 10(%16, %6) {kind = "dit"} : (tensor<2x16x1152xbf16>, tensor<2x1152xbf16>) -> tensor<2x16x1152xbf16> {
    ^bb0(%arg3: tensor<2x16x1152xbf16>, %arg4: tensor<2x1152xbf16>):
      %42 = loom.activation  silu %arg4 : tensor<2x1152xbf16>
      %43 = loom.linear  modulation %42 {bias} : tensor<2x1152xbf16> -> tensor<2x6912xbf16>
      %44:6 = loom.chunk %43 : tensor<2x6912xbf16> -> tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>
      %45 = loom.layer_norm %arg3 {affine = false} : tensor<2x16x1152xbf16>
      %46 = loom.modulate %45, %44#0, %44#1 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %47 = loom.linear  q %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %48 = loom.linear  k %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %49 = loom.linear  v %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %50 = loom.attention %47, %48, %49 {head_dim = 72 : i64, heads = 16 : i64, kv_heads = 16 : i64} : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %51 = loom.linear  o %50 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %52 = loom.gate %51, %44#2 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %53 = loom.add %arg3, %52 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      %54 = loom.layer_norm %53 {affine = false} : tensor<2x16x1152xbf16>
      %55 = loom.modulate %54, %44#3, %44#4 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %56 = loom.linear  fc1 %55 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x4608xbf16>
      %57 = loom.activation  gelu_tanh %56 : tensor<2x16x4608xbf16>
      %58 = loom.linear  fc2 %57 {bias} : tensor<2x16x4608xbf16> -> tensor<2x16x1152xbf16>
      %59 = loom.gate %58, %44#5 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %60 = loom.add %53, %59 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      loom.yield %60 : tensor<2x16x1152xbf16>
    }
    %18 = loom.layer 11(%17, %6) {kind = "dit"} : (tensor<2x16x1152xbf16>, tensor<2x1152xbf16>) -> tensor<2x16x1152xbf16> {
    ^bb0(%arg3: tensor<2x16x1152xbf16>, %arg4: tensor<2x1152xbf16>):
      %42 = loom.activation  silu %arg4 : tensor<2x1152xbf16>
      %43 = loom.linear  modulation %42 {bias} : tensor<2x1152xbf16> -> tensor<2x6912xbf16>
      %44:6 = loom.chunk %43 : tensor<2x6912xbf16> -> tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>
      %45 = loom.layer_norm %arg3 {affine = false} : tensor<2x16x1152xbf16>
      %46 = loom.modulate %45, %44#0, %44#1 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %47 = loom.linear  q %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %48 = loom.linear  k %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %49 = loom.linear  v %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %50 = loom.attention %47, %48, %49 {head_dim = 72 : i64, heads = 16 : i64, kv_heads = 16 : i64} : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %51 = loom.linear  o %50 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %52 = loom.gate %51, %44#2 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %53 = loom.add %arg3, %52 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      %54 = loom.layer_norm %53 {affine = false} : tensor<2x16x1152xbf16>
      %55 = loom.modulate %54, %44#3, %44#4 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %56 = loom.linear  fc1 %55 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x4608xbf16>
      %57 = loom.activation  gelu_tanh %56 : tensor<2x16x4608xbf16>
      %58 = loom.linear  fc2 %57 {bias} : tensor<2x16x4608xbf16> -> tensor<2x16x1152xbf16>
      %59 = loom.gate %58, %44#5 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %60 = loom.add %53, %59 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      loom.yield %60 : tensor<2x16x1152xbf16>
    }
    %19 = loom.layer 12(%18, %6) {kind = "dit"} : (tensor<2x16x1152xbf16>, tensor<2x1152xbf16>) -> tensor<2x16x1152xbf16> {
    ^bb0(%arg3: tensor<2x16x1152xbf16>, %arg4: tensor<2x1152xbf16>):
      %42 = loom.activation  silu %arg4 : tensor<2x1152xbf16>
      %43 = loom.linear  modulation %42 {bias} : tensor<2x1152xbf16> -> tensor<2x6912xbf16>
      %44:6 = loom.chunk %43 : tensor<2x6912xbf16> -> tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>
      %45 = loom.layer_norm %arg3 {affine = false} : tensor<2x16x1152xbf16>
      %46 = loom.modulate %45, %44#0, %44#1 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %47 = loom.linear  q %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %48 = loom.linear  k %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %49 = loom.linear  v %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %50 = loom.attention %47, %48, %49 {head_dim = 72 : i64, heads = 16 : i64, kv_heads = 16 : i64} : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %51 = loom.linear  o %50 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %52 = loom.gate %51, %44#2 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %53 = loom.add %arg3, %52 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      %54 = loom.layer_norm %53 {affine = false} : tensor<2x16x1152xbf16>
      %55 = loom.modulate %54, %44#3, %44#4 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %56 = loom.linear  fc1 %55 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x4608xbf16>
      %57 = loom.activation  gelu_tanh %56 : tensor<2x16x4608xbf16>
      %58 = loom.linear  fc2 %57 {bias} : tensor<2x16x4608xbf16> -> tensor<2x16x1152xbf16>
      %59 = loom.gate %58, %44#5 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %60 = loom.add %53, %59 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      loom.yield %60 : tensor<2x16x1152xbf16>
    }
    %20 = loom.layer 13(%19, %6) {kind = "dit"} : (tensor<2x16x1152xbf16>, tensor<2x1152xbf16>) -> tensor<2x16x1152xbf16> {
    ^bb0(%arg3: tensor<2x16x1152xbf16>, %arg4: tensor<2x1152xbf16>):
      %42 = loom.activation  silu %arg4 : tensor<2x1152xbf16>
      %43 = loom.linear  modulation %42 {bias} : tensor<2x1152xbf16> -> tensor<2x6912xbf16>
      %44:6 = loom.chunk %43 : tensor<2x6912xbf16> -> tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>
      %45 = loom.layer_norm %arg3 {affine = false} : tensor<2x16x1152xbf16>
      %46 = loom.modulate %45, %44#0, %44#1 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %47 = loom.linear  q %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %48 = loom.linear  k %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %49 = loom.linear  v %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %50 = loom.attention %47, %48, %49 {head_dim = 72 : i64, heads = 16 : i64, kv_heads = 16 : i64} : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %51 = loom.linear  o %50 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %52 = loom.gate %51, %44#2 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %53 = loom.add %arg3, %52 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      %54 = loom.layer_norm %53 {affine = false} : tensor<2x16x1152xbf16>
      %55 = loom.modulate %54, %44#3, %44#4 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %56 = loom.linear  fc1 %55 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x4608xbf16>
      %57 = loom.activation  gelu_tanh %56 : tensor<2x16x4608xbf16>
      %58 = loom.linear  fc2 %57 {bias} : tensor<2x16x4608xbf16> -> tensor<2x16x1152xbf16>
      %59 = loom.gate %58, %44#5 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %60 = loom.add %53, %59 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      loom.yield %60 : tensor<2x16x1152xbf16>
    }
    %21 = loom.layer 14(%20, %6) {kind = "dit"} : (tensor<2x16x1152xbf16>, tensor<2x1152xbf16>) -> tensor<2x16x1152xbf16> {
    ^bb0(%arg3: tensor<2x16x1152xbf16>, %arg4: tensor<2x1152xbf16>):
      %42 = loom.activation  silu %arg4 : tensor<2x1152xbf16>
      %43 = loom.linear  modulation %42 {bias} : tensor<2x1152xbf16> -> tensor<2x6912xbf16>
      %44:6 = loom.chunk %43 : tensor<2x6912xbf16> -> tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>
      %45 = loom.layer_norm %arg3 {affine = false} : tensor<2x16x1152xbf16>
      %46 = loom.modulate %45, %44#0, %44#1 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %47 = loom.linear  q %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %48 = loom.linear  k %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %49 = loom.linear  v %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %50 = loom.attention %47, %48, %49 {head_dim = 72 : i64, heads = 16 : i64, kv_heads = 16 : i64} : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %51 = loom.linear  o %50 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %52 = loom.gate %51, %44#2 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %53 = loom.add %arg3, %52 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      %54 = loom.layer_norm %53 {affine = false} : tensor<2x16x1152xbf16>
      %55 = loom.modulate %54, %44#3, %44#4 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %56 = loom.linear  fc1 %55 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x4608xbf16>
      %57 = loom.activation  gelu_tanh %56 : tensor<2x16x4608xbf16>
      %58 = loom.linear  fc2 %57 {bias} : tensor<2x16x4608xbf16> -> tensor<2x16x1152xbf16>
      %59 = loom.gate %58, %44#5 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %60 = loom.add %53, %59 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      loom.yield %60 : tensor<2x16x1152xbf16>
    }
    %22 = loom.layer 15(%21, %6) {kind = "dit"} : (tensor<2x16x1152xbf16>, tensor<2x1152xbf16>) -> tensor<2x16x1152xbf16> {
    ^bb0(%arg3: tensor<2x16x1152xbf16>, %arg4: tensor<2x1152xbf16>):
      %42 = loom.activation  silu %arg4 : tensor<2x1152xbf16>
      %43 = loom.linear  modulation %42 {bias} : tensor<2x1152xbf16> -> tensor<2x6912xbf16>
      %44:6 = loom.chunk %43 : tensor<2x6912xbf16> -> tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>
      %45 = loom.layer_norm %arg3 {affine = false} : tensor<2x16x1152xbf16>
      %46 = loom.modulate %45, %44#0, %44#1 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %47 = loom.linear  q %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %48 = loom.linear  k %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %49 = loom.linear  v %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %50 = loom.attention %47, %48, %49 {head_dim = 72 : i64, heads = 16 : i64, kv_heads = 16 : i64} : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %51 = loom.linear  o %50 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %52 = loom.gate %51, %44#2 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %53 = loom.add %arg3, %52 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      %54 = loom.layer_norm %53 {affine = false} : tensor<2x16x1152xbf16>
      %55 = loom.modulate %54, %44#3, %44#4 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %56 = loom.linear  fc1 %55 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x4608xbf16>
      %57 = loom.activation  gelu_tanh %56 : tensor<2x16x4608xbf16>
      %58 = loom.linear  fc2 %57 {bias} : tensor<2x16x4608xbf16> -> tensor<2x16x1152xbf16>
      %59 = loom.gate %58, %44#5 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %60 = loom.add %53, %59 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      loom.yield %60 : tensor<2x16x1152xbf16>
    }
    %23 = loom.layer 16(%22, %6) {kind = "dit"} : (tensor<2x16x1152xbf16>, tensor<2x1152xbf16>) -> tensor<2x16x1152xbf16> {
    ^bb0(%arg3: tensor<2x16x1152xbf16>, %arg4: tensor<2x1152xbf16>):
      %42 = loom.activation  silu %arg4 : tensor<2x1152xbf16>
      %43 = loom.linear  modulation %42 {bias} : tensor<2x1152xbf16> -> tensor<2x6912xbf16>
      %44:6 = loom.chunk %43 : tensor<2x6912xbf16> -> tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>
      %45 = loom.layer_norm %arg3 {affine = false} : tensor<2x16x1152xbf16>
      %46 = loom.modulate %45, %44#0, %44#1 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %47 = loom.linear  q %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %48 = loom.linear  k %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %49 = loom.linear  v %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %50 = loom.attention %47, %48, %49 {head_dim = 72 : i64, heads = 16 : i64, kv_heads = 16 : i64} : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %51 = loom.linear  o %50 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %52 = loom.gate %51, %44#2 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %53 = loom.add %arg3, %52 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      %54 = loom.layer_norm %53 {affine = false} : tensor<2x16x1152xbf16>
      %55 = loom.modulate %54, %44#3, %44#4 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %56 = loom.linear  fc1 %55 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x4608xbf16>
      %57 = loom.activation  gelu_tanh %56 : tensor<2x16x4608xbf16>
      %58 = loom.linear  fc2 %57 {bias} : tensor<2x16x4608xbf16> -> tensor<2x16x1152xbf16>
      %59 = loom.gate %58, %44#5 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %60 = loom.add %53, %59 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      loom.yield %60 : tensor<2x16x1152xbf16>
    }
    %24 = loom.layer 17(%23, %6) {kind = "dit"} : (tensor<2x16x1152xbf16>, tensor<2x1152xbf16>) -> tensor<2x16x1152xbf16> {
    ^bb0(%arg3: tensor<2x16x1152xbf16>, %arg4: tensor<2x1152xbf16>):
      %42 = loom.activation  silu %arg4 : tensor<2x1152xbf16>
      %43 = loom.linear  modulation %42 {bias} : tensor<2x1152xbf16> -> tensor<2x6912xbf16>
      %44:6 = loom.chunk %43 : tensor<2x6912xbf16> -> tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>
      %45 = loom.layer_norm %arg3 {affine = false} : tensor<2x16x1152xbf16>
      %46 = loom.modulate %45, %44#0, %44#1 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %47 = loom.linear  q %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %48 = loom.linear  k %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %49 = loom.linear  v %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %50 = loom.attention %47, %48, %49 {head_dim = 72 : i64, heads = 16 : i64, kv_heads = 16 : i64} : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %51 = loom.linear  o %50 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %52 = loom.gate %51, %44#2 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %53 = loom.add %arg3, %52 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      %54 = loom.layer_norm %53 {affine = false} : tensor<2x16x1152xbf16>
      %55 = loom.modulate %54, %44#3, %44#4 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %56 = loom.linear  fc1 %55 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x4608xbf16>
      %57 = loom.activation  gelu_tanh %56 : tensor<2x16x4608xbf16>
      %58 = loom.linear  fc2 %57 {bias} : tensor<2x16x4608xbf16> -> tensor<2x16x1152xbf16>
      %59 = loom.gate %58, %44#5 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %60 = loom.add %53, %59 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      loom.yield %60 : tensor<2x16x1152xbf16>
    }
    %25 = loom.layer 18(%24, %6) {kind = "dit"} : (tensor<2x16x1152xbf16>, tensor<2x1152xbf16>) -> tensor<2x16x1152xbf16> {
    ^bb0(%arg3: tensor<2x16x1152xbf16>, %arg4: tensor<2x1152xbf16>):
      %42 = loom.activation  silu %arg4 : tensor<2x1152xbf16>
      %43 = loom.linear  modulation %42 {bias} : tensor<2x1152xbf16> -> tensor<2x6912xbf16>
      %44:6 = loom.chunk %43 : tensor<2x6912xbf16> -> tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>
      %45 = loom.layer_norm %arg3 {affine = false} : tensor<2x16x1152xbf16>
      %46 = loom.modulate %45, %44#0, %44#1 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %47 = loom.linear  q %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %48 = loom.linear  k %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %49 = loom.linear  v %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %50 = loom.attention %47, %48, %49 {head_dim = 72 : i64, heads = 16 : i64, kv_heads = 16 : i64} : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %51 = loom.linear  o %50 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %52 = loom.gate %51, %44#2 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %53 = loom.add %arg3, %52 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      %54 = loom.layer_norm %53 {affine = false} : tensor<2x16x1152xbf16>
      %55 = loom.modulate %54, %44#3, %44#4 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %56 = loom.linear  fc1 %55 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x4608xbf16>
      %57 = loom.activation  gelu_tanh %56 : tensor<2x16x4608xbf16>
      %58 = loom.linear  fc2 %57 {bias} : tensor<2x16x4608xbf16> -> tensor<2x16x1152xbf16>
      %59 = loom.gate %58, %44#5 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %60 = loom.add %53, %59 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      loom.yield %60 : tensor<2x16x1152xbf16>
    }
    %26 = loom.layer 19(%25, %6) {kind = "dit"} : (tensor<2x16x1152xbf16>, tensor<2x1152xbf16>) -> tensor<2x16x1152xbf16> {
    ^bb0(%arg3: tensor<2x16x1152xbf16>, %arg4: tensor<2x1152xbf16>):
      %42 = loom.activation  silu %arg4 : tensor<2x1152xbf16>
      %43 = loom.linear  modulation %42 {bias} : tensor<2x1152xbf16> -> tensor<2x6912xbf16>
      %44:6 = loom.chunk %43 : tensor<2x6912xbf16> -> tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>
      %45 = loom.layer_norm %arg3 {affine = false} : tensor<2x16x1152xbf16>
      %46 = loom.modulate %45, %44#0, %44#1 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %47 = loom.linear  q %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %48 = loom.linear  k %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %49 = loom.linear  v %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %50 = loom.attention %47, %48, %49 {head_dim = 72 : i64, heads = 16 : i64, kv_heads = 16 : i64} : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %51 = loom.linear  o %50 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %52 = loom.gate %51, %44#2 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %53 = loom.add %arg3, %52 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      %54 = loom.layer_norm %53 {affine = false} : tensor<2x16x1152xbf16>
      %55 = loom.modulate %54, %44#3, %44#4 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %56 = loom.linear  fc1 %55 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x4608xbf16>
      %57 = loom.activation  gelu_tanh %56 : tensor<2x16x4608xbf16>
      %58 = loom.linear  fc2 %57 {bias} : tensor<2x16x4608xbf16> -> tensor<2x16x1152xbf16>
      %59 = loom.gate %58, %44#5 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %60 = loom.add %53, %59 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      loom.yield %60 : tensor<2x16x1152xbf16>
    }
    %27 = loom.layer 20(%26, %6) {kind = "dit"} : (tensor<2x16x1152xbf16>, tensor<2x1152xbf16>) -> tensor<2x16x1152xbf16> {
    ^bb0(%arg3: tensor<2x16x1152xbf16>, %arg4: tensor<2x1152xbf16>):
      %42 = loom.activation  silu %arg4 : tensor<2x1152xbf16>
      %43 = loom.linear  modulation %42 {bias} : tensor<2x1152xbf16> -> tensor<2x6912xbf16>
      %44:6 = loom.chunk %43 : tensor<2x6912xbf16> -> tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>
      %45 = loom.layer_norm %arg3 {affine = false} : tensor<2x16x1152xbf16>
      %46 = loom.modulate %45, %44#0, %44#1 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %47 = loom.linear  q %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %48 = loom.linear  k %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %49 = loom.linear  v %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %50 = loom.attention %47, %48, %49 {head_dim = 72 : i64, heads = 16 : i64, kv_heads = 16 : i64} : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %51 = loom.linear  o %50 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %52 = loom.gate %51, %44#2 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %53 = loom.add %arg3, %52 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      %54 = loom.layer_norm %53 {affine = false} : tensor<2x16x1152xbf16>
      %55 = loom.modulate %54, %44#3, %44#4 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %56 = loom.linear  fc1 %55 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x4608xbf16>
      %57 = loom.activation  gelu_tanh %56 : tensor<2x16x4608xbf16>
      %58 = loom.linear  fc2 %57 {bias} : tensor<2x16x4608xbf16> -> tensor<2x16x1152xbf16>
      %59 = loom.gate %58, %44#5 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %60 = loom.add %53, %59 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      loom.yield %60 : tensor<2x16x1152xbf16>
    }
    %28 = loom.layer 21(%27, %6) {kind = "dit"} : (tensor<2x16x1152xbf16>, tensor<2x1152xbf16>) -> tensor<2x16x1152xbf16> {
    ^bb0(%arg3: tensor<2x16x1152xbf16>, %arg4: tensor<2x1152xbf16>):
      %42 = loom.activation  silu %arg4 : tensor<2x1152xbf16>
      %43 = loom.linear  modulation %42 {bias} : tensor<2x1152xbf16> -> tensor<2x6912xbf16>
      %44:6 = loom.chunk %43 : tensor<2x6912xbf16> -> tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>
      %45 = loom.layer_norm %arg3 {affine = false} : tensor<2x16x1152xbf16>
      %46 = loom.modulate %45, %44#0, %44#1 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %47 = loom.linear  q %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %48 = loom.linear  k %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %49 = loom.linear  v %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %50 = loom.attention %47, %48, %49 {head_dim = 72 : i64, heads = 16 : i64, kv_heads = 16 : i64} : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %51 = loom.linear  o %50 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %52 = loom.gate %51, %44#2 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %53 = loom.add %arg3, %52 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      %54 = loom.layer_norm %53 {affine = false} : tensor<2x16x1152xbf16>
      %55 = loom.modulate %54, %44#3, %44#4 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %56 = loom.linear  fc1 %55 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x4608xbf16>
      %57 = loom.activation  gelu_tanh %56 : tensor<2x16x4608xbf16>
      %58 = loom.linear  fc2 %57 {bias} : tensor<2x16x4608xbf16> -> tensor<2x16x1152xbf16>
      %59 = loom.gate %58, %44#5 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %60 = loom.add %53, %59 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      loom.yield %60 : tensor<2x16x1152xbf16>
    }
    %29 = loom.layer 22(%28, %6) {kind = "dit"} : (tensor<2x16x1152xbf16>, tensor<2x1152xbf16>) -> tensor<2x16x1152xbf16> {
    ^bb0(%arg3: tensor<2x16x1152xbf16>, %arg4: tensor<2x1152xbf16>):
      %42 = loom.activation  silu %arg4 : tensor<2x1152xbf16>
      %43 = loom.linear  modulation %42 {bias} : tensor<2x1152xbf16> -> tensor<2x6912xbf16>
      %44:6 = loom.chunk %43 : tensor<2x6912xbf16> -> tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>
      %45 = loom.layer_norm %arg3 {affine = false} : tensor<2x16x1152xbf16>
      %46 = loom.modulate %45, %44#0, %44#1 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %47 = loom.linear  q %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %48 = loom.linear  k %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %49 = loom.linear  v %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %50 = loom.attention %47, %48, %49 {head_dim = 72 : i64, heads = 16 : i64, kv_heads = 16 : i64} : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %51 = loom.linear  o %50 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %52 = loom.gate %51, %44#2 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %53 = loom.add %arg3, %52 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      %54 = loom.layer_norm %53 {affine = false} : tensor<2x16x1152xbf16>
      %55 = loom.modulate %54, %44#3, %44#4 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %56 = loom.linear  fc1 %55 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x4608xbf16>
      %57 = loom.activation  gelu_tanh %56 : tensor<2x16x4608xbf16>
      %58 = loom.linear  fc2 %57 {bias} : tensor<2x16x4608xbf16> -> tensor<2x16x1152xbf16>
      %59 = loom.gate %58, %44#5 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %60 = loom.add %53, %59 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      loom.yield %60 : tensor<2x16x1152xbf16>
    }
    %30 = loom.layer 23(%29, %6) {kind = "dit"} : (tensor<2x16x1152xbf16>, tensor<2x1152xbf16>) -> tensor<2x16x1152xbf16> {
    ^bb0(%arg3: tensor<2x16x1152xbf16>, %arg4: tensor<2x1152xbf16>):
      %42 = loom.activation  silu %arg4 : tensor<2x1152xbf16>
      %43 = loom.linear  modulation %42 {bias} : tensor<2x1152xbf16> -> tensor<2x6912xbf16>
      %44:6 = loom.chunk %43 : tensor<2x6912xbf16> -> tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>
      %45 = loom.layer_norm %arg3 {affine = false} : tensor<2x16x1152xbf16>
      %46 = loom.modulate %45, %44#0, %44#1 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %47 = loom.linear  q %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %48 = loom.linear  k %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %49 = loom.linear  v %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %50 = loom.attention %47, %48, %49 {head_dim = 72 : i64, heads = 16 : i64, kv_heads = 16 : i64} : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %51 = loom.linear  o %50 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %52 = loom.gate %51, %44#2 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %53 = loom.add %arg3, %52 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      %54 = loom.layer_norm %53 {affine = false} : tensor<2x16x1152xbf16>
      %55 = loom.modulate %54, %44#3, %44#4 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %56 = loom.linear  fc1 %55 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x4608xbf16>
      %57 = loom.activation  gelu_tanh %56 : tensor<2x16x4608xbf16>
      %58 = loom.linear  fc2 %57 {bias} : tensor<2x16x4608xbf16> -> tensor<2x16x1152xbf16>
      %59 = loom.gate %58, %44#5 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %60 = loom.add %53, %59 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      loom.yield %60 : tensor<2x16x1152xbf16>
    }
    %31 = loom.layer 24(%30, %6) {kind = "dit"} : (tensor<2x16x1152xbf16>, tensor<2x1152xbf16>) -> tensor<2x16x1152xbf16> {
    ^bb0(%arg3: tensor<2x16x1152xbf16>, %arg4: tensor<2x1152xbf16>):
      %42 = loom.activation  silu %arg4 : tensor<2x1152xbf16>
      %43 = loom.linear  modulation %42 {bias} : tensor<2x1152xbf16> -> tensor<2x6912xbf16>
      %44:6 = loom.chunk %43 : tensor<2x6912xbf16> -> tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>
      %45 = loom.layer_norm %arg3 {affine = false} : tensor<2x16x1152xbf16>
      %46 = loom.modulate %45, %44#0, %44#1 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %47 = loom.linear  q %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %48 = loom.linear  k %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %49 = loom.linear  v %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %50 = loom.attention %47, %48, %49 {head_dim = 72 : i64, heads = 16 : i64, kv_heads = 16 : i64} : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %51 = loom.linear  o %50 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %52 = loom.gate %51, %44#2 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %53 = loom.add %arg3, %52 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      %54 = loom.layer_norm %53 {affine = false} : tensor<2x16x1152xbf16>
      %55 = loom.modulate %54, %44#3, %44#4 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %56 = loom.linear  fc1 %55 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x4608xbf16>
      %57 = loom.activation  gelu_tanh %56 : tensor<2x16x4608xbf16>
      %58 = loom.linear  fc2 %57 {bias} : tensor<2x16x4608xbf16> -> tensor<2x16x1152xbf16>
      %59 = loom.gate %58, %44#5 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %60 = loom.add %53, %59 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      loom.yield %60 : tensor<2x16x1152xbf16>
    }
    %32 = loom.layer 25(%31, %6) {kind = "dit"} : (tensor<2x16x1152xbf16>, tensor<2x1152xbf16>) -> tensor<2x16x1152xbf16> {
    ^bb0(%arg3: tensor<2x16x1152xbf16>, %arg4: tensor<2x1152xbf16>):
      %42 = loom.activation  silu %arg4 : tensor<2x1152xbf16>
      %43 = loom.linear  modulation %42 {bias} : tensor<2x1152xbf16> -> tensor<2x6912xbf16>
      %44:6 = loom.chunk %43 : tensor<2x6912xbf16> -> tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>
      %45 = loom.layer_norm %arg3 {affine = false} : tensor<2x16x1152xbf16>
      %46 = loom.modulate %45, %44#0, %44#1 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %47 = loom.linear  q %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %48 = loom.linear  k %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %49 = loom.linear  v %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %50 = loom.attention %47, %48, %49 {head_dim = 72 : i64, heads = 16 : i64, kv_heads = 16 : i64} : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %51 = loom.linear  o %50 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %52 = loom.gate %51, %44#2 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %53 = loom.add %arg3, %52 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      %54 = loom.layer_norm %53 {affine = false} : tensor<2x16x1152xbf16>
      %55 = loom.modulate %54, %44#3, %44#4 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %56 = loom.linear  fc1 %55 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x4608xbf16>
      %57 = loom.activation  gelu_tanh %56 : tensor<2x16x4608xbf16>
      %58 = loom.linear  fc2 %57 {bias} : tensor<2x16x4608xbf16> -> tensor<2x16x1152xbf16>
      %59 = loom.gate %58, %44#5 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %60 = loom.add %53, %59 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      loom.yield %60 : tensor<2x16x1152xbf16>
    }
    %33 = loom.layer 26(%32, %6) {kind = "dit"} : (tensor<2x16x1152xbf16>, tensor<2x1152xbf16>) -> tensor<2x16x1152xbf16> {
    ^bb0(%arg3: tensor<2x16x1152xbf16>, %arg4: tensor<2x1152xbf16>):
      %42 = loom.activation  silu %arg4 : tensor<2x1152xbf16>
      %43 = loom.linear  modulation %42 {bias} : tensor<2x1152xbf16> -> tensor<2x6912xbf16>
      %44:6 = loom.chunk %43 : tensor<2x6912xbf16> -> tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>
      %45 = loom.layer_norm %arg3 {affine = false} : tensor<2x16x1152xbf16>
      %46 = loom.modulate %45, %44#0, %44#1 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %47 = loom.linear  q %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %48 = loom.linear  k %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %49 = loom.linear  v %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %50 = loom.attention %47, %48, %49 {head_dim = 72 : i64, heads = 16 : i64, kv_heads = 16 : i64} : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %51 = loom.linear  o %50 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %52 = loom.gate %51, %44#2 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %53 = loom.add %arg3, %52 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      %54 = loom.layer_norm %53 {affine = false} : tensor<2x16x1152xbf16>
      %55 = loom.modulate %54, %44#3, %44#4 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %56 = loom.linear  fc1 %55 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x4608xbf16>
      %57 = loom.activation  gelu_tanh %56 : tensor<2x16x4608xbf16>
      %58 = loom.linear  fc2 %57 {bias} : tensor<2x16x4608xbf16> -> tensor<2x16x1152xbf16>
      %59 = loom.gate %58, %44#5 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %60 = loom.add %53, %59 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      loom.yield %60 : tensor<2x16x1152xbf16>
    }
    %34 = loom.layer 27(%33, %6) {kind = "dit"} : (tensor<2x16x1152xbf16>, tensor<2x1152xbf16>) -> tensor<2x16x1152xbf16> {
    ^bb0(%arg3: tensor<2x16x1152xbf16>, %arg4: tensor<2x1152xbf16>):
      %42 = loom.activation  silu %arg4 : tensor<2x1152xbf16>
      %43 = loom.linear  modulation %42 {bias} : tensor<2x1152xbf16> -> tensor<2x6912xbf16>
      %44:6 = loom.chunk %43 : tensor<2x6912xbf16> -> tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>, tensor<2x1152xbf16>
      %45 = loom.layer_norm %arg3 {affine = false} : tensor<2x16x1152xbf16>
      %46 = loom.modulate %45, %44#0, %44#1 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %47 = loom.linear  q %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %48 = loom.linear  k %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %49 = loom.linear  v %46 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %50 = loom.attention %47, %48, %49 {head_dim = 72 : i64, heads = 16 : i64, kv_heads = 16 : i64} : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %51 = loom.linear  o %50 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x1152xbf16>
      %52 = loom.gate %51, %44#2 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %53 = loom.add %arg3, %52 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      %54 = loom.layer_norm %53 {affine = false} : tensor<2x16x1152xbf16>
      %55 = loom.modulate %54, %44#3, %44#4 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %56 = loom.linear  fc1 %55 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x4608xbf16>
      %57 = loom.activation  gelu_tanh %56 : tensor<2x16x4608xbf16>
      %58 = loom.linear  fc2 %57 {bias} : tensor<2x16x4608xbf16> -> tensor<2x16x1152xbf16>
      %59 = loom.gate %58, %44#5 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
      %60 = loom.add %53, %59 : tensor<2x16x1152xbf16>, tensor<2x16x1152xbf16>
      loom.yield %60 : tensor<2x16x1152xbf16>
    }
    %35 = loom.activation  silu %6 : tensor<2x1152xbf16>
    %36 = loom.linear  modulation %35 {bias} : tensor<2x1152xbf16> -> tensor<2x2304xbf16>
    %37:2 = loom.chunk %36 : tensor<2x2304xbf16> -> tensor<2x1152xbf16>, tensor<2x1152xbf16>
    %38 = loom.layer_norm %34 {affine = false} : tensor<2x16x1152xbf16>
    %39 = loom.modulate %38, %37#0, %37#1 : tensor<2x16x1152xbf16>, tensor<2x1152xbf16>
    %40 = loom.linear  proj_out %39 {bias} : tensor<2x16x1152xbf16> -> tensor<2x16x32xbf16>
    %41 = loom.unpatchify %40 {patch_size = 2 : i64} : tensor<2x16x32xbf16> -> tensor<2x8x8x8xbf16>
    return %41 : tensor<2x8x8x8xbf16>
  }
}

