// Public entry points of the design-space exploration (api.h): JSON in,
// JSON out, nothing thrown. Input bounds as in api.cpp.
#include <cmath>

#include "llmcalc/api.h"
#include "search.h"
#include "studies.h"
#include "strict_json.h"
#include "sweep.h"

namespace llmcalc {

namespace {

json error_json(const std::string& path, const std::string& message) {
  return {{"error", {{"path", path}, {"message", message}}}};
}

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// Same bounds as api.cpp's parse_bounded: 1 MiB, 32 levels.
json parse_bounded(const std::string& text) {
  if (text.size() > (1u << 20)) throw InputError("$", "input larger than 1 MiB");
  json::parser_callback_t depth_guard = [](int depth, json::parse_event_t, json&) {
    if (depth > 32) throw InputError("$", "input nested deeper than 32 levels");
    return true;
  };
  return json::parse(text, depth_guard, true, false);
}

bool all_finite(const json& j) {
  if (j.is_number_float()) return std::isfinite(j.get<double>());
  if (j.is_structured())
    for (const json& v : j)
      if (!all_finite(v)) return false;
  return true;
}

template <typename F>
std::string guarded(F&& f) {
  try {
    json out = f();
    if (!all_finite(out)) return dump(error_json("$", "the model produced a non-finite number for this input"));
    return dump(out);
  } catch (const InputError& e) {
    return dump(error_json(e.path, e.what()));
  } catch (const json::parse_error& e) {
    return dump(error_json("$", std::string("malformed JSON: ") + e.what()));
  } catch (const std::exception& e) {
    return dump(error_json("$", std::string("internal error: ") + e.what()));
  } catch (...) {
    return dump(error_json("$", "internal error"));
  }
}

}  // namespace

std::string search_json(const std::string& scenario_json) {
  return guarded([&] { return search_scenario(parse_bounded(scenario_json)); });
}

std::string sweep_json(const std::string& scenario_json) {
  return guarded([&] { return sweep_scenario(parse_bounded(scenario_json)); });
}

std::string study_json(const std::string& name) {
  return guarded([&] { return run_study(name); });
}

std::string study_text(const std::string& name) {
  try {
    return study_table(name, run_study(name));
  } catch (const std::exception& e) {
    return std::string("error: ") + e.what() + "\n";
  }
}

}  // namespace llmcalc
