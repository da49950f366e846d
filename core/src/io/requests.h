// Requests that run on a scenario but are not part of it: the parallelism
// search (llmcalc search). Their fields are rows of the input table too.
#pragma once
#include <nlohmann/json.hpp>

namespace llmcalc {

struct SearchSpec {
  long long gpus = 0;     // 0: the scenario's GPU count
  int top = 10;
  double max_ttft_s = 0;  // 0: unbounded
  double max_tpot_s = 0;
  double memory_share = 1;  // a plan fits when its memory is at most this share of the GPU's
  bool whole_plan = false;  // search.vary "plan": the scenario's parallelism, micro-batch and recompute are free too
  bool more_gpus = true;    // when none fits: search doubling GPU counts for the fewest that hold a plan
};

// Reads root["search"] strictly; throws InputError naming the path when it
// is absent or invalid.
SearchSpec parse_search_request(const nlohmann::json& root);

}  // namespace llmcalc
