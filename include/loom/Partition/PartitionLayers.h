//===- PartitionLayers.h - contiguous layers to pipeline stages -*- C++ -*-===//
//
// Cuts a sequence of layers into K contiguous, non-empty stages so that the
// slowest stage is as fast as possible while every stage fits in one chip's
// memory. Exact: a dynamic program over (stages used, layers covered),
// O(K L^2) for L layers.
//
// With v virtual stages (interleaved pipelining, Narayanan et al., SC'21,
// section 2.2.2) the layers are cut into K v contiguous chunks and chunk c
// runs on stage c mod K. The interleaved schedule's bubble is K - 1 chunk
// times and each unit costs a stage the sum of its v chunks, so the program
// minimises the slowest chunk, each chunk held to 1/v of the HBM a stage has
// for its layers (so that a stage's v chunks fit: a sufficient condition,
// exact when the layers are alike); the result prices each stage as the sum
// of its chunks.
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
  /// Chunks per stage (interleaved stages): K v chunks, chunk c on stage
  /// c mod K.
  int64_t virtualStages = 1;
};

struct Partition {
  /// firstLayer[c] is the first layer of chunk c (of stage c with one
  /// virtual stage); chunk c ends where c+1 begins (the last at the layer
  /// count).
  llvm::SmallVector<int64_t> firstLayer;
  /// Time of the slowest stage (the sum of its chunks).
  double bottleneck = 0;
  /// Per stage, the sums over its chunks.
  llvm::SmallVector<double> stageSeconds, stageBytes;
  /// Per chunk, its time (with one virtual stage, stageSeconds).
  llvm::SmallVector<double> chunkSeconds;
};

/// The partition minimising the slowest stage among those that fit (ties
/// broken deterministically: the earliest last cut); with virtual stages,
/// the slowest chunk. std::nullopt when no partition fits, or there are
/// more chunks than layers.
std::optional<Partition> partitionLayers(const PartitionProblem &problem);

/// Time and memory of each stage of a given cut (firstLayer per chunk).
Partition evaluatePartition(const PartitionProblem &problem,
                            llvm::ArrayRef<int64_t> firstLayer);

} // namespace loom

#endif // LOOM_PARTITION_PARTITIONLAYERS_H
