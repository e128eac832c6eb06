//===- CostOpInterface.cpp - byte counting for the cost interface ---------===//

#include "loom/Dialect/Loom/CostOpInterface.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

int64_t loom::getElementBytes(Type type) {
  // The common types first, by their type id: ShapedType and FloatType are
  // interfaces, whose look-up was a tenth of a batched DeepSeek-V3
  // decode search's time (perf; every candidate prices every op's bytes).
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    type = tensor.getElementType();
  else if (auto shaped = dyn_cast<ShapedType>(type))
    type = shaped.getElementType();
  if (isa<BFloat16Type, Float16Type>(type))
    return 2;
  if (isa<Float32Type>(type))
    return 4;
  if (auto integer = dyn_cast<IntegerType>(type))
    return (integer.getWidth() + 7) / 8;
  if (auto real = dyn_cast<FloatType>(type))
    return (real.getWidth() + 7) / 8;
  return 0;
}

int64_t loom::getNumElements(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return 0;
  Count elements = 1;
  for (int64_t dim : tensor.getShape()) {
    if (ShapedType::isDynamic(dim))
      return 0;
    elements *= dim;
  }
  return elements.get();
}

int64_t loom::getTensorBytes(Type type) {
  return (Count(getNumElements(type)) * getElementBytes(type)).get();
}

int64_t loom::getTensorBytes(TypeRange types) {
  Count total = 0;
  for (Type type : types)
    total += getTensorBytes(type);
  return total.get();
}

std::string loom::describeCount(int64_t value) {
  return value == Count::kSaturated ? "2^63 or more" : std::to_string(value);
}

std::string loom::findCostPastLimit(ArrayRef<CostFigure> figures) {
  for (const CostFigure &figure : figures)
    if (figure.value >= kCostLimit)
      return "needs " + describeCount(figure.value) + " " + figure.what.str();
  return "";
}

LogicalResult loom::verifyCostRange(Operation *op) {
  auto cost = cast<CostOpInterface>(op);
  // 128: the MXU tile of every bundled target (targets/README.md); a
  // target with another tile still gets saturated, never wrapped, figures.
  std::string past = findCostPastLimit(
      {{"FLOPs", cost.getFlops()},
       {"FLOPs padded to the MXU tile", cost.getPaddedFlops(128)},
       {"parameters", cost.getParameterCount()},
       {"bytes of parameters", cost.getParameterBytes()},
       {"bytes read", cost.getBytesRead()},
       {"bytes written", cost.getBytesWritten()},
       {"bytes of KV cache", cost.getKVCacheBytes()}});
  if (past.empty())
    return success();
  return op->emitOpError() << past
                           << ", past Loom's 64-bit cost figures (at most "
                              "2^62 for one op); use a smaller batch, "
                              "sequence or width";
}

#include "loom/Dialect/Loom/LoomInterfaces.cpp.inc"
