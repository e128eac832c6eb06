//===- PartitionLayers.h - contiguous layers to pipeline stages -*- C++ -*-===//
//
// Cuts a sequence of layers into K contiguous, non-empty stages so that the
// slowest stage is as fast as possible while every stage fits in one chip's
// memory. Exact: a dynamic program over (stages used, layers covered),
// O(K L^2) for L layers.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_PARTITION_PARTITIONLAYERS_H
#define LOOM_PARTITION_PARTITIONLAYERS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace loom {

/// What partitioning needs to know of one layer.
struct LayerLoad {
  double seconds = 0; ///< estimated time of the layer on its stage
  double bytes = 0;   ///< HBM it pins on its stage (weights, KV cache, ...)
};

struct PartitionProblem {
  llvm::SmallVector<LayerLoad> layers;
  int64_t stages = 1;
  /// HBM per chip.
  double capacity = 0;
  /// Work and memory of the ops before the first layer (on stage 0) and
  /// after the last (on the last stage).
  LayerLoad prologue, epilogue;
  /// Memory every stage needs besides its layers (e.g. activations).
  double perStageBytes = 0;
};

struct Partition {
  /// firstLayer[s] is the first layer of stage s; stage s ends where s+1
  /// begins (the last at the layer count).
  llvm::SmallVector<int64_t> firstLayer;
  /// Time of the slowest stage.
  double bottleneck = 0;
  llvm::SmallVector<double> stageSeconds, stageBytes;
};

/// The partition minimising the slowest stage among those that fit (ties
/// broken deterministically: the earliest last cut). std::nullopt when no
/// partition fits, or there are more stages than layers.
std::optional<Partition> partitionLayers(const PartitionProblem &problem);

/// Time and memory of each stage of a given cut.
Partition evaluatePartition(const PartitionProblem &problem,
                            llvm::ArrayRef<int64_t> firstLayer);

} // namespace loom

#endif // LOOM_PARTITION_PARTITIONLAYERS_H
