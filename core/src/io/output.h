#pragma once
#include <nlohmann/json.hpp>

#include "evaluate.h"

namespace llmcalc {
using json = nlohmann::json;
json evaluate_to_json(const json& input);  // throws InputError
// A scenario JSON parsed and evaluated, typed; throws InputError on bad
// input and when the model produces a non-finite headline number.
Result evaluate_input(const json& input, Scenario* parsed = nullptr);  // `parsed` receives the scenario
json result_to_json(const Scenario& s, const Result& r);
// What bounds an op: "compute", "network", "latency" or a memory level's name.
std::string bound_name(const Device& d, int bound);
// The device's memory levels, nearest the cores first: name, label (what a
// reader calls it: "HBM3e"), bandwidth and capacity; the output's device.roofs.
json roofs_json(const Device& d);
}  // namespace llmcalc
