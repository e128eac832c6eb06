//===- Passes.td - Loom passes ------------------------------*- tablegen -*-===//

#ifndef LOOM_TRANSFORMS_PASSES_TD
#define LOOM_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def SetTarget : Pass<"loom-set-target", "mlir::ModuleOp"> {
  let summary = "Put a target, with its hardware figures, on the module";
  let description = [{
    Sets the module's `loom.target` to `topology` (e.g. `v5e-16`) of a
    bundled target, or of the target file `file` (format:
    targets/README.md): a self-contained `#loom.target` that carries every
    figure the passes, the lowering and loom-sim price with, so the IR
    needs no flag or registry afterwards. The planning passes read the
    target from the module; this is the one pass that sets it.

    A module that is already planned (it has `loom.parallel`) keeps its
    target: its plan was made for that hardware, so setting another is an
    error; re-plan from the imported model instead.

    Example: `loom-opt --loom-set-target="topology=my-16 file=my-tpu.json"`.
  }];
  let options = [
    Option<"topology", "topology", "std::string", /*default=*/"\"\"",
           "The topology to plan for, e.g. v5e-16">,
    Option<"file", "file", "std::string", /*default=*/"\"\"",
           "A target file to read the topology from (default: the bundled "
           "targets)">,
  ];
  let dependentDialects = ["::loom::LoomDialect"];
}

def ModelSummary : Pass<"loom-model-summary", "mlir::ModuleOp"> {
  let summary = "Print parameters, FLOPs and bytes per layer and in total";
  let description = [{
    An analysis: prints a table with one row per `loom.layer` (and one for
    the ops before and after the blocks) of what the cost interface says:
    parameters, forward FLOPs, HBM bytes read and written, and KV-cache
    bytes; then the model's totals as exact integers. The IR is unchanged.

    Example: `loom-opt --loom-model-summary model.mlir -o /dev/null`.
  }];
  let options = [
    Option<"perLayer", "per-layer", "bool", /*default=*/"true",
           "Print a row per layer (otherwise only the totals)">,
  ];
}

def Estimate : Pass<"loom-estimate", "mlir::ModuleOp"> {
  let summary = "Annotate each layer with its estimated time on the target";
  let description = [{
    Reads the module's `loom.target` attribute (see loom-set-target) and
    gives every `loom.layer` a `loom.time_us` attribute: the
    estimated microseconds of the layer on one chip of the target, the sum
    over its ops of the roofline time of their MXU-padded FLOPs and HBM
    bytes, and in a sharded module of its collectives on the tensor-parallel
    group's torus axes (see CostModel.h). With `remarks`, each layer also gets a remark
    saying whether it is compute- or memory-bound.

    Example:
    `loom-opt --loom-set-target=topology=v5e-4 --loom-estimate model.mlir`
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark per layer">,
  ];
}

def PrintShardingRules : Pass<"loom-print-sharding-rules", "mlir::ModuleOp"> {
  let summary = "Remark each op's sharding rule (its factors, as data)";
  let description = [{
    An analysis: every op that states a sharding rule with factors
    (ShardingRuleOpInterface::getShardingRule, loom/Dialect/Loom/ShardingRule.h)
    gets a remark with it in Shardy's notation, e.g. an attention's
    `([i, m, j*l], [i, n, k*l], [i, n, k*l])->([i, m, j*l]) {i=1 batch,
    j=4 heads, k=2 kv_heads, l=32 head_dim, m=8 sequence, n=8 sequence
    reduction}`:
    which factors each dimension of each operand and result is made of, and
    which factors are summed over (`reduction`). The sharding passes read
    these rules; the IR is unchanged.

    Example: `loom-opt --loom-print-sharding-rules model.mlir -o /dev/null`.
  }];
}

def ShardHeads : Pass<"loom-shard-heads", "mlir::ModuleOp"> {
  let summary = "Megatron-style head-wise tensor parallelism";
  let description = [{
    Rewrites the model into what one chip of a `tp`-chip tensor-parallel
    group runs (the SPMD view): local shapes, and explicit collectives over
    the group "tp".

    - Attention: Q, K, V projections are split by columns in whole heads
      (each chip keeps heads/tp query heads and kv_heads/tp KV heads; when
      tp exceeds kv_heads, each KV head is replicated tp/kv_heads times, as
      vLLM does, and the K/V projections say `replicas`). Attention itself
      needs no exchange. The output projection is split by rows and its
      partial sums are all-reduced. Cross-attention (PixArt-alpha) and
      MMDiT joint attention (SD3, Flux) split the same way, per stream.
    - MLPs (SwiGLU, GELU) split column then row, with one all-reduce. Flux's
      single blocks split their fused MLP-input and output projections the
      same way.
    - adaLN modulation linears are split by columns and their small
      per-sample output ([batch, k*hidden]) is all-gathered, since every
      chip needs all shift/scale/gate vectors.
    - Token embedding and LM head are vocabulary-parallel (Megatron-LM): the
      embedding's partial rows are all-reduced; the logits stay split over
      the vocabulary, as a parallel softmax or sampler consumes them. A
      vocabulary not divisible by tp is padded up to the next multiple
      (Megatron-LM pads likewise), which the split's local size shows.
    - Replicated, on purpose: norms (per token), patchify, unpatchify and the
      final projection (tiny weights whose whole outputs every chip needs:
      DiT-XL/2's are 19.6k and 36.9k parameters), the timestep, class,
      guidance, pooled-text and caption/context embedders (they act on one
      vector per sample or once per step; Flux's add up to 44M parameters,
      far less than a collective per use would cost).

    Without `sequence-parallel`, every transformer block has two forward
    all-reduces (after the attention output projection and after the MLP's
    down projection; an MMDiT block has two per stream). With it (Korthikanti
    et al., "Reducing Activation Recomputation", 2022), activations between
    the blocks' matmuls are split along the sequence: each all-reduce
    becomes a reduce-scatter, and an all-gather precedes the next column
    split.

    With `tp-x = X` (2-D weight-stationary, Pope et al. 2023, section
    3.2.2) the group is an X x Y block of the torus (Y = tp / X): the
    layers are split as above over each row of the block (group "tp_y", Y
    chips) and d_model over each column (group "tp_x", X chips). The
    residual stream between the layers holds E / X of each token; q, k, v,
    gate and up read E / X and their partial sums are all-reduced over
    tp_x; o and down write E / X, all-reduced over tp_y; a norm over
    d_model all-reduces its per-token partial statistic over tp_x. The ops
    before and after the layers are split over tp_y only. Refused, naming
    the valid X x Y factorizations, when the block does not tile the
    topology or the model does not split; decoder layers only (no MoE,
    DiT, sequence parallelism).

    With `weight-gathered` (Pope et al. 2023, section 3.2.3) the tp chips
    split the batch instead: every tensor's dim 0 (the batch) shrinks tp
    times and each chip runs whole layers on its share of the sequences.
    Each layer's weights are stored split tp ways (`#loom.split<gathered,
    N>` on every op with weights) and all-gathered by a `loom.gather_weights`
    at the top of the layer (the lowering prefetches the next layer's while
    one computes). The ops before and after the layers (embedding, LM head)
    keep whole copies. Refused, naming the valid group sizes, when tp does
    not divide the batch or tile the topology; MoE layers are refused.
    Records `#loom.parallel<tp = N, weight_gathered = true>`.

    With `kv-batch = Z` and more chips than KV heads (tp / kv_heads chips
    compute each KV head), each causal attention's KV cache is split by
    batch over Z of those chips instead of held whole on each (the JAX
    scaling book, Part 7, "Sharding the KV cache": KV[2, B_Z, S, K_Y, H]):
    an all-to-all over the group "kv" (Z consecutive tensor ranks) trades
    the query's heads for its batch, each chip keeps its B / Z sequences of
    K and V (`loom.local_shard`, no communication) and attends with Z times
    the query heads, and a second all-to-all trades them back before the
    output projection. Each chip's cache is then 1 / Z as large, and a
    decode step reads 1 / Z of it. Z must divide tp / kv_heads and the
    batch; refused with tp-x, weight-gathered or sequence-parallel.
    Records `kv_batch = Z` in `#loom.parallel`.

    Records the layout on the module: `loom.parallel = #loom.parallel<tp = N>`
    (with `sequence_parallel = true` when asked); each split op carries its
    `loom.split`.
  }];
  let options = [
    Option<"tp", "tp", "int64_t", /*default=*/"1",
           "Tensor-parallel degree (chips per group)">,
    Option<"sequenceParallel", "sequence-parallel", "bool", /*default=*/"false",
           "Split activations along the sequence between matmuls">,
    Option<"tpX", "tp-x", "int64_t", /*default=*/"1",
           "2-D weight-stationary: rows of the tp block (d_model split over "
           "them, heads and d_ff over its tp / tp-x columns); 1: 1-D">,
    Option<"weightGathered", "weight-gathered", "bool", /*default=*/"false",
           "Weight-gathered (Pope et al. 2023, 3.2.3): the tp chips split "
           "the batch, each layer's weights all-gathered before it">,
    Option<"kvBatch", "kv-batch", "int64_t", /*default=*/"1",
           "With more chips than KV heads: split each KV head's cache by "
           "batch over this many of the chips computing it (group \"kv\"); "
           "1: each holds the whole cache">,
  ];
}

def ShardExperts : Pass<"loom-shard-experts", "mlir::ModuleOp"> {
  let summary = "Expert parallelism: routed experts split over the tp group";
  let description = [{
    Runs after loom-shard-heads. Each mixture-of-experts layer's routed
    experts are split over `ep` chips of the tensor-parallel group (ep
    divides tp and every layer's expert count; when ep < tp each expert's
    width is also split tp / ep ways): chip r holds experts
    [(r / (tp/ep)) * E/ep, ...) whole or in part, as its
    `#loom.split<experts, ep, replicas = tp/ep>` says. Each chip routes its
    1/tp share of the tokens (`shard` on loom.moe_route) into a dispatch
    buffer of one row group per chip, exchanged by a `loom.all_to_all` on
    dim 0 before the experts and another after them (dispatch and combine).
    The buffer is sized for the busiest chip, whose busiest expert receives
    `imbalance` times the average load (loom-import --expert-imbalance).
    Attention and the shared experts stay as loom-shard-heads split them;
    loom-partition-layers' data parallelism replicates the whole group.
    Records `ep` in `loom.parallel`.

    With `data=true` the ep chips are a group of their own beside the
    tensor-parallel group instead (a stage holds tp x ep chips, as
    DeepSeek-V3 serves: attention data-parallel, experts expert-parallel;
    its report, section 3.4): every tensor's batch is split ep ways (ep
    divides the batch and every layer's experts); each chip routes all its
    tokens and the all-to-alls run over the group "ep" (the chips of one
    tensor rank), each chip holding experts / ep experts at the 1/tp of
    their width loom-shard-heads left. Records `ep` and `ep_data`.
  }];
  let options = [
    Option<"ep", "ep", "int64_t", /*default=*/"1",
           "Expert-parallel degree (chips the experts are split over)">,
    Option<"data", "data", "bool", /*default=*/"false",
           "The ep chips are a group of their own beside tp, splitting the "
           "batch (attention data-parallel, experts expert-parallel)">,
  ];
}

def ShardSequence : Pass<"loom-shard-sequence", "mlir::ModuleOp"> {
  let summary = "Sequence (context) parallelism: Ulysses or ring attention";
  let description = [{
    Runs after loom-shard-heads and before loom-partition-layers. Each
    tensor-parallel rank's work is shared by `sp` chips (a stage occupies
    tp x sp chips), each holding 1/sp of the sequence
    (DeepSpeed-Ulysses, Jacobs et al., arXiv 2309.14509): the layers' token
    tensors become `[B, L/sp, ...]`, entered by a `loom.local_shard` over
    the group "sp" (no bytes move: every chip holds the prologue's whole
    output). Before each self-attention a `loom.all_to_all` over "sp"
    (`dim = 2, concat_dim = 1`) trades the sequence split for a head split,
    `[B, L/sp, H*d] -> [B, L, H/sp*d]`, for Q, K and V; the attention then
    runs on heads/sp heads and kv_heads/sp KV heads over all L tokens, and
    a second all-to-all trades back. Cross-attention to replicated text
    needs no exchange. The MLP, projections and tp's collectives run on L/sp
    tokens. After the layers, token-wise ops stay split, an op that needs
    the whole sequence (unpatchify) is preceded by a `loom.all_gather` over
    "sp", and the function returns its logits split along the sequence.
    MMDiT joint attention exchanges both streams: the text stream is split
    like the image stream when sp divides its tokens (Flux's single blocks
    then see the concatenation split); otherwise each chip keeps the whole
    text, takes its heads' share of the text q, k, v with a
    `loom.local_shard` (`dim = 2`) and all-gathers the text output's heads
    (xDiT's `split_text_embed_in_sp`).

    sp must divide the sequence and every self-attention's local heads and
    KV heads, and tp x sp the topology's chips; otherwise the error names
    the valid degrees. Latent attention, mixtures of experts and decode are
    refused.

    `mode=ring` (ring attention, Liu et al., arXiv 2310.01889): the tokens
    split the same way, but each self-attention becomes a
    `loom.ring_attention` over the chip's block of q, k and v (all heads),
    whose K/V blocks go round the sp chips, each step's transfer under the
    attention to the block in hand; no all-to-all, and sp need not divide
    the heads. Causal attention (LLM prefill) is striped over the ring,
    token i on chip i mod sp (Brandon et al., "Striped Attention", arXiv
    2311.09431), so every chip takes an equal share of the causal pairs at
    every step. Sliding windows and MMDiT joint attention are refused in
    this mode.

    Records `sp` in `loom.parallel`; the pipeline's slices and patches stay
    in tokens of the whole sequence.
  }];
  let options = [
    Option<"sp", "sp", "int64_t", /*default=*/"1",
           "Sequence-parallel degree (chips sharing each tensor-parallel "
           "rank)">,
    Option<"mode", "mode", "std::string", /*default=*/"\"ulysses\"",
           "ulysses (all-to-alls over heads) or ring (ring attention)">,
  ];
}

def SplitBatch : Pass<"loom-split-batch", "mlir::ModuleOp"> {
  let summary = "Data parallelism: one replica's share of the batch";
  let description = [{
    Rewrites an imported model into what one of `replicas` data-parallel
    replicas runs: its batch / replicas of the sequences (or images). Every
    tensor dimension that holds the batch, by each op's sharding rule (its
    batch factor, loom-print-sharding-rules), is divided by `replicas`; the
    functions' arguments take the split of the ops that read them. Figures
    an op derives from the batch are recomputed as the importer computes
    them: a mixture of experts' dispatch buffer (every routed token's
    top_k copies, `1 x (tokens * top_k) x hidden`) and its experts'
    `tokens`. `#loom.model`'s batch becomes the share. The result is the
    module `loom-import` gives for batch / replicas (a decode step's KV
    cache per sequence, a guided DiT's two samples per image, and the
    text and timestep embeddings per sample included).

    Runs on the imported module, before the planning passes (loom-plan
    imports the whole batch once, takes the workload's figures from it and
    splits it for a replica); a planned module (with `loom.parallel`) is
    refused. So are a replica count that does not divide the batch and an
    op whose rule maps no batch to a result its split operands feed (a
    concatenation along the batch, a foreign op); the error is at the op.

    Example: `loom-opt --loom-split-batch=replicas=4 model.mlir`.
  }];
  let options = [
    Option<"replicas", "replicas", "int64_t", /*default=*/"1",
           "Data-parallel replicas the batch is split over (divides the "
           "batch)">,
  ];
}

def PartitionLayers : Pass<"loom-partition-layers", "mlir::ModuleOp"> {
  let summary = "Cut the layers into contiguous pipeline stages";
  let description = [{
    Puts each `loom.layer` on a pipeline stage (its `stage` attribute):
    contiguous runs of layers, minimising the slowest stage's estimated time
    while every stage fits in one chip's HBM. The layer times come from the
    shared cost model on the module's target (compute roofline plus the
    layer's tensor-parallel collectives on the group's torus axes); a
    stage's memory is its weights, KV cache (PipeFusion's stale K/V for
    diffusion models) and its largest layer's activations. The algorithm is
    an exact dynamic program (loom/Partition/PartitionLayers.h).

    Records `loom.pipeline = #loom.pipeline<stages = K, slices = [S]>` on
    the model function (one slice until loom-split-tokens) and the
    data-parallel degree in the module's `loom.parallel`. Composes with loom-shard-heads: tp x stages x data-parallel
    must fit the target's chips.

    `virtual-stages=v` (token slices; interleaved stages, Narayanan et al.,
    SC'21, section 2.2.2): the layers are cut into stages x v chunks, each
    layer's `stage` its chunk, chunk c on stage c mod stages; the program
    minimises the slowest chunk and keeps each stage's chunks within its
    HBM. The pipeline records `virtual_stages = v`.

    With `placement=...`, records it as `loom.placement` (checked against
    the degrees and the topology) and prices the groups' collectives on
    the axes it gives them.
  }];
  let options = [
    Option<"stages", "stages", "int64_t", /*default=*/"1",
           "Pipeline stages">,
    Option<"virtualStages", "virtual-stages", "int64_t", /*default=*/"1",
           "Chunks of layers per stage, interleaved (token slices)">,
    Option<"dataParallel", "data-parallel", "int64_t", /*default=*/"1",
           "Data-parallel replicas of the whole pipeline">,
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Report the stages as a remark">,
    Option<"placement", "placement", "std::string", /*default=*/"\"\"",
           "Which chips each group occupies, as #loom.placement prints it "
           "between its brackets ('4x4, tp 1x4 inside sp'); recorded as "
           "loom.placement. Empty: DeviceMesh's default rule">,
  ];
}

def SplitTokens : Pass<"loom-split-tokens", "mlir::ModuleOp"> {
  let summary = "Cut the sequence into slices that flow through the stages";
  let description = [{
    Chooses the slices of a pipelined model (after loom-partition-layers).

    Causal decoders (TeraPipe, Li et al., ICML 2021): a slice costs more the
    more context precedes it, t_i = t(l_i, l_1 + ... + l_{i-1}), from the
    cost model; `slices=auto` finds the lengths minimising
    sum(t_i) + (stages - 1) * max(t_i) by dynamic programming over candidate
    values of max(t_i), in multiples of `granularity` tokens
    (loom/Partition/SplitTokens.h). The report compares it with the best
    slicing into equal slices.

    Diffusion transformers (PipeFusion, Wang et al. 2024): the image tokens
    are cut into M equal patches; after `warmup-steps` synchronous steps a
    stage attends over the previous step's stale K/V for the patches it has
    not seen, so patches stream across steps with no per-step barrier.
    `slices=auto` picks M minimising the estimated time of all steps; the
    report gives the pipeline efficiency M*S / (M*S + stages - 1).

    `slices=N` asks for N equal slices, `slices=640,512,480,416` for given
    lengths (one length is written `slices=2048,`: it must be the whole
    sequence).

    `microbatches=M` (token slices): the batch runs as M microbatches of
    batch / M sequences, each cut into the same slices, so M x slices units
    flow through the stages. The DP then minimises
    M * sum(t_i) + (stages - 1) * max(t_i), t_i a slice of one microbatch.

    `schedule=NAME` (a training step's): the order in which each stage runs
    its microbatches' forward and backward passes, recorded as the
    pipeline's `schedule`: gpipe (the default), 1f1b, interleaved, zb-h1,
    circular or zb-h2 (docs/training.md, "Pipeline schedules"). 1f1b, zb-h1
    and interleaved need at least as many microbatches as stages, zb-h2
    2 x stages - 1.
  }];
  let options = [
    Option<"slices", "slices", "std::string", /*default=*/"\"auto\"",
           "auto, a count N, or comma-separated lengths (one: N,)">,
    Option<"granularity", "granularity", "int64_t", /*default=*/"0",
           "Slice lengths are multiples of this (0: the smallest multiple "
           "of 8, else the smallest divisor, that cuts the sequence into at "
           "most 128 units); one that cuts it into more than 512 units is "
           "coarsened, with a warning">,
    Option<"warmupSteps", "warmup-steps", "int64_t", /*default=*/"-1",
           "PipeFusion: synchronous denoising steps before patches stream "
           "(-1: the default, one step)">,
    Option<"microbatches", "microbatches", "int64_t", /*default=*/"1",
           "Token slices: run the batch's sequences as this many "
           "microbatches of batch / M each, every one cut into the slices "
           "(more pipeline units at the same slice length); must divide the "
           "batch">,
    Option<"schedule", "schedule", "std::string", /*default=*/"\"gpipe\"",
           "A training step's pipeline schedule: gpipe, 1f1b, interleaved, "
           "zb-h1, circular or zb-h2">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Report the choice and its predicted time as a remark">,
  ];
}

def DeriveTrainingStep : Pass<"loom-derive-training-step", "mlir::ModuleOp"> {
  let summary = "Derive the loss, the backward pass and the optimizer's update";
  let description = [{
    Turns a forward graph (prefill of a language model, one denoising step
    of a DiT; sharded or not) into one training step. After the model
    function's output it adds `loom.loss` (cross-entropy over a language
    model's `[B, S, vocab]` logits, mean squared error for a DiT's latent),
    then the backward pass in reverse order of the forward: a
    `loom.layer_grad` per `loom.layer` (its forward ops, kept from the
    forward pass, then their gradients) and the gradients of the ops
    outside the layers, each op's built by GradientOpInterface (`loom.grad`
    per gradient part, a collective's transpose); then one
    `loom.optimizer_update` per layer and one for the parameters outside
    the layers. A value with several uses (the residual stream) gets the sum
    of its cotangents. The function's inputs are data: no cotangent is made
    for them.

    Precision: the compute copy of the weights and the gradients are bf16;
    `master-type=f32` keeps an fp32 master copy beside them and
    `state-type` sets the optimizer state's type (mixed-precision AdamW,
    the default: 16 bytes per parameter, Rajbhandari et al., SC 2020).
    `microbatches=N` > 1 accumulates the gradients of N microbatches
    (the weight parts read and add to them) before the one update.

    Example: `loom-opt --loom-derive-training-step="optimizer=adafactor microbatches=4"`.
  }];
  let options = [
    Option<"optimizer", "optimizer", "std::string", /*default=*/"\"adamw\"",
           "adamw, adafactor or sgd (with momentum)">,
    Option<"masterType", "master-type", "std::string", /*default=*/"\"f32\"",
           "Type of the master copy of the weights: f32, or none (the "
           "update writes the bf16 weights themselves)">,
    Option<"stateType", "state-type", "std::string", /*default=*/"\"f32\"",
           "Type of the optimizer state: f32 or bf16">,
    Option<"microbatches", "microbatches", "int64_t", /*default=*/"1",
           "Microbatches whose gradients are accumulated before the update "
           "(each runs the forward and backward pass on its share of the "
           "batch); a planned function's #loom.pipeline microbatches when "
           "left at 1">,
  ];
  let dependentDialects = ["::loom::LoomDialect"];
}

def Remat : Pass<"loom-remat", "mlir::ModuleOp"> {
  let summary = "Choose what the forward pass keeps for the backward pass";
  let description = [{
    Rematerialisation: marks the forward ops in each `loom.layer_grad`
    (made by loom-derive-training-step) as kept from the forward pass
    (`loom.kept`: their results stay in HBM until the backward pass reads
    them) or recomputed (`loom.recompute`: run again before the backward
    ops, costing their forward work). `policy`:
    - `none`: every result the backward pass reads is kept (a gathered
      tensor excepted: its shard is kept and gathered again);
    - `selective` (Korthikanti et al., "Reducing Activation Recomputation in
      Large Transformer Models", MLSys 2023, section 5): as `none`, but an
      attention keeps no score-sized tensor (`recompute_scores`): its
      backward pass computes the scores and softmax again;
    - `full`: every forward op runs again; only each layer's inputs are
      kept.
    - MaxText's named policies (MaxText/layers/decoders.py), each keeping
      only the results it names and recomputing every other forward op:
      `minimal` (every projection's output: jax's
      checkpoint_dots_with_no_batch_dims), `save_dot_with_context_except_mlp`
      (q, k, v and out projections and the attention's output),
      `save_dot_except_mlpwi` (q, k, v, out and the MLP's down
      projection), `save_dot_except_mlp` (q, k, v and out),
      `save_qkv_proj` (q, k and v); and the two that keep in host memory
      (jax's save_and_offload_only_these_names, to `pinned_host`):
      `qkv_proj_offloaded` (q, k and v) and `minimal_offloaded` (every
      projection's output), whose kept ops are also marked
      `loom.offloaded`.
    LayerGradOp::getKeptBytes gives what each layer keeps per microbatch,
    getOffloadedBytes the part of it kept in host memory.

    Example: `loom-opt --loom-derive-training-step --loom-remat=policy=full`.
  }];
  let options = [
    Option<"policy", "policy", "std::string", /*default=*/"\"none\"",
           "none, selective, full, or one of MaxText's: minimal, "
           "save_dot_with_context_except_mlp, save_dot_except_mlpwi, "
           "save_dot_except_mlp, save_qkv_proj, qkv_proj_offloaded, "
           "minimal_offloaded">,
  ];
}

def ShardZero : Pass<"loom-shard-zero", "mlir::ModuleOp"> {
  let summary = "Split a training step's model states over data-parallel replicas (ZeRO, FSDP)";
  let description = [{
    Splits the model states of a training step (made by
    loom-derive-training-step) within groups of `fsdp` consecutive
    data-parallel replicas, at ZeRO stage `stage` (Rajbhandari et al.,
    "ZeRO: Memory Optimizations Toward Training Trillion Parameter
    Models", SC 2020, section 5):
    - `1`: the optimizer state and the master copy of the weights. Each
      replica updates its 1/fsdp of the parameters, after the gradients are
      reduce-scattered to it, and the updated weights are all-gathered.
    - `2`: also the gradients: each weight's are reduce-scattered as soon
      as the backward pass makes them, every microbatch.
    - `3` (FSDP): also the weights. Each weight is all-gathered just before
      the op that reads it (in the forward pass, and again for a
      recomputed op and for its gradient's input part), the next weight's
      gather prefetched under the op before.
    With dp replicas in all, dp / fsdp groups hold the same states and the
    gradients of each shard are all-reduced between them (hybrid sharding).
    Records `fsdp` and `zero` on `#loom.parallel`; the lowering builds the
    collectives, and loom-check-memory counts what each chip keeps.

    Example: `loom-opt --loom-derive-training-step --loom-shard-zero="fsdp=8 stage=3"`.
  }];
  let options = [
    Option<"fsdp", "fsdp", "int64_t", /*default=*/"0",
           "Data-parallel replicas that split the model states between "
           "them; must divide dp (0: all dp replicas)">,
    Option<"stage", "stage", "int64_t", /*default=*/"3",
           "ZeRO stage: 1 optimizer state, 2 and gradients, 3 and weights "
           "(FSDP)">,
  ];
}

def CheckMemory : Pass<"loom-check-memory", "mlir::ModuleOp"> {
  let summary = "Check that every stage fits in one chip's HBM";
  let description = [{
    For each pipeline stage (the whole model when there is no pipeline):
    the weights of its layers (and of the ops before the first layer on
    stage 0, after the last on the last stage), the KV cache (PipeFusion's
    stale K/V for diffusion models), and the activations in flight (the
    largest layer's intermediate results for the largest slice), per chip
    of the tensor-parallel group, against the target's HBM capacity. A
    stage that does not fit is an error at its first layer naming the
    stage, the total and the largest items.
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Report every stage's memory as a remark">,
  ];
}

#endif // LOOM_TRANSFORMS_PASSES_TD
