// The search's plans as JSON, each re-evaluated by the reference model with
// its warnings and the cautions on its kinds of run, the validation quoted
// for those kinds, and the plan the search recommends (search.cpp).
#pragma once

#include <nlohmann/json.hpp>

#include "llmcalc/scenario.h"
#include "plan_collector.h"

namespace llmcalc::search_detail {

// One returned plan as JSON (see entry_json in search_entries.cpp).
nlohmann::json entry_json(const Scenario& base, const Candidate& c);
// The validation of each kind of plan among `plans`, by regime id.
nlohmann::json regimes_of(const nlohmann::json& plans, const Scenario& base);
// The index in `best` of the plan to recommend, after appending one from
// beyond the list when every listed plan carries an avoidable caution.
long long recommend_trusted_kind(const Scenario& base, const Collector& col, const char* metric, nlohmann::json& best);

}  // namespace llmcalc::search_detail
