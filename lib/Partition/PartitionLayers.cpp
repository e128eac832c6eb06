//===- PartitionLayers.cpp - contiguous layers to pipeline stages ---------===//

#include "loom/Partition/PartitionLayers.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <limits>

using namespace loom;

namespace {

/// Prefix sums, so a run's time and memory are O(1).
struct Prefix {
  explicit Prefix(const PartitionProblem &p) : p(p) {
    seconds.push_back(0);
    bytes.push_back(0);
    for (const LayerLoad &layer : p.layers) {
      seconds.push_back(seconds.back() + layer.seconds);
      bytes.push_back(bytes.back() + layer.bytes);
    }
  }
  /// Layers [begin, end) as one stage.
  LayerLoad run(int64_t begin, int64_t end) const {
    LayerLoad load{seconds[end] - seconds[begin], bytes[end] - bytes[begin]};
    load.bytes += p.perStageBytes;
    if (begin == 0) {
      load.seconds += p.prologue.seconds;
      load.bytes += p.prologue.bytes;
    }
    if (end == static_cast<int64_t>(p.layers.size())) {
      load.seconds += p.epilogue.seconds;
      load.bytes += p.epilogue.bytes;
    }
    return load;
  }
  const PartitionProblem &p;
  llvm::SmallVector<double> seconds, bytes;
};

} // namespace

Partition loom::evaluatePartition(const PartitionProblem &problem,
                                  llvm::ArrayRef<int64_t> firstLayer) {
  Prefix prefix(problem);
  Partition result;
  result.firstLayer.assign(firstLayer.begin(), firstLayer.end());
  int64_t layers = problem.layers.size();
  int64_t v = std::max<int64_t>(problem.virtualStages, 1);
  int64_t stages = std::max<int64_t>(int64_t(firstLayer.size()) / v, 1);
  result.stageSeconds.assign(stages, 0.0);
  result.stageBytes.assign(stages, problem.perStageBytes);
  for (size_t c = 0; c < firstLayer.size(); ++c) {
    int64_t end = c + 1 < firstLayer.size() ? firstLayer[c + 1] : layers;
    LayerLoad load = prefix.run(firstLayer[c], end);
    // A stage holds its activations once, whatever its chunks.
    load.bytes -= problem.perStageBytes;
    result.chunkSeconds.push_back(load.seconds);
    result.stageSeconds[c % stages] += load.seconds;
    result.stageBytes[c % stages] += load.bytes;
  }
  for (double seconds : result.stageSeconds)
    result.bottleneck = std::max(result.bottleneck, seconds);
  return result;
}

std::optional<Partition>
loom::partitionLayers(const PartitionProblem &problem) {
  int64_t v = problem.virtualStages;
  if (v < 1)
    return std::nullopt;
  // Interleaved: the slowest of K v chunks, each within 1/v of what a
  // stage has for its layers (PartitionLayers.h).
  PartitionProblem chunks = problem;
  if (v > 1) {
    // More chunks than 2^63 never fit any model.
    if (llvm::MulOverflow(problem.stages, v, chunks.stages))
      return std::nullopt;
    chunks.virtualStages = 1;
    chunks.perStageBytes = 0;
    chunks.capacity = (problem.capacity - problem.perStageBytes) / double(v);
  }
  int64_t L = chunks.layers.size(), K = chunks.stages;
  if (K < 1 || K > L)
    return std::nullopt;
  Prefix prefix(chunks);
  constexpr double inf = std::numeric_limits<double>::infinity();
  // best[k][j]: the smallest bottleneck placing layers [0, j) on k stages;
  // cut[k][j]: where the k-th stage begins in that placement.
  std::vector<std::vector<double>> best(K + 1, std::vector<double>(L + 1, inf));
  std::vector<std::vector<int64_t>> cut(K + 1, std::vector<int64_t>(L + 1, -1));
  best[0][0] = 0;
  for (int64_t k = 1; k <= K; ++k)
    for (int64_t j = k; j <= L - (K - k); ++j)
      for (int64_t i = k - 1; i < j; ++i) {
        if (best[k - 1][i] == inf)
          continue;
        LayerLoad load = prefix.run(i, j);
        if (load.bytes > chunks.capacity)
          continue;
        double bottleneck = std::max(best[k - 1][i], load.seconds);
        // Strictly better only: the earliest cut wins ties.
        if (bottleneck < best[k][j]) {
          best[k][j] = bottleneck;
          cut[k][j] = i;
        }
      }
  if (best[K][L] == inf)
    return std::nullopt;
  llvm::SmallVector<int64_t> firstLayer(K);
  for (int64_t k = K, j = L; k >= 1; --k) {
    firstLayer[k - 1] = cut[k][j];
    j = cut[k][j];
  }
  return evaluatePartition(problem, firstLayer);
}
