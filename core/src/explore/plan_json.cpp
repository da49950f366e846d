// Plans as scenario JSON (the parallelism and training sections a search or
// study lists, reusable as input) and the plan the search recommends.
#include <algorithm>
#include <cmath>

#include "enum_names.h"
#include "search.h"

namespace llmcalc {

using json = nlohmann::json;

json parallelism_to_json(const Parallelism& p) {
  const char* sched = name_of(schedule_names(), p.schedule);
  json j = {{"tp", p.tp}, {"pp", p.pp}, {"dp", p.dp}, {"cp", p.cp}, {"ep", p.ep}, {"sp", p.sp},
            {"pp_schedule", sched}, {"virtual_stages", p.virtual_stages}, {"zero", p.zero}};
  if (p.etp > 0) j["etp"] = p.etp;  // named (the search's etp 1 beside the default), else the default
  const Parallelism d;
  if (p.gather_bytes != d.gather_bytes) j["gather_precision"] = name_of(gather_precision_names(), p.gather_bytes);
  if (p.reduce_bytes != d.reduce_bytes) j["reduce_precision"] = name_of(reduce_precision_names(), p.reduce_bytes);
  return j;
}

std::string ep_text(const json& par) {
  std::string ep = std::to_string(par.value("ep", 1));
  return par.contains("etp") ? ep + "/" + std::to_string(par.value("etp", 1)) : ep;
}

// The plan's fields always; the other settings where they differ from the
// input table's defaults (a default-constructed section holds them), so that
// the section read back as input evaluates as the plan was costed.
json training_to_json(const Training& t) {
  json j = {{"global_batch", t.global_batch}, {"micro_batch", t.micro_batch}, {"seq_len", t.seq_len},
            {"precision", training_precision_name(t)}, {"recompute", name_of(recompute_names(), t.recompute)},
            {"optimizer", t.optimizer == Optimizer::adam ? "adam" : "sgd"}, {"flash_attention", t.flash_attention},
            {"overlap", {{"dp", t.overlap.dp}, {"tp", t.overlap.tp}, {"pp", t.overlap.pp}, {"ep", t.overlap.ep}}}};
  const Training d;
  if (t.recompute_layers != d.recompute_layers) j["recompute_layers"] = t.recompute_layers;
  if (t.recompute_block != d.recompute_block) j["recompute_method"] = name_of(recompute_method_names(), t.recompute_block);
  if (t.recompute_to_fit != d.recompute_to_fit) j["recompute_to_fit"] = t.recompute_to_fit;
  if (t.attention_kernel != d.attention_kernel) j["attention_kernel"] = name_of(attention_kernel_names(), t.attention_kernel);
  if (t.fusion != d.fusion) j["fusion"] = name_of(fusion_names(), t.fusion);
  // In microseconds as given (to a picosecond: seconds x 1e6 leaves 29.999999999999996 for 30).
  if (t.host_overhead_s >= 0) j["host_overhead_us"] = std::round(t.host_overhead_s * 1e12) / 1e6;
  if (t.moe_balance != d.moe_balance) j["moe_balance"] = name_of(moe_balance_names(), t.moe_balance);
  if (t.moe_dispatcher != d.moe_dispatcher) j["moe_dispatcher"] = name_of(moe_dispatcher_names(), t.moe_dispatcher);
  if (t.moe_dispatch_precision != d.moe_dispatch_precision)
    j["moe_dispatch_precision"] = name_of(dispatch_precision_names(), t.moe_dispatch_precision);
  if (t.moe_capacity_factor != d.moe_capacity_factor) j["moe_capacity_factor"] = t.moe_capacity_factor;
  if (t.fp8_recipe != d.fp8_recipe) j["fp8_recipe"] = name_of(fp8_recipe_names(), t.fp8_recipe);
  if (t.tokens > 0) j["tokens"] = t.tokens;
  if (t.lora_rank != d.lora_rank) j["lora_rank"] = t.lora_rank;
  if (t.lora_targets != d.lora_targets) j["lora_targets"] = name_of(lora_target_names(), t.lora_targets);
  if (t.frozen_weights != d.frozen_weights) j["frozen_weights"] = name_of(frozen_weight_names(), t.frozen_weights);
  if (t.offload != Offload::none) j["offload"] = name_of(offload_names(), t.offload);
  if (t.offload_activations > 0) j["offload_activations"] = t.offload_activations;
  return j;
}

// As training_to_json: the serving plan's fields always, the other settings
// where they differ from the defaults ("auto" MoE GEMMs are picked again per plan).
json inference_to_json(const Inference& in) {
  json j = {{"batch", in.batch}, {"input_tokens", in.input_tokens}, {"output_tokens", in.output_tokens},
            {"weight_precision", weight_precision_name(in)}, {"kv_precision", to_string(in.kv_precision)},
            {"compute_precision", to_string(in.compute_precision)}, {"flash_attention", in.flash_attention},
            {"prefill_tp", in.prefill_tp}, {"prefill_batch", in.prefill_batch}};
  const Inference d;
  if (in.inflight != d.inflight) j["batching"] = name_of(batching_names(), in.inflight);
  if (in.weight_group_size != d.weight_group_size) j["weight_group_size"] = in.weight_group_size;
  if (in.decode_attention != d.decode_attention) j["decode_attention"] = name_of(decode_attention_names(), in.decode_attention);
  if (!in.moe_gemm_auto) j["moe_gemm"] = name_of(moe_gemm_names(), in.moe_gemm);
  if (in.draft_tokens != d.draft_tokens) j["draft_tokens"] = in.draft_tokens;
  if (in.draft_acceptance != d.draft_acceptance) j["draft_acceptance"] = in.draft_acceptance;
  if (in.draft_layers != d.draft_layers) j["draft_layers"] = in.draft_layers;
  if (in.shared_prefix_tokens != d.shared_prefix_tokens) j["shared_prefix_tokens"] = in.shared_prefix_tokens;
  if (in.token_budget != d.token_budget) j["token_budget"] = in.token_budget;
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
