// The validation report as JSON, shared by `llmcalc validate --json` and the
// published-runs study.
#pragma once
#include <nlohmann/json.hpp>

#include "llmcalc/validate.h"

namespace llmcalc {

// {"rows": [...], "groups": [...]}: a row per case and measured output
// (predicted, measured, signed error, the kind of run and its label, the
// device; a skipped one its note), a group per source and output.
nlohmann::json report_object(const ValidationReport& r);

}  // namespace llmcalc
