// The search's plans as JSON and the plan it recommends: each kept plan
// re-evaluated by the reference model, its warnings and the cautions on its
// kinds of run (accuracy.h), the validation quoted for those kinds.
#include "search_entries.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "accuracy.h"
#include "enum_names.h"
#include "evaluate.h"
#include "output.h"
#include "parse.h"
#include "search.h"

namespace llmcalc::search_detail {

using json = nlohmann::json;

namespace {

// The cautions for a plan's kinds of run (plan_regimes) where the model has
// been optimistic about them in the metric the search ranks by
// (regime_caution): the plan may only look fast.
std::vector<std::string> plan_cautions(const Scenario& s, const Parallelism& p, const char* metric) {
  std::vector<std::string> out;
  for (const Regime* r : plan_regimes(s, p)) {
    std::string caution = regime_caution(*r, metric);
    if (!caution.empty()) out.push_back(std::move(caution));
  }
  return out;
}

// A plan's warnings and its cautions. The recommended plan is the fastest
// without a warning, so a kind validated closely is recommended over it.
std::vector<std::string> with_cautions(std::vector<std::string> warnings, const Scenario& s, const char* metric) {
  for (std::string& c : plan_cautions(s, s.par, metric)) warnings.push_back(std::move(c));
  return warnings;
}

}  // namespace

// The validation of each kind of plan among `plans` (their "regime"s, and
// the "also_regime" of a plan that is of a second kind too): the ranking is
// the model's, and kinds of run the model has been optimistic about can rank
// too high (accuracy.h); "device_validated" says whether any of the runs used
// the searched system's device, "architecture_unvalidated" which of the
// model's layer kinds none of them had.
json regimes_of(const json& plans, const Scenario& base) {
  json out = json::object();
  for (const json& p : plans)
    for (const char* key : {"regime", "also_regime"})
      for (const Regime& r : regimes())
        if (p.value(key, "") == r.id && !out.contains(r.id)) {
          out[r.id] = regime_accuracy(r);
          out[r.id]["device_validated"] = regime_ran_on(r, base.system.device.name);
          out[r.id]["architecture_unvalidated"] = unvalidated_architecture(r, base.model);
        }
  return out;
}

// One returned configuration, re-evaluated once by the reference model,
// with the calculator's warnings for it (a tight fit, fewer micro-batches
// than stages ...). The plan is costed as searched: no recompute is added to
// make it fit (the closest plan may not).
json entry_json(const Scenario& base, const Candidate& c) {
  Scenario s = base;
  s.par = c.par;
  s.train.recompute_to_fit = false;
  json j;
  j["parallelism"] = parallelism_to_json(c.par);
  if (s.mode == Mode::training) {
    s.train.micro_batch = c.micro_batch;
    s.train.recompute = c.rc;
    const Regime& kind = regime_of(s);
    j["regime"] = kind.id;
    // A ZeRO-3 plan of another kind is of the fully sharded kind too.
    if (const Regime* also = also_regime_of_plan(s, s.par)) j["also_regime"] = also->id;
    const Result full = evaluate(s);
    const TrainingResult& r = full.training;
    j["warnings"] = with_cautions(full.warnings, s, ranked_metric(s.mode));
    // Costed without recompute added to fit: a plan that fits reads back the
    // same either way, so only one that does not names it.
    Training shown = s.train;
    if (r.fits) shown.recompute_to_fit = base.train.recompute_to_fit;
    // The host cost the system gives is what an absent setting reads back as.
    if (shown.host_overhead_s == s.system.device.efficiency.host_overhead_s) shown.host_overhead_s = -1;
    j["training"] = training_to_json(shown);
    j["iteration_time_s"] = r.iteration_time_s;
    j["memory_bytes_total"] = r.memory.total;
    j["tokens_per_s"] = r.tokens_per_s;
    j["mfu"] = r.mfu;
    j["bound"] = r.bound;
  } else {
    s.infer.batch = c.batch;
    s.infer.prefill_tp = c.prefill_tp;
    if (c.token_budget >= 0) s.infer.inflight = true, s.infer.token_budget = c.token_budget;
    pick_moe_gemm(s);
    const Regime& kind = regime_of(s);
    j["regime"] = kind.id;
    const Result full = evaluate(s);
    const InferenceResult& r = full.inference;
    j["warnings"] = with_cautions(full.warnings, s, ranked_metric(s.mode));
    j["inference"] = inference_to_json(s.infer);
    if (r.disaggregated) j["prefill_instances"] = r.prefill_pool.instances;
    j["replica_gpus"] = r.replica_gpus;
    j["output_tokens_per_s"] = r.output_tokens_per_s;
    j["output_tokens_per_s_per_gpu"] = r.output_tokens_per_s / r.replica_gpus;
    j["ttft_s"] = r.ttft_s;
    j["tpot_s"] = r.tpot_s;
    // what each sequence sees while it decodes (speculative decoding: more than one token a step)
    j["output_tokens_per_s_per_user"] = r.tpot_s > 0 ? r.tokens_per_step / r.tpot_s : 0.0;
    j["e2e_latency_s"] = r.e2e_latency_s;
    j["memory_bytes_total"] = r.memory.total;
  }
  return j;
}

namespace {

std::vector<std::string> warnings_of(const json& plan) {
  std::vector<std::string> out;
  for (const json& w : plan.value("warnings", json::array())) out.push_back(w.get<std::string>());
  return out;
}

// The warnings every plan carries: those on the whole run (goodput at a GPU
// count, a caution on every kind), which say nothing of one plan against
// another. Taken over the listed plans and each kind's kept plans, costed
// only until the set is empty (usually within a plan or two), so that a short
// list, or one whose plans all sit at the memory ceiling, does not make a
// plan's own warning look shared.
std::vector<std::string> run_warnings(const Scenario& base, const std::map<std::string, std::vector<Candidate>>& kinds,
                                      const json& best) {
  std::vector<std::string> shared = warnings_of(best.front());
  const auto keep_common = [&](const std::vector<std::string>& ws) {
    shared.erase(std::remove_if(shared.begin(), shared.end(),
                                [&](const std::string& w) { return std::find(ws.begin(), ws.end(), w) == ws.end(); }),
                 shared.end());
  };
  for (const json& b : best) keep_common(warnings_of(b));
  for (const auto& entry : kinds)
    for (const Candidate& c : entry.second) {
      if (shared.empty()) return shared;
      keep_common(warnings_of(entry_json(base, c)));
    }
  return shared;
}

bool has_own_warning(const json& plan, const std::vector<std::string>& shared) {
  const std::vector<std::string> ws = warnings_of(plan);
  return std::any_of(ws.begin(), ws.end(),
                     [&](const std::string& w) { return std::find(shared.begin(), shared.end(), w) == shared.end(); });
}

}  // namespace

// When the plan recommended among `best` carries a caution that some kind of
// plan the search met escapes (every listed plan is then of a kind the model
// has been optimistic about, or warned otherwise), or when every listed plan
// carries a warning of its own (the fastest often fit with under 5% to
// spare), the fastest plan without such a caution or warning is appended and
// recommended: a kind's best plans are costed in turn and the first without a
// warning of its own taken, so the recommendation does not hang on how many
// plans were asked for. A caution no kind escapes (every plan of an MoE model
// is MoE training) says nothing of one plan against another. The appended
// plan's "beyond_top_why" says which: "kind" or "warnings". Returns the index.
long long recommend_trusted_kind(const Scenario& base, const Collector& col, const char* metric, json& best) {
  const long long rec = recommended_plan(best);
  const auto kinds = col.best_by_kind();
  auto cautions_of = [&](const Candidate& c) { return plan_cautions(base, c.par, metric); };
  std::vector<std::vector<std::string>> per_kind;
  for (const auto& entry : kinds)
    if (!entry.second.empty()) per_kind.push_back(cautions_of(entry.second.front()));
  const auto escapable = [&](const std::string& caution) {
    return std::any_of(per_kind.begin(), per_kind.end(), [&](const std::vector<std::string>& cs) {
      return std::find(cs.begin(), cs.end(), caution) == cs.end();
    });
  };
  const json warnings = best[static_cast<size_t>(rec)].value("warnings", json::array());
  std::vector<std::string> own;  // the recommended plan's cautions, among its warnings
  for (const auto& kind : per_kind)
    for (const std::string& c : kind)
      if (std::find(warnings.begin(), warnings.end(), c) != warnings.end()) own.push_back(c);
  const bool cautioned = std::any_of(own.begin(), own.end(), escapable);
  const std::vector<std::string> shared = run_warnings(base, kinds, best);
  const bool all_warned = has_own_warning(best[static_cast<size_t>(rec)], shared);
  if (!cautioned && !all_warned) return rec;
  std::optional<json> pick;
  double pick_score = 0;  // Candidate::score orders both modes, lower is better
  for (const auto& entry : kinds) {
    for (const Candidate& c : entry.second) {
      const std::vector<std::string> cs = cautions_of(c);
      if (std::any_of(cs.begin(), cs.end(), escapable)) break;  // the kind's plans share its cautions
      if (pick && c.score >= pick_score) break;                 // the kind's later plans are slower still
      json e = entry_json(base, c);
      if (has_own_warning(e, shared)) continue;
      pick = std::move(e), pick_score = c.score;
      break;
    }
  }
  if (!pick) return rec;
  (*pick)["beyond_top"] = true;
  (*pick)["beyond_top_why"] = cautioned ? "kind" : "warnings";
  best.push_back(std::move(*pick));
  return static_cast<long long>(best.size()) - 1;
}

}  // namespace llmcalc::search_detail
