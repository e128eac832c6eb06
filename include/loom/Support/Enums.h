//===- Enums.h - enums shared by the IR, schedules and costs ----*- C++ -*-===//
//
// CollectiveKind and MemoryKind, generated from dialects/Common/Enums.td:
// the loom and sched dialects, the schedule file and the cost model share
// these, so nothing converts between copies. Needs LLVM's ADT and MLIR's
// header-only support types, not MLIR IR.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_SUPPORT_ENUMS_H
#define LOOM_SUPPORT_ENUMS_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMapInfo.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>

#include "loom/Support/Enums.h.inc"

#endif // LOOM_SUPPORT_ENUMS_H
