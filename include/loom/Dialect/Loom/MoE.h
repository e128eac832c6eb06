//===- MoE.h - mixture-of-experts load arithmetic ----------------*- C++ -*-===//
//
// How many token copies the busiest chip of an expert-parallel group
// receives, shared by loom-shard-experts (which sizes the dispatch buffer)
// and its tests; how many of its experts a pass touches, shared by the
// experts' cost and the slice cost of a pass over fewer tokens.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_DIALECT_LOOM_MOE_H
#define LOOM_DIALECT_LOOM_MOE_H

#include <cstdint>

namespace loom {

/// Rows (token copies) the busiest chip computes when `tokens` tokens each
/// pick `topK` of `experts` experts spread `experts / ep` per chip, and the
/// busiest expert receives `imbalance` times the average load
/// (`tokens * topK / experts`) while the others share the rest evenly. With
/// imbalance 1 this is `tokens * topK / ep`; with ep = 1 it is all
/// `tokens * topK` rows whatever the imbalance.
double busiestChipRows(int64_t tokens, int64_t topK, int64_t experts,
                       int64_t ep, double imbalance);

/// Expected experts touched, of `held`, when `tokens` tokens (not
/// necessarily whole: a slice's share) are routed uniformly to `topK` of
/// `experts`: each misses one token with probability 1 - topK / experts.
double touchedExperts(double held, int64_t topK, int64_t experts,
                      double tokens);

} // namespace loom

#endif // LOOM_DIALECT_LOOM_MOE_H
