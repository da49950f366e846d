// Embind surface of the core: strings in, strings out. Nothing may throw
// across the JS boundary, so every call is wrapped in a catch-all that turns
// a failure into the same {"error": {path, message}} object the core uses.
#include <emscripten/bind.h>

#include <exception>
#include <iterator>
#include <string>
#include <utility>

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

// The one list of what the module offers: every function is registered from
// it, and functions() hands it to the worker, which dispatches by it (no
// second list in JavaScript). Each takes one JSON or text argument, or none.
struct WithArg {
  const char* name;
  std::string (*fn)(const std::string&);
};
struct NoArg {
  const char* name;
  std::string (*fn)();
};
const WithArg kWithArg[] = {
    {"evaluate", llmcalc::evaluate_json},          // a scenario
    {"evaluate_text", llmcalc::evaluate_text},     // a scenario -> the CLI's run --text summary
    {"search", llmcalc::search_json},              // a scenario with "search"
    {"sweep", llmcalc::sweep_json},                // a scenario with "sweep"
    {"study", llmcalc::study_json},                // a study name
    {"study_request", llmcalc::study_request_json},  // {"name", "params"}
    {"derive", llmcalc::derive_device_json},       // a technology budget
};
const NoArg kNoArg[] = {
    {"presets", llmcalc::presets_json},
    {"schema", llmcalc::schema_json},
    {"version", llmcalc::version},
};

template <size_t I>
std::string call_with(const std::string& arg) {
  return guarded([&] { return kWithArg[I].fn(arg); });
}
template <size_t I>
std::string call_without() {
  return guarded([] { return kNoArg[I].fn(); });
}

std::string functions() {
  std::string with, without;
  for (const WithArg& f : kWithArg) with += std::string(with.empty() ? "" : ",") + "\"" + f.name + "\"";
  for (const NoArg& f : kNoArg) without += std::string(without.empty() ? "" : ",") + "\"" + f.name + "\"";
  return "{\"with_arg\":[" + with + "],\"no_arg\":[" + without + "]}";
}

template <size_t... I>
void register_with(std::index_sequence<I...>) {
  (emscripten::function(kWithArg[I].name, &call_with<I>), ...);
}
template <size_t... I>
void register_without(std::index_sequence<I...>) {
  (emscripten::function(kNoArg[I].name, &call_without<I>), ...);
}

}  // namespace

EMSCRIPTEN_BINDINGS(llmcalc) {
  register_with(std::make_index_sequence<std::size(kWithArg)>());
  register_without(std::make_index_sequence<std::size(kNoArg)>());
  emscripten::function("functions", &functions);
}
