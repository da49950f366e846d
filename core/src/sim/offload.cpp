#include "offload.h"

#include <algorithm>

#include "memory.h"
#include "model_math.h"

namespace llmcalc {

double activation_copy_time(const Scenario& s) {
  if (s.train.offload_activations <= 0 || !s.system.host.present()) return 0;
  const bool moe = s.model.is_moe() && moe_layer_count(s.model) > 0;
  return layer_activation_bytes(s.model, s.par, s.train, moe) / s.system.host.link_Bps;
}

// Megatron-Core's CPU offload handler (pp 1): a layer's activations leave
// beside the next layer's forward and are prefetched beside the backward of
// the layer after it; only a copy longer than that layer's compute shows.
double activation_offload_time(const Scenario& s, double layer_fwd, double layer_bwd, double mb) {
  const double copy = activation_copy_time(s);
  return mb * s.train.offload_activations * (std::max(0.0, copy - layer_fwd) + std::max(0.0, copy - layer_bwd));
}

// ZeRO-Offload's schedule (Ren et al. 2021 §4.2): the gradient copies run
// beside the last backward pass, bucket by bucket; the weights stream back
// chunk by chunk while the CPUs update the next chunk. ZeRO 2 and 3 keep no
// full gradient buffer on the GPU (with the weights offloaded, ZeRO-Infinity
// none at all), so every micro-batch's backward sends its reduced shard and
// the host accumulates it (DeepSpeed's CPU gradient accumulation).
namespace {
double gradient_copies(const Scenario& s, double mb) { return s.par.zero >= 2 ? mb : 1; }
}  // namespace

double offloaded_optimizer_time(const Scenario& s, const DpParts& d, double last_bwd, double mb) {
  const double copies = gradient_copies(s, mb);
  return copies * std::max(0.0, d.to_host - last_bwd) + std::max(d.host_step, d.to_device);
}

std::vector<HostOp> offload_ops(const Scenario& s, const DpParts& d, double layers, double mb) {
  std::vector<HostOp> ops;
  if (s.train.offload_activations > 0) {
    const double copies = mb * s.train.offload_activations, t = activation_copy_time(s);
    ops.push_back({"offload.activations_to_host", "fwd", t, copies, false});
    ops.push_back({"offload.activations_to_device", "bwd", t, copies, false});
  }
  // Every unit's shard, and the root's, in the forward and the backward.
  if (d.unit_fetch > 0) ops.push_back({"dp.param_fetch_from_host", "fwd", layers * d.unit_fetch + d.root_fetch, 2 * mb, false});
  if (s.train.offload == Offload::none) return ops;
  ops.push_back({"optimizer.grad_to_host", "bwd", d.to_host, gradient_copies(s, mb), false});
  ops.push_back({"optimizer.host_step", "optimizer", d.host_step, 1, true});
  if (d.to_device > 0) ops.push_back({"optimizer.weights_to_device", "optimizer", d.to_device, 1, false});
  return ops;
}

}  // namespace llmcalc
