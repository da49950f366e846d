// The whole public surface of the core: JSON strings in, JSON strings out.
// Nothing here throws: every failure comes back as {"error": {path, message}}.
#pragma once
#include <string>

namespace llmcalc {

// Evaluate one scenario (spec/scenario.md) and return the result object.
std::string evaluate_json(const std::string& scenario_json);
// All presets: {"models": {id: {...}}, "systems": {id: {...}}}.
std::string presets_json();
// The input schema table (key, url key, type, unit, default, range, help).
std::string schema_json();
// Library version string.
std::string version();

}  // namespace llmcalc
