// The public entry points: JSON in, JSON out, nothing thrown.
#include "llmcalc/api.h"

#include <cmath>

#include "inference.h"
#include "output.h"
#include "parse.h"
#include "presets.h"
#include "schema.h"
#include "training.h"

namespace llmcalc {

namespace {

json error_json(const std::string& path, const std::string& message) {
  return {{"error", {{"path", path}, {"message", message}}}};
}

// Last line of defence: no NaN or Inf may reach an output.
std::string find_non_finite(const json& j, const std::string& path) {
  if (j.is_number_float() && !std::isfinite(j.get<double>())) return path.empty() ? "$" : path;
  if (j.is_object())
    for (auto it = j.begin(); it != j.end(); ++it) {
      std::string p = find_non_finite(it.value(), join_path(path, it.key()));
      if (!p.empty()) return p;
    }
  if (j.is_array())
    for (size_t i = 0; i < j.size(); ++i) {
      std::string p = find_non_finite(j[i], path + "[" + std::to_string(i) + "]");
      if (!p.empty()) return p;
    }
  return "";
}

}  // namespace

Result evaluate(const Scenario& s) {
  Result r;
  r.mode = s.mode;
  r.params = count_params(s.model);
  if (s.mode == Mode::training)
    r.training = evaluate_training(s);
  else
    r.inference = evaluate_inference(s);
  return r;
}

json evaluate_to_json(const json& input) {
  const Scenario s = parse_scenario(input);
  json out = result_to_json(s, evaluate(s));
  const std::string bad = find_non_finite(out, "");
  if (!bad.empty()) return error_json(bad, "the model produced a non-finite number for this input");
  return out;
}

std::string evaluate_json(const std::string& scenario_json) {
  try {
    const json input = json::parse(scenario_json, nullptr, true, false);
    return evaluate_to_json(input).dump();
  } catch (const InputError& e) {
    return error_json(e.path, e.what()).dump();
  } catch (const json::parse_error& e) {
    return error_json("$", std::string("malformed JSON: ") + e.what()).dump();
  } catch (const std::exception& e) {
    return error_json("$", std::string("internal error: ") + e.what()).dump();
  } catch (...) {
    return error_json("$", "internal error").dump();
  }
}

std::string presets_json() {
  try {
    return all_presets().dump();
  } catch (...) {
    return error_json("$", "presets unavailable").dump();
  }
}

std::string schema_json() {
  try {
    return schema_to_json().dump();
  } catch (...) {
    return error_json("$", "schema unavailable").dump();
  }
}

std::string version() { return LLMCALC_VERSION; }

}  // namespace llmcalc
