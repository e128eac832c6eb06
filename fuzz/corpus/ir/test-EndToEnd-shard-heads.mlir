// End to end: the per-chip view after loom-shard-heads on the bundled
// models, as imported (whole LLaMA, LLaMA-2 GQA, DiT and Flux graphs). Each
// rule is tested on hand-written IR in test/Transforms/shard-heads.mlir.
// RUN: loom-import llama-65b --target v5e-16 | loom-opt --loom-shard-heads=tp=4 | FileCheck %s --check-prefix=L65
// RUN: loom-import llama2-70b --target v5e-16 | loom-opt --loom-shard-heads=tp=8 | FileCheck %s --check-prefix=L70-8
// RUN: loom-import llama2-70b --target v5e-16 | loom-opt --loom-shard-heads=tp=16 | FileCheck %s --check-prefix=L70-16
// RUN: loom-import dit-xl-2 --target v5e-16 | loom-opt --loom-shard-heads=tp=4 | FileCheck %s --check-prefix=DIT
// RUN: loom-import flux-dev --target v5e-16 | loom-opt --loom-shard-heads=tp=4 | FileCheck %s --check-prefix=FLUX
// RUN: loom-import llama-65b | loom-opt --loom-set-target=topology=v5e-4 --loom-shard-heads="tp=4 sequence-parallel=true" | FileCheck %s --check-prefix=SP

// LLaMA-65B on 4 chips: 64 heads -> 16 per chip, Q/K/V 2048 wide, attention
// with no exchange, two all-reduces of 1 x 2048 x 8192 bf16 (32 MiB) per
// layer; vocabulary-parallel embedding and LM head.
// L65: module attributes {{{.*}}loom.parallel = #loom.parallel<tp = 4>, loom.target = #loom.target<"tpu-v5e", topology = "v5e-16", shape = [4, 4]{{.*}}>}
// L65: func.func @llama_65b({{.*}}) -> tensor<1x2048x8000xbf16>
// L65: loom.embed %arg0 {loom.split = #loom.split<vocab, 4>, vocab = 8000 : i64} : tensor<1x2048xi32> -> tensor<1x2048x8192xbf16>
// L65-NEXT: loom.all_reduce {{.*}} {group = "tp", group_size = 4 : i64} : tensor<1x2048x8192xbf16>
// L65: loom.layer 0
// L65-NEXT: ^bb0
// L65-NEXT: loom.rms_norm {{.*}} : tensor<1x2048x8192xbf16>
// L65-NEXT: loom.linear q {{.*}} {loom.split = #loom.split<column, 4>} : tensor<1x2048x8192xbf16> -> tensor<1x2048x2048xbf16>
// L65-NEXT: loom.linear k {{.*}} {loom.split = #loom.split<column, 4>} : tensor<1x2048x8192xbf16> -> tensor<1x2048x2048xbf16>
// L65-NEXT: loom.linear v {{.*}} {loom.split = #loom.split<column, 4>} : tensor<1x2048x8192xbf16> -> tensor<1x2048x2048xbf16>
// L65-NEXT: loom.rope
// L65-NEXT: loom.rope
// L65-NEXT: loom.attention {{.*}} {causal, head_dim = 128 : i64, heads = 16 : i64, kv_heads = 16 : i64, loom.split = #loom.split<heads, 4>} : tensor<1x2048x2048xbf16>, tensor<1x2048x2048xbf16> -> tensor<1x2048x2048xbf16>
// L65-NEXT: loom.linear o {{.*}} {loom.split = #loom.split<row, 4>} : tensor<1x2048x2048xbf16> -> tensor<1x2048x8192xbf16>
// L65-NEXT: loom.all_reduce {{.*}} : tensor<1x2048x8192xbf16> -> tensor<1x2048x8192xbf16>
// L65-NEXT: loom.add
// L65-NEXT: loom.rms_norm
// L65-NEXT: loom.linear gate {{.*}} -> tensor<1x2048x5504xbf16>
// L65-NEXT: loom.linear up {{.*}} -> tensor<1x2048x5504xbf16>
// L65-NEXT: loom.swiglu {{.*}} : tensor<1x2048x5504xbf16>
// L65-NEXT: loom.linear down {{.*}} {loom.split = #loom.split<row, 4>} : tensor<1x2048x5504xbf16> -> tensor<1x2048x8192xbf16>
// L65-NEXT: loom.all_reduce {{.*}} : tensor<1x2048x8192xbf16> -> tensor<1x2048x8192xbf16>
// L65-NEXT: loom.add
// L65-NEXT: loom.yield
// L65: loom.linear lm_head {{.*}} {loom.split = #loom.split<vocab, 4>} : tensor<1x2048x8192xbf16> -> tensor<1x2048x8000xbf16>

// LLaMA-2-70B on 8 chips: 8 query heads and one KV head per chip.
// L70-8: loom.linear q {{.*}} -> tensor<1x2048x1024xbf16>
// L70-8: loom.linear k {{.*}} {loom.split = #loom.split<column, 8>} : tensor<1x2048x8192xbf16> -> tensor<1x2048x128xbf16>
// L70-8: loom.attention {{.*}} {causal, head_dim = 128 : i64, heads = 8 : i64, kv_heads = 1 : i64, loom.split = #loom.split<heads, 8>}
// L70-8: loom.linear gate {{.*}} -> tensor<1x2048x3584xbf16>

// On 16 chips there are more chips than KV heads: each of the 8 KV heads is
// replicated on 2 chips, and the K/V projections say so.
// L70-16: loom.linear q {{.*}} {loom.split = #loom.split<column, 16>} : tensor<1x2048x8192xbf16> -> tensor<1x2048x512xbf16>
// L70-16: loom.linear k {{.*}} {loom.split = #loom.split<column, 8, replicas = 2>} : tensor<1x2048x8192xbf16> -> tensor<1x2048x128xbf16>
// L70-16: loom.linear v {{.*}} {loom.split = #loom.split<column, 8, replicas = 2>} : tensor<1x2048x8192xbf16> -> tensor<1x2048x128xbf16>
// L70-16: loom.attention {{.*}} {causal, head_dim = 128 : i64, heads = 4 : i64, kv_heads = 1 : i64, loom.split = #loom.split<heads, 16>}

// DiT-XL/2 on 4 chips: patchify and the embedders replicated; adaLN
// modulation split by columns and gathered; 4 of 16 heads per chip.
// DIT: loom.patchify {{.*}} -> tensor<2x256x1152xbf16>
// DIT: loom.layer 0
// DIT: loom.linear modulation {{.*}} {bias, loom.split = #loom.split<column, 4>} : tensor<2x1152xbf16> -> tensor<2x1728xbf16>
// DIT-NEXT: loom.all_gather {{.*}} {dim = 1 : i64, group = "tp", group_size = 4 : i64} : tensor<2x1728xbf16> -> tensor<2x6912xbf16>
// DIT: loom.attention {{.*}} {head_dim = 72 : i64, heads = 4 : i64, kv_heads = 4 : i64, loom.split = #loom.split<heads, 4>} : tensor<2x256x288xbf16>
// DIT-NEXT: loom.linear o {{.*}} {bias, loom.split = #loom.split<row, 4>}
// DIT-NEXT: loom.all_reduce {{.*}} : tensor<2x256x1152xbf16>
// DIT: loom.linear fc1 {{.*}} -> tensor<2x256x1152xbf16>
// DIT: loom.linear fc2 {{.*}} {bias, loom.split = #loom.split<row, 4>}
// DIT-NEXT: loom.all_reduce
// DIT: loom.linear proj_out {{.*}} {bias} : tensor<2x256x1152xbf16> -> tensor<2x256x32xbf16>
// DIT-NEXT: loom.unpatchify

// Flux-dev on 4 chips: 6 of 24 heads per stream per chip; per-head QK norms
// stay local; four all-reduces per double block (two per stream), one per
// single block, whose fused output projection takes the split attention
// and MLP branches together.
// FLUX: loom.layer 0
// FLUX: loom.linear q {{.*}} : tensor<1x4096x3072xbf16> -> tensor<1x4096x768xbf16>
// FLUX-NEXT: loom.rms_norm {{.*}} {group = 128 : i64} : tensor<1x4096x768xbf16>
// FLUX: loom.joint_attention {{.*}} {head_dim = 128 : i64, heads = 6 : i64, loom.split = #loom.split<heads, 4>} : tensor<1x4096x768xbf16>, tensor<1x512x768xbf16>
// FLUX-COUNT-4: loom.all_reduce
// FLUX: loom.layer 19
// FLUX: loom.linear fc1 {{.*}} -> tensor<1x4608x3072xbf16>
// FLUX: loom.attention {{.*}} heads = 6 : i64
// FLUX-NEXT: loom.concat {{.*}} {dim = 2 : i64} : (tensor<1x4608x768xbf16>, tensor<1x4608x3072xbf16>) -> tensor<1x4608x3840xbf16>
// FLUX-NEXT: loom.linear o {{.*}} {bias, loom.split = #loom.split<row, 4>} : tensor<1x4608x3840xbf16> -> tensor<1x4608x3072xbf16>
// FLUX-NEXT: loom.all_reduce

// Sequence parallelism: the all-reduces become reduce-scatters over the
// sequence, an all-gather precedes each column split, and the norms and
// residuals run on 512 of the 2048 tokens.
// SP: loom.parallel = #loom.parallel<tp = 4, sequence_parallel = true>
// SP: loom.embed
// SP-NEXT: loom.reduce_scatter {{.*}} {dim = 1 : i64, group = "tp", group_size = 4 : i64} : tensor<1x2048x8192xbf16> -> tensor<1x512x8192xbf16>
// SP: loom.layer 0
// SP-NEXT: ^bb0
// SP-NEXT: loom.rms_norm {{.*}} : tensor<1x512x8192xbf16>
// SP-NEXT: loom.all_gather {{.*}} {dim = 1 : i64, group = "tp", group_size = 4 : i64} : tensor<1x512x8192xbf16> -> tensor<1x2048x8192xbf16>
// SP-NEXT: loom.linear q
// SP-NOT: loom.all_reduce
// SP: loom.linear o
// SP-NEXT: loom.reduce_scatter {{.*}} : tensor<1x2048x8192xbf16> -> tensor<1x512x8192xbf16>
// SP-NEXT: loom.add {{.*}} : tensor<1x512x8192xbf16>
// SP: loom.linear down
// SP-NEXT: loom.reduce_scatter
