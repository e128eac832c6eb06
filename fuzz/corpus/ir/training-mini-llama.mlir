module attributes {loom.model = #loom.model<name = "mini-llama", family = "llama", mode = prefill, batch = 1, seq = 64>, loom.target = #loom.target<"tpu-v5e", topology = "v5e-4", shape = [2, 2], wrap_axes = [], chip = #loom.chip<peak_bf16 = 1.97e+14, peak_int8 = 3.94e+14, mxu_tile = 128, mxu_efficiency = 0.9568, hbm_capacity = 1.6e+10, hbm_bandwidth = 8.192e+11, hbm_efficiency = 0.9, host_bandwidth = 1.6e+10, host_memory = 4.8e+10>, ici = #loom.ici<link_bandwidth = 4.5e+10, hop_latency = 1.0e-06>, calibration = #loom.calibration<file = "targets/tpu-v5e.json", name = "tpu-v5e-published", version = 1, program_dispatch = 0.000112, kernel_step = 2.672e-07, collective_sync = 2.365e-06, link_efficiency_ring = 0.9556, link_efficiency_line = 0.829>>} {
  func.func @mini_llama(%arg0: tensor<1x64xi32> {loom.name = "input_ids"}) -> tensor<1x64x100xbf16> {
    %0 = loom.embed %arg0 {vocab = 100 : i64} : tensor<1x64xi32> -> tensor<1x64x128xbf16>
    %1 = loom.layer 0(%0) {kind = "llama"} : (tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16> {
    ^bb0(%arg1: tensor<1x64x128xbf16>):
      %11 = loom.rms_norm %arg1 : tensor<1x64x128xbf16>
      %12 = loom.linear  q %11 : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %13 = loom.linear  k %11 : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %14 = loom.linear  v %11 : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %15 = loom.rope %12 {head_dim = 64 : i64} : tensor<1x64x128xbf16>
      %16 = loom.rope %13 {head_dim = 64 : i64} : tensor<1x64x128xbf16>
      %17 = loom.attention %15, %16, %14 {causal, head_dim = 64 : i64, heads = 2 : i64, kv_heads = 2 : i64} : tensor<1x64x128xbf16>, tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %18 = loom.linear  o %17 : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %19 = loom.add %arg1, %18 : tensor<1x64x128xbf16>, tensor<1x64x128xbf16>
      %20 = loom.rms_norm %19 : tensor<1x64x128xbf16>
      %21 = loom.linear  gate %20 : tensor<1x64x128xbf16> -> tensor<1x64x256xbf16>
      %22 = loom.linear  up %20 : tensor<1x64x128xbf16> -> tensor<1x64x256xbf16>
      %23 = loom.swiglu %21, %22 : tensor<1x64x256xbf16>
      %24 = loom.linear  down %23 : tensor<1x64x256xbf16> -> tensor<1x64x128xbf16>
      %25 = loom.add %19, %24 : tensor<1x64x128xbf16>, tensor<1x64x128xbf16>
      loom.yield %25 : tensor<1x64x128xbf16>
    }
    %2 = loom.layer 1(%1) {kind = "llama"} : (tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16> {
    ^bb0(%arg1: tensor<1x64x128xbf16>):
      %11 = loom.rms_norm %arg1 : tensor<1x64x128xbf16>
      %12 = loom.linear  q %11 : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %13 = loom.linear  k %11 : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %14 = loom.linear  v %11 : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %15 = loom.rope %12 {head_dim = 64 : i64} : tensor<1x64x128xbf16>
      %16 = loom.rope %13 {head_dim = 64 : i64} : tensor<1x64x128xbf16>
      %17 = loom.attention %15, %16, %14 {causal, head_dim = 64 : i64, heads = 2 : i64, kv_heads = 2 : i64} : tensor<1x64x128xbf16>, tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %18 = loom.linear  o %17 : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %19 = loom.add %arg1, %18 : tensor<1x64x128xbf16>, tensor<1x64x128xbf16>
      %20 = loom.rms_norm %19 : tensor<1x64x128xbf16>
      %21 = loom.linear  gate %20 : tensor<1x64x128xbf16> -> tensor<1x64x256xbf16>
      %22 = loom.linear  up %20 : tensor<1x64x128xbf16> -> tensor<1x64x256xbf16>
      %23 = loom.swiglu %21, %22 : tensor<1x64x256xbf16>
      %24 = loom.linear  down %23 : tensor<1x64x256xbf16> -> tensor<1x64x128xbf16>
      %25 = loom.add %19, %24 : tensor<1x64x128xbf16>, tensor<1x64x128xbf16>
      loom.yield %25 : tensor<1x64x128xbf16>
    }
    %3 = loom.rms_norm %2 : tensor<1x64x128xbf16>
    %4 = loom.linear  lm_head %3 : tensor<1x64x128xbf16> -> tensor<1x64x100xbf16>
    %5 = loom.loss  cross_entropy %4 : tensor<1x64x100xbf16> -> tensor<f32>
    %6 = loom.grad  input %5() {cotangents_of = array<i64>, wrt = array<i64: 0>} : tensor<f32>, () -> tensor<1x64x100xbf16>
    %7 = loom.grad  input %4(%6) {cotangents_of = array<i64: 0>, wrt = array<i64: 0>} : tensor<1x64x100xbf16>, (tensor<1x64x100xbf16>) -> tensor<1x64x128xbf16>
    loom.grad  weight %4(%6) {cotangents_of = array<i64: 0>, wrt = array<i64>} : tensor<1x64x100xbf16>, (tensor<1x64x100xbf16>) -> ()
    %8 = loom.grad  input %3(%7) {cotangents_of = array<i64: 0>, wrt = array<i64: 0>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16>
    loom.grad  weight %3(%7) {cotangents_of = array<i64: 0>, wrt = array<i64>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> ()
    %9 = loom.layer_grad 1(%1, %8) {kind = "llama"} : (tensor<1x64x128xbf16>, tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16> {
    ^bb0(%arg1: tensor<1x64x128xbf16>, %arg2: tensor<1x64x128xbf16>):
      %11 = loom.rms_norm %arg1 {loom.kept} : tensor<1x64x128xbf16>
      %12 = loom.linear  q %11 {loom.kept} : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %13 = loom.linear  k %11 {loom.kept} : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %14 = loom.linear  v %11 {loom.kept} : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %15 = loom.rope %12 {head_dim = 64 : i64, loom.kept} : tensor<1x64x128xbf16>
      %16 = loom.rope %13 {head_dim = 64 : i64, loom.kept} : tensor<1x64x128xbf16>
      %17 = loom.attention %15, %16, %14 {causal, head_dim = 64 : i64, heads = 2 : i64, kv_heads = 2 : i64, loom.kept} : tensor<1x64x128xbf16>, tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %18 = loom.linear  o %17 {loom.kept} : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %19 = loom.add %arg1, %18 {loom.kept} : tensor<1x64x128xbf16>, tensor<1x64x128xbf16>
      %20 = loom.rms_norm %19 {loom.kept} : tensor<1x64x128xbf16>
      %21 = loom.linear  gate %20 {loom.kept} : tensor<1x64x128xbf16> -> tensor<1x64x256xbf16>
      %22 = loom.linear  up %20 {loom.kept} : tensor<1x64x128xbf16> -> tensor<1x64x256xbf16>
      %23 = loom.swiglu %21, %22 {loom.kept} : tensor<1x64x256xbf16>
      %24 = loom.linear  down %23 {loom.kept} : tensor<1x64x256xbf16> -> tensor<1x64x128xbf16>
      %25 = loom.add %19, %24 {loom.kept} : tensor<1x64x128xbf16>, tensor<1x64x128xbf16>
      %26:2 = loom.grad  input %25(%arg2) {cotangents_of = array<i64: 0>, wrt = array<i64: 0, 1>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> (tensor<1x64x128xbf16>, tensor<1x64x128xbf16>)
      %27 = loom.grad  input %24(%26#1) {cotangents_of = array<i64: 0>, wrt = array<i64: 0>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> tensor<1x64x256xbf16>
      loom.grad  weight %24(%26#1) {cotangents_of = array<i64: 0>, wrt = array<i64>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> ()
      %28:2 = loom.grad  input %23(%27) {cotangents_of = array<i64: 0>, wrt = array<i64: 0, 1>} : tensor<1x64x256xbf16>, (tensor<1x64x256xbf16>) -> (tensor<1x64x256xbf16>, tensor<1x64x256xbf16>)
      %29 = loom.grad  input %22(%28#1) {cotangents_of = array<i64: 0>, wrt = array<i64: 0>} : tensor<1x64x256xbf16>, (tensor<1x64x256xbf16>) -> tensor<1x64x128xbf16>
      loom.grad  weight %22(%28#1) {cotangents_of = array<i64: 0>, wrt = array<i64>} : tensor<1x64x256xbf16>, (tensor<1x64x256xbf16>) -> ()
      %30 = loom.grad  input %21(%28#0) {cotangents_of = array<i64: 0>, wrt = array<i64: 0>} : tensor<1x64x256xbf16>, (tensor<1x64x256xbf16>) -> tensor<1x64x128xbf16>
      loom.grad  weight %21(%28#0) {cotangents_of = array<i64: 0>, wrt = array<i64>} : tensor<1x64x256xbf16>, (tensor<1x64x256xbf16>) -> ()
      %31 = loom.add %29, %30 : tensor<1x64x128xbf16>, tensor<1x64x128xbf16>
      %32 = loom.grad  input %20(%31) {cotangents_of = array<i64: 0>, wrt = array<i64: 0>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16>
      loom.grad  weight %20(%31) {cotangents_of = array<i64: 0>, wrt = array<i64>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> ()
      %33 = loom.add %26#0, %32 : tensor<1x64x128xbf16>, tensor<1x64x128xbf16>
      %34:2 = loom.grad  input %19(%33) {cotangents_of = array<i64: 0>, wrt = array<i64: 0, 1>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> (tensor<1x64x128xbf16>, tensor<1x64x128xbf16>)
      %35 = loom.grad  input %18(%34#1) {cotangents_of = array<i64: 0>, wrt = array<i64: 0>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16>
      loom.grad  weight %18(%34#1) {cotangents_of = array<i64: 0>, wrt = array<i64>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> ()
      %36:3 = loom.grad  input %17(%35) {cotangents_of = array<i64: 0>, wrt = array<i64: 0, 1, 2>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> (tensor<1x64x128xbf16>, tensor<1x64x128xbf16>, tensor<1x64x128xbf16>)
      %37 = loom.grad  input %16(%36#1) {cotangents_of = array<i64: 0>, wrt = array<i64: 0>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16>
      %38 = loom.grad  input %15(%36#0) {cotangents_of = array<i64: 0>, wrt = array<i64: 0>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16>
      %39 = loom.grad  input %14(%36#2) {cotangents_of = array<i64: 0>, wrt = array<i64: 0>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16>
      loom.grad  weight %14(%36#2) {cotangents_of = array<i64: 0>, wrt = array<i64>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> ()
      %40 = loom.grad  input %13(%37) {cotangents_of = array<i64: 0>, wrt = array<i64: 0>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16>
      loom.grad  weight %13(%37) {cotangents_of = array<i64: 0>, wrt = array<i64>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> ()
      %41 = loom.add %39, %40 : tensor<1x64x128xbf16>, tensor<1x64x128xbf16>
      %42 = loom.grad  input %12(%38) {cotangents_of = array<i64: 0>, wrt = array<i64: 0>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16>
      loom.grad  weight %12(%38) {cotangents_of = array<i64: 0>, wrt = array<i64>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> ()
      %43 = loom.add %41, %42 : tensor<1x64x128xbf16>, tensor<1x64x128xbf16>
      %44 = loom.grad  input %11(%43) {cotangents_of = array<i64: 0>, wrt = array<i64: 0>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16>
      loom.grad  weight %11(%43) {cotangents_of = array<i64: 0>, wrt = array<i64>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> ()
      %45 = loom.add %34#0, %44 : tensor<1x64x128xbf16>, tensor<1x64x128xbf16>
      loom.yield %45 : tensor<1x64x128xbf16>
    }
    %10 = loom.layer_grad 0(%0, %9) {kind = "llama"} : (tensor<1x64x128xbf16>, tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16> {
    ^bb0(%arg1: tensor<1x64x128xbf16>, %arg2: tensor<1x64x128xbf16>):
      %11 = loom.rms_norm %arg1 {loom.kept} : tensor<1x64x128xbf16>
      %12 = loom.linear  q %11 {loom.kept} : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %13 = loom.linear  k %11 {loom.kept} : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %14 = loom.linear  v %11 {loom.kept} : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %15 = loom.rope %12 {head_dim = 64 : i64, loom.kept} : tensor<1x64x128xbf16>
      %16 = loom.rope %13 {head_dim = 64 : i64, loom.kept} : tensor<1x64x128xbf16>
      %17 = loom.attention %15, %16, %14 {causal, head_dim = 64 : i64, heads = 2 : i64, kv_heads = 2 : i64, loom.kept} : tensor<1x64x128xbf16>, tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %18 = loom.linear  o %17 {loom.kept} : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %19 = loom.add %arg1, %18 {loom.kept} : tensor<1x64x128xbf16>, tensor<1x64x128xbf16>
      %20 = loom.rms_norm %19 {loom.kept} : tensor<1x64x128xbf16>
      %21 = loom.linear  gate %20 {loom.kept} : tensor<1x64x128xbf16> -> tensor<1x64x256xbf16>
      %22 = loom.linear  up %20 {loom.kept} : tensor<1x64x128xbf16> -> tensor<1x64x256xbf16>
      %23 = loom.swiglu %21, %22 {loom.kept} : tensor<1x64x256xbf16>
      %24 = loom.linear  down %23 {loom.kept} : tensor<1x64x256xbf16> -> tensor<1x64x128xbf16>
      %25 = loom.add %19, %24 {loom.kept} : tensor<1x64x128xbf16>, tensor<1x64x128xbf16>
      %26:2 = loom.grad  input %25(%arg2) {cotangents_of = array<i64: 0>, wrt = array<i64: 0, 1>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> (tensor<1x64x128xbf16>, tensor<1x64x128xbf16>)
      %27 = loom.grad  input %24(%26#1) {cotangents_of = array<i64: 0>, wrt = array<i64: 0>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> tensor<1x64x256xbf16>
      loom.grad  weight %24(%26#1) {cotangents_of = array<i64: 0>, wrt = array<i64>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> ()
      %28:2 = loom.grad  input %23(%27) {cotangents_of = array<i64: 0>, wrt = array<i64: 0, 1>} : tensor<1x64x256xbf16>, (tensor<1x64x256xbf16>) -> (tensor<1x64x256xbf16>, tensor<1x64x256xbf16>)
      %29 = loom.grad  input %22(%28#1) {cotangents_of = array<i64: 0>, wrt = array<i64: 0>} : tensor<1x64x256xbf16>, (tensor<1x64x256xbf16>) -> tensor<1x64x128xbf16>
      loom.grad  weight %22(%28#1) {cotangents_of = array<i64: 0>, wrt = array<i64>} : tensor<1x64x256xbf16>, (tensor<1x64x256xbf16>) -> ()
      %30 = loom.grad  input %21(%28#0) {cotangents_of = array<i64: 0>, wrt = array<i64: 0>} : tensor<1x64x256xbf16>, (tensor<1x64x256xbf16>) -> tensor<1x64x128xbf16>
      loom.grad  weight %21(%28#0) {cotangents_of = array<i64: 0>, wrt = array<i64>} : tensor<1x64x256xbf16>, (tensor<1x64x256xbf16>) -> ()
      %31 = loom.add %29, %30 : tensor<1x64x128xbf16>, tensor<1x64x128xbf16>
      %32 = loom.grad  input %20(%31) {cotangents_of = array<i64: 0>, wrt = array<i64: 0>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16>
      loom.grad  weight %20(%31) {cotangents_of = array<i64: 0>, wrt = array<i64>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> ()
      %33 = loom.add %26#0, %32 : tensor<1x64x128xbf16>, tensor<1x64x128xbf16>
      %34:2 = loom.grad  input %19(%33) {cotangents_of = array<i64: 0>, wrt = array<i64: 0, 1>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> (tensor<1x64x128xbf16>, tensor<1x64x128xbf16>)
      %35 = loom.grad  input %18(%34#1) {cotangents_of = array<i64: 0>, wrt = array<i64: 0>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16>
      loom.grad  weight %18(%34#1) {cotangents_of = array<i64: 0>, wrt = array<i64>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> ()
      %36:3 = loom.grad  input %17(%35) {cotangents_of = array<i64: 0>, wrt = array<i64: 0, 1, 2>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> (tensor<1x64x128xbf16>, tensor<1x64x128xbf16>, tensor<1x64x128xbf16>)
      %37 = loom.grad  input %16(%36#1) {cotangents_of = array<i64: 0>, wrt = array<i64: 0>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16>
      %38 = loom.grad  input %15(%36#0) {cotangents_of = array<i64: 0>, wrt = array<i64: 0>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16>
      %39 = loom.grad  input %14(%36#2) {cotangents_of = array<i64: 0>, wrt = array<i64: 0>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16>
      loom.grad  weight %14(%36#2) {cotangents_of = array<i64: 0>, wrt = array<i64>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> ()
      %40 = loom.grad  input %13(%37) {cotangents_of = array<i64: 0>, wrt = array<i64: 0>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16>
      loom.grad  weight %13(%37) {cotangents_of = array<i64: 0>, wrt = array<i64>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> ()
      %41 = loom.add %39, %40 : tensor<1x64x128xbf16>, tensor<1x64x128xbf16>
      %42 = loom.grad  input %12(%38) {cotangents_of = array<i64: 0>, wrt = array<i64: 0>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16>
      loom.grad  weight %12(%38) {cotangents_of = array<i64: 0>, wrt = array<i64>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> ()
      %43 = loom.add %41, %42 : tensor<1x64x128xbf16>, tensor<1x64x128xbf16>
      %44 = loom.grad  input %11(%43) {cotangents_of = array<i64: 0>, wrt = array<i64: 0>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16>
      loom.grad  weight %11(%43) {cotangents_of = array<i64: 0>, wrt = array<i64>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> ()
      %45 = loom.add %34#0, %44 : tensor<1x64x128xbf16>, tensor<1x64x128xbf16>
      loom.yield %45 : tensor<1x64x128xbf16>
    }
    loom.grad  weight %0(%10) {cotangents_of = array<i64: 0>, wrt = array<i64>} : tensor<1x64x128xbf16>, (tensor<1x64x128xbf16>) -> ()
    loom.optimizer_update {grad_type = bf16, layer = 0 : i64, master_type = f32, optimizer = #loom<optimizer adamw>, parameters = 164096 : i64, state_elements = 328192 : i64, state_type = f32, vector_ops_per_parameter = 16 : i64, weight_type = bf16}
    loom.optimizer_update {grad_type = bf16, layer = 1 : i64, master_type = f32, optimizer = #loom<optimizer adamw>, parameters = 164096 : i64, state_elements = 328192 : i64, state_type = f32, vector_ops_per_parameter = 16 : i64, weight_type = bf16}
    loom.optimizer_update {grad_type = bf16, master_type = f32, optimizer = #loom<optimizer adamw>, parameters = 25728 : i64, state_elements = 51456 : i64, state_type = f32, vector_ops_per_parameter = 16 : i64, weight_type = bf16}
    return %4 : tensor<1x64x100xbf16>
  }
}

