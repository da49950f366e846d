// Public entry points of the design-space exploration (api.h): JSON in,
// JSON out, nothing thrown (boundary.h).
#include <cmath>

#include "llmcalc/api.h"
#include "boundary.h"
#include "published_runs.h"
#include "search.h"
#include "studies.h"
#include "strict_json.h"
#include "sweep.h"
#include "technology.h"

namespace llmcalc {

std::string search_json(const std::string& scenario_json) {
  return guarded([&] { return search_scenario(parse_bounded(scenario_json)); });
}

namespace {

// A JSON result (or error) of `json_fn` as text: the error as one line,
// "error: PATH: MESSAGE", else `table` of it.
std::string as_text(const std::string& input, std::string (*json_fn)(const std::string&),
                    std::string (*table)(const json&)) {
  try {
    const json out = json::parse(json_fn(input));  // errors and non-finite numbers are handled there
    if (out.contains("error"))
      return "error: " + out["error"].value("path", "$") + ": " + out["error"].value("message", "") + "\n";
    return table(out);
  } catch (const std::exception& e) {
    return std::string("error: $: internal error: ") + e.what() + "\n";
  }
}

}  // namespace

std::string search_text(const std::string& scenario_json) { return as_text(scenario_json, search_json, search_table); }

std::string sweep_text(const std::string& scenario_json) { return as_text(scenario_json, sweep_json, sweep_table); }

std::string sweep_json(const std::string& scenario_json) {
  return guarded([&] { return sweep_scenario(parse_bounded(scenario_json)); });
}

std::string derive_device_json(const std::string& budget_json) {
  return guarded([&] {
    const DerivedDevice d = derive_device(parse_budget(parse_bounded(budget_json)));
    return json{{"device", to_json(d)}, {"system", derived_system(d)}};
  });
}

namespace {

// The studies of both layers: the published-runs study reruns the validation
// cases (validate layer), the others explore designs (explore layer).
json any_study(const std::string& name, const json& params = nullptr) {
  if (name != "published-runs") return run_study(name, params);
  refuse_params(name, params);
  return published_runs_study();
}

std::string any_study_table(const std::string& name, const json& result) {
  return name == "published-runs" ? published_runs_table(result) : study_table(name, result);
}

}  // namespace

std::string study_json(const std::string& name) {
  return guarded([&] { return any_study(name); });
}

std::string study_request_json(const std::string& request_json) {
  return guarded([&] {
    const json request = parse_bounded(request_json);
    if (!request.is_object()) throw InputError("", "a study request must be a JSON object");
    for (const auto& item : request.items())
      if (item.key() != "name" && item.key() != "params")
        throw InputError(item.key().substr(0, 40), "unknown key; known: name, params");
    if (!request.contains("name") || !request.at("name").is_string()) throw InputError("name", "a study name is required");
    return any_study(request.at("name").get<std::string>(), request.value("params", json(nullptr)));
  });
}

std::string study_request_text(const std::string& request_json) {
  const std::string out = study_request_json(request_json);
  const json r = json::parse(out);
  if (r.contains("error")) return "error: " + r["error"].value("message", std::string("invalid request")) + "\n";
  try {
    return any_study_table(r.at("study").get<std::string>(), r);
  } catch (const std::exception& e) {
    return std::string("error: ") + e.what() + "\n";
  }
}

std::string study_text(const std::string& name) {
  try {
    return any_study_table(name, any_study(name));
  } catch (const std::exception& e) {
    return std::string("error: ") + e.what() + "\n";
  }
}

}  // namespace llmcalc
