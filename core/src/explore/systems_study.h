// The "systems" study: one scenario on every system preset, its parallelism
// searched on each at the scenario's GPU count, so a planner sees which
// accelerator generation runs the workload fastest and which cannot hold it.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace llmcalc {

// params: a scenario (training or inference, without search or sweep).
// Throws InputError (path under "params") when the scenario itself is bad; a
// system it cannot run on (fp8 on a GPU without fp8, offload without host
// figures) gets a row with its error instead.
nlohmann::json systems_study(const nlohmann::json& params);
std::string systems_study_text(const nlohmann::json& result);

}  // namespace llmcalc
