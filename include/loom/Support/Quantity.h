//===- Quantity.h - human-readable numbers for reports ----------*- C++ -*-===//

#ifndef LOOM_SUPPORT_QUANTITY_H
#define LOOM_SUPPORT_QUANTITY_H

#include <cstdint>
#include <string>

namespace loom {

/// `value` with an SI prefix and three significant decimals, e.g. 65.29G
/// for 65285660672; `unit` is appended (e.g. "B", "FLOP").
std::string formatQuantity(double value, const char *unit = "");

} // namespace loom

#endif // LOOM_SUPPORT_QUANTITY_H
