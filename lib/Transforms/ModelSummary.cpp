//===- ModelSummary.cpp - per-layer and total cost table ------------------===//

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Dialect/Loom/ModelCost.h"
#include "loom/Support/Quantity.h"
#include "loom/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <fmt/format.h>

namespace loom {
#define GEN_PASS_DEF_MODELSUMMARY
#include "loom/Transforms/Passes.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;

namespace {

std::string rowLabel(const PartCost &part) {
  switch (part.part) {
  case PartCost::Part::Prologue:
    return "prologue";
  case PartCost::Part::Epilogue:
    return "epilogue";
  case PartCost::Part::Layer:
    return std::to_string(part.layerIndex);
  }
  return "";
}

void printRow(llvm::raw_ostream &os, const std::string &label,
              const std::string &kind, const CostTotals &cost) {
  os << fmt::format("  {:<9} {:<12} {:>11} {:>12} {:>12} {:>12} {:>11}\n",
                    label, kind, formatQuantity(cost.parameters),
                    formatQuantity(cost.flops), formatQuantity(cost.bytesRead, "B"),
                    formatQuantity(cost.bytesWritten, "B"),
                    formatQuantity(cost.kvCacheBytes, "B"));
}

struct ModelSummaryPass
    : public loom::impl::ModelSummaryBase<ModelSummaryPass> {
  using ModelSummaryBase::ModelSummaryBase;

  void runOnOperation() override {
    // A report: the IR, and so every analysis of it, is unchanged.
    markAllAnalysesPreserved();
    llvm::raw_ostream &os = llvm::outs();
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      SmallVector<PartCost> parts = collectPartCosts(func.getBody().front());
      CostTotals total = sumPartCosts(parts);
      os << "model @" << func.getSymName() << "\n";
      if (perLayer) {
        os << fmt::format("  {:<9} {:<12} {:>11} {:>12} {:>12} {:>12} {:>11}\n",
                          "part", "kind", "params", "FLOPs", "read",
                          "written", "KV cache");
        for (const PartCost &part : parts)
          printRow(os, rowLabel(part), part.kind, part.cost);
        printRow(os, "total", "", total);
      }
      int64_t layers = llvm::count_if(parts, [](const PartCost &part) {
        return part.part == PartCost::Part::Layer;
      });
      os << fmt::format("  layers:           {}\n", layers);
      // A hand-written module's totals may saturate (loom::Count); such a
      // total is shown as "2^63 or more", never as a wrapped number.
      auto line = [&](StringRef label, int64_t value, const char *unit,
                      StringRef note) {
        os << fmt::format("  {:<17} {} ({}{})\n", label.str() + ":",
                          describeCount(value), formatQuantity(value, unit),
                          note.str());
      };
      line("parameters", total.parameters, "", "");
      line("forward FLOPs", total.flops, "FLOP", "");
      line("weight bytes", total.parameterBytes, "B", "");
      line("activation bytes", total.bytesWritten, "B", ", all op results");
      line("KV cache bytes", total.kvCacheBytes, "B", "");
    }
    markAllAnalysesPreserved();
  }
};

} // namespace
