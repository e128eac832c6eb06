//===- PlanFile.cpp - a chosen plan as a file, and back -------------------===//

#include "loom/Plan/PlanFile.h"

#include "loom/Hardware/DeviceMesh.h"
#include "loom/Support/JsonReader.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"

#include <cmath>

using namespace llvm;
using namespace loom;

/// The workload's integer options, by their key in the file: one list for
/// the writer and the reader, so that an option added to ImportOptions is
/// saved and read back once it is added here.
static const std::pair<StringLiteral, std::optional<int64_t> ImportOptions::*>
    kWorkloadIntegers[] = {
        {"batch", &ImportOptions::batch},
        {"seq", &ImportOptions::seqLen},
        {"resolution", &ImportOptions::resolution},
        {"height", &ImportOptions::height},
        {"width", &ImportOptions::width},
        {"frames", &ImportOptions::frames},
        {"steps", &ImportOptions::steps},
        {"text_len", &ImportOptions::textLen},
};

/// The workload's precisions, by their key in the file.
static const std::pair<StringLiteral, ImportOptions::Precision ImportOptions::*>
    kWorkloadPrecisions[] = {
        {"weights", &ImportOptions::weights},
        {"kv_cache", &ImportOptions::kvCache},
        {"activations", &ImportOptions::activations},
};

static StringRef modeName(ImportOptions::Mode mode) {
  switch (mode) {
  case ImportOptions::Mode::Prefill:
    return "prefill";
  case ImportOptions::Mode::Decode:
    return "decode";
  case ImportOptions::Mode::Diffusion:
    return "diffusion";
  }
  llvm_unreachable("unknown mode");
}

void loom::writePlanFile(const PlanOutcome &p, raw_ostream &os) {
  const PlanProblem &problem = p.problem;
  json::OStream j(os, 2);
  j.object([&] {
    j.attribute("format", kPlanFormat);
    j.attribute("model", problem.model);
    j.attributeObject("workload", [&] {
      const ImportOptions &w = p.imported;
      j.attribute("mode", w.training ? "train" : modeName(w.mode));
      if (w.training)
        for (const TrainingSettingField &field : kTrainingSettingFields)
          j.attribute(field.key, (*w.training).*field.member);
      for (auto [key, member] : kWorkloadIntegers)
        if (w.*member)
          j.attribute(key, *(w.*member));
      for (auto [key, member] : kWorkloadPrecisions)
        j.attribute(key, stringifyPrecision(w.*member));
      if (w.expertImbalance != 1.0)
        j.attribute("expert_imbalance", w.expertImbalance);
      if (w.attention != ImportOptions::AttentionKernel::Flash)
        j.attribute("attention", stringifyAttentionKernel(w.attention));
    });
    j.attributeObject("target", [&] {
      j.attribute("topology", problem.topology);
      j.attribute("name", p.targetName);
      if (!problem.targetFile.empty())
        j.attribute("file", problem.targetFile);
    });
    // The dimensions away from their defaults, and format 1's keys.
    j.attributeObject("layout",
                      [&] { writeLayoutJSON(p.resolvedLayout(), j,
                                                      /*onlyChanged=*/true); });
    // What the plan came to; a reader replays the plan from the above.
    j.attributeObject("result", [&] {
      j.attribute("model_name", p.modelName);
      j.attribute("chips", p.chips);
      j.attribute("patches", p.patches);
      j.attributeArray("stages", [&] {
        for (auto [i, layers] : enumerate(p.stageLayers))
          j.object([&] {
            j.attributeArray("layers", [&] {
              j.value(layers.first);
              j.value(layers.second);
            });
            // With virtual stages these are the chunks, and the memory
            // lines the stages' (each holds several chunks).
            if (i < p.memory.size() && p.layout.virtualStages == 1)
              j.attribute("memory", p.memory[i]);
          });
      });
      j.attribute("predicted_s", p.predicted);
      if (p.simulated)
        j.attribute("simulated_s", p.simulated->makespan);
      j.attribute("ideal_s", p.ideal);
    });
  });
  os << "\n";
}

namespace {

/// The reader of one plan file: every key known, every value checked.
struct PlanFileReader {
  explicit PlanFileReader(StringRef fileName) : json(fileName) {}

  std::optional<int64_t> optionalInteger(const json::Object &o, StringRef key,
                                         const JsonPath &path) {
    if (!o.get(key))
      return std::nullopt;
    return json.integer(o, key, path, 1);
  }
  /// A recorded time, within what the replay line can compare: at least
  /// the report's 0.001 ms (a smaller time prints as 0.000 ms and makes the
  /// percentage meaningless) and at most 1e6 s, far past any plan.
  double seconds(const json::Object &o, StringRef key, const JsonPath &path) {
    constexpr double minSeconds = 1e-6, maxSeconds = 1e6;
    const json::Value *value = o.get(key);
    std::optional<double> number = value ? value->getAsNumber() : std::nullopt;
    if (!value) {
      json.fail(JsonReader::at(path, key), "missing required key");
      return 0;
    }
    if (!number || !(*number >= minSeconds && *number <= maxSeconds)) {
      json.fail(JsonReader::at(path, key),
                "must be a time in seconds from 1e-06 (0.001 ms) to 1e+06" +
                    (number ? ", got " + showNumber(*number) : std::string()));
      return 0;
    }
    return *number;
  }

  void workload(const json::Object &o, const JsonPath &path,
                ImportOptions &w) {
    SmallVector<StringRef> known = {"mode", "expert_imbalance", "attention"};
    for (const TrainingSettingField &field : kTrainingSettingFields)
      known.push_back(field.key);
    for (auto [key, member] : kWorkloadIntegers)
      known.push_back(key);
    for (auto [key, member] : kWorkloadPrecisions)
      known.push_back(key);
    json.keys(o, path, known, {"mode", "batch"});
    for (auto [key, member] : kWorkloadPrecisions) {
      if (!o.get(key))
        continue;
      std::string text = json.string(o, key, path);
      if (std::optional<ImportOptions::Precision> p = parsePrecision(text))
        w.*member = *p;
      else if (!json.failed())
        json.fail(JsonReader::at(path, key),
                  "must be bf16 or int8, got \"" + text + "\"");
    }
    if (o.get("expert_imbalance")) {
      std::optional<double> f = o.get("expert_imbalance")->getAsNumber();
      if (!f || !(*f >= 1) || !std::isfinite(*f))
        json.fail(JsonReader::at(path, "expert_imbalance"),
                  "must be a number, 1 or more");
      else
        w.expertImbalance = *f;
    }
    if (o.get("attention")) {
      std::string text = json.string(o, "attention", path);
      if (std::optional<ImportOptions::AttentionKernel> kernel =
              parseAttentionKernel(text))
        w.attention = *kernel;
      else if (!json.failed())
        json.fail(JsonReader::at(path, "attention"),
                  "must be flash, materialized or jetstream-pytorch, got \"" +
                      text + "\"");
    }
    std::string mode = json.string(o, "mode", path);
    if (mode == "train")
      w.training = training(o, path);
    else if (std::optional<ImportOptions::Mode> parsed = parseImportMode(mode))
      w.mode = *parsed;
    else if (!json.failed())
      json.fail(JsonReader::at(path, "mode"),
                "must be prefill, decode, diffusion or train, got \"" +
                    mode + "\"");
    if (mode != "train")
      for (const TrainingSettingField &field : kTrainingSettingFields)
        if (o.get(field.key) && !json.failed())
          json.fail(JsonReader::at(path, field.key),
                    "applies to a training step (\"mode\": \"train\")");
    for (auto [key, member] : kWorkloadIntegers)
      w.*member = optionalInteger(o, key, path);
  }

  /// A training step's settings, each required and checked as
  /// loom-plan's options are.
  TrainingSettings training(const json::Object &o, const JsonPath &path) {
    TrainingSettings t;
    for (const TrainingSettingField &field : kTrainingSettingFields) {
      if (json.failed())
        break;
      std::string &value = t.*field.member;
      value = json.string(o, field.key, path);
      if (std::string bad = field.check(value); !json.failed() && !bad.empty())
        json.fail(JsonReader::at(path, field.key), bad);
    }
    return t;
  }

  void result(const json::Object &o, const JsonPath &path, SavedPlan &saved) {
    json.keys(o, path,
              {"model_name", "chips", "patches", "stages", "predicted_s",
               "simulated_s", "ideal_s"},
              {"predicted_s"});
    saved.predicted = seconds(o, "predicted_s", path);
    if (o.get("simulated_s"))
      saved.simulated = seconds(o, "simulated_s", path);
  }

  JsonReader json;
};

} // namespace

Expected<SavedPlan> loom::readPlanFile(StringRef text, StringRef fileName) {
  Expected<json::Value> document = parseJson(text);
  if (!document)
    return jsonSyntaxError(document.takeError(), fileName);
  PlanFileReader reader(fileName);
  JsonReader &json = reader.json;
  SavedPlan saved;
  PlanProblem &r = saved.request.problem;
  JsonPath root("$");
  const json::Object *top = json.object(&*document, root);
  if (top) {
    // The format first: another of Loom's files (a schedule, a target)
    // given as a plan is named for what it is, not for the keys a plan
    // lacks.
    std::string format = json.string(*top, "format", root);
    if (!json.failed() && format != kPlanFormat)
      json.fail(JsonReader::at(root, "format"),
                "is \"" + format + "\"; " +
                    (StringRef(format).starts_with("loom-plan/")
                         ? "this loom-plan reads \"" + kPlanFormat.str() +
                               "\" files"
                         : "this is not a plan file (\"" +
                               kPlanFormat.str() + "\")"));
    json.keys(*top, root,
              {"format", "model", "workload", "target", "layout", "result"},
              {"format", "model", "workload", "target", "layout"});
    r.model = json.string(*top, "model", root);
    if (!json.failed() && r.model.empty())
      json.fail(JsonReader::at(root, "model"), "must name a model");
    JsonPath workload = JsonReader::at(root, "workload");
    if (const json::Object *o = json.object(top->get("workload"), workload))
      reader.workload(*o, workload, r.import);
    r.workloadPlace = fileName.str() + ": " + workload.str();
    JsonPath target = JsonReader::at(root, "target");
    if (const json::Object *o = json.object(top->get("target"), target)) {
      json.keys(*o, target, {"topology", "name", "file"}, {"topology"});
      r.topology = json.string(*o, "topology", target);
      if (o->get("name"))
        saved.targetName = json.string(*o, "name", target);
      if (o->get("file"))
        r.targetFile = json.string(*o, "file", target);
    }
    JsonPath layout = JsonReader::at(root, "layout");
    if (const json::Object *o = json.object(top->get("layout"), layout))
      readLayoutJSON(json, *o, layout, saved.request.layout);
    JsonPath result = JsonReader::at(root, "result");
    if (top->get("result"))
      if (const json::Object *o = json.object(top->get("result"), result))
        reader.result(*o, result, saved);
  }
  if (json.failed())
    return json.takeError();
  return saved;
}
