// Plans as scenario JSON (the parallelism and training sections a search or
// study lists, reusable as input) and the plan the search recommends.
#include <algorithm>

#include "enum_names.h"
#include "search.h"

namespace llmcalc {

using json = nlohmann::json;

json parallelism_to_json(const Parallelism& p) {
  const char* sched = name_of(schedule_names(), p.schedule);
  json j = {{"tp", p.tp}, {"pp", p.pp}, {"dp", p.dp}, {"cp", p.cp}, {"ep", p.ep}, {"sp", p.sp},
            {"pp_schedule", sched}, {"virtual_stages", p.virtual_stages}, {"zero", p.zero}};
  if (p.etp > 0) j["etp"] = p.etp;  // named (the search's etp 1 beside the default), else the default
  return j;
}

std::string ep_text(const json& par) {
  std::string ep = std::to_string(par.value("ep", 1));
  return par.contains("etp") ? ep + "/" + std::to_string(par.value("etp", 1)) : ep;
}

json training_to_json(const Training& t) {
  json j = {{"global_batch", t.global_batch}, {"micro_batch", t.micro_batch}, {"seq_len", t.seq_len},
            {"precision", training_precision_name(t)}, {"recompute", name_of(recompute_names(), t.recompute)},
            {"optimizer", t.optimizer == Optimizer::adam ? "adam" : "sgd"}, {"flash_attention", t.flash_attention},
            {"overlap", {{"dp", t.overlap.dp}, {"tp", t.overlap.tp}, {"pp", t.overlap.pp}}}};
  if (t.tokens > 0) j["tokens"] = t.tokens;
  if (t.offload != Offload::none) j["offload"] = name_of(offload_names(), t.offload);
  if (t.offload_activations > 0) j["offload_activations"] = t.offload_activations;
  return j;
}

bool warned_alone(const json& plan, const json& best) {
  const auto warnings = [](const json& b) { return b.value("warnings", json::array()); };
  const auto everywhere = [&](const json& w) {
    return std::all_of(best.begin(), best.end(), [&](const json& b) {
      const json ws = warnings(b);
      return std::find(ws.begin(), ws.end(), w) != ws.end();
    });
  };
  const json ws = warnings(plan);
  return !std::all_of(ws.begin(), ws.end(), everywhere);
}

// The plan to recommend among the best: the fastest the calculator has no
// warning of its own for (the very fastest often fit with under 5% to spare),
// else the fastest. A warning every listed plan carries (goodput at a huge GPU
// count) says nothing of the plan. "Find a plan that fits" and the studies take it.
long long recommended_plan(const json& best) {
  for (size_t i = 0; i < best.size(); ++i)
    if (!warned_alone(best[i], best)) return static_cast<long long>(i);
  return 0;
}

}  // namespace llmcalc
