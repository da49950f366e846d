// The public entry points: JSON in, JSON out, nothing thrown.
#include "llmcalc/api.h"

#include "boundary.h"
#include "output.h"
#include "parse.h"
#include "presets.h"
#include "schema.h"
#include "summary_text.h"

namespace llmcalc {

std::string evaluate_json(const std::string& scenario_json) {
  return guarded([&] { return evaluate_to_json(parse_bounded(scenario_json)); });
}

std::string evaluate_text(const std::string& scenario_json) {
  try {
    Scenario s;
    const Result r = evaluate_input(parse_bounded(scenario_json), &s);
    return result_text(s, r);
  } catch (const InputError& e) {
    return "error: " + e.path + ": " + e.what() + "\n";
  } catch (const json::parse_error& e) {
    return std::string("error: $: malformed JSON: ") + e.what() + "\n";
  } catch (const std::exception& e) {
    return std::string("error: $: internal error: ") + e.what() + "\n";
  } catch (...) {
    return "error: $: internal error\n";
  }
}

std::string presets_json() {
  return guarded([] { return all_presets(); });
}

std::string schema_json() {
  return guarded([] { return schema_to_json(); });
}

std::string version() { return LLMCALC_VERSION; }

}  // namespace llmcalc
