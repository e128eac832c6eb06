//===- CostOpInterface.cpp - byte counting for the cost interface ---------===//

#include "loom/Dialect/Loom/CostOpInterface.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

int64_t loom::getElementBytes(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    type = shaped.getElementType();
  if (type.isIntOrFloat())
    return (type.getIntOrFloatBitWidth() + 7) / 8;
  return 0;
}

int64_t loom::getNumElements(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return 0;
  return tensor.getNumElements();
}

int64_t loom::getTensorBytes(Type type) {
  return getNumElements(type) * getElementBytes(type);
}

int64_t loom::getTensorBytes(TypeRange types) {
  int64_t total = 0;
  for (Type type : types)
    total += getTensorBytes(type);
  return total;
}

#include "loom/Dialect/Loom/LoomInterfaces.cpp.inc"
