// Named studies built on the search and the evaluator: how training speeds
// up across GPU generations (factor by factor), how decode scales with DRAM
// technology, and where inference ops sit against each memory level's ridge.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace llmcalc {

// The study's JSON form (for the web); throws InputError for an unknown name
// or bad parameters. technology-nodes takes a technology budget without
// "node" (architecture, die_area_mm2, package_area_mm2, tdp_W, hbm), applied
// at every node; systems and scaling take a scenario (scenario_studies.h); the
// rest take none.
nlohmann::json run_study(const std::string& name, const nlohmann::json& params = nullptr);
// Throws InputError at "params" unless `params` is absent, null or {} (a study that takes none).
void refuse_params(const std::string& name, const nlohmann::json& params);
// The same study as a text table.
std::string study_table(const std::string& name, const nlohmann::json& result);

}  // namespace llmcalc
