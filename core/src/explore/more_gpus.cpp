#include "more_gpus.h"

#include <algorithm>
#include <cmath>

#include "parse.h"
#include "memory.h"
#include "search.h"

namespace llmcalc {

// One replica's weights (training: with their gradients and optimizer
// states), sharded over every GPU as ZeRO-3 shards them, in the share of each
// GPU's memory a plan may take. Activations and the KV cache only add to it.
double memory_floor_gpus(const Scenario& base, const SearchSpec& spec) {
  Scenario s = base;
  s.par.tp = s.par.pp = s.par.cp = s.par.dp = s.par.ep = 1;
  s.par.etp = 0, s.par.zero = 0, s.par.sp = false;
  s.par.schedule = PipeSchedule::one_f_one_b, s.par.virtual_stages = 1;
  if (find_inconsistency(s).has_value()) return 1;
  double held = 0, capacity = 0;
  if (s.mode == Mode::training) {
    const TrainingMemory m = training_memory(s);
    held = m.weights + m.gradients + m.optimizer, capacity = m.capacity;
  } else {
    const InferenceMemory m = inference_memory(s);
    held = m.weights, capacity = m.capacity;
  }
  const double floor = capacity > 0 ? held / (spec.memory_share * capacity) : 1;
  return std::isfinite(floor) ? std::max(1.0, floor) : 1;
}

// The question a cluster planner asks first: how many GPUs does this take?
// Each step is the same search on twice the GPUs (with no walk of its own),
// from the first doubling past the memory floor; the walk stops at the first
// count with a plan, after six searches, when it has evaluated a million
// plans (seconds in the page), or where the fixed inputs leave no plan.
nlohmann::json more_gpus_walk(const nlohmann::json& input, const Scenario& base, const SearchSpec& spec, long long gpus,
                              long long limit) {
  constexpr int kSearches = 6;
  constexpr long long kMaxGpus = 1LL << 24, kWalkPlans = 1000000;
  const long long budget = std::min(limit, kWalkPlans);
  const double floor = memory_floor_gpus(base, spec);
  long long g = gpus * 2;
  while (static_cast<double>(g) < floor && g <= kMaxGpus / 2) g *= 2;
  nlohmann::json searched = nlohmann::json::array(), out = nlohmann::json::object();
  long long evaluated = 0;
  for (int k = 0; k < kSearches && g <= kMaxGpus && evaluated < budget; ++k, g *= 2) {
    nlohmann::json step = input;
    step["search"]["gpus"] = g;
    step["search"]["more_gpus"] = false;
    const nlohmann::json r = search_scenario(step, budget - evaluated).at("search");
    const long long n = r.at("evaluated").get<long long>();
    if (n == 0) break;  // the inputs the scenario fixes pin the GPU count
    evaluated += n;
    searched.push_back(g);
    if (r.at("best").empty()) continue;
    out["gpus"] = g;
    out["plan"] = r.at("best").at(r.value("recommended", 0));
    break;
  }
  if (searched.empty()) return nullptr;
  out["searched_gpus"] = searched;
  out["memory_floor_gpus"] = std::ceil(floor);
  out["evaluated"] = evaluated;
  return out;
}

}  // namespace llmcalc
