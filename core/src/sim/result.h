// Structured results that the JSON writer (and the charts) read directly.
#pragma once
#include <string>
#include <vector>

#include "memory.h"
#include "model_math.h"
#include "cost.h"
#include "energy_cost.h"
#include "reliability.h"

namespace llmcalc {

struct TimeBreakdown {
  double compute = 0, recompute = 0, tp_comm = 0, cp_comm = 0, ep_comm = 0;
  double pp_comm = 0, pp_bubble = 0, dp_comm = 0, optimizer = 0;
  double host = 0;  // GPU idle while the host launches kernels (a CPU-bound step)
  double offload = 0;  // activation copies to and from host memory that outlast a layer's compute
  double total() const {
    return compute + recompute + tp_comm + cp_comm + ep_comm + pp_comm + pp_bubble + dp_comm + optimizer + host + offload;
  }
};

struct PipelineInfo {
  int stages = 1, virtual_stages = 1;
  int layers_per_stage = 0, short_stages = 0;  // most layers on a stage; end stages with one fewer
  long long microbatches = 1;
  std::string schedule;
  double t_fwd_s = 0, t_bwd_s = 0;  // one micro-batch on the slowest stage (incl. recompute, exposed comm)
  double t_wgrad_s = 0;             // of t_bwd_s: the weight-gradient GEMMs (zb_h1 defers them)
};

struct TrainingResult {
  double iteration_time_s = 0;
  TimeBreakdown breakdown;
  double tokens_per_s = 0, tflops_per_gpu = 0, mfu = 0, hfu = 0;
  double trainable_params = 0;  // weights that train (LoRA: the adapters)
  double time_to_train_s = 0;  // 0 when tokens not given
  double model_flops = 0, hardware_flops = 0;  // per iteration, whole cluster
  TrainingMemory memory;
  bool fits = true;
  // training.recompute_to_fit: when the plan as given (recompute none or
  // selective) does not fit, the time is for `layers` per stage recomputed
  // whole; the memory that plan needs per GPU. layers 0: not applied.
  struct {
    int layers = 0;
    double memory_total = 0;
    bool fits = false;
  } recompute_fit;
  PipelineInfo pipeline;
  std::string bound;  // what limits the iteration
  CostResult cost;
  ReliabilityResult reliability;  // interruptions, checkpoints and restarts
  std::vector<Op> ops;
};

// Disaggregated serving: the prefill instances beside one decode instance.
struct PrefillPool {
  double prefill_time_s = 0;     // one prefill batch on one prefill instance
  double kv_transfer_s = 0;      // its K/V to the decode instance
  double kv_transfer_bytes = 0;  // of one prefill batch
  double instances = 0;          // prefill instances that keep one decode instance fed
  InferenceMemory memory;        // one GPU of a prefill instance
  bool fits = true;
};

// Capacity for inference.target_requests_per_s: whole replicas (decode
// instances) and, when disaggregated, whole prefill instances.
struct ServingCapacity {
  double requests_per_s_per_replica = 0;  // at the steady rate, pp batches in flight
  long long replicas = 0, prefill_instances = 0;
  double gpus = 0;
};

// A steady-state engine step under chunked prefill (inference.token_budget).
struct ChunkedStep {
  double decode_rows = 0;       // sequences in decode, one token each
  double prompt_tokens = 0;     // prompt tokens prefilled beside them
  double steps_per_prompt = 0;  // steps until a prompt's first token
};

struct InferenceResult {
  double ttft_s = 0, tpot_s = 0, e2e_latency_s = 0, output_tokens_per_s = 0;
  double pipelined_output_tokens_per_s = 0;  // pp batches in flight, one per stage
  double prefill_flops = 0, decode_flops_per_step = 0;
  double concurrency = 0;  // sequences in flight (the batch, or what fits under in-flight batching)
  double tokens_per_step = 1;  // tokens a decode step emits per sequence (speculative decoding: > 1)
  InferenceMemory memory;
  bool fits = true;
  std::string prefill_bound, decode_bound;
  CostResult cost;  // per million output tokens of one replica
  double replica_gpus = 0;  // GPUs of one replica: tp x pp, with disaggregation + its prefill instances
  bool disaggregated = false;
  PrefillPool prefill_pool;  // when disaggregated
  ServingCapacity capacity;  // when inference.target_requests_per_s > 0
  bool chunked = false;
  ChunkedStep chunked_step;  // when chunked
  std::vector<Op> ops;
};

struct Result {
  Mode mode = Mode::training;
  ParamCount params;
  TrainingResult training;
  InferenceResult inference;
  std::vector<std::string> warnings;
};

}  // namespace llmcalc
