// The JSON boundary shared by every public entry point: bounded parsing,
// error objects, safe serialisation, and the guard that turns anything
// thrown into an error object and refuses non-finite outputs.
#pragma once
#include <functional>
#include <string>

#include "strict_json.h"

namespace llmcalc {

json error_json(const std::string& path, const std::string& message);
// Serialises, replacing invalid UTF-8 (input keys can reach error messages).
std::string dump(const json& j);
// Parses at most 1 MiB nested at most 32 deep; a number beyond double range
// throws InputError at the path of the key it belongs to.
json parse_bounded(const std::string& text);
// The JSON path of the first NaN/Inf in `j`, or "" when all are finite.
std::string find_non_finite(const json& j, const std::string& path = "");
// Runs `produce` and returns its output, or an error object for anything it
// throws or any non-finite number in what it returns. Never throws.
std::string guarded(const std::function<json()>& produce);

}  // namespace llmcalc
