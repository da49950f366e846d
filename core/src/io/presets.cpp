#include "presets.h"

#include <utility>
#include <vector>

#include "enum_names.h"

namespace llmcalc {

const std::vector<std::pair<const char*, const char*>>& embedded_presets();  // generated

const nlohmann::json& all_presets() {
  static const nlohmann::json kAll = [] {
    nlohmann::json all = {{"models", nlohmann::json::object()}, {"systems", nlohmann::json::object()},
                          {"technology", nlohmann::json::object()}};
    for (const auto& [rel, text] : embedded_presets()) {
      const std::string path = rel;
      if (path.rfind("validation/", 0) == 0) continue;  // data about the model, not an input
      nlohmann::json j = nlohmann::json::parse(text);  // validated by the preset tests
      const std::string kind = path.rfind("models/", 0) == 0       ? "models"
                               : path.rfind("technology/", 0) == 0 ? "technology"
                                                                   : "systems";
      const std::string id = j.at("id").get<std::string>();
      all[kind][id] = std::move(j);
    }
    return all;
  }();
  return kAll;
}

std::vector<std::pair<std::string, std::string>> embedded_files(const std::string& prefix) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, text] : embedded_presets())
    if (std::string(name).rfind(prefix, 0) == 0) out.emplace_back(name, text);
  return out;
}

nlohmann::json embedded_file(const std::string& rel) {
  for (const auto& [name, text] : embedded_presets())
    if (rel == name) return nlohmann::json::parse(text);
  return nullptr;
}

const nlohmann::json* find_preset_file(const std::string& kind, const std::string& id) {
  const auto& group = all_presets().at(kind);
  auto it = group.find(id);
  // An older name of the same thing (the contract's example says "llama3-70b").
  for (auto a = group.begin(); it == group.end() && a != group.end(); ++a)
    for (const auto& alias : a.value().value("aliases", nlohmann::json::array()))
      if (alias == id) it = a;
  return it == group.end() ? nullptr : &it.value();
}

const nlohmann::json* find_preset(const std::string& kind, const std::string& id) {
  const nlohmann::json* file = find_preset_file(kind, id);
  return file ? &file->at(kind == "models" ? "model" : "system") : nullptr;
}

// The format a model preset says its weights were released in
// (release_weight_precision), when `value` names a preset that says one.
void read_released_weights(const nlohmann::json& value, Model& m) {
  const nlohmann::json& id = value.is_object() && value.contains("preset") ? value.at("preset") : value;
  const nlohmann::json* file = id.is_string() ? find_preset_file("models", id.get<std::string>()) : nullptr;
  const nlohmann::json* named = file && file->contains("release_weight_precision") ? &file->at("release_weight_precision") : nullptr;
  if (!named || !named->is_string()) return;
  NumberFormat f;
  const std::string name = named->get<std::string>();
  if (!value_named(weight_precision_names(), name, &f)) return;  // Presets.ReleasedWeightsAreWeightFormats
  m.released_weights = name;
  m.released_weight_bytes = bytes_per_element(f.precision);
}

}  // namespace llmcalc
