// Embind surface of the core: strings in, strings out. Nothing may throw
// across the JS boundary, so every call is wrapped in a catch-all that turns
// a failure into the same {"error": {path, message}} object the core uses.
#include <emscripten/bind.h>

#include <exception>
#include <string>

#include "llmcalc/api.h"

namespace {

std::string json_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size() + 8);
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          static const char* hex = "0123456789abcdef";
          out += "\\u00";
          out += hex[c >> 4];
          out += hex[c & 0xf];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

std::string error_json(const std::string& message) {
  return "{\"error\":{\"path\":\"\",\"message\":\"" + json_escape(message) + "\"}}";
}

template <typename F>
std::string guarded(F&& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    return error_json(std::string("internal error: ") + e.what());
  } catch (...) {
    return error_json("internal error");
  }
}

std::string evaluate(const std::string& scenario_json) {
  return guarded([&] { return llmcalc::evaluate_json(scenario_json); });
}
std::string presets() {
  return guarded([] { return llmcalc::presets_json(); });
}
std::string schema() {
  return guarded([] { return llmcalc::schema_json(); });
}
std::string version() {
  return guarded([] { return llmcalc::version(); });
}

// Design-space exploration (search, sweep, studies).
std::string search(const std::string& scenario_json) {
  return guarded([&] { return llmcalc::search_json(scenario_json); });
}
std::string sweep(const std::string& scenario_json) {
  return guarded([&] { return llmcalc::sweep_json(scenario_json); });
}
std::string study(const std::string& name) {
  return guarded([&] { return llmcalc::study_json(name); });
}
std::string study_request(const std::string& request_json) {
  return guarded([&] { return llmcalc::study_request_json(request_json); });
}
std::string derive(const std::string& budget_json) {
  return guarded([&] { return llmcalc::derive_device_json(budget_json); });
}

}  // namespace

EMSCRIPTEN_BINDINGS(llmcalc) {
  emscripten::function("evaluate", &evaluate);
  emscripten::function("presets", &presets);
  emscripten::function("schema", &schema);
  emscripten::function("version", &version);
  emscripten::function("search", &search);
  emscripten::function("sweep", &sweep);
  emscripten::function("study", &study);
  emscripten::function("derive", &derive);
  emscripten::function("study_request", &study_request);
}
