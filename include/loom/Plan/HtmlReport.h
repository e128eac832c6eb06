//===- HtmlReport.h - loom-plan's report as one HTML page -------*- C++ -*-===//
//
// `loom-plan --html F.html`: one self-contained page (inline CSS, script
// and SVG; nothing fetched) with the plan, the search's ranking table when
// it searched, a bar chart of each stage's peak HBM per chip against the
// chip's capacity, and the aggregated timeline of sim::writeSVG. The page
// reports its own script errors into the DOM (#page-errors), so a headless
// browser's DOM dump shows them (test/Plan/html-report.test).
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_PLAN_HTMLREPORT_H
#define LOOM_PLAN_HTMLREPORT_H

#include "loom/Plan/Planner.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace loom {

/// Text escaped for HTML element content and attribute values.
std::string escapeHtml(llvm::StringRef text);

/// Writes the report of `result` (whose chosen plan worked).
void writeHtmlReport(const PlanResult &result, llvm::raw_ostream &os);

} // namespace loom

#endif // LOOM_PLAN_HTMLREPORT_H
