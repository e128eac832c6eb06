//===- CollectiveOpInterface.cpp - collectives ----------------------------===//

#include "loom/Dialect/Loom/CollectiveOpInterface.h"

#include "loom/Dialect/Loom/CollectiveOpInterface.cpp.inc"
