// The whole public surface of the core: JSON strings in, JSON strings out.
// Nothing here throws: every failure comes back as {"error": {path, message}}.
#pragma once
#include <string>

namespace llmcalc {

// Evaluate one scenario (docs/scenario.md) and return the result object.
std::string evaluate_json(const std::string& scenario_json);
// The same evaluation as a few lines of text for a terminal (`llmcalc run
// --text`); a bad input gives one line, "error: PATH: MESSAGE".
std::string evaluate_text(const std::string& scenario_json);
// All presets: {"models": {id: {...}}, "systems": {id: {...}}}.
std::string presets_json();
// The input schema table (key, url key, type, unit, default, range, help).
std::string schema_json();
// Library version string.
std::string version();

}  // namespace llmcalc

// Design-space exploration (issue "Design-space exploration"), defined in
// core/src/explore_api.cpp; same error convention as evaluate_json.
namespace llmcalc {
// Parallelism search over a scenario with a "search" section (spec "Search").
std::string search_json(const std::string& scenario_json);
// The same search as a table to read (`llmcalc search --text`); a bad input
// gives one line, "error: PATH: MESSAGE".
std::string search_text(const std::string& scenario_json);
// One-input sweep over a scenario with a "sweep" section.
std::string sweep_json(const std::string& scenario_json);
// The same sweep as tables to read (`llmcalc sweep --text`); a bad input
// gives one line, "error: PATH: MESSAGE".
std::string sweep_text(const std::string& scenario_json);
// A device derived from a technology budget {"architecture", "node",
// "die_area_mm2", "package_area_mm2", "tdp_W", "hbm"} (all optional; the
// H100's by default): {"device": derived figures, "system": a system object
// that a scenario's "system" accepts}.
std::string derive_device_json(const std::string& budget_json);
// A named study ("gpu-generations", "technology-nodes", "dram-scaling", "inference-boundedness"):
// its JSON form, or its table as text.
std::string study_json(const std::string& name);
std::string study_text(const std::string& name);
// A study with parameters: {"name": NAME, "params": {...}} (only
// technology-nodes takes any: a technology budget without "node").
std::string study_request_json(const std::string& request_json);
std::string study_request_text(const std::string& request_json);
}  // namespace llmcalc
