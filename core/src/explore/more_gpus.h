// Where a search finds no plan that fits: the walk up doubling GPU counts to
// the first that holds one (search.more_gpus; docs/scenario.md "Search").
#pragma once
#include <nlohmann/json.hpp>

#include "llmcalc/scenario.h"
#include "requests.h"

namespace llmcalc {

// GPUs below which no plan of `base` can fit (at least 1).
double memory_floor_gpus(const Scenario& base, const SearchSpec& spec);

// The walk from a search request `input` (its "search" section included)
// that found nothing on `gpus`: the search's output "more_gpus", or null when
// the inputs the scenario fixes allow no plan on any other count. `limit`:
// the search's evaluation budget.
nlohmann::json more_gpus_walk(const nlohmann::json& input, const Scenario& base, const SearchSpec& spec, long long gpus,
                              long long limit);

}  // namespace llmcalc
