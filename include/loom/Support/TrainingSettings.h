//===- TrainingSettings.h - a training step's optimizer and types -*- C++ -*-===//
//
// What a training step is derived with beside its forward pass: the
// optimizer and the types of its states, as loom-derive-training-step's
// options take them. loom-plan's --mode train fills one (the workload's),
// the planning pipeline passes it on, plan files record it.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_SUPPORT_TRAININGSETTINGS_H
#define LOOM_SUPPORT_TRAININGSETTINGS_H

#include <array>
#include <string>

namespace loom {

struct TrainingSettings {
  /// adamw, adafactor or sgd (with momentum).
  std::string optimizer = "adamw";
  /// The master copy of the weights beside their bf16 compute copy: f32,
  /// bf16 or none.
  std::string masterType = "f32";
  /// The optimizer state: f32 or bf16.
  std::string stateType = "f32";
};

/// One setting: loom-plan's option, its plan-file key, and its values.
struct TrainingSettingField {
  const char *option, *key;
  std::string TrainingSettings::*member;
  std::array<const char *, 3> values;
  size_t count;

  /// "" when `value` is one of the values, else "must be a, b or c, got
  /// 'x'".
  std::string check(const std::string &value) const {
    std::string all;
    for (size_t i = 0; i < count; ++i) {
      if (value == values[i])
        return "";
      all += std::string(i == 0 ? "" : i + 1 == count ? " or " : ", ") +
             values[i];
    }
    return "must be " + all + ", got '" + value + "'";
  }
};

inline constexpr TrainingSettingField kTrainingSettingFields[] = {
    {"optimizer", "optimizer", &TrainingSettings::optimizer,
     {"adamw", "adafactor", "sgd"}, 3},
    {"master-dtype", "master_dtype", &TrainingSettings::masterType,
     {"f32", "bf16", "none"}, 3},
    {"optimizer-dtype", "optimizer_dtype", &TrainingSettings::stateType,
     {"f32", "bf16", nullptr}, 2},
};

} // namespace loom

#endif // LOOM_SUPPORT_TRAININGSETTINGS_H
