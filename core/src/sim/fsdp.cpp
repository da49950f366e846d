#include "fsdp.h"

#include <algorithm>

#include "compute.h"
#include "lora.h"
#include "memory.h"
#include "model_math.h"
#include "network.h"

namespace llmcalc {

double overlapped_unit(double compute, double comm, double sm_share) {
  const double rest = 1 - std::clamp(sm_share, 0.0, 0.9);
  if (comm * rest >= compute) return comm;  // all the compute fits under the collective
  // The collective slows the compute while it runs: comm x share of work is lost.
  return std::max(comm, compute + comm * (1 - rest));
}

namespace {

// ZeRO-3 / FSDP, one micro-batch (Rajbhandari et al. 2020, ZeRO §5.3;
// Zhao et al. 2023, PyTorch FSDP §3.3-3.4). Units are transformer layers
// plus the root (embedding, final norm, LM head), gathered first and
// reduce-scattered last. Forward: unit i+1's all-gather is prefetched while
// unit i computes, so only the first gathers are exposed and each overlap is
// bounded by one unit's compute. Backward: unit i-1's gather and unit i+1's
// reduce-scatter run beside unit i's backward; the last reduce-scatters
// (the first layer's and the root's) have nothing left to hide behind.
// With parameter offload a unit's fetch from the host precedes its gather.
// The forward's exposed gathers: the root's and the first unit's whole, then
// each next unit's beside the previous one's compute.
double zero3_forward(const DpParts& d, const DpCompute& c, double share) {
  const double L = std::max(1.0, c.layers);
  const double gather = d.unit_fetch + d.unit_gather;
  return d.root_fetch + d.root_gather + gather + (L - 1) * (overlapped_unit(c.fwd, gather, share) - c.fwd);
}

double zero3_microbatch(const DpParts& d, const DpCompute& c, double share) {
  const double L = std::max(1.0, c.layers);
  const double gather = d.unit_fetch + d.unit_gather;
  const double fwd = zero3_forward(d, c, share);
  const double first_bwd = overlapped_unit(c.edge_bwd, gather, share) - c.edge_bwd;
  const double bwd = first_bwd + (L - 1) * (overlapped_unit(c.bwd, gather + d.unit_reduce, share) - c.bwd) +
                     d.unit_reduce + d.root_reduce;
  return fwd + bwd;
}

// ZeRO-3 / FSDP under pipeline stages (torchtitan): the stage's weights
// stay gathered from the first micro-batch's forward to the last one's
// backward, and the gradients accumulate whole until that backward
// reduce-scatters them (torchtitan's apply_fsdp does not reshard after
// forward when pp > 1, "to avoid per-microbatch all-gathers";
// torch.distributed.pipelining's stage syncs and reshards an FSDP module's
// gradients on the last micro-batch only). So the gathers are one forward's,
// unit by unit as zero3_microbatch's, and the reductions one backward's.
DpExposure zero3_pipelined(const DpParts& d, const DpCompute& c, double share, bool overlap) {
  const double L = std::max(1.0, c.layers);
  if (!overlap) return {d.root_gather + L * d.unit_gather, d.root_reduce + L * d.unit_reduce};
  const double gather = zero3_forward(d, c, share);
  // a layer's backward window: its share of the last backward, which a host
  // that paces the step lengthens (step_waits.cpp)
  const double bwd = std::max(c.bwd, (c.last_bwd - c.edge_bwd) / L);
  const double reduce = (L - 1) * (overlapped_unit(bwd, d.unit_reduce, share) - bwd) + d.unit_reduce + d.root_reduce;
  return {gather, reduce};
}

}  // namespace

DpExposure exposed_dp_time(const Scenario& s, const DpParts& d, const DpCompute& c) {
  const Parallelism& par = s.par;
  const bool overlap = s.train.overlap.dp;
  const double share = s.system.device.efficiency.comm_sm_share;
  if (zero3_holds_stage(s)) return zero3_pipelined(d, c, share, overlap);
  if (par.zero >= 3 && d.unit_gather + d.root_gather + d.unit_fetch + d.root_fetch > 0) {
    const double serial = 2 * (d.root_fetch + d.root_gather + c.layers * (d.unit_fetch + d.unit_gather)) +
                          d.root_reduce + c.layers * d.unit_reduce;
    const double waits = c.microbatches * (overlap ? zero3_microbatch(d, c, share) : serial);
    return {0.0, waits, true, waits};
  }
  // ZeRO-2 keeps only its shard of the gradients, so under gradient
  // accumulation each micro-batch's gradients are reduce-scattered as its
  // backward produces them, not once per step (Rajbhandari et al. 2020,
  // ZeRO §5.2; DeepSpeed stage 2 reduces at every micro-step, as PyTorch
  // FSDP SHARD_GRAD_OP does outside no_sync).
  const double reductions = s.par.zero == 2 ? c.microbatches : 1.0;
  DpExposure r;
  if (!overlap) {
    r = {d.gather, reductions * d.reduce};
  } else {
    // Megatron DDP / distributed optimizer: the reduction hides behind the
    // last micro-batch's backward (ZeRO-2: behind each one's) and the gather
    // behind the next forward, except the last bucket; the compute under
    // them slows down.
    const double reduce = overlapped_unit(c.last_bwd, std::max(0.0, d.reduce - d.bucket_reduce), share) - c.last_bwd;
    const double gather = overlapped_unit(c.fwd_total, std::max(0.0, d.gather - d.bucket_gather), share) - c.fwd_total;
    r = {d.bucket_gather + gather, reductions * (d.bucket_reduce + reduce)};
  }
  if (reductions > 1) {
    r.per_microbatch = true;
    r.inside = r.reduce;
  }
  return r;
}

namespace {

// The weights travel as the copy the GPU holds (16-bit; fp32 when training in
// fp32) unless the scenario names the gather precision.
double gather_bytes_of(const Scenario& s) {
  return s.par.gather_bytes > 0 ? s.par.gather_bytes : param_bytes(s.train).weight;
}

// A group of ranks holding the same weights, as ZeRO splits it: the states
// shard over `shard` (its innermost ranks) and the `replicas` groups beside
// it hold copies. Without hybrid sharding `replicas` is one rank.
struct ShardedGroup {
  Group shard, replicas;
};
ShardedGroup split_group(const Group& g, long long shard) {
  const long long s = shard >= 1 && g.size % shard == 0 ? shard : g.size;
  return {{s, g.stride, g.ranks}, {g.size / s, g.stride * s, g.ranks}};
}

// Per-rank time of one collective (0 for a lone rank or nothing to send).
double coll(const Scenario& s, Collective c, const Group& g, double bytes) {
  return g.size > 1 && bytes > 0 ? collective_time(s.system, c, g, bytes) : 0.0;
}

// Gradient reduction of `params` weights: reduce-scatter inside the shard
// group, then the all-reduce of each shard across the replicas (PyTorch FSDP
// HYBRID_SHARD, Zhao et al. 2023 §3.2.2; Megatron-Core's partial
// distributed optimizer); a plain all-reduce without ZeRO.
double gradient_reduction(const Scenario& s, const ShardedGroup& g, double params) {
  const double rb = s.par.reduce_bytes;
  if (s.par.zero < 1) return coll(s, Collective::all_reduce, g.shard, params * rb);
  return coll(s, Collective::reduce_scatter, g.shard, params * rb) +
         coll(s, Collective::all_reduce, g.replicas, params / static_cast<double>(g.shard.size) * rb);
}

// ZeRO-3 / FSDP wraps each transformer layer as one unit; the rest of the
// stage's parameters (embedding, final norm, LM head) form the root unit.
// A unit's expert weights travel over the shard group of the expert-dp
// ranks, the rest over that of dp x cp.
// With LoRA (`adapters` > 0) the frozen weights travel in their stored
// format (FSDP-QLoRA gathers the NF4 storage) beside the adapters, and only
// the adapters' gradients are reduced; the root stays 16-bit and frozen.
void fsdp_units(const Scenario& s, const ShardedGroup& dense, const ShardedGroup& experts, double params,
                double expert, double adapters, double expert_adapters, DpParts& d) {
  const Model& m = s.model;
  const double layers = stage_layout(m, s.par).max_layers;
  const ParamCount pc = count_params(m);
  const double per_layer = std::min(params / layers, pc.layers / m.layers / s.par.tp);
  const double root = std::max(0.0, params - layers * per_layer);
  const double expert_layer = std::min(per_layer, expert / layers);
  const double dense_layer = per_layer - expert_layer;
  const double gb = gather_bytes_of(s);
  const bool lora = s.train.lora();
  const double fb = lora ? frozen_weight_bytes(s.train) : gb;
  const double adapter_layer = (adapters - expert_adapters) / layers, expert_adapter_layer = expert_adapters / layers;
  d.unit_gather = coll(s, Collective::all_gather, dense.shard, dense_layer * fb + adapter_layer * gb) +
                  coll(s, Collective::all_gather, experts.shard, expert_layer * fb + expert_adapter_layer * gb);
  d.unit_reduce = lora ? gradient_reduction(s, dense, adapter_layer) + gradient_reduction(s, experts, expert_adapter_layer)
                       : gradient_reduction(s, dense, dense_layer) + gradient_reduction(s, experts, expert_layer);
  const double root_bytes = root * (lora ? param_bytes(s.train).weight : gb);
  d.root_gather = coll(s, Collective::all_gather, dense.shard, root_bytes);
  d.root_reduce = lora ? 0.0 : gradient_reduction(s, dense, root);
  // Parameter offload (ZeRO-Infinity, Rajbhandari et al. 2021 §5-6): before
  // each gather a rank copies its shard of the unit from host memory.
  if (s.train.offload == Offload::parameters) {
    const double link = s.system.host.link_Bps, ds = static_cast<double>(dense.shard.size);
    d.unit_fetch = ((dense_layer * fb + adapter_layer * gb) / ds +
                    (expert_layer * fb + expert_adapter_layer * gb) / static_cast<double>(experts.shard.size)) / link;
    d.root_fetch = root_bytes / ds / link;
  }
}

// Gradient reduction and (ZeRO >= 1) weight gather of `params` weights
// replicated over `g`, added to d. Megatron keeps expert gradients in their
// own buffers and reduces them over the expert-data-parallel group
// (Megatron-Core DistributedDataParallel: expert_data_parallel_group).
void add_replica_collectives(const Scenario& s, const ShardedGroup& g, double params, DpParts& d) {
  if (g.shard.size * g.replicas.size <= 1 || params <= 0) return;
  // Megatron DDP buckets of max(40M, 1M x dp) parameters; gradients in
  // parallelism.reduce_precision (fp32 by default).
  const double ranks = static_cast<double>(g.shard.size * g.replicas.size);
  const double bucket = std::min(params, std::max(4e7, 1e6 * ranks));
  d.reduce += gradient_reduction(s, g, params);
  d.bucket_reduce = std::max(d.bucket_reduce, gradient_reduction(s, g, bucket));
  if (s.par.zero >= 1) {  // the distributed optimizer gathers the weights back
    const double gb = gather_bytes_of(s);
    d.gather += coll(s, Collective::all_gather, g.shard, params * gb);
    d.bucket_gather = std::max(d.bucket_gather, coll(s, Collective::all_gather, g.shard, bucket * gb));
  }
}

// ZeRO-Offload (Ren et al. 2021, USENIX ATC, §4.1-4.2): each rank copies its
// 16-bit gradient shard of `local` parameters to host memory, the CPUs run
// the optimizer on it (CPU-Adam: fp32 master weights and states) and the
// updated 16-bit weights come back (with parameter offload they stay on the
// host, fetched unit by unit in the next iteration). Each GPU's share of the
// node's CPU memory (system.host, per GPU; a run on fewer GPUs than share the
// host divides it among those) streams the step, as Adam on a GPU does:
// bytes per parameter in host memory: the fp32 gradient written as it
// arrives and read (8), master, m, v read and written (24), the 16-bit
// weights written (2) = 34; SGD with momentum 26.
void add_offload(const Scenario& s, double local, DpParts& d) {
  const Host& h = s.system.host;
  const double weight = param_bytes(s.train).weight;
  const double host_rate = h.memory_Bps * h.memory_efficiency * host_share(s);
  d.to_host = local * weight / h.link_Bps;  // the 16-bit gradients out (and the 16-bit weights back)
  d.to_device = s.train.offload == Offload::parameters ? 0.0 : d.to_host;
  d.host_step = local * (s.train.optimizer == Optimizer::adam ? 34 : 26) / host_rate;
}

}  // namespace

DpParts dp_parts(const Scenario& s, double params, double expert_params, double adapters, double expert_adapters) {
  const Parallelism& par = s.par;
  const Groups g = make_groups(par);
  const ShardedGroup dense = split_group(g.dp_cp, par.shard_ranks());
  const ShardedGroup experts = split_group(g.edp, par.expert_shard_ranks());
  double expert = std::clamp(expert_params, 0.0, params);
  DpParts d;
  const bool lora = s.train.lora();
  if (par.zero >= 3) fsdp_units(s, dense, experts, params, expert, lora ? adapters : 0.0, lora ? expert_adapters : 0.0, d);
  // What trains: with LoRA only the adapters (beside routed experts: over expert-dp).
  if (lora) {
    params = adapters;
    expert = std::clamp(expert_adapters, 0.0, adapters);
  }
  add_replica_collectives(s, dense, params - expert, d);
  add_replica_collectives(s, experts, expert, d);
  // Optimizer step of Megatron's mixed-precision optimizer, bytes per
  // parameter: unscale + inf check of the fp32 grads (4), grad norm (4),
  // Adam reads master, m, v, grad and writes master, m, v (28), copy to the
  // 16-bit weights (6), zero the grad buffer (4) = 46; SGD with momentum 38.
  const double local = par.zero >= 1 ? (params - expert) / static_cast<double>(dense.shard.size) +
                                           expert / static_cast<double>(experts.shard.size)
                                     : params;
  if (s.train.offload != Offload::none) {
    add_offload(s, local, d);
    return d;
  }
  const bool adam = s.train.optimizer == Optimizer::adam;
  d.optimizer = elementwise_cost(s.system.device, local * (adam ? 46 : 38), local * 12, Precision::fp32);
  return d;
}

}  // namespace llmcalc
