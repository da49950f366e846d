// One-input sweeps: evaluate a scenario while one input (a dotted JSON path)
// runs over a range, optionally for several values of a second input (the
// series, e.g. systems). Errors at a point are reported, not fatal.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace llmcalc {

// {"sweep": {"input", "scale", "x": [...], "series": [{"name", "values": {output: [...]}, "errors": [...]}]}}.
// Throws InputError when the "sweep" section itself is invalid.
nlohmann::json sweep_scenario(const nlohmann::json& input);
// A sweep_scenario result as one table per series to read (`llmcalc sweep
// --text`), each output in its unit; "*" marks plans that do not fit.
std::string sweep_table(const nlohmann::json& out);

}  // namespace llmcalc
