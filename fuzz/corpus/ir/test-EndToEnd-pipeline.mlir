// End to end: pipelines of the bundled models, as imported, through
// loom-shard-heads, loom-partition-layers, loom-split-tokens and
// loom-check-memory. The passes' decisions are worked by hand on small
// hand-written IR in test/Transforms/partition-layers.mlir,
// split-tokens.mlir and check-memory.mlir.
// RUN: loom-import llama-65b --target v5e-16 | loom-opt --loom-shard-heads=tp=4 --loom-partition-layers=stages=4 --loom-split-tokens=report=true --loom-check-memory 2>&1 | FileCheck %s --check-prefix=L65
// RUN: loom-import gpt3-175b --target v5e-64 | loom-opt --loom-shard-heads=tp=8 --loom-partition-layers=stages=8 --loom-split-tokens=report=true --loom-check-memory 2>&1 | FileCheck %s --check-prefix=GPT3
// RUN: loom-import dit-xl-2 --resolution 512 --target v5e-16 | loom-opt --loom-shard-heads=tp=4 --loom-partition-layers=stages=4 --loom-split-tokens=report=true --loom-check-memory 2>&1 | FileCheck %s --check-prefix=DIT
// RUN: loom-import flux-dev --target v5e-16 | loom-opt --loom-shard-heads=tp=4 --loom-partition-layers=stages=4 --loom-split-tokens=report=true --loom-check-memory=remarks=true 2>&1 | FileCheck %s --check-prefix=FLUX
// RUN: loom-import llama-65b --target v5e-16 | loom-opt --loom-shard-heads=tp=4 --loom-partition-layers=stages=4 --loom-split-tokens=slices=640,512,480,416 | FileCheck %s --check-prefix=LIST
// RUN: loom-import llama-65b --target v5e-16 | loom-opt --loom-shard-heads=tp=4 --loom-partition-layers=stages=4 --loom-split-tokens=slices=8 | FileCheck %s --check-prefix=COUNT
// Sequences no multiple of 8 divides, and a single decode token, slice too.
// RUN: loom-import llama-7b --seq 1001 --target v5e-4 | loom-opt --loom-partition-layers=stages=2 --loom-split-tokens | FileCheck %s --check-prefix=ODD
// RUN: loom-import llama-7b --mode decode --seq 100 --target v5e-4 | loom-opt --loom-partition-layers=stages=2 --loom-split-tokens | FileCheck %s --check-prefix=DECODE

// LLaMA-65B prefill of 2048 tokens, tp=4 x 4 stages on v5e-16: 80 identical
// layers cut 20/20/20/20; TeraPipe's slices shrink along the sequence and
// beat the best equal slicing.
// L65: remark: TeraPipe: {{[0-9]+}} slices [{{.*}}] on 4 stages, predicted {{[0-9.]+}} ms {{.*}}; best equal slicing: {{.*}}; {{[0-9.]+}}% better
// L65: func.func @llama_65b{{.*}} attributes {loom.pipeline = #loom.pipeline<stages = 4, slices = [{{.*}}]>}
// L65: loom.layer 0({{.*}}stage = 0
// L65: loom.layer 19({{.*}}stage = 0
// L65-NEXT: ^bb0
// L65: loom.layer 20({{.*}}stage = 1
// L65: loom.layer 40({{.*}}stage = 2
// L65: loom.layer 60({{.*}}stage = 3
// L65: loom.layer 79({{.*}}stage = 3

// GPT-3 175B, TeraPipe's own model: 96 layers on 8 stages of 12, tp=8.
// GPT3: remark: TeraPipe: {{.*}} on 8 stages
// GPT3: loom.pipeline = #loom.pipeline<stages = 8, slices = [
// GPT3: loom.layer 11({{.*}}stage = 0
// GPT3: loom.layer 12({{.*}}stage = 1
// GPT3: loom.layer 95({{.*}}stage = 7

// DiT-XL/2 at 512 px (1024 patch tokens) on 4 stages of 7 blocks, tp=4:
// PipeFusion patches with one synchronous warm-up step of 50.
// DIT: remark: PipeFusion: {{[0-9]+}} patches of {{[0-9]+}} tokens on 4 stages over 50 steps (1 warm-up), predicted {{[0-9.]+}} ms; pipeline efficiency M*S/(M*S+K-1) = {{[0-9.]+}}%
// DIT: loom.pipeline = #loom.pipeline<stages = 4, slices = [{{.*}}], patches, steps = 50, warmup = 1>
// DIT: loom.layer 6({{.*}}stage = 0
// DIT: loom.layer 7({{.*}}stage = 1

// Flux-dev at 1024 px on tp=4 x 4 stages: the double blocks weigh more than
// the single ones, so the stages get different block counts; each stage
// keeps the previous step's K/V of its blocks.
// FLUX: remark: PipeFusion: {{[0-9]+}} patches of {{[0-9]+}} tokens on 4 stages over 28 steps (1 warm-up)
// FLUX: remark: stage 0 (layers 0-{{[0-9]+}}): {{.*}} of 16.00 GB per chip {{.*}}stale K/V of the previous step
// FLUX: remark: stage 3 (layers {{[0-9]+}}-56)

// LIST: loom.pipeline = #loom.pipeline<stages = 4, slices = [640, 512, 480, 416]>
// COUNT: loom.pipeline = #loom.pipeline<stages = 4, slices = [256, 256, 256, 256, 256, 256, 256, 256]>

// 1001 = 7 x 11 x 13: slices in multiples of 11 (91 units).
// ODD: loom.pipeline = #loom.pipeline<stages = 2, slices = [{{[0-9, ]+}}]>
// DECODE: loom.pipeline = #loom.pipeline<stages = 2, slices = [1]>
