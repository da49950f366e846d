// The published-runs study: every published measurement the project checks
// the model against (tests/validation/public, embedded in the library),
// rerun with the model as built, so the page can show it beside a result.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace llmcalc {

// {"study": "published-runs", "workload", "rows": [...], "groups": [...],
// "overall": {...}}: one row per case and measured output (predicted,
// measured, signed error, the kind of run, the device), one group per source
// and output (mean and max absolute error, bias), as `llmcalc validate`
// prints them.
nlohmann::json published_runs_study();
// The same as `llmcalc validate` prints it.
std::string published_runs_table(const nlohmann::json& result);

}  // namespace llmcalc
