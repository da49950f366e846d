// The table of numeric outputs: each named by its path in the result JSON
// (docs/scenario.md "Output") and read straight from the typed Result. The
// sweep, the validation cases and the page's output lists use it, so a
// number is named once and never looked up by parsing JSON back.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "result.h"

namespace llmcalc {

struct OutputSpec {
  const char* key;    // path in the result JSON, e.g. "training.mfu"
  const char* label;  // short words for charts and lists
  const char* unit;   // "s", "tokens/s", "bytes", "" (a fraction or count)
  Mode mode;
  double (*get)(const Result&);
  bool headline = false;  // offered first (the page's sweep outputs)
};

const std::vector<OutputSpec>& output_fields();
const OutputSpec* find_output(const std::string& key);  // nullptr if absent
// {"key", "label", "unit", "mode", "headline"} per output, for the schema.
nlohmann::json outputs_to_json();

}  // namespace llmcalc
