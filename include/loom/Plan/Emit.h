//===- Emit.h - a plan as the config keys of a TPU runtime ------*- C++ -*-===//
//
// `loom-plan --emit maxtext|maxdiffusion` writes the SPMD part of a plan as
// the config keys of the runtime users serve the model with: MaxText /
// JetStream for decoder LLMs, MaxDiffusion for Flux and Wan. A runtime
// cannot express all of a plan (token-level or patch pipelines, layer
// pipelines over one sequence, idle chips): the emitter names what is lost,
// plans the best layout the runtime can run (one stage, one slice, every
// chip used) through the same planner, and writes that layout's keys with
// both simulated times in YAML comments. docs/runtimes/README.md lists the
// keys and where they come from.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_PLAN_EMIT_H
#define LOOM_PLAN_EMIT_H

#include "loom/Plan/Planner.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace loom {

enum class Runtime { MaxText, MaxDiffusion };

/// Parses an --emit value: "maxtext" or "maxdiffusion".
std::optional<Runtime> parseRuntime(llvm::StringRef name);

/// Why `plan`'s model cannot run on `runtime` at all (an LLM for
/// MaxDiffusion, a DiT for MaxText, a DiT family MaxDiffusion has no
/// pipeline for); empty when it can.
std::string checkRuntimeModel(Runtime runtime, const PlanOutcome &plan);

/// checkRuntimeModel before any planning: the model and workload of
/// `problem` imported once (a model that cannot be imported is left to the
/// plan to report).
std::string checkRuntimeWorkload(Runtime runtime, const PlanProblem &problem,
                                 mlir::MLIRContext &context);

/// What of `plan` the runtime cannot express, one sentence each; empty
/// when the runtime can run the plan as it is.
/// The placement (Placement::str()'s form) of a tensor axis of `tp`
/// ranks, one stage, the rest data-parallel, as JAX's
/// mesh_utils.create_device_mesh (0.4.32 on) lays MaxText's or
/// MaxDiffusion's mesh on a 2-D topology of `shape` of target
/// `targetName`: its v5e ring orders, else its generic torus assignment
/// (the tensor axis on the physical axes whose sizes multiply to tp).
/// None when it has no such axes (the runtime then refuses the mesh unless
/// told to split an axis).
std::optional<std::string> runtimeTensorPlacement(llvm::StringRef targetName,
                                                  llvm::ArrayRef<int64_t> shape,
                                                  int64_t tp);

std::vector<std::string> inexpressible(Runtime runtime,
                                       const PlanOutcome &plan);

/// Writes `plan` (which worked) as `runtime`'s config keys. When the
/// runtime cannot express all of it, the keys are those of the best plan
/// it can (planned and simulated with planAndSimulate, on the same target
/// and workload), and the comments give both times. Errors: the model
/// does not run on the runtime, or no layout the runtime can express fits.
llvm::Error emitRuntimeConfig(Runtime runtime, const PlanOutcome &plan,
                              mlir::MLIRContext &context,
                              llvm::raw_ostream &os);

} // namespace loom

#endif // LOOM_PLAN_EMIT_H
