//===- LoomOps.h - loom dialect operations ----------------------*- C++ -*-===//

#ifndef LOOM_DIALECT_LOOM_LOOMOPS_H
#define LOOM_DIALECT_LOOM_LOOMOPS_H

#include "loom/Dialect/Loom/CollectiveOpInterface.h"
#include "loom/Dialect/Loom/CostOpInterface.h"
#include "loom/Dialect/Loom/Gradient.h"
#include "loom/Dialect/Loom/LoomDialect.h"
#include "loom/Dialect/Loom/LoomEnums.h"
#include "loom/Dialect/Loom/ShardingRule.h"
#include "loom/Hardware/DeviceMesh.h"
#include "loom/Hardware/TargetDesc.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

#include "loom/Dialect/Loom/LoomAttributes.h"


namespace loom {
/// Parameters of loom's attributes: a positive finite figure, printed so
/// that it parses back to the same double; a `true` / `false` flag.
mlir::FailureOr<llvm::APFloat> parseFigure(mlir::AsmParser &parser);
void printFigure(mlir::AsmPrinter &printer, const llvm::APFloat &value);
mlir::FailureOr<bool> parseFlag(mlir::AsmParser &parser);
} // namespace loom

#define GET_ATTRDEF_CLASSES
#include "loom/Dialect/Loom/LoomAttrs.h.inc"

#define GET_OP_CLASSES
#include "loom/Dialect/Loom/LoomOps.h.inc"

namespace loom {
/// The tokens a pipeline's slices cut for the model function `func`: its
/// first layer's sequence, times tp under sequence parallelism (the layers
/// then see a part of it); 1 when its layers have no sequence dimension, 0
/// when it has no layers.
int64_t getPipelineTokens(mlir::Operation *func);
/// The sequences the layers of `func` run at once (their first input's
/// leading dimension; 1 when it has none): what microbatches divide.
int64_t getPipelineBatch(mlir::Operation *func);
/// "1, 2, 4, 8": the microbatch counts that divide `batch`.
std::string validMicrobatches(int64_t batch);
/// "gpipe, 1f1b, interleaved, zb-h1, circular, zb-h2": the pipeline
/// schedules' names, for the diagnostics that refuse another.
std::string pipelineScheduleNames();

/// The module's loom.target, loom.model and loom.parallel; null when absent.
TargetAttr getTarget(mlir::Operation *module);
ModelAttr getModel(mlir::Operation *module);
ParallelAttr getParallel(mlir::Operation *module);
/// The layout of the module's plan; tp = dp = 1 when it has none yet.
ParallelAttr getParallelOrDefault(mlir::Operation *module);
/// The model function's loom.pipeline; null when absent.
PipelineAttr getPipeline(mlir::Operation *func);
/// The module's loom.placement as DeviceMesh takes it; the default rule's
/// (Placement{}) when absent.
Placement getPlacementOrDefault(mlir::Operation *module);
} // namespace loom

#endif // LOOM_DIALECT_LOOM_LOOMOPS_H
