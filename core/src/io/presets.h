// Presets: JSON data files under core/presets/, compiled into the library.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "llmcalc/scenario.h"

namespace llmcalc {

// {"models": {id: file}, "systems": {id: file}}; parsed once.
const nlohmann::json& all_presets();
// The "model" or "system" object of a preset, or nullptr when the id is unknown.
const nlohmann::json* find_preset(const std::string& kind, const std::string& id);
// The whole preset file (its description, sources, ...) by id or alias, or nullptr.
const nlohmann::json* find_preset_file(const std::string& kind, const std::string& id);
// Sets m.released_weights (and its bytes) when `value`, a model id or an
// object naming a preset, names a preset that states release_weight_precision.
void read_released_weights(const nlohmann::json& value, Model& m);

// Any embedded file by its path under core/presets/ (such as
// "validation/accuracy.json"), parsed; null when there is none.
nlohmann::json embedded_file(const std::string& rel);
// Every embedded file whose path starts with `prefix` (path, text), in path
// order: "validation/public/" holds the published validation cases.
std::vector<std::pair<std::string, std::string>> embedded_files(const std::string& prefix);

}  // namespace llmcalc
