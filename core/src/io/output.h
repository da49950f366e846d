#pragma once
#include <nlohmann/json.hpp>

#include "evaluate.h"

namespace llmcalc {
using json = nlohmann::json;
json evaluate_to_json(const json& input);  // throws InputError
json result_to_json(const Scenario& s, const Result& r);
}  // namespace llmcalc
