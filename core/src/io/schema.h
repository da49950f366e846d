// The one declarative table of every input a person can set anywhere: the
// scenario (mode, model, system figures, parallelism, training, inference)
// and the requests that run on a scenario (search, sweep, study, derive).
// Each entry has its JSON key, short URL key, type, unit, default, range and
// help. The parser takes defaults and ranges from it; `llmcalc schema` and
// the wasm schema() publish it, and the web page draws its form, encodes its
// URL and lists its sweep inputs from that, with no second copy.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace llmcalc {

struct FieldSpec {
  std::string key;    // dotted JSON path, e.g. "parallelism.tp"
  std::string url;    // short key used in share links ("" = not in links)
  std::string type;   // "int" | "number" | "bool" | "enum" | "preset" | "string" | "list"
  std::string unit;
  nlohmann::json def; // null: required (or taken from the preset)
  double lo = 0, hi = 0;
  std::vector<std::string> values;  // enum choices, or preset kind for "preset"
  std::string help;
  std::string group;
  std::vector<std::string> modes;   // modes where the field is used
  // System figures: where the value lives inside the system object (a
  // segment after an array names the element by its "name" or its index),
  // and sibling keys that setting it removes (a capacity in GiB replaces one
  // in MiB).
  std::string at;
  std::vector<std::string> clear;
  // The form's label where the key's own words would mislead (the scale-up
  // link is NVLink only on NVIDIA systems); empty: the key's words.
  std::string label;
  // Request fields: the request they belong to ("search", "sweep", "study",
  // "derive"); empty for scenario fields.
  std::string request;
  // Refines a mechanism rather than describing the run (overlap switches,
  // collective precisions, kernel choices, MoE routing details, cost rates):
  // the page folds these under "more settings" until one is set.
  bool advanced = false;
  // Its help, unit and label say "GPU" for whatever device the system has,
  // and "HBM" for whatever its device memory is: the page writes the
  // system's own words there (a TPU's "chip", a Gaudi's "HPU"; an L4's
  // "GDDR6", an H100's "HBM3"). Texts about GPUs as such (their kernels,
  // their launch cost) are not marked.
  bool device_words = false;
};

const std::vector<FieldSpec>& schema_fields();
const FieldSpec& field_spec(const std::string& key);  // throws std::logic_error if absent
const FieldSpec* find_field(const std::string& key);  // nullptr if absent
nlohmann::json schema_to_json();

// The named studies (the values of "study.name").
const std::vector<std::string>& study_names();

}  // namespace llmcalc
