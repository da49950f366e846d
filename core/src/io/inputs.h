// Setting one input of a scenario JSON by name: a key of the input table
// (system figures go where their `at` says) or any dotted scenario path.
// Used by the sweep; the web page applies the same `at` / `clear` rules.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace llmcalc {

// Sets `input` in `scenario`. A table key with `at` (a system figure) is
// written at system.<at>; other keys are dotted paths. "model" and "system"
// presets are resolved to objects first; an array level is addressed by
// element "name" (or index); a number where an object is needed (an
// efficiency given for every precision) becomes {"bf16": number} first.
// Throws InputError naming `input` when the place does not exist.
void set_input(nlohmann::json& scenario, const std::string& input, const nlohmann::json& value);

// "a.b.c" -> {"a", "b", "c"}.
std::vector<std::string> split_path(const std::string& path);

// Whether `input` takes integers (table "int" fields and the integer keys
// of model and system objects).
bool integer_input(const std::string& input);

}  // namespace llmcalc
