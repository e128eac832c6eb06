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

/// Writes a report page's head (its style, `extraStyle` after it, and the
/// hook that reports script errors into #page-errors), the opening of its
/// body and its title. The page's own script sets #page-errors to
/// "page-errors: none" (class "clean") when no error was reported.
void writeHtmlHead(llvm::StringRef title, llvm::raw_ostream &os,
                   llvm::StringRef extraStyle = "");

/// Writes the report of `result` (whose chosen plan worked).
void writeHtmlReport(const PlanResult &result, llvm::raw_ostream &os);

} // namespace loom

#endif // LOOM_PLAN_HTMLREPORT_H
