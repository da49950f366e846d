// The one parse boundary: scenario JSON -> Scenario, strict and unit-converting.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "llmcalc/scenario.h"
#include "strict_json.h"

namespace llmcalc {

// Throws InputError (with the JSON path) on any invalid or inconsistent input.
Scenario parse_scenario(const nlohmann::json& root);
Model parse_model(const nlohmann::json& value, const std::string& path);
// model.mla, model.attention and model.mtp_layers of the model object `o` (parse_architecture.cpp).
void parse_architecture(StrictObject& o, Model& m);
System parse_system(const nlohmann::json& value, const std::string& path);
// The cost and reliability sections, their defaults when absent (parse_run.cpp).
Costs parse_costs(const nlohmann::json& root);
Reliability parse_reliability(const nlohmann::json& root);
// A "model" or "system" value as one object: a preset id, {"preset": id,
// ...overrides} (objects merge key by key, arrays and scalars replace), or
// a whole object. `kind` is "models" or "systems".
nlohmann::json resolve_preset(const nlohmann::json& v, const std::string& kind, const std::string& path);
void merge_into(nlohmann::json& base, const nlohmann::json& over);
// Checks that need the whole scenario (divisibility, device support).
struct Inconsistency {
  std::string path, message;
};
// The first rule the scenario breaks, or nothing; never throws (the search
// asks this of every candidate plan).
std::optional<Inconsistency> find_inconsistency(const Scenario& s);
// The same, thrown as an InputError.
void check_consistency(const Scenario& s);
// bf16 defaults become fp16 on a device without bf16 math (consistency.cpp).
void default_16bit_to_device(const nlohmann::json& root, Scenario& s);
// inference.moe_gemm "auto" resolved for a consistent scenario's plan
// (in.moe_gemm and in.moe_gemm_fallback); a named kernel is left as given.
void pick_moe_gemm(Scenario& s);
// The largest batch a serving plan holds (inference_memory max_batch) with
// the expert kernel that serves it: under "auto", each batch gets its pick,
// so the native kernel's, whose experts are the smaller.
long long largest_batch(const Scenario& s);

}  // namespace llmcalc
