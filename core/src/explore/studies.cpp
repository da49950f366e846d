#include "studies.h"

#include <cmath>
#include <cstdio>

#include "output.h"
#include "presets.h"
#include "schema.h"
#include "search.h"
#include "scenario_studies.h"
#include "strict_json.h"
#include "summary_text.h"
#include "technology.h"

namespace llmcalc {

namespace {

json system_preset(const std::string& id) { return *find_preset("systems", id); }


// Left-aligned first column, right-aligned rest.
std::string table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> w;
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size(); ++i) {
      if (w.size() <= i) w.push_back(0);
      w[i] = std::max(w[i], r[i].size());
    }
  std::string out;
  for (size_t k = 0; k < rows.size(); ++k) {
    for (size_t i = 0; i < rows[k].size(); ++i) {
      const std::string& c = rows[k][i];
      const std::string pad(w[i] - c.size(), ' ');
      out += i == 0 ? c + pad : "  " + pad + c;
    }
    out += "\n";
    if (k == 0) {
      size_t total = 0;
      for (size_t x : w) total += x + 2;
      out += std::string(total - 2, '-') + "\n";
    }
  }
  return out;
}

// ---- (a) GPU generations: GPT-3 175B, 1,024 GPUs, global batch 1,536 ----

json gpt3_run(const json& system, const std::string& precision) {
  return {{"mode", "training"}, {"model", "gpt3-175b"}, {"system", system},
          {"training", {{"global_batch", 1536}, {"precision", precision}, {"flash_attention", true}}},
          {"search", {{"gpus", 1024}, {"top", 1}}}};
}

// Best plan of a run (searched), or the plan `fixed` re-evaluated.
json best_plan(json run, const json& fixed) {
  if (!fixed.is_null()) {
    run["parallelism"] = fixed["parallelism"];
    run["training"]["micro_batch"] = fixed["training"]["micro_batch"];
    run["training"]["recompute"] = fixed["training"]["recompute"];
  }
  run["search"]["more_gpus"] = false;  // the study compares plans on its own count
  const json r = search_scenario(run);
  const json& best = r["search"]["best"];
  return best.empty() ? json(nullptr) : best[0];
}

json plan_row(const std::string& label, const json& plan, double base_time) {
  if (plan.is_null()) return {{"step", label}, {"fits", false}};
  const double t = plan["iteration_time_s"].get<double>();
  const json& p = plan["parallelism"];
  return {{"step", label}, {"fits", true}, {"iteration_time_s", t}, {"speedup", base_time / t},
          {"mfu", plan["mfu"]}, {"bound", plan["bound"]}, {"parallelism", p},
          {"micro_batch", plan["training"]["micro_batch"]}, {"recompute", plan["training"]["recompute"]}};
}

json gpu_generations() {
  json gens = json::array();
  const json a100 = system_preset("dgx-a100-80gb"), gb200 = system_preset("gb200-nvl72");
  const json base = best_plan(gpt3_run(a100, "bf16"), nullptr);
  const double t0 = base["iteration_time_s"].get<double>();
  for (const char* id : {"dgx-a100-80gb", "dgx-h100", "dgx-b200", "gb200-nvl72", "gb300-nvl72"}) {
    const json sys = system_preset(id);
    // nvfp4: the NVFP4 training recipe on fp4 tensor cores (Blackwell).
    for (const char* prec : {"bf16", "fp8", "nvfp4"}) {
      const char* peak = std::string(prec) == "nvfp4" ? "fp4" : prec;
      if (!sys["device"]["matmul_tflops"].contains(peak)) continue;
      json row = plan_row(std::string(id) + " " + prec, best_plan(gpt3_run(sys, prec), nullptr), t0);
      gens.push_back(row);
    }
  }
  // A100 -> GB200 one factor at a time, cumulatively. The plan stays the
  // A100's best until device memory changes, then it is searched again.
  json sys = a100, steps = json::array(), plan = base;
  std::string prec = "bf16";
  steps.push_back(plan_row("A100 baseline (bf16)", base, t0));
  auto& dev = sys["device"];
  const auto& gdev = gb200["device"];
  auto step = [&](const std::string& label, bool research) {
    plan = best_plan(gpt3_run(sys, prec), research || plan.is_null() ? json(nullptr) : plan);
    steps.push_back(plan_row(label, plan, t0));
  };
  for (const char* k : {"matmul_tflops", "vector_tflops", "sm_count", "efficiency"}) dev[k] = gdev[k];
  step("+ peak compute (GB200 tensor/vector peaks, SMs)", false);
  prec = "fp8";
  step("+ precision bf16 -> fp8", false);
  for (size_t i = 0; i < dev["memory"].size() && i < gdev["memory"].size(); ++i)
    dev["memory"][i]["bandwidth_GBps"] = gdev["memory"][i]["bandwidth_GBps"];
  step("+ memory bandwidth (smem, L2, HBM3e)", false);
  for (size_t i = 0; i < dev["memory"].size() && i < gdev["memory"].size(); ++i)
    for (const char* k : {"capacity_MiB", "capacity_GiB"}) {
      dev["memory"][i].erase(k);
      if (gdev["memory"][i].contains(k)) dev["memory"][i][k] = gdev["memory"][i][k];
    }
  step("+ memory capacity (re-searched plan)", true);
  for (size_t i = 0; i < sys["network"].size() && i < gb200["network"].size(); ++i)
    for (const char* k : {"bandwidth_GBps", "latency_us", "efficiency", "half_bandwidth_MiB"})
      if (gb200["network"][i].contains(k)) sys["network"][i][k] = gb200["network"][i][k];
  step("+ network bandwidth (NVLink 5, per-GPU IB)", true);
  sys["gpus_per_node"] = gb200["gpus_per_node"];
  sys["network"][0]["span_gpus"] = gb200["network"][0]["span_gpus"];
  step("+ NVLink domain 8 -> 72 GPUs (= GB200 NVL72)", true);
  prec = "nvfp4";
  step("+ precision fp8 -> nvfp4 (NVFP4 recipe, fp4 tensor cores)", true);
  return {{"study", "gpu-generations"},
          {"workload", "gpt3-175b training, 1024 GPUs, global batch 1536, seq 2048, flash attention; "
                       "parallelism, micro-batch and recompute searched"},
          {"generations", gens}, {"decomposition", steps}};
}

std::string gpu_generations_text(const json& r) {
  std::string out = "GPU generations: " + r["workload"].get<std::string>() + "\n\n";
  auto rows_of = [](const json& list, const char* head) {
    std::vector<std::vector<std::string>> rows{{head, "iter s", "speed-up", "MFU", "tp", "pp", "dp", "cp", "zero", "mb", "recompute"}};
    for (const json& s : list) {
      if (!s["fits"].get<bool>()) {
        rows.push_back({s["step"].get<std::string>(), "no fit"});
        continue;
      }
      const json& p = s["parallelism"];
      rows.push_back({s["step"].get<std::string>(), number_text("%.3f", s["iteration_time_s"].get<double>()),
                      number_text("%.2fx", s["speedup"].get<double>()), number_text("%.3f", s["mfu"].get<double>()),
                      std::to_string(p["tp"].get<int>()), std::to_string(p["pp"].get<int>()),
                      std::to_string(p["dp"].get<int>()), std::to_string(p["cp"].get<int>()),
                      std::to_string(p.value("zero", 0)), std::to_string(s["micro_batch"].get<int>()), s["recompute"].get<std::string>()});
    }
    return rows;
  };
  out += table(rows_of(r["generations"], "system, precision")) + "\n";
  out += "A100 -> GB200, one factor at a time (cumulative speed-up over the A100 bf16 best):\n\n";
  out += table(rows_of(r["decomposition"], "step"));
  return out;
}

// ---- (b) DRAM scaling: Llama 3.1 70B decode as HBM generations change ----

// The HBM generations and their per-stack figures come from the technology
// data (core/presets/technology/technology.json "hbm", JEDEC figures with
// their sources there), the same table the technology-node engine uses.
const json& hbm_generations() { return all_presets().at("technology").at("technology").at("hbm"); }
constexpr int kStacks = 5;  // H100 SXM: 5 active stacks (docs/sources.md [HF3])

InferenceResult decode_point(const json& sys, int batch) {
  const json s = {{"mode", "inference"}, {"model", "llama3.1-70b"}, {"system", sys}, {"parallelism", {{"tp", 4}}},
                  {"inference", {{"batch", batch}, {"input_tokens", 2048}, {"output_tokens", 256}}}};
  return evaluate_input(s).inference;
}

json dram_scaling() {
  json rows = json::array();
  for (auto g = hbm_generations().begin(); g != hbm_generations().end(); ++g) {  // HBM2 ... HBM4 in name order
    const double stack_GBps = g->at("stack_GBps").get<double>(), stack_GB = g->at("stack_GB").get<double>();
    json sys = system_preset("dgx-h100");
    json& hbm = sys["device"]["memory"].back();
    hbm["bandwidth_GBps"] = stack_GBps * kStacks;
    hbm.erase("capacity_MiB");
    hbm["capacity_GiB"] = stack_GB * kStacks * 1e9 / 1073741824.0;  // GB -> GiB
    sys["device"]["name"] = "H100 with " + g.key();
    const InferenceResult one = decode_point(sys, 1);
    const long long max_batch = one.memory.max_batch;
    long long b = 1;
    while (b * 2 <= std::min<long long>(max_batch, 4096)) b *= 2;
    const InferenceResult full = decode_point(sys, static_cast<int>(b));
    rows.push_back({{"memory", g.key()}, {"source", "core/presets/technology/technology.json (hbm." + g.key() + ")"},
                    {"stacks", kStacks}, {"bandwidth_GBps", stack_GBps * kStacks}, {"capacity_GB", stack_GB * kStacks},
                    {"tpot_s_batch1", one.tpot_s}, {"tokens_per_s_batch1", one.output_tokens_per_s},
                    {"max_batch", max_batch}, {"batch", b}, {"tpot_s", full.tpot_s},
                    {"output_tokens_per_s", full.output_tokens_per_s},
                    {"output_tokens_per_s_per_gpu", full.output_tokens_per_s / 4}});
  }
  return {{"study", "dram-scaling"},
          {"workload", "llama3.1-70b decode, tp 4 on an H100 with its HBM replaced, bf16, 2048 in / 256 out"},
          {"rows", rows}};
}

std::string dram_scaling_text(const json& r) {
  std::vector<std::vector<std::string>> rows{{"memory", "GB/s", "GB", "TPOT b=1 ms", "tok/s b=1", "max batch", "batch",
                                              "TPOT ms", "tok/s", "tok/s/GPU"}};
  for (const json& x : r["rows"])
    rows.push_back({x["memory"].get<std::string>(), number_text("%.0f", x["bandwidth_GBps"].get<double>()),
                    number_text("%.0f", x["capacity_GB"].get<double>()), number_text("%.2f", 1e3 * x["tpot_s_batch1"].get<double>()),
                    number_text("%.1f", x["tokens_per_s_batch1"].get<double>()), std::to_string(x["max_batch"].get<long long>()),
                    std::to_string(x["batch"].get<long long>()), number_text("%.2f", 1e3 * x["tpot_s"].get<double>()),
                    number_text("%.0f", x["output_tokens_per_s"].get<double>()),
                    number_text("%.0f", x["output_tokens_per_s_per_gpu"].get<double>())});
  std::string out = "DRAM scaling: " + r["workload"].get<std::string>() + "\n" +
                    "(5 stacks per GPU; per-stack bandwidth and capacity from core/presets/technology/technology.json, JEDEC figures: docs/sources.md)\n\n";
  return out + table(rows);
}

// ---- (c) Inference boundedness: arithmetic intensity vs ridge points ----

json boundedness() {
  json systems = json::array();
  for (const char* id : {"dgx-a100-80gb", "dgx-h100", "dgx-h200", "dgx-b200"}) {
    const json s = {{"mode", "inference"}, {"model", "llama3.1-70b"}, {"system", id}, {"parallelism", {{"tp", 8}}},
                    {"inference", {{"batch", 16}, {"input_tokens", 2048}, {"output_tokens", 256}}}};
    Scenario sc;
    const Result r = evaluate_input(s, &sc);
    const Device& d = sc.system.device;
    const double peak = d.matmul_flops[static_cast<int>(sc.infer.compute_precision)];
    json ridges = json::object(), ops = json::array(), levels = json::array();
    // Ridge point of a level: peak FLOP/s / its bandwidth (Williams et al. 2009, roofline).
    for (const MemoryLevel& m : d.memory) {
      levels.push_back(m.name);  // nearest to the cores first
      ridges[m.name] = peak / m.bandwidth_Bps;
    }
    for (const Op& op : r.inference.ops) {
      if (op.kind == OpKind::comm) continue;
      json ai = json::object();
      for (size_t i = 0; i < d.memory.size() && i < op.cost.bytes.size(); ++i)
        if (op.cost.bytes[i] > 0) ai[d.memory[i].name] = op.cost.flops / op.cost.bytes[i];
      ops.push_back({{"phase", op.phase}, {"name", op.name}, {"flops", op.cost.flops}, {"intensity", ai},
                     {"time_s", op.cost.time_s}, {"bound", bound_name(d, op.cost.bound)}});
    }
    systems.push_back({{"system", id}, {"device", d.name}, {"peak_flops", peak}, {"levels", levels}, {"roofs", roofs_json(d)}, {"ridges", ridges},
                       {"ops", ops}, {"bound", {{"prefill", r.inference.prefill_bound}, {"decode", r.inference.decode_bound}}}});
  }
  return {{"study", "inference-boundedness"},
          {"workload", "llama3.1-70b, tp 8, batch 16, 2048 in / 256 out, bf16; ops of one layer (+ LM head)"},
          {"systems", systems}};
}

// A memory level's label ("HBM3e") from a device's roofs, for its key ("hbm");
// other bounds (compute, network, latency, host) as they are.
std::string level_label(const json& roofs, const json& bound) {
  const std::string name = bound.get<std::string>();
  for (const json& roof : roofs)
    if (roof.value("name", "") == name) return roof.value("label", name);
  return name;
}

std::string boundedness_text(const json& r) {
  std::string out = "Inference boundedness: " + r["workload"].get<std::string>() + "\n";
  out += "arithmetic intensity (FLOP/B) at each level vs its ridge point (peak / bandwidth)\n";
  for (const json& s : r["systems"]) {
    std::vector<std::string> head{"phase op"};
    std::vector<std::string> levels;
    for (const json& l : s["levels"]) levels.push_back(l.get<std::string>());
    for (const auto& l : levels) head.push_back("AI " + level_label(s["roofs"], l));
    head.push_back("bound");
    std::vector<std::vector<std::string>> rows{head};
    std::vector<std::string> ridge{"ridge"};
    for (const auto& l : levels) ridge.push_back(number_text("%.0f", s["ridges"][l].get<double>()));
    ridge.push_back("");
    rows.push_back(ridge);
    for (const json& op : s["ops"]) {
      std::vector<std::string> row{op["phase"].get<std::string>() + " " + op["name"].get<std::string>()};
      for (const auto& l : levels)
        row.push_back(op["intensity"].contains(l) ? number_text("%.1f", op["intensity"][l].get<double>()) : "-");
      row.push_back(level_label(s["roofs"], op["bound"]));
      rows.push_back(row);
    }
    out += "\n" + s["system"].get<std::string>() + " (" + s["device"].get<std::string>() + "), prefill bound: " +
           level_label(s["roofs"], s["bound"]["prefill"]) + ", decode bound: " + level_label(s["roofs"], s["bound"]["decode"]) +
           "\n\n";
    out += table(rows);
  }
  return out;
}


// ---- (d) Technology nodes: one Hopper-class die, 12 nm -> 1 nm ----

json technology_row(const std::string& node, TechBudget b) {
  b.node = node;
  const DerivedDevice d = derive_device(b);
  const json sys = derived_system(d);
  json row = to_json(d);
  const json plan = best_plan(gpt3_run(sys, "bf16"), nullptr);
  row["training"] = plan.is_null() ? json{{"fits", false}} : plan_row(node, plan, plan["iteration_time_s"].get<double>());
  Scenario sc;
  const InferenceResult inf =
      evaluate_input({{"mode", "inference"}, {"model", "llama3.1-70b"}, {"system", sys}, {"parallelism", {{"tp", 8}}},
                      {"inference", {{"batch", 16}, {"input_tokens", 2048}, {"output_tokens", 256}}}},
                     &sc)
          .inference;
  row["roofs"] = roofs_json(sc.system.device);
  row["inference"] = {{"ttft_s", inf.ttft_s}, {"tpot_s", inf.tpot_s}, {"output_tokens_per_s", inf.output_tokens_per_s},
                      {"bound", {{"prefill", inf.prefill_bound}, {"decode", inf.decode_bound}}}};
  return row;
}

// params: a technology budget without "node"; by default the H100's
// (814 mm2 die, 1330 mm2 package, 700 W, Hopper) with each node's HBM.
json technology_nodes_study(const json& params) {
  if (!params.is_null() && params.is_object() && params.contains("node"))
    throw InputError("params.node", "the study runs every node; leave \"node\" out");
  TechBudget budget;
  json rows = json::array();
  try {  // budget errors name their key under "params"
    if (!params.is_null()) budget = parse_budget(params);
    for (const std::string& node : technology_nodes()) rows.push_back(technology_row(node, budget));
  } catch (const InputError& e) {
    throw InputError(join_path("params", e.path), e.what());
  }
  const json& first = rows[0]["training"];
  for (json& r : rows)
    if (r["training"].contains("iteration_time_s") && first.contains("iteration_time_s"))
      r["training"]["speedup"] = first["iteration_time_s"].get<double>() / r["training"]["iteration_time_s"].get<double>();
  char die[160];
  std::snprintf(die, sizeof die, "a %s-class die of %.0f mm2 on a %.0f mm2 package at %.0f W, %s", budget.architecture.c_str(),
                budget.die_area_mm2, budget.package_area_mm2, budget.tdp_W,
                budget.hbm.empty() ? "the node's HBM" : budget.hbm.c_str());
  return {{"study", "technology-nodes"},
          {"budget", {{"architecture", budget.architecture}, {"die_area_mm2", budget.die_area_mm2},
                      {"package_area_mm2", budget.package_area_mm2}, {"tdp_W", budget.tdp_W}, {"hbm", budget.hbm}}},
          {"workload", std::string(die) + "; training: GPT-3 175B, 1,024 GPUs, global batch 1,536, bf16, plan searched; "
                                          "inference: llama3.1-70b, tp 8, batch 16, 2048 in / 256 out"},
          {"rows", rows}};
}

std::string technology_nodes_text(const json& r) {
  std::vector<std::vector<std::string>> dev{{"node", "SMs", "GHz", "V", "clock", "bf16 TF", "L2 MB", "HBM", "HBM TB/s", "HBM GB",
                                             "W compute", "W HBM", "W links", "pJ/FLOP"}};
  std::vector<std::vector<std::string>> run{{"node", "iteration", "speed-up", "MFU", "train bound", "TTFT ms", "TPOT ms",
                                             "prefill bound", "decode bound"}};
  for (const json& x : r["rows"]) {
    const std::string node = x["node"].get<std::string>();
    const json& p = x["power_W"];
    dev.push_back({node, std::to_string(x["sm_count"].get<int>()), number_text("%.2f", x["frequency_GHz"].get<double>()),
                   number_text("%.2f", x["voltage_V"].get<double>()), x["power_limited"].get<bool>() ? "power" : "nominal",
                   number_text("%.0f", x["bf16_flops"].get<double>() / 1e12), number_text("%.0f", x["l2_bytes"].get<double>() / 1e6),
                   std::to_string(x["hbm_stacks"].get<int>()) + "x" + x["hbm"].get<std::string>(),
                   number_text("%.1f", x["hbm_Bps"].get<double>() / 1e12), number_text("%.0f", x["hbm_bytes"].get<double>() / 1e9),
                   number_text("%.0f", p["compute"].get<double>()), number_text("%.0f", p["hbm"].get<double>()), number_text("%.0f", p["io"].get<double>()),
                   number_text("%.3f", x["energy_pJ_per_flop"].get<double>())});
    const json& t = x["training"];
    const json& i = x["inference"];
    const bool fits = t.value("fits", false);
    run.push_back({node, fits ? number_text("%.2f s", t["iteration_time_s"].get<double>()) : "does not fit",
                   fits ? number_text("%.2fx", t["speedup"].get<double>()) : "-", fits ? number_text("%.2f", t["mfu"].get<double>()) : "-",
                   fits ? level_label(x["roofs"], t["bound"]) : "-", number_text("%.1f", 1e3 * i["ttft_s"].get<double>()),
                   number_text("%.2f", 1e3 * i["tpot_s"].get<double>()), level_label(x["roofs"], i["bound"]["prefill"]),
                   level_label(x["roofs"], i["bound"]["decode"])});
  }
  return "Technology nodes: " + r["workload"].get<std::string>() + "\n\nDerived devices\n\n" + table(dev) +
         "\nWorkloads on them\n\n" + table(run);
}

}  // namespace

void refuse_params(const std::string& name, const json& params) {
  if (!params.is_null() && !(params.is_object() && params.empty()))
    throw InputError("params", "study \"" + name.substr(0, 60) + "\" takes no parameters");
}

json run_study(const std::string& name, const json& params) {
  if (name == "technology-nodes") return technology_nodes_study(params);
  if (name == "systems") return systems_study(params);
  if (name == "scaling") return scaling_study(params);
  if (name == "models") return models_study(params);
  refuse_params(name, params);
  if (name == "gpu-generations") return gpu_generations();
  if (name == "dram-scaling") return dram_scaling();
  if (name == "inference-boundedness") return boundedness();
  throw InputError("study", "unknown study \"" + name.substr(0, 60) + "\"" + did_you_mean(name, study_names()) + "; known: " +
                               comma_list(study_names()));
}

std::string study_table(const std::string& name, const json& result) {
  if (name == "gpu-generations") return gpu_generations_text(result);
  if (name == "dram-scaling") return dram_scaling_text(result);
  if (name == "technology-nodes") return technology_nodes_text(result);
  if (name == "systems") return systems_study_text(result);
  if (name == "scaling") return scaling_study_text(result);
  if (name == "models") return models_study_text(result);
  return boundedness_text(result);
}

}  // namespace llmcalc
