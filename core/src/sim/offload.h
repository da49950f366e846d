// Host offload on the critical path and in the ops table: ZeRO-Offload's
// optimizer step on the host CPUs, ZeRO-Infinity's weight fetches and
// gradient copies, Megatron-Core's activation offload.
#pragma once
#include <vector>

#include "training.h"

namespace llmcalc {

// One layer's saved activations (a MoE layer's when the model has them) over
// the host link, one micro-batch; 0 without activation offload.
double activation_copy_time(const Scenario& s);

// Exposed time of the activation copies of `mb` micro-batches: each
// offloaded layer's copy runs beside one layer's forward (`layer_fwd`) on its
// way out and one layer's backward (`layer_bwd`) on its way back.
double activation_offload_time(const Scenario& s, double layer_fwd, double layer_bwd, double mb);

// The optimizer's time when it runs on the host: the gradient copies beside
// the backward (`last_bwd`: one micro-batch's), the CPUs' step, the weights
// coming back.
double offloaded_optimizer_time(const Scenario& s, const DpParts& d, double last_bwd, double mb);

// The host copies and the host step as ops: per-occurrence time and count
// per iteration; `host_bound` marks the CPUs' step (else the host link).
struct HostOp {
  const char* name;
  const char* phase;
  double time_s;
  double count;
  bool host_bound;
};
std::vector<HostOp> offload_ops(const Scenario& s, const DpParts& d, double layers, double mb);

}  // namespace llmcalc
