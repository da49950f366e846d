// Per-GPU memory footprint. Training follows Korthikanti et al. 2022
// (arXiv 2205.05198, §4) and Megatron-LM's mixed-precision optimizer;
// inference counts weights, KV cache and working activations.
#pragma once
#include "llmcalc/scenario.h"

namespace llmcalc {

// Activation bytes of one layer for one micro-batch on one GPU.
double layer_activation_bytes(const Model& m, const Parallelism& p, const Training& t, bool moe_layer);
// Share of a stage's `layers` layers whose forward full recompute runs again
// (1 unless recompute_method "block" limits it to recompute_layers).
double recomputed_share(const Training& t, double layers);
// Micro-batches (in layer-equivalents) whose activations the first stage holds at peak.
double inflight_layer_microbatches(const Model& m, const Parallelism& p, long long microbatches);

struct TrainingMemory {
  double weights = 0, gradients = 0, optimizer = 0, activations = 0, total = 0, capacity = 0;
  double offloaded = 0;             // host memory per GPU (optimizer offload), not in total
  double host_capacity = 0;         // host memory per GPU (system.host; with offload)
  double params_on_gpu = 0;         // parameters held by the most loaded GPU (before ZeRO-3)
  double expert_params_on_gpu = 0;  // of which routed-expert weights (replicated over expert-dp, not dp)
  double adapter_params_on_gpu = 0; // LoRA adapters beside them (the only trained weights then)
  double expert_adapter_params_on_gpu = 0;  // of which beside routed experts
};
TrainingMemory training_memory(const Scenario& s);
// How many times its per-GPU share of the host (system.host) each GPU of the
// run gets: a run on fewer GPUs than share a host divides the host's CPUs and
// memory among those it runs on.
double host_share(const Scenario& s);
// ZeRO-3 under pipeline stages keeps the stage's weights gathered and its
// gradients whole for the whole iteration (FSDP as torchtitan runs it with
// pp > 1), gathering and reduce-scattering them once (sim/fsdp.cpp); not
// with parameter offload, which fetches units from the host as they run.
inline bool zero3_holds_stage(const Scenario& s) {
  return s.par.zero >= 3 && s.par.pp > 1 && s.train.offload != Offload::parameters;
}
// Offloaded state beyond the host memory per GPU (system.host).
inline bool host_short(const TrainingMemory& m) { return m.host_capacity > 0 && m.offloaded > m.host_capacity; }

// The parts of training_memory, for callers that cache them (search).
struct ParamBytes {
  double weight, grad, optim;
};
ParamBytes param_bytes(const Training& t);
struct StageParams {
  double dense = 0;   // per GPU: sharded over tp, replicated over ep
  double expert = 0;  // per GPU: sharded over tp and ep
  double unquantised = 0;  // of dense: embeddings, LM head and norms (QLoRA keeps them 16-bit)
  double adapters = 0;     // LoRA adapters of the stage's layers (not in dense or expert)
  double expert_adapters = 0;  // of adapters: beside routed experts (split over ep like them)
};
StageParams params_of_stage(const Model& m, const Parallelism& p, int first_layer, int layers, bool first, bool last);
// The stages that can be the most loaded: the first (embedding, most
// micro-batches in flight), the second (rank 1: its layers may be heavier
// than the first's leading dense ones; weighed with pp >= 3) and the last.
struct EdgeStageParams {
  StageParams first, last;
  StageParams second;
};
// Depends on (tp, pp, ep, etp) and, for LoRA adapters, the training's lora fields only.
EdgeStageParams stage_params(const Model& m, const Parallelism& p, const Training& t);
TrainingMemory stage_memory(const Scenario& s, const StageParams& sp, bool first, bool last, long long microbatches);
TrainingMemory most_loaded_stage(const Scenario& s, const EdgeStageParams& sp, long long microbatches);

struct InferenceMemory {
  double weights = 0, kv_cache = 0, activations = 0, total = 0, capacity = 0;
  double kv_per_sequence = 0;   // at full context
  double act_per_sequence = 0;
  long long max_batch = 0;
  int first_layer = 0, layers = 0;  // the stage these figures are of (the most loaded)
  int draft_layers = 0;             // a draft head's layers on it (shaped as the model's last ones)
};
// Bytes per stored weight, block scales included (int4: per `group` weights).
double stored_weight_bytes(Precision p, int group, bool mx = false);
// Vector ops a weight-only GEMM spends per weight element to dequantise
// `stored` bytes into `math` bytes: convert + scale for 8-bit, plus unpack
// for 4-bit; none when the weights are held in the math format or wider.
double dequant_ops_per_weight(double stored, double math);
// Precision the expert weights are held in for inference: a legacy16 MoE
// GEMM has no fp8/fp4 path, so such checkpoints keep their experts in 16-bit
// (weight-only int8/int4 stay: those kernels dequantise to 16-bit math).
Precision expert_weight_precision(const Inference& in);
InferenceMemory inference_memory(const Scenario& s);
InferenceMemory inference_memory_at(const Scenario& s, double batch);

}  // namespace llmcalc
