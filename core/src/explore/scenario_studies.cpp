#include "scenario_studies.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "model_math.h"
#include "output.h"
#include "parse.h"
#include "precision_fit.h"
#include "presets.h"
#include "reliability.h"
#include "schema.h"
#include "search.h"
#include "strict_json.h"
#include "summary_text.h"

namespace llmcalc {

namespace {

// The scenario on `system`, with what "Find a plan that fits" leaves to the
// search: the parallelism (zero stays 3 under parameter offload, which needs
// it) and, for training, the micro-batch and recompute.
json on_system(json run, const json& system, long long gpus) {
  run["system"] = system;
  json& t = run["training"];
  const bool params_offloaded = t.is_object() && t.value("offload", std::string()) == "parameters";
  run["parallelism"] = params_offloaded ? json{{"zero", 3}} : json::object();
  if (t.is_object()) {
    t.erase("micro_batch");
    t.erase("recompute");
  } else {
    run.erase("training");
  }
  run["search"] = {{"gpus", gpus}, {"top", 10}};
  return run;
}

// The figure the search ranks by: iteration time (lower is better) or
// output tokens per second per GPU (higher is better), as a speed.
double speed(const json& plan, Mode mode) {
  if (mode == Mode::training) return 1.0 / plan.at("iteration_time_s").get<double>();
  return plan.at("output_tokens_per_s_per_gpu").get<double>();
}

// The plan's work per million tokens (training) or output tokens (serving),
// from the full evaluation: GPU-hours, and wall energy where the device gives
// its power. Dollars are left out: one GPU-hour price does not fit every system.
json per_million_tokens(json run, const json& plan, Mode mode) {
  const char* section = mode == Mode::training ? "training" : "inference";
  run.erase("search");
  run["parallelism"] = plan.at("parallelism");
  run[section] = plan.at(section);
  Scenario parsed;  // the result alone: no what-if or kernel variants beside it
  const Result r = evaluate_input(run, &parsed);
  const json cost = result_to_json(parsed, r).at(section).at("cost");
  const json& f = cost.at(mode == Mode::training ? "per_million_tokens" : "per_million_output_tokens");
  json out = {{"gpu_hours", f.at("gpu_hours")}};
  if (f.contains("kwh")) out["kwh"] = f.at("kwh");
  return out;
}

// How far the model has been from published runs of the plan's kind on its
// headline metric (the search's "accuracy" for the plan's regime), and
// whether any of them ran on this system's device.
json plan_accuracy(const json& search, const json& plan, Mode mode) {
  const std::string regime = plan.value("regime", std::string());
  const json& all = search.value("accuracy", json::object());
  if (regime.empty() || !all.contains(regime)) return nullptr;
  const json& a = all.at(regime);
  const std::string headline = ranked_metric(mode);
  json out = {{"regime", regime}, {"label", a.value("label", regime)}, {"device_validated", a.value("device_validated", false)}};
  for (const json& m : a.value("metrics", json::array()))
    if (m.value("metric", std::string()) == headline) {
      out["metric"] = headline;
      out["cases"] = m.at("cases");
      out["mean_abs_error"] = m.at("mean_abs_error");
      out["mean_error"] = m.at("mean_error");
    }
  return out;
}

// One row of a study: the search on `run` (a scenario with its search
// section), its recommended plan and what that costs per million tokens, or
// the memory the leanest plan needs when none fits, or why the run is invalid.
json searched_row(json row, const json& run, Mode mode) {
  row["fits"] = false;
  try {
    const Scenario s = parse_scenario(run);
    row["device"] = s.system.device.name;
    if (!s.system.device.memory.empty()) row["capacity_bytes"] = s.system.device.memory.back().capacity_bytes;
    json quiet = run;
    quiet["search"]["more_gpus"] = false;  // a study row says what fits on its own count
    const json out = search_scenario(quiet).at("search");
    const json& best = out.at("best");
    if (!best.empty()) {
      row["fits"] = true;
      row["plan"] = best.at(out.at("recommended").get<size_t>());  // as "Find a plan that fits" takes
      row["speed"] = speed(row["plan"], mode);
      row["per_million_tokens"] = per_million_tokens(run, row["plan"], mode);
      const json accuracy = plan_accuracy(out, row["plan"], mode);
      if (!accuracy.is_null()) row["accuracy"] = accuracy;
    } else if (out.contains("closest")) {
      row["closest_memory_bytes"] = out.at("closest").at("memory_bytes_total");
    }
  } catch (const InputError& e) {
    row["error"] = (e.path.empty() ? "" : e.path + ": ") + e.what();
  }
  return row;
}

json system_row(const std::string& label, const json& system, const json& scenario, long long gpus, Mode mode) {
  json row = {{"system", label}};
  json run = on_system(scenario, system, gpus);
  fit_math_to_system(run, row, mode);
  return searched_row(row, run, mode);
}

// The scenario a study runs, parsed; its errors are named under "params".
Scenario study_scenario(const json& params, const std::string& study) {
  if (!params.is_object() || params.empty()) throw InputError("params", "the " + study + " study takes a scenario as its params");
  for (const char* k : {"search", "sweep"})
    if (params.contains(k)) throw InputError(std::string("params.") + k, "the " + study + " study searches each plan itself");
  try {
    return parse_scenario(params);
  } catch (const InputError& e) {
    throw InputError(e.path.empty() ? "params" : "params." + e.path, e.what());
  }
}

// The scenario's system as given; without one, the table's default preset.
json own_system(const json& params) { return params.contains("system") ? params.at("system") : field_spec("system").def; }

// The whole run's rate: training tokens per second, or output tokens per
// second over all the plan's GPUs (prefill instances included).
double throughput(const json& plan, Mode mode, long long gpus) {
  if (mode == Mode::training) return plan.at("tokens_per_s").get<double>();
  return plan.at("output_tokens_per_s_per_gpu").get<double>() * static_cast<double>(gpus);
}

// The label of the scenario's own system: its preset id, or its name.
std::string own_label(const json& own, const Scenario& base) {
  return own.is_string() ? own.get<std::string>() : "this scenario's system (" + base.system.name + ")";
}

// The row the systems' speed-ups are over: the scenario's own (the first)
// where a plan fits there; otherwise the slowest system that fits, so the
// bars still rank the systems; null when none fits.
json* speed_reference(json& rows) {
  if (rows.at(0).contains("speed")) return &rows.at(0);
  json* slowest = nullptr;
  for (json& r : rows)
    if (r.contains("speed") && (!slowest || r.at("speed").get<double>() < slowest->at("speed").get<double>())) slowest = &r;
  return slowest;
}

}  // namespace

json systems_study(const json& params) {
  const Scenario base = study_scenario(params, "systems");
  const long long gpus = base.par.gpus();
  const json own = own_system(params);
  const std::string own_id = own.is_string() ? own.get<std::string>() : "";
  json rows = json::array();
  // The scenario's own system first: the speed-ups are over it where it fits.
  rows.push_back(system_row(own_label(own, base), own, params, gpus, base.mode));
  rows.back()["own"] = true;
  for (const auto& item : all_presets().at("systems").items())
    if (item.key() != own_id) rows.push_back(system_row(item.key(), item.key(), params, gpus, base.mode));
  json* reference = speed_reference(rows);
  const double base_speed = reference ? reference->at("speed").get<double>() : 0.0;
  if (reference) (*reference)["reference"] = true;
  for (json& r : rows) {
    if (base_speed > 0 && r.contains("speed")) r["speedup"] = r.at("speed").get<double>() / base_speed;
    r.erase("speed");
  }
  const std::string what = base.mode == Mode::training ? "training" : "serving";
  return {{"study", "systems"},
          {"mode", base.mode == Mode::training ? "training" : "inference"},
          {"gpus", gpus},
          {"workload", base.model.name + " " + what + " on " + std::to_string(gpus) + (gpus == 1 ? " GPU" : " GPUs") +
                           " of each system; parallelism" + (base.mode == Mode::training ? ", micro-batch and recompute" : "") +
                           " searched on each and the fastest plan without a warning taken; the rest of the scenario kept"},
          {"rows", rows}};
}

// GPU counts from an eighth of the scenario's to eight times, a factor of two
// apart; the whole counts of at least one GPU.
std::vector<long long> scaling_counts(long long own) {
  std::vector<long long> out;
  for (int k = -3; k <= 3; ++k) {
    if (k < 0 && own % (1LL << -k) != 0) continue;
    const long long n = k < 0 ? own >> -k : own << k;
    if (n >= 1) out.push_back(n);
  }
  return out;
}

// The scenario at each GPU count: its rows with throughput, speed-up over
// the reference count (the scenario's own, or the fewest GPUs that fit) and
// the share of linear scaling kept (1: each GPU does as much as there).
// `global_batch(n)`: the training global batch at n GPUs, or 0 to skip that
// count. `searched`: rows already searched, by (GPUs, global batch), shared
// by the strong and weak passes (they meet at the scenario's own count).
using SearchedRows = std::map<std::pair<long long, long long>, json>;

// Goodput of the scenario's training on `gpus` GPUs: interruptions come as
// often as the GPUs are many, whatever the plan (core/src/sim/reliability.cpp).
double goodput_on(const Scenario& base, long long gpus) {
  Scenario s = base;
  s.par.tp = s.par.pp = s.par.cp = 1;
  s.par.dp = static_cast<int>(std::min<long long>(gpus, 1LL << 30));
  return training_reliability(s, 0).goodput;
}

template <class Batch>
json scaling_rows(const json& params, const Scenario& base, const std::vector<long long>& counts, Batch global_batch,
                  SearchedRows& searched) {
  const long long own_gpus = base.par.gpus();
  const json own = own_system(params);
  json rows = json::array();
  for (long long n : counts) {
    json run = params;
    const long long gb = global_batch(n);
    if (base.mode == Mode::training) {
      if (gb <= 0) continue;
      run["training"]["global_batch"] = gb;
    }
    auto [at, fresh] = searched.try_emplace({n, gb});
    if (fresh) at->second = system_row(own_label(own, base), own, run, n, base.mode);
    json row = at->second;
    row["gpus"] = n;
    if (base.mode == Mode::training) row["global_batch"] = gb;
    row.erase("speed");
    if (row.contains("plan")) row["throughput"] = throughput(row.at("plan"), base.mode, n);
    if (base.mode == Mode::training) row["goodput"] = goodput_on(base, n);
    if (n == own_gpus) row["own"] = true;
    rows.push_back(row);
  }
  // The reference count: the scenario's own, or where no plan fits there
  // the fewest GPUs that hold one (the usual base of a scaling curve).
  json* reference = nullptr;
  for (json& r : rows) {
    if (!r.contains("throughput")) continue;
    if (r.value("own", false)) {
      reference = &r;
      break;
    }
    if (!reference) reference = &r;
  }
  if (!reference) return rows;
  (*reference)["reference"] = true;
  const double base_rate = reference->at("throughput").get<double>(), base_gpus = reference->at("gpus").get<double>();
  for (json& r : rows)
    if (r.contains("throughput")) {
      const double speedup = r.at("throughput").get<double>() / base_rate;
      r["speedup"] = speedup;
      r["efficiency"] = speedup * base_gpus / r.at("gpus").get<double>();
    }
  return rows;
}

json scaling_study(const json& params) {
  const Scenario base = study_scenario(params, "scaling");
  const long long own_gpus = base.par.gpus();
  const json own = own_system(params);
  const std::vector<long long> counts = scaling_counts(own_gpus);
  const long long gb = base.train.global_batch;
  // Strong scaling: the global batch kept (a training run's hyperparameter).
  SearchedRows searched;
  const json rows = scaling_rows(params, base, counts, [&](long long) { return gb; }, searched);
  const bool training = base.mode == Mode::training;
  const std::string& unit = base.system.device.unit_name;  // "GPU", a TPU's "chip"
  json out = {{"study", "scaling"},
              {"mode", training ? "training" : "inference"},
              {"gpus", own_gpus},
              {"unit_name", unit},
              {"system", own_label(own, base)},
              {"workload", base.model.name + (training ? " training" : " serving") + " on " + own_label(own, base) + ", " +
                               std::to_string(rows.front().at("gpus").get<long long>()) + " to " +
                               units_text(unit, rows.back().at("gpus").get<double>()) + " (the scenario: " +
                               std::to_string(own_gpus) + "); parallelism" + (training ? ", micro-batch and recompute" : "") +
                               " searched at each count and the fastest plan without a warning taken; the rest of the scenario kept" +
                               (training ? ", the global batch as given (strong scaling) and grown with the " + unit + "s (weak scaling)" : "")},
              {"rows", rows}};
  // Weak scaling (training): the global batch grows with the GPUs, each
  // keeping its share of the scenario's (whole sequences only), the
  // question when the batch may grow with the cluster.
  if (training)
    out["weak"] = scaling_rows(
        params, base, counts, [&](long long n) { return gb * n % own_gpus == 0 ? gb * n / own_gpus : 0; }, searched);
  return out;
}

// The scenario with `model` in place of its own, on its system at its GPU
// count: the row of the search there, with the model's parameter counts and
// the run's throughput.
json model_row(const std::string& label, const json& model, const json& params, const json& system, long long gpus, Mode mode) {
  json run = params;
  run["model"] = model;
  run = on_system(run, system, gpus);
  json row = searched_row({{"model", label}}, run, mode);
  row.erase("speed");
  try {
    const Scenario s = parse_scenario(run);
    const ParamCount c = count_params(s.model);
    row["name"] = s.model.name;
    row["parameters"] = c.total;
    row["parameters_active"] = c.active;
  } catch (const InputError&) {
    // The row already names the error.
  }
  if (row.contains("plan")) row["throughput"] = throughput(row.at("plan"), mode, gpus);
  return row;
}

json models_study(const json& params) {
  const Scenario base = study_scenario(params, "models");
  const long long gpus = base.par.gpus();
  const json system = own_system(params);
  const json own = params.contains("model") ? params.at("model") : field_spec("model").def;
  const std::string own_id = own.is_string() ? own.get<std::string>() : "";
  json rows = json::array();
  rows.push_back(model_row(own.is_string() ? own_id : "this scenario's model (" + base.model.name + ")", own, params, system, gpus, base.mode));
  rows.back()["own"] = true;
  std::vector<json> others;
  for (const auto& item : all_presets().at("models").items())
    if (item.key() != own_id) others.push_back(model_row(item.key(), item.key(), params, system, gpus, base.mode));
  // Smallest first, so the table reads up to the largest model that fits.
  std::stable_sort(others.begin(), others.end(), [](const json& a, const json& b) {
    return a.value("parameters", 1e300) < b.value("parameters", 1e300);
  });
  for (json& r : others) rows.push_back(std::move(r));
  const bool training = base.mode == Mode::training;
  const std::string& unit = base.system.device.unit_name;  // "GPU", a TPU's "chip"
  return {{"study", "models"},
          {"mode", training ? "training" : "inference"},
          {"gpus", gpus},
          {"unit_name", unit},
          {"system", own_label(system, base)},
          {"workload", std::string("every model preset") + (training ? " training" : " serving") + " on " +
                           units_text(unit, static_cast<double>(gpus)) + " of " + own_label(system, base) + "; parallelism" +
                           (training ? ", micro-batch and recompute" : "") +
                           " searched for each and the fastest plan without a warning taken; the rest of the scenario kept"},
          {"rows", rows}};
}

}  // namespace llmcalc
