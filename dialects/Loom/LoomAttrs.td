//===- LoomAttrs.td - loom dialect attributes ---------------*- tablegen -*-===//

#ifndef LOOM_ATTRS_TD
#define LOOM_ATTRS_TD

include "Loom/LoomDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

/// A hardware figure: a positive, finite double (held as an APFloat, which
/// attribute storage can hash), printed in the shortest form that parses
/// back to the same value.
def Loom_FigureParameter : AttrOrTypeParameter<"::llvm::APFloat", "a hardware figure"> {
  let parser = "::loom::parseFigure($_parser)";
  let printer = "::loom::printFigure($_printer, $_self)";
}

/// A flag written `true` or `false`, absent when false.
def Loom_FlagParameter : AttrOrTypeParameter<"bool", "a flag"> {
  let parser = "::loom::parseFlag($_parser)";
  let printer = "$_printer << ($_self ? \"true\" : \"false\")";
  let defaultValue = "false";
}

/// A figure a target may leave out: 0, not printed.
def Loom_OptionalFigureParameter : AttrOrTypeParameter<"::llvm::APFloat", "an optional hardware figure"> {
  let parser = "::loom::parseFigure($_parser)";
  let printer = "::loom::printFigure($_printer, $_self)";
  let defaultValue = "::llvm::APFloat(0.0)";
}

def Loom_ChipAttr : AttrDef<Loom_Dialect, "Chip"> {
  let mnemonic = "chip";
  let summary = "The figures of one chip a target is priced with";
  let description = [{
    What the cost model and the simulator read of a chip, in SI units: the
    MXU's peak rates (FLOP/s for bf16, OP/s for int8), its systolic array's
    edge (matmul dimensions pad to it), HBM capacity (bytes) and bandwidth
    (bytes/s), the fractions of peak that real programs reach, and, when
    the target gives them, the chip's link to its host's memory (bytes/s
    each way) and the host memory it may fill (bytes). Each
    figure's source is in the target file it was materialized from
    (targets/*.json); its range, the one the target and schedule files are
    read with, is in include/loom/Hardware/TargetSchema.h.

    ```mlir
    #loom.chip<peak_bf16 = 1.97e+14, peak_int8 = 3.94e+14, mxu_tile = 128, mxu_efficiency = 0.8, hbm_capacity = 1.6e+10, hbm_bandwidth = 8.192e+11, hbm_efficiency = 0.9>
    ```
  }];
  let parameters = (ins Loom_FigureParameter:$peak_bf16,
                        Loom_FigureParameter:$peak_int8,
                        "int64_t":$mxu_tile,
                        Loom_FigureParameter:$mxu_efficiency,
                        Loom_FigureParameter:$hbm_capacity,
                        Loom_FigureParameter:$hbm_bandwidth,
                        Loom_FigureParameter:$hbm_efficiency,
                        Loom_OptionalFigureParameter:$host_bandwidth,
                        Loom_OptionalFigureParameter:$host_memory);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Loom_InterconnectAttr : AttrDef<Loom_Dialect, "Interconnect"> {
  let mnemonic = "ici";
  let summary = "The figures of the inter-chip interconnect";
  let description = [{
    One direction of one ICI link (bytes/s) and the latency of a hop
    (seconds), as the collectives' ring formulas and the simulator's links
    use them; their ranges are in include/loom/Hardware/TargetSchema.h.

    ```mlir
    #loom.ici<link_bandwidth = 4.5e+10, hop_latency = 1e-06>
    ```
  }];
  let parameters = (ins Loom_FigureParameter:$link_bandwidth,
                        Loom_FigureParameter:$hop_latency);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Loom_CalibrationAttr : AttrDef<Loom_Dialect, "Calibration"> {
  let mnemonic = "calibration";
  let summary = "Which fit of the cost model's fixed costs and efficiencies a target carries";
  let description = [{
    The target file the figures came from, the calibration's name and
    version (version 0: nominal, no fit), and the constants
    bench/calibrate.py fitted from published measurements: the program's
    dispatch, a compute task's fixed step, a collective step's
    synchronisation (seconds) and the fraction of a link's bandwidth a
    collective reaches on a ring and on a line. targets/README.md,
    "Calibration", and include/loom/Hardware/CostModel.h say how each is
    used; include/loom/Hardware/TargetSchema.h gives their ranges.

    ```mlir
    #loom.calibration<file = "targets/tpu-v5e.json", name = "tpu-v5e-published", version = 1, program_dispatch = 1.05e-04, kernel_step = 2.6e-07, collective_sync = 2.3e-06, link_efficiency_ring = 0.95, link_efficiency_line = 0.82>
    ```
  }];
  let parameters = (ins StringRefParameter<"target file">:$file,
                        StringRefParameter<"calibration name">:$name,
                        "int64_t":$version,
                        Loom_FigureParameter:$program_dispatch,
                        Loom_FigureParameter:$kernel_step,
                        Loom_FigureParameter:$collective_sync,
                        Loom_FigureParameter:$link_efficiency_ring,
                        Loom_FigureParameter:$link_efficiency_line);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Loom_DcnAttr : AttrDef<Loom_Dialect, "Dcn"> {
  let mnemonic = "dcn";
  let summary = "Several slices joined by the data-center network";
  let description = [{
    A target of several slices of its topology (`4xv5e-256`), joined by
    the data-center network (DCN) through each host's NIC: the number of
    slices, the chips of a host (which share its NIC), one NIC's bandwidth
    each way (bytes/s) and the latency of a message across the DCN
    (seconds). The figures are the target file's `host` section's
    (targets/README.md, "host"); docs/multislice.md says how they are used.

    ```mlir
    #loom.dcn<slices = 4, chips_per_host = 8, bandwidth = 1.25e+10, latency = 0.0001>
    ```
  }];
  let parameters = (ins "int64_t":$slices,
                        "int64_t":$chips_per_host,
                        Loom_FigureParameter:$bandwidth,
                        Loom_FigureParameter:$latency);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Loom_TargetAttr : AttrDef<Loom_Dialect, "Target"> {
  let mnemonic = "target";
  let summary = "The TPU target and topology a module is planned for, with its figures";
  let description = [{
    Self-contained: the target's name, the topology (a named shape of the
    torus: `v5e-16` is 4x4), the axes of that shape that have wraparound
    links, and the chip and interconnect figures every cost is priced with.
    Nothing is looked up when the attribute is used, so IR planned for a
    user's target file parses and runs anywhere.

    ```mlir
    module attributes {loom.target = #loom.target<"tpu-v5e", topology = "v5e-16", shape = [4, 4], wrap_axes = [],
        chip = #loom.chip<...>, ici = #loom.ici<...>>}
    ```

    The figures are materialized from a target file (targets/*.json, or a
    user's file given to `loom-set-target`). For a target bundled with Loom,
    the short form `#loom.target<"tpu-v5e", shape = [4, 4]>` (or
    `topology = "v5e-16"`) is completed from the bundled file when parsed;
    the attribute is always printed in full.

    Several slices of the topology joined by the data-center network add
    `dcn = #loom.dcn<...>` (topology `4xv5e-256`: four v5e-256 slices;
    `shape` is one slice's). Chips are numbered slice-major.
  }];
  let parameters = (ins StringRefParameter<"target name">:$name,
                        StringRefParameter<"topology name">:$topology,
                        ArrayRefParameter<"int64_t", "topology shape">:$shape,
                        ArrayRefParameter<"int64_t", "axes with wraparound links">:$wrapAxes,
                        "ChipAttr":$chip,
                        "InterconnectAttr":$ici,
                        "CalibrationAttr":$calibration,
                        OptionalParameter<"DcnAttr">:$dcn);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The target as the cost model and the device mesh read it: these
    /// figures and this one topology.
    ::loom::TargetDesc getDesc() const;
    /// The topology: its name and shape.
    ::loom::TopologyDesc getTopologyDesc() const;
    /// Chips in the topology.
    int64_t getNumChips() const;
    /// The attribute for `topology` of `target`, with its figures.
    static TargetAttr get(::mlir::MLIRContext *context,
                          const ::loom::TargetDesc &target,
                          const ::loom::TopologyDesc &topology);
    /// The same for figures that may be out of range (read from a file):
    /// null, with the error emitted, when they are.
    static TargetAttr
    getChecked(::llvm::function_ref<::mlir::InFlightDiagnostic()> emitError,
               ::mlir::MLIRContext *context, const ::loom::TargetDesc &target,
               const ::loom::TopologyDesc &topology);
  }];
}

def Loom_ModelMode : I32EnumAttr<"ModelMode", "what one run of a model does", [
    I32EnumAttrCase<"prefill", 0>, I32EnumAttrCase<"decode", 1>,
    I32EnumAttrCase<"diffusion", 2>]> {
  let cppNamespace = "::loom";
  let genSpecializedAttr = 0;
}

def Loom_ModelAttr : AttrDef<Loom_Dialect, "Model"> {
  let mnemonic = "model";
  let summary = "What loom-import knew of the model and its workload";
  let description = [{
    Set on the module as `loom.model` by loom-import: the model's name and
    family, the mode of the run (`prefill`: a whole prompt, or one
    denoising step of a DiT; `decode`: one new token per sequence after
    `seq` cached ones; `diffusion`: `steps` denoising steps of a DiT), the
    batch, the sequence (prompt tokens, cached tokens in decode, image
    tokens of a DiT) and, for DiTs, the image side in pixels and the text
    tokens. A square image is written `resolution = R`; any other size as
    `height` and `width` in pixels, and a video adds `frames`.
    The verifier holds it against the graph: the batch and sequence
    against the model function's tensors, the mode against its attention.

    ```mlir
    module attributes {loom.model = #loom.model<name = "llama-65b", family = "llama", mode = prefill, batch = 1, seq = 2048>}
    ```
  }];
  let parameters = (ins StringRefParameter<"model name">:$name,
                        StringRefParameter<"model family">:$family,
                        EnumParameter<Loom_ModelMode>:$mode,
                        "int64_t":$batch,
                        "int64_t":$seq,
                        DefaultValuedParameter<"int64_t", "0">:$resolution,
                        DefaultValuedParameter<"int64_t", "0">:$text_tokens,
                        DefaultValuedParameter<"int64_t", "0">:$steps,
                        DefaultValuedParameter<"int64_t", "0">:$height,
                        DefaultValuedParameter<"int64_t", "0">:$width,
                        DefaultValuedParameter<"int64_t", "0">:$frames);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool isDiffusion() const { return getMode() == ModelMode::diffusion; }
  }];
}

def Loom_ParallelAttr : AttrDef<Loom_Dialect, "Parallel"> {
  let mnemonic = "parallel";
  let summary = "The parallel layout a module was planned with";
  let description = [{
    Set on the module as `loom.parallel` by the planning passes:
    loom-shard-heads records the tensor-parallel degree `tp` (chips per
    group, whose ops now hold what one chip runs) and whether activations
    between the matmuls are split along the sequence (`sequence_parallel`,
    Megatron-3); loom-partition-layers records `dp`, the data-parallel
    replicas of the whole pipeline. Later passes and the lowering read the
    layout here instead of working it back out of the ops.

    ```mlir
    module attributes {loom.parallel = #loom.parallel<tp = 8, dp = 2, sequence_parallel = true>}
    module attributes {loom.parallel = #loom.parallel<tp = 16, tp_x = 2>}
    module attributes {loom.parallel = #loom.parallel<tp = 8, weight_gathered = true>}
    module attributes {loom.parallel = #loom.parallel<tp = 4, ep = 8, ep_data = true>}
    module attributes {loom.parallel = #loom.parallel<tp = 4, dp = 8, fsdp = 8, zero = 3>}
    module attributes {loom.parallel = #loom.parallel<tp = 16, kv_batch = 2>}
    ```
  }];
  let parameters = (ins DefaultValuedParameter<"int64_t", "1">:$tp,
                        DefaultValuedParameter<"int64_t", "1">:$dp,
                        Loom_FlagParameter:$sequence_parallel,
                        // loom-shard-experts: the routed experts of each
                        // MoE layer are split over ep chips of the tp group.
                        DefaultValuedParameter<"int64_t", "1">:$ep,
                        // loom-shard-sequence: each stage's group is tp x sp
                        // chips; sp of them share a tensor-parallel rank and
                        // split the sequence (Ulysses, DeepSpeed 2023).
                        DefaultValuedParameter<"int64_t", "1">:$sp,
                        // loom-shard-heads tp-x: 2-D weight-stationary
                        // tensor parallelism (Pope et al. 2023, 3.2.2); the
                        // tp group is a tp_x x (tp / tp_x) block, d_model
                        // split over its rows ("tp_x"), heads and d_ff over
                        // its columns ("tp_y"). 1: 1-D (Megatron).
                        DefaultValuedParameter<"int64_t", "1">:$tp_x,
                        // loom-shard-heads weight-gathered: the tp chips
                        // split the batch instead (Pope et al. 2023,
                        // 3.2.3); each layer's weights, stored split tp
                        // ways, are all-gathered before it
                        // (loom.gather_weights).
                        Loom_FlagParameter:$weight_gathered,
                        // loom-shard-experts data: the ep chips are a group
                        // of their own beside the tp group (a stage holds
                        // tp x ep chips), splitting the batch for attention
                        // and dense layers and the experts for MoE layers,
                        // whose all-to-alls run over "ep" alone (DeepSeek-V3
                        // report, section 3.4: attention DP, MoE EP).
                        Loom_FlagParameter:$ep_data,
                        // loom-shard-zero: a training step's data-parallel
                        // replicas in groups of `fsdp` (consecutive
                        // replicas; fsdp divides dp) split the model
                        // states between them, ZeRO stage `zero`
                        // (Rajbhandari et al., SC 2020): 1 the optimizer
                        // state and master weights, 2 also the gradients,
                        // 3 also the weights (FSDP: each weight
                        // all-gathered before the ops that read it, in the
                        // forward and the backward pass). fsdp 1 (zero 0):
                        // every replica holds all.
                        DefaultValuedParameter<"int64_t", "1">:$fsdp,
                        DefaultValuedParameter<"int64_t", "0">:$zero,
                        // loom-shard-heads kv-batch: with more
                        // tensor-parallel chips than KV heads, each KV
                        // head's cache is split by batch (whole sequences)
                        // over kv_batch of the chips computing it (group
                        // "kv"), not
                        // repeated on each (the JAX scaling book, Part 7,
                        // "Sharding the KV cache": KV[2, B_Z, S, K_Y, H]).
                        DefaultValuedParameter<"int64_t", "1">:$kv_batch);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The degree of the stage's group beside tp: Ulysses' sp, or ep when
    /// the expert-parallel chips are a group of their own (ep_data). A
    /// stage holds tp x this many chips.
    int64_t getBesideDegree() const {
      return getEpData() ? getEp() : getSp();
    }
  }];
}

def Loom_SplitKind : I32EnumAttr<"SplitKind", "how a weight is split", [
    I32EnumAttrCase<"column", 0>, I32EnumAttrCase<"row", 1>,
    I32EnumAttrCase<"vocab", 2>, I32EnumAttrCase<"heads", 3>,
    I32EnumAttrCase<"experts", 4>, I32EnumAttrCase<"gathered", 5>]> {
  let cppNamespace = "::loom";
  let genSpecializedAttr = 0;
}

def Loom_SplitAttr : AttrDef<Loom_Dialect, "Split"> {
  let mnemonic = "split";
  let summary = "How loom-shard-heads split an op across a tensor-parallel group";
  let description = [{
    `column`: a projection's output features are split (each chip holds
    whole heads or a slice of the MLP's width); `row`: its input features
    are, and the partial results are summed by the all-reduce that follows;
    `vocab`: an embedding's or LM head's vocabulary rows are; `heads`: an
    attention's heads are. `parts` is how many distinct pieces there are and
    `replicas` how many chips hold each piece: K and V projections of a
    grouped-query model with fewer KV heads than chips are split into
    `kv_heads` pieces, each replicated `tp / kv_heads` times, as vLLM does.

    Under 2-D weight-stationary tensor parallelism (#loom.parallel's tp_x,
    Pope et al. 2023) `parts x x_parts` says the other dimension of the
    weight, d_model, is split too, into `x_parts` pieces over the group's
    tp_x sub-groups: `#loom.split<column, 8 x 2>` is an up projection whose
    d_ff is split 8 ways over tp_y and its d_model 2 ways over tp_x (a norm's
    scale over d_model: `#loom.split<column, 1 x 2>`).

    `gathered` (weight-gathered, #loom.parallel's weight_gathered): the
    weight is stored split `parts` ways over the group and all-gathered
    whole before its layer runs (loom.gather_weights); the op computes with
    all of it on the chip's share of the batch.

    ```mlir
    %k = loom.linear k %h {loom.split = #loom.split<column, 8, replicas = 2>} : ...
    %u = loom.linear up %h {loom.split = #loom.split<column, 8 x 2>} : ...
    ```
  }];
  let parameters = (ins EnumParameter<Loom_SplitKind>:$kind,
                        "int64_t":$parts,
                        DefaultValuedParameter<"int64_t", "1">:$replicas,
                        DefaultValuedParameter<"int64_t", "1">:$x_parts);
  let assemblyFormat =
      "`<` $kind `,` $parts (`x` $x_parts^)? (`,` `replicas` `=` $replicas^)? `>`";
  let genVerifyDecl = 1;
}

def Loom_PipelineMode : I32EnumAttr<"PipelineMode", "what the slices are", [
    I32EnumAttrCase<"tokens", 0>, I32EnumAttrCase<"patches", 1>]> {
  let cppNamespace = "::loom";
  let genSpecializedAttr = 0;
}

class Loom_DefaultEnumParameter<EnumAttrInfo info, string value>
    : EnumParameter<info> {
  let defaultValue = value;
}
defvar Loom_DefaultTokens =
    Loom_DefaultEnumParameter<Loom_PipelineMode, "::loom::PipelineMode::tokens">;

// The order in which a training step's stages run their passes
// (loom/Analysis/TrainingSchedule.h gives each schedule's source).
def Loom_PipelineSchedule : I32EnumAttr<"PipelineSchedule",
    "a training step's pipeline schedule", [
    I32EnumAttrCase<"GPipe", 0, "gpipe">,
    I32EnumAttrCase<"OneFOneB", 1, "1f1b">,
    I32EnumAttrCase<"Interleaved", 2, "interleaved">,
    I32EnumAttrCase<"ZeroBubbleH1", 3, "zb-h1">,
    I32EnumAttrCase<"Circular", 4, "circular">,
    I32EnumAttrCase<"ZeroBubbleH2", 5, "zb-h2">]> {
  let cppNamespace = "::loom";
  let genSpecializedAttr = 0;
}
defvar Loom_DefaultGPipe = Loom_DefaultEnumParameter<Loom_PipelineSchedule,
    "::loom::PipelineSchedule::GPipe">;

def Loom_PipelineAttr : AttrDef<Loom_Dialect, "Pipeline"> {
  let mnemonic = "pipeline";
  let summary = "The pipeline plan of a model function";
  let description = [{
    Set on the model's `func.func` as `loom.pipeline` by loom-partition-layers
    (the stage count; each `loom.layer` carries its `stage`) and refined by
    loom-split-tokens (the slices, in tokens, that flow through the stages
    one after another).

    `tokens` (the default): TeraPipe slices of a causal sequence; a slice
    attends to the slices before it. `patches`: PipeFusion patches of a DiT
    image, equal in size; from the first step after `warmup` synchronous
    steps on, a stage attends over the previous step's (stale) K/V for the
    patches it has not seen yet in this step, so patches stream through the
    stages across `steps` denoising steps without a per-step barrier.

    `microbatches = M` (token slices only; default 1): the batch's sequences
    run as M microbatches of batch / M sequences each, one after another,
    every microbatch cut into the same slices. A unit of the pipeline is then
    one slice of one microbatch (batch / M sequences of that many tokens), so
    a batched prefill gets M times the units at the same slice length: a
    smaller pipeline bubble without shorter slices. A microbatch's slices see
    only its own earlier slices (its sequences' context).

    `virtual_stages = v` (token slices only; default 1): interleaved stages
    (Narayanan et al., SC'21, section 2.2.2; MaxText's
    `num_pipeline_repeats`). The layers are cut into K x v chunks and each
    `loom.layer`'s `stage` is its chunk; chunk c runs on physical stage
    c mod K, so each stage group holds the v chunks s, s + K, ... and a unit
    goes round the K stages v times. Each stage runs its units in groups of
    K: chunk s for every unit of the group, then chunk s + K, and so on
    (Megatron's order). The bubble is that of one chunk, 1/v of a stage's.

    `schedule = "name"` (a training step's; default `"gpipe"`): the order
    in which each stage runs its microbatches' forward and backward passes
    (docs/training.md, "Pipeline schedules"): `"gpipe"`, `"1f1b"`,
    `"interleaved"` (with virtual stages), `"zb-h1"`, `"circular"` (with
    virtual stages) or `"zb-h2"`. `1f1b`, `zb-h1` and `interleaved` need at
    least as many microbatches as stages, `zb-h2` 2 x stages - 1. A forward
    pass (inference) ignores it.

    ```mlir
    func.func @llama_65b(...) attributes {loom.pipeline = #loom.pipeline<stages = 4, slices = [640, 512, 480, 416]>}
    func.func @dit_xl_2(...) attributes {loom.pipeline = #loom.pipeline<stages = 4, slices = [256, 256, 256, 256], patches, steps = 50, warmup = 1>}
    func.func @llama_65b(...) attributes {loom.pipeline = #loom.pipeline<stages = 4, slices = [1024, 1024], microbatches = 4>}
    func.func @llama_65b(...) attributes {loom.pipeline = #loom.pipeline<stages = 4, slices = [256, 256, 256, 256, 256, 256, 256, 256], virtual_stages = 2>}
    func.func @mlp(...) attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [1024], microbatches = 4, schedule = "1f1b">}
    ```
  }];
  let parameters = (ins "int64_t":$stages,
                        ArrayRefParameter<"int64_t", "slice lengths">:$slices,
                        Loom_DefaultTokens:$mode,
                        DefaultValuedParameter<"int64_t", "0">:$steps,
                        DefaultValuedParameter<"int64_t", "0">:$warmup,
                        DefaultValuedParameter<"int64_t", "1">:$microbatches,
                        DefaultValuedParameter<"int64_t", "1">:$virtualStages,
                        Loom_DefaultGPipe:$schedule);
  // `<stages = K, slices = [...]` then, each when not its default and in
  // this order, `, patches`, `, steps = N`, `, warmup = N`,
  // `, microbatches = M`, `, virtual_stages = v`, `, schedule = "name"`,
  // then `>`. (Custom: a declarative format's optional
  // groups that each open with a comma cannot follow one another.)
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getTokens() const;
    /// The layers' chunks, stages x virtual_stages: a layer's `stage`.
    int64_t getChunks() const { return getStages() * getVirtualStages(); }
  }];
}

def Loom_PlacementAttr : AttrDef<Loom_Dialect, "Placement"> {
  let mnemonic = "placement";
  let summary = "Which chips of the torus each parallel group occupies";
  let description = [{
    Set on the module as `loom.placement` by loom-partition-layers when a
    placement is chosen (loom-plan `--placement`, or a searched one; absent,
    the lowering and the cost model use DeviceMesh's default rule). Each
    pipeline stage holds tp x sp chips as a `rows x cols` block; inside it
    the inner group (`tp` or `sp`; `ep` for sp when the expert-parallel
    chips are a group of their own, #loom.parallel's ep_data) is an `a x b`
    sub-block whose ranks walk
    a ring of neighbours, and the other group takes the chips at the same
    offset in every sub-block (its members `a` or `b` chips apart, sharing
    those links with the groups interleaved with it). The blocks follow a
    snake over the torus: a replica's stages contiguous (`stages inside
    replicas`, the default) or a stage's replicas (`replicas inside
    stages`); or `stages in ring`: each replica's stages take a sub-grid of
    blocks walked as a closed cycle (out along one column of blocks and
    back along the others), so that every handover, including the last
    stage's back to the first under virtual stages, is one block apart
    (DeviceMesh::stageRingGrid). As MaxText's mesh axes (`ici_*_parallelism` in
    `create_device_mesh`), the order says which degree varies fastest over
    neighbouring chips.

    `tp AxB by columns` numbers the tensor-parallel ranks down each column of
    their sub-block in turn instead of round a ring of neighbours: the device
    order JAX's `mesh_utils.create_device_mesh` gives a v5e slice that it has
    no ring order for (every v5e slice before JAX 0.4.30; v5e-8 before
    0.4.32). XLA passes a collective's chunks round the group in that order,
    so its steps cross routed links that they share (CostModel::groupRoutes).

    The verifier holds the sizes against each other; on the module, against
    the `loom.parallel` degrees and the target's topology, naming the blocks
    and sub-blocks that tile.

    ```mlir
    module attributes {loom.placement = #loom.placement<4x4, tp 1x4 inside sp>}
    module attributes {loom.placement = #loom.placement<2x4, sp 2x2 inside tp, replicas inside stages>}
    module attributes {loom.placement = #loom.placement<2x4, tp 2x4 inside sp, stages in ring>}
    module attributes {loom.placement = #loom.placement<4x4, ep 2x2 inside tp>}
    module attributes {loom.placement = #loom.placement<2x4, tp 2x4 by columns inside sp>}
    ```
  }];
  let parameters = (ins "int64_t":$block_rows, "int64_t":$block_cols,
                        Loom_FlagParameter:$sequence_inner,
                        "int64_t":$inner_rows, "int64_t":$inner_cols,
                        Loom_FlagParameter:$replicas_inner,
                        Loom_FlagParameter:$stages_ring,
                        // The group beside tp is the expert-parallel group
                        // of #loom.parallel's ep_data ("ep"), not "sp".
                        Loom_FlagParameter:$expert_group,
                        // `tp AxB by columns`: the tp ranks numbered down
                        // each column of the sub-block, not round a ring.
                        Loom_FlagParameter:$by_columns);
  // `<RxC, tp AxB inside sp>`, then `, replicas inside stages` or `, stages
  // in ring` when not the default.
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// As DeviceMesh takes it.
    ::loom::Placement getPlacement() const;
    static PlacementAttr get(::mlir::MLIRContext *context,
                             const ::loom::Placement &placement);
  }];
}

#endif // LOOM_ATTRS_TD
