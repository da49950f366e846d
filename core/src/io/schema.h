// One declarative table of every scalar input: JSON key, short URL key, type,
// unit, default, range and help. The parser takes defaults and ranges from it;
// the web page draws its form and encodes its URL from it (schema_json()).
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace llmcalc {

struct FieldSpec {
  std::string key;    // dotted JSON path, e.g. "parallelism.tp"
  std::string url;    // short key used in share links
  std::string type;   // "int" | "number" | "bool" | "enum" | "preset" | "string"
  std::string unit;
  nlohmann::json def; // null: required (or taken from the preset)
  double lo = 0, hi = 0;
  std::vector<std::string> values;  // enum choices, or preset kind for "preset"
  std::string help;
  std::string group;
  std::vector<std::string> modes;   // modes where the field is used
};

const std::vector<FieldSpec>& schema_fields();
const FieldSpec& field_spec(const std::string& key);  // throws std::logic_error if absent
nlohmann::json schema_to_json();

}  // namespace llmcalc
