#include "outputs.h"

namespace llmcalc {

namespace {

using R = const Result&;
constexpr Mode T = Mode::training, I = Mode::inference;

std::vector<OutputSpec> build() {
  // clang-format off
  return {
      {"training.iteration_time_s", "iteration time", "s", T, [](R r) { return r.training.iteration_time_s; }, true},
      {"training.tokens_per_s", "tokens/s", "tokens/s", T, [](R r) { return r.training.tokens_per_s; }, true},
      {"training.tflops_per_gpu", "TFLOP/s per GPU", "TFLOP/s", T, [](R r) { return r.training.tflops_per_gpu; }, true},
      {"training.mfu", "MFU", "fraction", T, [](R r) { return r.training.mfu; }, true},
      {"training.hfu", "HFU", "fraction", T, [](R r) { return r.training.hfu; }},
      {"training.time_to_train_s", "time to train", "s", T, [](R r) { return r.training.time_to_train_s; }, true},
      {"training.reliability.goodput", "goodput (training / wall-clock time)", "fraction", T, [](R r) { return r.training.reliability.goodput; }},
      {"training.reliability.time_to_train_s", "time to train with interruptions", "s", T, [](R r) { return r.training.reliability.time_to_train_s; }},
      {"training.trainable_params", "trained parameters", "", T, [](R r) { return r.training.trainable_params; }},
      {"training.memory_bytes.total", "memory per GPU", "bytes", T, [](R r) { return r.training.memory.total; }, true},
      {"training.memory_bytes.weights", "weights per GPU", "bytes", T, [](R r) { return r.training.memory.weights; }},
      {"training.memory_bytes.gradients", "gradients per GPU", "bytes", T, [](R r) { return r.training.memory.gradients; }},
      {"training.memory_bytes.optimizer", "optimizer states per GPU", "bytes", T, [](R r) { return r.training.memory.optimizer; }},
      {"training.memory_bytes.activations", "activations per GPU", "bytes", T, [](R r) { return r.training.memory.activations; }},
      {"training.time_breakdown_s.compute", "compute time", "s", T, [](R r) { return r.training.breakdown.compute; }},
      {"training.time_breakdown_s.recompute", "recompute time", "s", T, [](R r) { return r.training.breakdown.recompute; }},
      {"training.time_breakdown_s.tp_comm", "tensor-parallel comm.", "s", T, [](R r) { return r.training.breakdown.tp_comm; }},
      {"training.time_breakdown_s.cp_comm", "context-parallel comm.", "s", T, [](R r) { return r.training.breakdown.cp_comm; }},
      {"training.time_breakdown_s.ep_comm", "expert-parallel comm.", "s", T, [](R r) { return r.training.breakdown.ep_comm; }},
      {"training.time_breakdown_s.pp_comm", "pipeline comm.", "s", T, [](R r) { return r.training.breakdown.pp_comm; }},
      {"training.time_breakdown_s.pp_bubble", "pipeline bubble", "s", T, [](R r) { return r.training.breakdown.pp_bubble; }},
      {"training.time_breakdown_s.dp_comm", "data-parallel comm.", "s", T, [](R r) { return r.training.breakdown.dp_comm; }},
      {"training.time_breakdown_s.optimizer", "optimizer step", "s", T, [](R r) { return r.training.breakdown.optimizer; }},
      {"training.time_breakdown_s.host", "GPU idle on the host's launches", "s", T, [](R r) { return r.training.breakdown.host; }},
      {"training.time_breakdown_s.offload", "activation offload copies", "s", T, [](R r) { return r.training.breakdown.offload; }},
      {"training.cost.per_million_tokens.usd", "cost per million tokens", "USD", T, [](R r) { return r.training.cost.per_million_tokens.usd; }},
      {"training.cost.per_million_tokens.kwh", "energy per million tokens", "kWh", T, [](R r) { return r.training.cost.per_million_tokens.kwh; }},
      {"training.cost.to_train.usd", "cost to train", "USD", T, [](R r) { return r.training.cost.to_train.usd; }},
      {"training.cost.to_train.kwh", "energy to train", "kWh", T, [](R r) { return r.training.cost.to_train.kwh; }},
      {"training.cost.to_train.co2_kg", "CO2 to train", "kg", T, [](R r) { return r.training.cost.to_train.co2_kg; }},
      {"inference.output_tokens_per_s", "output tokens/s", "tokens/s", I, [](R r) { return r.inference.output_tokens_per_s; }, true},
      {"inference.ttft_s", "time to first token", "s", I, [](R r) { return r.inference.ttft_s; }, true},
      {"inference.tpot_s", "time per output token", "s", I, [](R r) { return r.inference.tpot_s; }, true},
      {"inference.e2e_latency_s", "end-to-end latency", "s", I, [](R r) { return r.inference.e2e_latency_s; }, true},
      {"inference.max_batch", "max batch", "", I, [](R r) { return static_cast<double>(r.inference.memory.max_batch); }, true},
      {"inference.replica_gpus", "GPUs per replica", "GPUs", I, [](R r) { return r.inference.replica_gpus; }},
      {"inference.capacity.gpus", "GPUs for the target request rate", "GPUs", I, [](R r) { return r.inference.capacity.gpus; }},
      {"inference.memory_bytes.total", "memory per GPU", "bytes", I, [](R r) { return r.inference.memory.total; }, true},
      {"inference.memory_bytes.weights", "weights per GPU", "bytes", I, [](R r) { return r.inference.memory.weights; }},
      {"inference.memory_bytes.kv_cache", "KV cache per GPU", "bytes", I, [](R r) { return r.inference.memory.kv_cache; }},
      {"inference.memory_bytes.activations", "activations per GPU", "bytes", I, [](R r) { return r.inference.memory.activations; }},
      {"inference.cost.per_million_output_tokens.usd", "cost per million output tokens", "USD", I, [](R r) { return r.inference.cost.per_million_tokens.usd; }},
      {"inference.cost.per_million_output_tokens.kwh", "energy per million output tokens", "kWh", I, [](R r) { return r.inference.cost.per_million_tokens.kwh; }},
      {"inference.cost.joules_per_output_token", "energy per output token", "J", I, [](R r) { return r.inference.cost.joules_per_token; }},
  };
  // clang-format on
}

}  // namespace

const std::vector<OutputSpec>& output_fields() {
  static const std::vector<OutputSpec> k = build();
  return k;
}

const OutputSpec* find_output(const std::string& key) {
  for (const OutputSpec& o : output_fields())
    if (key == o.key) return &o;
  return nullptr;
}

nlohmann::json outputs_to_json() {
  nlohmann::json a = nlohmann::json::array();
  for (const OutputSpec& o : output_fields())
    a.push_back({{"key", o.key}, {"label", o.label}, {"unit", o.unit},
                 {"mode", o.mode == Mode::training ? "training" : "inference"}, {"headline", o.headline}});
  return a;
}

}  // namespace llmcalc
