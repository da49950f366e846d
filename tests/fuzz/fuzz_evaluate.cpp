// libFuzzer target: any byte string through the public API must come back as
// JSON (a result or an error object), never crash, hang or emit NaN/Inf;
// what evaluates reads as text too.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "llmcalc/api.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const std::string out = llmcalc::evaluate_json(input);
  // The output must itself be valid JSON with either a result or an error.
  const auto j = nlohmann::json::parse(out, nullptr, false);
  if (j.is_discarded() || !j.is_object()) std::abort();
  if (!j.contains("error") && !j.contains("training") && !j.contains("inference")) std::abort();
  // A scenario that evaluates also reads as text (run --text).
  if (!j.contains("error") && llmcalc::evaluate_text(input).rfind("error:", 0) == 0) std::abort();
  return 0;
}
