#include "accuracy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "presets.h"

namespace llmcalc {

const std::vector<Regime>& regimes() {
  static const std::vector<Regime> kAll = {
      {"dense_model_parallel_training", "dense training with tensor or pipeline parallelism (Megatron-style)"},
      {"dense_data_parallel_training", "dense data-parallel training (DDP or ZeRO-1/2, with or without context parallelism)"},
      {"sharded_data_parallel_training", "fully sharded data parallel training (ZeRO-3 / FSDP, with or without tensor parallelism)"},
      {"moe_training", "mixture-of-experts training"},
      {"lora_training", "LoRA / QLoRA fine-tuning (frozen weights, trained adapters)"},
      {"offloaded_training", "training with the optimizer, the weights or activations offloaded to host memory (ZeRO-Offload, ZeRO-Infinity, Megatron-Core CPU offloading)"},
      {"dense_inference", "dense-model serving"},
      {"weight_only_inference", "serving with int8/int4 weight-only quantisation"},
      {"moe_inference", "mixture-of-experts serving"},
  };
  return kAll;
}

const Regime* find_regime(const std::string& id) {
  for (const Regime& r : regimes())
    if (id == r.id) return &r;
  return nullptr;
}

namespace {
// By a literal id, without building a string: the search asks it of every
// plan it keeps.
const Regime& regime(const char* id) {
  for (const Regime& r : regimes())
    if (std::strcmp(r.id, id) == 0) return r;
  return regimes().front();  // unreachable: every id below is in the table
}
}  // namespace

// The split follows the regimes of the published runs (issue 12's table):
// what the model costs differently (expert routing, per-layer parameter
// gathers, model-parallel collectives, weight dequantisation) decides the
// kind, not the model's size.
const Regime& regime_of(const Scenario& s) { return regime_of_plan(s, s.par); }

const Regime& regime_of_plan(const Scenario& s, const Parallelism& p) {
  if (s.mode == Mode::inference) {
    if (s.model.is_moe()) return regime("moe_inference");
    const Precision w = s.infer.weight_precision;
    return regime(w == Precision::int8 || w == Precision::int4 ? "weight_only_inference" : "dense_inference");
  }
  // The host's optimizer step and copies add a cost no other kind has.
  if (s.train.offload != Offload::none || s.train.offload_activations > 0) return regime("offloaded_training");
  // Fine-tuning drops the weight gradients and most of the data-parallel
  // traffic whatever the split: its own kind.
  if (s.train.lora()) return regime("lora_training");
  if (s.model.is_moe()) return regime("moe_training");
  // Per-layer parameter gathers every micro-batch (ZeRO-3), beside tensor
  // parallelism or not (torchtitan's 2D FSDP + TP): the gathers, hidden or
  // not behind the compute, are what Megatron's runs never exercise.
  if (p.zero >= 3) return regime("sharded_data_parallel_training");
  // Context parallelism splits the sequence, not the weights: such runs stay
  // data parallel (their costs are the replicated model's).
  const bool model_parallel = p.tp > 1 || p.pp > 1;
  return regime(model_parallel ? "dense_model_parallel_training" : "dense_data_parallel_training");
}

const Regime* also_regime_of_plan(const Scenario& s, const Parallelism& p) {
  const Regime& sharded = regime("sharded_data_parallel_training");
  if (s.mode != Mode::training || p.zero < 3 || &regime_of_plan(s, p) == &sharded) return nullptr;
  return &sharded;
}

std::vector<const Regime*> plan_regimes(const Scenario& s, const Parallelism& p) {
  std::vector<const Regime*> out{&regime_of_plan(s, p)};
  if (const Regime* also = also_regime_of_plan(s, p)) out.push_back(also);
  return out;
}

const json& accuracy_table() {
  static const json kTable = [] {
    json t = embedded_file("validation/accuracy.json");
    return t.is_object() && t.contains("regimes") ? t : json{{"regimes", json::object()}};
  }();
  return kTable;
}

json regime_accuracy(const Regime& r) {
  const json& all = accuracy_table().at("regimes");
  return {{"label", r.label}, {"metrics", all.contains(r.id) ? all.at(r.id).at("metrics") : json::array()}};
}

namespace {
std::string percent(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * std::fabs(share));
  return buf;
}

// Rates (tokens/s) are better high; times and memory low.
bool higher_is_better(const std::string& metric) { return metric.find("per_s") != std::string::npos; }

std::string metric_words(const std::string& metric) {
  if (metric == "training.iteration_time_s") return "iteration time";
  if (metric == "inference.output_tokens_per_s") return "output tokens/s";
  return metric;
}
}  // namespace

std::string regime_caution(const Regime& r, const std::string& metric) {
  const json accuracy = regime_accuracy(r);  // held: a range-for over .at() of a temporary would dangle
  for (const json& m : accuracy.at("metrics")) {
    if (m.value("metric", "") != metric || m.value("mean_abs_error", 0.0) < kWideMeanError) continue;
    const double bias = m.value("mean_error", 0.0);
    if (higher_is_better(metric) ? bias <= 0 : bias >= 0) return "";  // pessimistic: it ranks no higher than it should
    const long long runs = m.value("cases", 0LL);
    return "the model has been optimistic about this kind of run, so it may rank too high: " + std::string(r.label) +
           ", " + metric_words(metric) + " predicted " + percent(bias) + (bias > 0 ? " high" : " low") +
           " on balance over " + std::to_string(runs) + " published run" + (runs == 1 ? "" : "s") + " (" +
           percent(m.value("mean_abs_error", 0.0)) + " mean error)";
  }
  return "";
}

// Whether a published run of this regime ran on the scenario's device (by
// its name): figures from other hardware say little about a device whose
// efficiencies are assumptions.
bool regime_ran_on(const Regime& r, const std::string& device) {
  const json& all = accuracy_table().at("regimes");
  if (!all.contains(r.id) || !all.at(r.id).contains("devices")) return false;
  for (const auto& d : all.at(r.id).at("devices"))
    if (d.is_string() && d.get<std::string>() == device) return true;
  return false;
}

std::vector<std::string> architecture_features(const Model& m) {
  std::vector<std::string> f;
  if (m.mla.on()) f.emplace_back("multi-head latent attention");
  if (m.sparse.on()) f.emplace_back("sparse attention");
  if (m.attention.kind == LocalAttention::window) f.emplace_back("sliding-window attention");
  if (m.attention.kind == LocalAttention::chunk) f.emplace_back("chunked local attention");
  if (m.attention.output_gate) f.emplace_back("gated attention");
  if (m.linear.on()) f.emplace_back(m.linear.kind == LinearKind::mamba2 ? "Mamba-2 layers" : "Gated DeltaNet layers");
  if (m.mtp_layers > 0) f.emplace_back("multi-token prediction");
  return f;
}

// The model's layer kinds that none of the regime's runs had: its figures
// say nothing about how those layers are costed.
json unvalidated_architecture(const Regime& r, const Model& m) {
  const json& all = accuracy_table().at("regimes");
  const json none = json::array();
  const json& seen = all.contains(r.id) && all.at(r.id).contains("architectures") ? all.at(r.id).at("architectures") : none;
  json out = json::array();
  for (const std::string& f : architecture_features(m))
    if (std::find(seen.begin(), seen.end(), f) == seen.end()) out.push_back(f);
  return out;
}

json accuracy_json(const Scenario& s) {
  const Regime& r = regime_of(s);
  json out = regime_accuracy(r);
  out["regime"] = r.id;
  out["device"] = s.system.device.name;
  out["device_validated"] = regime_ran_on(r, s.system.device.name);
  out["architecture_unvalidated"] = unvalidated_architecture(r, s.model);
  // The other kinds whose runs measure a mechanism the plan runs (a ZeRO-3
  // MoE plan's gathers): their figures, quoted beside the plan's own.
  const std::vector<const Regime*> kinds = plan_regimes(s, s.par);
  if (kinds.size() > 1) {
    json also = json::array();
    for (size_t i = 1; i < kinds.size(); ++i) {
      json a = regime_accuracy(*kinds[i]);
      a["regime"] = kinds[i]->id;
      also.push_back(std::move(a));
    }
    out["also"] = std::move(also);
  }
  return out;
}

}  // namespace llmcalc
