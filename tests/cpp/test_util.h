// Helpers shared by the native tests: evaluate a scenario through the public
// API and read the result as JSON.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "llmcalc/api.h"

namespace llmcalc::test {

using nlohmann::json;

inline json eval(const json& scenario) { return json::parse(evaluate_json(scenario.dump())); }

// Evaluates and fails the current test (returning an empty object) on an error.
inline json eval_ok(const json& scenario) {
  json out = eval(scenario);
  EXPECT_FALSE(out.contains("error")) << scenario.dump() << "\n -> " << out.dump();
  return out;
}

// The first op with this name and phase, or null.
inline json find_op(const json& out, const std::string& name, const std::string& phase) {
  for (const auto& op : out.at("ops"))
    if (op.at("name") == name && op.at("phase") == phase) return op;
  return nullptr;
}

// A small training search: Llama 3.1 8B on H100s, the plan left to the search.
inline json small_search(int gpus = 16) {
  return {{"mode", "training"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"},
          {"training", {{"global_batch", 64}, {"seq_len", 4096}, {"precision", "bf16"}}},
          {"search", {{"gpus", gpus}, {"top", 5}}}};
}

inline double rel_diff(double a, double b) { return std::fabs(a - b) / std::max(std::fabs(a), std::fabs(b)); }

}  // namespace llmcalc::test
