// Result -> output JSON (docs/scenario.md "Output"), base units throughout.
#include "output.h"

#include <algorithm>
#include <cmath>

#include "accuracy.h"
#include "attention_pattern.h"
#include "boundary.h"
#include "enum_names.h"
#include "evaluate.h"
#include "parse.h"
#include "what_if.h"

namespace llmcalc {

namespace {

json op_json(const Device& d, const Op& op) {
  json bytes = json::object();
  double dram = 0;
  for (size_t i = 0; i < d.memory.size(); ++i) {
    const double b = i < op.cost.bytes.size() ? op.cost.bytes[i] : 0.0;
    bytes[d.memory[i].name] = b;
    if (i + 1 == d.memory.size()) dram = b;
  }
  json j = {{"name", op.name},
            {"phase", op.phase},
            {"kind", to_string(op.kind)},
            {"count", op.count},
            {"flops", op.cost.flops},
            {"bytes", bytes},
            {"arithmetic_intensity", dram > 0 ? op.cost.flops / dram : 0.0},
            {"time_s", op.cost.time_s},
            {"bound", bound_name(d, op.cost.bound)}};
  if (!op.comm_axis.empty()) j["axis"] = op.comm_axis;
  return j;
}

json ops_json(const Device& d, const std::vector<Op>& ops) {
  json a = json::array();
  for (const Op& op : ops) a.push_back(op_json(d, op));
  return a;
}

json device_json(const System& sys, Precision p) {
  const Device& d = sys.device;
  return {{"name", d.name},
          {"system", sys.name},
          {"unit_name", d.unit_name},
          {"precision", to_string(p)},
          {"peak_flops", d.matmul_flops[static_cast<int>(p)]},
          {"achievable_flops", d.matmul_flops[static_cast<int>(p)] * d.efficiency.matmul[static_cast<int>(p)]},
          {"roofs", roofs_json(d)}};
}

json cost_figures_json(const CostResult& c, const CostFigures& f) {
  json j = {{"gpu_hours", f.gpu_hours}};
  if (c.priced) j["usd"] = f.usd;
  if (c.metered) {
    j["kwh"] = f.kwh;
    j["electricity_usd"] = f.electricity_usd;
    j["co2_kg"] = f.co2_kg;
  }
  return j;
}

// Interruptions, checkpoints and goodput; with a token budget also the run's
// GPU-hours (and dollars) over its wall-clock time with interruptions: the
// GPUs are held while the job restarts.
json reliability_json(const ReliabilityResult& r, const CostResult& c) {
  json j = {{"goodput", r.goodput},
            {"mtbf_s", r.mtbf_s},
            {"checkpoint_bytes_per_gpu", r.checkpoint_bytes_per_gpu},
            {"checkpoint_s", r.checkpoint_s},
            {"checkpoint_interval_s", r.checkpoint_interval_s},
            {"restart_s", r.restart_s}};
  if (r.time_to_train_s > 0) {
    j["time_to_train_s"] = r.time_to_train_s;
    j["interruptions"] = r.interruptions;
    if (c.has_to_train) {
      j["gpu_hours"] = c.to_train.gpu_hours / r.goodput;
      if (c.priced) j["usd"] = c.to_train.usd / r.goodput;
    }
  }
  return j;
}

// Cost and energy: per iteration and per million tokens (training; to train
// when tokens are given), per million output tokens (serving). Dollar keys
// only with a GPU-hour price, energy keys only where the device has a power.
json training_cost_json(const CostResult& c) {
  json j = {{"per_iteration", cost_figures_json(c, c.per_iteration)},
            {"per_million_tokens", cost_figures_json(c, c.per_million_tokens)}};
  if (c.has_to_train) j["to_train"] = cost_figures_json(c, c.to_train);
  if (c.metered) j["power_W_per_gpu"] = c.power_W_per_gpu;
  return j;
}

json inference_cost_json(const CostResult& c, double output_tokens_per_s) {
  json j = {{"per_million_output_tokens", cost_figures_json(c, c.per_million_tokens)}};
  if (c.metered && output_tokens_per_s > 0) {
    j["power_W_per_gpu"] = c.power_W_per_gpu;
    j["joules_per_output_token"] = c.joules_per_token;
  }
  return j;
}

json training_json(const TrainingResult& t) {
  const TimeBreakdown& b = t.breakdown;
  const TrainingMemory& m = t.memory;
  json j = {{"iteration_time_s", t.iteration_time_s},
            {"time_breakdown_s",
             {{"compute", b.compute}, {"recompute", b.recompute}, {"tp_comm", b.tp_comm}, {"cp_comm", b.cp_comm},
              {"ep_comm", b.ep_comm}, {"pp_comm", b.pp_comm}, {"pp_bubble", b.pp_bubble}, {"dp_comm", b.dp_comm},
              {"optimizer", b.optimizer}, {"host", b.host}, {"offload", b.offload}}},
            {"tokens_per_s", t.tokens_per_s},
            {"tflops_per_gpu", t.tflops_per_gpu},
            {"mfu", t.mfu},
            {"hfu", t.hfu},
            {"trainable_params", t.trainable_params},
            {"flops", {{"model_per_iteration", t.model_flops}, {"hardware_per_iteration", t.hardware_flops}}},
            {"memory_bytes",
             {{"weights", m.weights}, {"gradients", m.gradients}, {"optimizer", m.optimizer},
              {"activations", m.activations}, {"total", m.total}, {"capacity", m.capacity}}},
            {"fits", t.fits},
            {"bound", t.bound},
            {"pipeline",
             {{"stages", t.pipeline.stages}, {"virtual_stages", t.pipeline.virtual_stages},
              {"layers_per_stage", t.pipeline.layers_per_stage}, {"short_stages", t.pipeline.short_stages},
              {"microbatches", t.pipeline.microbatches}, {"schedule", t.pipeline.schedule},
              {"t_fwd_s", t.pipeline.t_fwd_s}, {"t_bwd_s", t.pipeline.t_bwd_s}, {"t_wgrad_s", t.pipeline.t_wgrad_s}}}};
  if (t.time_to_train_s > 0) j["time_to_train_s"] = t.time_to_train_s;
  if (t.recompute_fit.layers > 0)
    j["recompute_to_fit"] = {{"layers", t.recompute_fit.layers},
                             {"memory_bytes_total", t.recompute_fit.memory_total},
                             {"fits", t.recompute_fit.fits}};
  if (m.host_capacity > 0) {  // offload: host memory per GPU, beside (not in) the total
    j["memory_bytes"]["offloaded"] = m.offloaded;
    j["memory_bytes"]["host_capacity"] = m.host_capacity;
  }
  j["cost"] = training_cost_json(t.cost);
  j["reliability"] = reliability_json(t.reliability, t.cost);
  return j;
}

json inference_memory_json(const InferenceMemory& m) {
  return {{"weights", m.weights}, {"kv_cache", m.kv_cache}, {"activations", m.activations}, {"total", m.total},
          {"capacity", m.capacity}};
}

json prefill_pool_json(const PrefillPool& p, const Inference& in) {
  return {{"prefill_tp", in.prefill_tp},
          {"prefill_batch", in.prefill_batch},
          {"prefill_time_s", p.prefill_time_s},
          {"kv_transfer_s", p.kv_transfer_s},
          {"kv_transfer_bytes", p.kv_transfer_bytes},
          {"prefill_instances", p.instances},
          {"memory_bytes", inference_memory_json(p.memory)},
          {"fits", p.fits}};
}

json inference_json(const InferenceResult& r) {
  const InferenceMemory& m = r.memory;
  return {{"ttft_s", r.ttft_s},
          {"tpot_s", r.tpot_s},
          {"e2e_latency_s", r.e2e_latency_s},
          {"output_tokens_per_s", r.output_tokens_per_s},
          {"pipelined_output_tokens_per_s", r.pipelined_output_tokens_per_s},
          {"tokens_per_step", r.tokens_per_step},
          {"memory_bytes", inference_memory_json(m)},
          {"fits", r.fits},
          {"max_batch", m.max_batch},
          {"concurrency", r.concurrency},
          {"replica_gpus", r.replica_gpus},
          {"flops", {{"prefill", r.prefill_flops}, {"decode_per_step", r.decode_flops_per_step}}},
          {"bound", {{"prefill", r.prefill_bound}, {"decode", r.decode_bound}}},
          {"cost", inference_cost_json(r.cost, r.output_tokens_per_s)}};
}

// The KV cache of the most loaded stage's layers on one GPU (a draft head's
// beside them), by layer type, at the full context: sums to
// memory_bytes.kv_cache per sequence.
json kv_layer_types_json(const Scenario& s, const InferenceMemory& mem) {
  const Inference& in = s.infer;
  const double context = 1.0 * in.input_tokens + in.output_tokens;
  std::vector<KvLayerType> types = kv_cache_by_layer_type(s.model, s.par.tp, in.kv_precision, context, mem.first_layer, mem.layers);
  if (mem.draft_layers > 0)
    for (const KvLayerType& d : kv_cache_by_layer_type(s.model, s.par.tp, in.kv_precision, context,
                                                       s.model.layers - mem.draft_layers, mem.draft_layers)) {
      auto same = std::find_if(types.begin(), types.end(), [&](const KvLayerType& t) { return t.type == d.type; });
      if (same == types.end()) {
        types.push_back(d);
        continue;
      }
      same->layers += d.layers;
      same->bytes_per_token += d.bytes_per_token;
      same->bytes_per_sequence += d.bytes_per_sequence;
    }
  json a = json::array();
  for (const KvLayerType& t : types)
    a.push_back({{"type", t.type}, {"layers", t.layers}, {"bytes_per_token_per_layer", t.bytes_per_token_per_layer},
                 {"bytes_per_token", t.bytes_per_token}, {"tokens_cached", t.tokens_cached},
                 {"bytes_per_sequence", t.bytes_per_sequence}});
  return a;
}

}  // namespace

json roofs_json(const Device& d) {
  json roofs = json::array();
  for (const auto& m : d.memory)
    roofs.push_back({{"name", m.name}, {"label", m.label.empty() ? m.name : m.label}, {"bandwidth_Bps", m.bandwidth_Bps}, {"capacity_bytes", m.capacity_bytes}});
  return roofs;
}

std::string bound_name(const Device& d, int bound) {
  if (bound == kBoundCompute) return "compute";
  if (bound == kBoundNetwork) return "network";
  if (bound == kBoundLatency) return "latency";
  if (bound == kBoundHost) return "host";
  return d.memory.at(static_cast<size_t>(bound)).name;
}

json result_to_json(const Scenario& s, const Result& r) {
  json out;
  out["model"] = {{"name", s.model.name},
                  {"parameters", r.params.total},
                  {"parameters_active", r.params.active},
                  {"parameters_embedding", r.params.embedding + r.params.lm_head}};
  if (r.params.mtp > 0) out["model"]["parameters_mtp"] = r.params.mtp;
  out["gpus"] = s.mode == Mode::training ? s.par.gpus() : 1LL * s.par.tp * s.par.pp * s.par.dp;
  if (s.mode == Mode::training) {
    out["training"] = training_json(r.training);
    out["device"] = device_json(s.system, s.train.precision);
    out["ops"] = ops_json(s.system.device, r.training.ops);
  } else {
    out["inference"] = inference_json(r.inference);
    out["inference"]["kv_cache_by_layer_type"] = kv_layer_types_json(s, r.inference.memory);
    // The expert kernel that ran ("auto" resolved for this plan), and whether
    // auto took the native kernels only because 16-bit experts do not fit
    // (a plan where they fit runs the slower legacy kernel).
    if (s.model.is_moe()) {
      out["inference"]["moe_gemm"] = name_of(moe_gemm_names(), s.infer.moe_gemm);
      if (s.infer.moe_gemm_fallback) out["inference"]["moe_gemm_fallback"] = true;
    }
    if (r.inference.disaggregated) out["inference"]["disaggregation"] = prefill_pool_json(r.inference.prefill_pool, s.infer);
    if (r.inference.chunked) {
      const ChunkedStep& c = r.inference.chunked_step;
      out["inference"]["chunked_prefill"] = {{"token_budget", s.infer.token_budget},
                                             {"decode_rows_per_step", c.decode_rows},
                                             {"prompt_tokens_per_step", c.prompt_tokens},
                                             {"steps_per_prompt", c.steps_per_prompt}};
    }
    if (s.infer.target_requests_per_s > 0) {
      const ServingCapacity& c = r.inference.capacity;
      out["inference"]["capacity"] = {{"target_requests_per_s", s.infer.target_requests_per_s},
                                      {"requests_per_s_per_replica", c.requests_per_s_per_replica},
                                      {"replicas", c.replicas},
                                      {"gpus", c.gpus}};
      if (r.inference.disaggregated) out["inference"]["capacity"]["prefill_instances"] = c.prefill_instances;
    }
    out["device"] = device_json(s.system, s.infer.compute_precision);
    out["ops"] = ops_json(s.system.device, r.inference.ops);
  }
  out["accuracy"] = accuracy_json(s);
  out["warnings"] = r.warnings;
  return out;
}

Result evaluate_input(const json& input, Scenario* parsed) {
  const Scenario s = parse_scenario(input);
  if (parsed) *parsed = s;
  Result r = evaluate(s);
  const double headline = s.mode == Mode::training ? r.training.iteration_time_s : r.inference.e2e_latency_s;
  if (!std::isfinite(headline)) throw InputError("$", "the model produced a non-finite number for this input");
  return r;
}

json evaluate_to_json(const json& input) {
  const Scenario s = parse_scenario(input);
  const Result r = evaluate(s);
  json out = result_to_json(s, r);
  const json kernels = attention_kernel_sensitivity(s, r);
  if (!kernels.is_null()) out["training"]["attention_kernel_sensitivity"] = kernels;
  const json fusion = fusion_sensitivity(s, r);
  if (!fusion.is_null()) out["training"]["fusion_sensitivity"] = fusion;
  out["what_if"] = doubled_parts(s, r);
  const std::string bad = find_non_finite(out);
  if (!bad.empty()) return error_json(bad, "the model produced a non-finite number for this input");
  return out;
}

}  // namespace llmcalc
