//===- Enums.cpp - enums shared by the IR, schedules and costs ------------===//

#include "loom/Support/Enums.h"

#include "llvm/ADT/StringSwitch.h"

#include "loom/Support/Enums.cpp.inc"
