// How far the model has been from published runs of the same kind as a
// scenario: the validation set (tests/validation/public) summarised per
// regime, committed as core/presets/validation/accuracy.json and embedded,
// so every result can say how much to trust it.
#pragma once

#include <string>
#include <vector>

#include "llmcalc/scenario.h"
#include "output.h"

namespace llmcalc {

struct Regime {
  const char* id;
  const char* label;
};

// Every regime, in the order reports list them.
const std::vector<Regime>& regimes();
// The regime of that id, or null.
const Regime* find_regime(const std::string& id);
// The regime a scenario belongs to (one per scenario; MoE first, then how
// the model is split).
const Regime& regime_of(const Scenario& s);
// The same for the scenario run with the parallelism `p` (a search's plan).
const Regime& regime_of_plan(const Scenario& s, const Parallelism& p);
// The other kind whose validation speaks for the plan, or null: for a ZeRO-3
// training plan of another kind (MoE, LoRA, offloaded), the fully sharded
// one, whose runs measure its per-layer parameter gathers.
const Regime* also_regime_of_plan(const Scenario& s, const Parallelism& p);
// Every kind whose validation speaks for the plan: its regime, then the other.
std::vector<const Regime*> plan_regimes(const Scenario& s, const Parallelism& p);
// The embedded summary: {"regimes": {id: {"label", "metrics": [{metric, cases, ...}]}}}.
const json& accuracy_table();
// {"label", "metrics": [...]} of one regime; metrics is empty when no
// published run of that kind is in the validation set.
json regime_accuracy(const Regime& r);
// Beyond this mean |error| on published runs, a kind of run is flagged: the
// accuracy the project targets per family of runs (issue 12: mean absolute
// error <= 15%); the page's caution box uses the same bound.
constexpr double kWideMeanError = 0.15;
// A caution for plans of regime `r` when the model has been optimistic about
// that kind of run in `metric` (e.g. "training.iteration_time_s"): a mean
// |error| of kWideMeanError or more over its published runs, with the bias
// making plans look better (times predicted low, rates high). Empty
// otherwise. A search ranks by the model, so such plans can rank too high.
std::string regime_caution(const Regime& r, const std::string& metric);
// Whether a published run of that regime ran on `device` (by its name).
bool regime_ran_on(const Regime& r, const std::string& device);
// The model's layer kinds that cost differently from dense softmax attention
// and that a validation run may or may not have had, by name ("Mamba-2
// layers", "multi-head latent attention", ...); empty for a plain GQA/MHA model.
std::vector<std::string> architecture_features(const Model& m);
// Those of the model's kinds that none of the regime's runs had (a JSON array).
json unvalidated_architecture(const Regime& r, const Model& m);
// regime_accuracy of the scenario's regime, with its id as "regime", the
// scenario's device and whether any of the runs used it ("device_validated"),
// and the model's layer kinds none of the runs had ("architecture_unvalidated");
// "also": the other kinds of plan_regimes with their figures, when there are.
json accuracy_json(const Scenario& s);

}  // namespace llmcalc
