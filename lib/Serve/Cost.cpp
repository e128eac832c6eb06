//===- Cost.cpp - the time of one serving iteration -----------------------===//

#include "loom/Serve/Cost.h"

#include <algorithm>

using namespace loom::serve;

int64_t Batch::tokens() const {
  int64_t total = std::max<int64_t>(paddedDecodes, decodeContexts.size());
  for (const PrefillChunk &chunk : prefills)
    total += chunk.tokens;
  return total;
}

IterationCost::~IterationCost() = default;

DenoisingCost::~DenoisingCost() = default;

double IterationCost::prefill(int64_t tokens) const {
  Batch batch;
  batch.prefills.push_back({tokens, 0});
  return iteration(batch);
}

ModelDims ModelDims::llama7B() { return ModelDims(); }

double ModelDims::matmulParams() const {
  double q = double(hidden) * heads * headDim;
  double kv = 2.0 * hidden * kvHeads * headDim;
  double o = double(heads) * headDim * hidden;
  double mlp = 3.0 * hidden * ffn;
  return layers * (q + kv + o + mlp) + double(hidden) * vocab;
}

ChipFigures ChipFigures::tpuV5e(int64_t chips) {
  ChipFigures figures;
  figures.chips = chips;
  return figures;
}

RooflineCost::RooflineCost(ModelDims model, ChipFigures chip)
    : model(model), chip(chip), params(model.matmulParams()) {}

static llvm::Error positive(const char *field, double value) {
  if (value > 0)
    return llvm::Error::success();
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 llvm::Twine(field) + ": must be positive");
}

llvm::Error RooflineCost::check() const {
  std::pair<const char *, double> fields[] = {
      {"model.layers", double(model.layers)},
      {"model.hidden", double(model.hidden)},
      {"model.heads", double(model.heads)},
      {"model.kvHeads", double(model.kvHeads)},
      {"model.headDim", double(model.headDim)},
      {"model.ffn", double(model.ffn)},
      {"model.vocab", double(model.vocab)},
      {"model.bytesPerParam", model.bytesPerParam},
      {"model.bytesPerKv", model.bytesPerKv},
      {"chip.peakFlops", chip.peakFlops},
      {"chip.hbmBandwidth", chip.hbmBandwidth},
      {"chip.chips", double(chip.chips)},
      {"chip.flopsEfficiency", chip.flopsEfficiency},
      {"chip.bandwidthEfficiency", chip.bandwidthEfficiency},
  };
  for (auto [field, value] : fields)
    if (llvm::Error err = positive(field, value))
      return err;
  if (!(chip.overhead >= 0))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "chip.overhead: must not be negative");
  return llvm::Error::success();
}

double RooflineCost::kvBytesPerToken() const {
  // Keys and values of every layer: 2 L G d b_kv.
  return 2.0 * model.layers * model.kvHeads * model.headDim * model.bytesPerKv;
}

double RooflineCost::insert(int64_t tokens) const {
  double bytes = 2.0 * kvBytesPerToken() * double(tokens);
  return bytes / (chip.hbmBandwidth * chip.bandwidthEfficiency) / chip.chips +
         chip.overhead;
}

double RooflineCost::flops(const Batch &batch) const {
  // Attention per (new token, cached token) pair: 4 L H d (Kaplan et al.,
  // Table 1, forward pass; scores and values, 2 FLOPs a multiply-add each).
  double attention = 4.0 * model.layers * model.heads * model.headDim;
  double pairs = 0;
  for (const PrefillChunk &chunk : batch.prefills)
    pairs += double(chunk.tokens) * (chunk.context + 0.5 * (chunk.tokens + 1));
  for (int64_t context : batch.decodeContexts)
    pairs += double(context) + 1;
  return 2.0 * params * batch.tokens() + attention * pairs;
}

double RooflineCost::bytes(const Batch &batch) const {
  double kvTokens = 0;
  for (const PrefillChunk &chunk : batch.prefills)
    kvTokens += double(chunk.context) + chunk.tokens;
  for (int64_t context : batch.decodeContexts)
    kvTokens += double(context) + 1;
  return params * model.bytesPerParam + kvBytesPerToken() * kvTokens;
}

double RooflineCost::iteration(const Batch &batch) const {
  double compute = flops(batch) / (chip.peakFlops * chip.flopsEfficiency);
  double memory = bytes(batch) / (chip.hbmBandwidth * chip.bandwidthEfficiency);
  return std::max(compute, memory) / chip.chips + chip.overhead;
}
