//===- Quantity.cpp - human-readable numbers for reports ------------------===//

#include "loom/Support/Quantity.h"

#include <fmt/format.h>

#include <cmath>

std::string loom::formatQuantity(double value, const char *unit) {
  static const char *const prefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  int index = 0;
  while (std::fabs(value) >= 1000.0 && index < 6) {
    value /= 1000.0;
    ++index;
  }
  if (index == 0)
    return fmt::format("{:.0f} {}", value, unit);
  return fmt::format("{:.2f} {}{}", value, prefixes[index], unit);
}
