#include "boundary.h"

#include <cmath>
#include <vector>

namespace llmcalc {

namespace {
// Inputs are bounded before they are parsed: a scenario is a few KB; links
// and files from strangers may be anything.
constexpr size_t kMaxInputBytes = 1 << 20;
constexpr int kMaxDepth = 32;
}  // namespace

json error_json(const std::string& path, const std::string& message) {
  return {{"error", {{"path", path}, {"message", message}}}};
}

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

json parse_bounded(const std::string& text) {
  if (text.size() > kMaxInputBytes) throw InputError("$", "input larger than 1 MiB");
  std::vector<std::string> keys;  // the key at each object depth
  json::parser_callback_t guard = [&keys](int depth, json::parse_event_t event, json& parsed) {
    if (depth > kMaxDepth) throw InputError("$", "input nested deeper than 32 levels");
    if (event == json::parse_event_t::key) {
      keys.resize(static_cast<size_t>(depth));
      keys.push_back(parsed.get<std::string>());
    }
    return true;
  };
  try {
    return json::parse(text, guard, true, false);
  } catch (const json::out_of_range&) {
    std::string path;
    for (const auto& k : keys)
      if (!k.empty()) path = join_path(path, k);
    throw InputError(path.empty() ? "$" : path, "number out of range: must be finite");
  }
}

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

std::string guarded(const std::function<json()>& produce) {
  try {
    const json out = produce();
    const std::string bad = find_non_finite(out);
    if (!bad.empty()) return dump(error_json(bad, "the model produced a non-finite number for this input"));
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

}  // namespace llmcalc
