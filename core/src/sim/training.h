// Training iteration time. evaluate_training() is composed of the parts
// below; the parallelism search caches the parts and calls the same
// composition, so both give one answer.
#pragma once
#include <vector>

#include "result.h"

namespace llmcalc {

// Per micro-batch times of a group of ops, split by what they are.
struct PassTime {
  double compute = 0;    // GEMMs, attention, element-wise
  double attention = 0;  // of which the attention core (overlaps context-parallel exchange)
  double tp = 0, cp = 0, ep = 0;
  double kernels = 0;    // kernels launched (each costs the host training.host_overhead_us)
  double flops = 0;      // of the GEMMs, attention and element-wise ops
  double wgrad = 0;      // of compute: the weight-gradient GEMMs
  void add(const Op& op);
};

// One transformer layer for one micro-batch: forward, backward, recompute.
struct LayerTimes {
  PassTime fwd, bwd, rec;
  std::vector<Op> ops;  // per occurrence; filled only when asked
};
LayerTimes layer_times(const Scenario& s, bool moe_layer, bool keep_ops);

// Megatron-Core rank order tp, cp, dp, pp: the stride of each group. Expert
// layers re-factor the tp x cp x dp ranks of a stage as etp, ep, expert-dp
// (MoE parallel folding, Liu et al. 2025, arXiv 2504.14960 §3; Megatron-Core
// RankGenerator order "tp-ep-dp-pp" for experts).
struct Groups {
  Group tp, cp, ep, etp, edp, dp_cp, pp;
};
Groups make_groups(const Parallelism& p);

// Embedding lookup (first stage) and LM head + cross-entropy (last stage),
// forward and backward of one micro-batch.
PassTime edge_times(const Scenario& s, bool first, bool last, std::vector<Op>* ops);

// Data-parallel collectives of one stage's parameters and the optimizer step.
struct DpParts {
  double reduce = 0, bucket_reduce = 0, gather = 0, bucket_gather = 0;
  // ZeRO-3 / FSDP units: one transformer layer, and the root (embedding,
  // final norm, LM head); the all-gather of its weights and the
  // reduce-scatter of its gradients.
  double unit_gather = 0, unit_reduce = 0, root_gather = 0, root_reduce = 0;
  OpCost optimizer;
  // Optimizer offload: the gradient shard's copy to the host, the CPUs'
  // optimizer step, and the updated weights' copy back (seconds).
  double to_host = 0, host_step = 0, to_device = 0;
  // Parameter offload: each rank's shard of a unit (of the root) copied from
  // the host before its all-gather, in the forward and again in the backward.
  double unit_fetch = 0, root_fetch = 0;
};
// `params_on_gpu` of which `expert_params` are routed-expert weights: dense
// weights are replicated over dp x cp, expert weights over the expert-dp ranks
// (defined in fsdp.cpp, with the ZeRO / FSDP and hybrid-sharding collectives).
// With LoRA, `adapters` are the trained weights beside them, `expert_adapters`
// of them beside routed experts (only they are reduced and stepped; ZeRO-3
// gathers the frozen ones too).
DpParts dp_parts(const Scenario& s, double params_on_gpu, double expert_params = 0, double adapters = 0,
                 double expert_adapters = 0);

// The iteration from its parts: pipeline schedule, bubble and overlap.
struct IterationParts {
  const LayerTimes* dense = nullptr;
  const LayerTimes* moe = nullptr;  // nullptr for dense models
  double edge_first = 0, edge_last = 0;  // edge_times().compute of the end stages (one stage: both in first)
  double hop = 0;                   // pipeline_hop_time()
  const DpParts* dp = nullptr;
};
struct Iteration {
  TimeBreakdown breakdown;
  double t_fwd_s = 0, t_bwd_s = 0;  // one micro-batch on the slowest stage
  double t_wgrad_s = 0;             // of t_bwd_s: the weight-gradient GEMMs
};
Iteration compose_iteration(const Scenario& s, const IterationParts& parts);
// Share of MoE layers on the slowest pipeline stage (the model's with one stage).
double stage_moe_share(const Scenario& s, const IterationParts& parts);

TrainingResult evaluate_training(const Scenario& s);

}  // namespace llmcalc
