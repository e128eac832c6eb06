//===- StageCost.h - the cost analyses of slices and pipelines --*- C++ -*-===//
//
// The planner passes' cost analyses, one job a header:
//   LayerSliceCost.h      a layer's (or a run of ops') time on a token slice;
//   StageSliceCost.h      a stage's, over its layers, gathers and handovers;
//   CollectiveMatmul.h    decomposed collective matmuls (ring steps);
//   Hardware/RingTiming.h ring attention's links and closed forms;
//   PipelinePrediction.h  the closed-form pipeline player.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_ANALYSIS_STAGECOST_H
#define LOOM_ANALYSIS_STAGECOST_H

#include "loom/Analysis/CollectiveMatmul.h"
#include "loom/Analysis/LayerSliceCost.h"
#include "loom/Analysis/PipelinePrediction.h"
#include "loom/Analysis/StageSliceCost.h"
#include "loom/Hardware/RingTiming.h"

#endif // LOOM_ANALYSIS_STAGECOST_H
