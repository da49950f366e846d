// Studies of one scenario, the plan searched in each case as "Find a plan that
// fits" does. "systems": the scenario on every system preset at its GPU
// count, so a planner sees which accelerator runs it fastest and which cannot
// hold it. "scaling": the scenario on its own system at an eighth of its GPUs
// to eight times as many, so a planner sees what each doubling buys.
// "models": every model preset in the scenario's place, on its system at its
// GPU count, so a planner sees which models the cluster can train or serve
// and at what cost per token.
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
// params: as for systems_study.
nlohmann::json scaling_study(const nlohmann::json& params);
std::string scaling_study_text(const nlohmann::json& result);
// params: as for systems_study.
nlohmann::json models_study(const nlohmann::json& params);
std::string models_study_text(const nlohmann::json& result);

}  // namespace llmcalc
