// The public entry points: JSON in, JSON out, nothing thrown.
#include "llmcalc/api.h"

#include "boundary.h"
#include "output.h"
#include "parse.h"
#include "presets.h"
#include "schema.h"

namespace llmcalc {

std::string evaluate_json(const std::string& scenario_json) {
  return guarded([&] { return evaluate_to_json(parse_bounded(scenario_json)); });
}

std::string presets_json() {
  return guarded([] { return all_presets(); });
}

std::string schema_json() {
  return guarded([] { return schema_to_json(); });
}

std::string version() { return LLMCALC_VERSION; }

}  // namespace llmcalc
