// Training iteration time: per-op roofline costs, collectives on the tiered
// network, a pipeline schedule with its bubble, recomputation and overlap.
// Structure after Narayanan et al. 2021 (arXiv 2104.04473) and Korthikanti
// et al. 2022 (arXiv 2205.05198); per-op costing after Kundu et al. 2024.
#include "training.h"

#include <algorithm>
#include <cmath>

namespace llmcalc {

namespace {

bool is_fp32(Precision p) { return p == Precision::fp32 || p == Precision::tf32; }

// Megatron-Core rank order tp, cp, ep, dp, pp: the stride of each group.
struct Groups {
  Group tp, cp, ep, dp_cp, expert_dp, pp;
};
Groups make_groups(const Parallelism& p) {
  Groups g;
  const long long n = p.gpus();
  g.tp = {p.tp, 1, n};
  g.cp = {p.cp, p.tp, n};
  g.ep = {p.ep, p.tp, n};
  g.dp_cp = {1LL * p.dp * p.cp, p.tp, n};
  g.expert_dp = {1LL * p.dp * p.cp / p.ep, 1LL * p.tp * p.ep, n};
  g.pp = {p.pp, 1LL * p.tp * p.cp * p.dp, n};
  return g;
}

LayerPass training_pass(const Scenario& s, const Groups& g, bool moe_layer) {
  const Training& t = s.train;
  LayerPass p;
  p.batch = t.micro_batch;
  p.q_len = t.seq_len / static_cast<double>(s.par.cp);
  p.kv_len = t.seq_len;
  p.causal = true;
  p.tp = s.par.tp;
  p.sp = s.par.sp && s.par.tp > 1;
  p.flash = t.flash_attention;
  p.dropout = s.model.dropout;
  p.moe_layer = moe_layer;
  p.ep = s.par.ep;
  p.math = t.precision;
  // FP8 recipes (Transformer Engine) run attention in 16-bit.
  p.attn_math = t.precision == Precision::fp8 ? Precision::bf16 : t.precision;
  p.act_bytes = is_fp32(t.precision) ? 4 : 2;
  p.weight_bytes = bytes_per_element(t.precision == Precision::tf32 ? Precision::fp32 : t.precision);
  p.gemm_act_bytes = p.weight_bytes;
  p.kv_bytes = p.act_bytes;
  p.tp_group = g.tp;
  p.ep_group = g.ep;
  return p;
}

// Per micro-batch times of a group of ops, split by what they are.
struct PassTime {
  double compute = 0;  // GEMMs, attention, element-wise
  double attention = 0;
  double tp = 0, cp = 0, ep = 0;
  void add(const Op& op, double n) {
    const double t = op.cost.time_s * n;
    if (op.kind != OpKind::comm) {
      compute += t;
      if (op.kind == OpKind::attention || op.name.rfind("attn.scores", 0) == 0 || op.name.rfind("attn.context", 0) == 0 ||
          op.name.rfind("attn.softmax", 0) == 0 || op.name.rfind("attn.dropout", 0) == 0)
        attention += t;
    } else if (op.comm_axis == "tp") {
      tp += t;
    } else if (op.comm_axis == "ep") {
      ep += t;
    } else if (op.comm_axis == "cp") {
      cp += t;
    }
  }
};

bool is_attention_core(const std::string& name) {
  return name.rfind("attn.scores", 0) == 0 || name.rfind("attn.softmax", 0) == 0 ||
         name.rfind("attn.dropout", 0) == 0 || name.rfind("attn.context", 0) == 0 || name.rfind("attn.flash", 0) == 0;
}

// Context parallelism (ring attention, as in Megatron-Core / TE): K and V
// blocks circulate cp-1 times forward; K, V and their gradients backward.
OpSpec cp_exchange(const Scenario& s, const Groups& g, double factor) {
  const double kvd = std::max(1.0, s.model.kv_heads / static_cast<double>(s.par.tp)) * s.model.head_dim;
  OpSpec c;
  c.name = "attn.cp_kv_exchange";
  c.kind = OpKind::comm;
  c.coll = Collective::p2p;
  c.group = g.cp;
  c.comm_axis = "cp";
  c.bytes = factor * 2 * s.train.micro_batch * (s.train.seq_len / static_cast<double>(s.par.cp)) * kvd * 2;
  return c;
}

struct LayerTimes {
  PassTime fwd, bwd, rec;
  std::vector<Op> ops;  // per occurrence, count = 1 per layer per micro-batch
};

LayerTimes layer_times(const Scenario& s, const Groups& g, bool moe_layer) {
  LayerTimes lt;
  const LayerPass pass = training_pass(s, g, moe_layer);
  std::vector<OpSpec> fwd = layer_forward(s.model, pass);
  lt.ops.reserve(4 * fwd.size());
  if (s.train.precision == Precision::fp8) add_input_casts(fwd, 4);
  const System& sys = s.system;
  const Recompute rc = s.train.recompute;
  for (const OpSpec& f : fwd) {
    Op op = cost_op(sys, f, "fwd", 1);
    lt.fwd.add(op, 1);
    lt.ops.push_back(op);
    const bool recomputed = rc == Recompute::full || (rc == Recompute::selective && !s.train.flash_attention && is_attention_core(f.name));
    if (recomputed) {
      Op r = cost_op(sys, f, "recompute", 1);
      lt.rec.add(r, 1);
      lt.ops.push_back(r);
    }
    for (const OpSpec& b : backward_of(f)) {
      Op bo = cost_op(sys, b, "bwd", 1);
      lt.bwd.add(bo, 1);
      lt.ops.push_back(bo);
    }
  }
  if (s.par.cp > 1) {
    // The exchange overlaps the attention of the blocks already received.
    Op f = cost_op(sys, cp_exchange(s, g, s.par.cp - 1), "fwd", 1);
    Op b = cost_op(sys, cp_exchange(s, g, 2.0 * (s.par.cp - 1)), "bwd", 1);
    lt.fwd.cp += std::max(0.0, f.cost.time_s - lt.fwd.attention);
    lt.bwd.cp += std::max(0.0, b.cost.time_s - lt.bwd.attention);
    lt.ops.push_back(f);
    lt.ops.push_back(b);
  }
  return lt;
}

// Embedding lookup on the first stage; LM head and cross-entropy on the last.
PassTime edge_ops(const Scenario& s, const Groups& g, bool first, bool last, std::vector<Op>& ops) {
  PassTime t;
  const Model& m = s.model;
  const double tokens = s.train.micro_batch * s.train.seq_len / static_cast<double>(s.par.cp);
  const LayerPass pass = training_pass(s, g, false);
  std::vector<std::pair<OpSpec, bool>> list;  // (op, is forward)
  if (first) {
    OpSpec e;
    e.name = "embedding";
    e.bytes = 2 * tokens * m.hidden * pass.act_bytes;
    list.push_back({e, true});
  }
  if (last) {
    OpSpec head;
    head.name = "lm_head";
    head.kind = OpKind::gemm;
    head.gemm = {tokens, m.vocab / static_cast<double>(s.par.tp), static_cast<double>(m.hidden), 1,
                 pass.gemm_act_bytes, pass.weight_bytes, pass.act_bytes, pass.math};
    list.push_back({head, true});
    OpSpec ce;
    ce.name = "cross_entropy";
    ce.bytes = tokens * m.vocab / static_cast<double>(s.par.tp) * (pass.act_bytes + 4);
    ce.flops = 5 * tokens * m.vocab / static_cast<double>(s.par.tp);
    list.push_back({ce, true});
  }
  for (auto& [spec, _] : list) {
    Op f = cost_op(s.system, spec, "fwd", 1);
    t.add(f, 1);
    ops.push_back(f);
    for (const OpSpec& b : backward_of(spec)) {
      Op bo = cost_op(s.system, b, "bwd", 1);
      t.add(bo, 1);  // folded into the same pass total
      ops.push_back(bo);
    }
  }
  return t;
}

}  // namespace

TrainingResult evaluate_training(const Scenario& s) {
  TrainingResult r;
  const Model& m = s.model;
  const Parallelism& par = s.par;
  const Training& t = s.train;
  const Groups g = make_groups(par);
  const StageLayout lay = stage_layout(m, par);
  const long long mb = t.global_batch / (1LL * t.micro_batch * par.dp);
  const double layers = lay.max_layers;

  // One layer of each kind; the stage's totals scale by its layer count.
  const LayerTimes dense = layer_times(s, g, false);
  const bool has_moe = m.is_moe();
  const LayerTimes moe = has_moe ? layer_times(s, g, true) : LayerTimes{};
  const double moe_frac = has_moe ? (m.layers - m.moe.dense_layers) / static_cast<double>(m.layers) : 0.0;
  auto per_stage = [&](double PassTime::*field, PassTime LayerTimes::*pass) {
    return layers * ((1 - moe_frac) * (dense.*pass).*field + moe_frac * (has_moe ? (moe.*pass).*field : 0.0));
  };
  std::vector<Op> edge_list;
  // The slowest stage: with pp == 1 one stage has both ends.
  const PassTime first_edge = edge_ops(s, g, true, par.pp == 1, edge_list);
  std::vector<Op> last_list;
  const PassTime last_edge = par.pp > 1 ? edge_ops(s, g, false, true, last_list) : PassTime{};
  const double edge = std::max(first_edge.compute, last_edge.compute);
  if (par.pp > 1) edge_list.insert(edge_list.end(), last_list.begin(), last_list.end());

  const bool exposed_tp = !t.overlap.tp;
  const double F = per_stage(&PassTime::compute, &LayerTimes::fwd);
  const double B = per_stage(&PassTime::compute, &LayerTimes::bwd) + edge;
  const double R = per_stage(&PassTime::compute, &LayerTimes::rec);
  const double TP = exposed_tp ? per_stage(&PassTime::tp, &LayerTimes::fwd) + per_stage(&PassTime::tp, &LayerTimes::bwd) +
                                     per_stage(&PassTime::tp, &LayerTimes::rec)
                               : 0.0;
  const double CP = per_stage(&PassTime::cp, &LayerTimes::fwd) + per_stage(&PassTime::cp, &LayerTimes::bwd);
  const double EP = per_stage(&PassTime::ep, &LayerTimes::fwd) + per_stage(&PassTime::ep, &LayerTimes::bwd) +
                    per_stage(&PassTime::ep, &LayerTimes::rec);
  const double per_mb = F + B + R + TP + CP + EP;

  TimeBreakdown& bd = r.breakdown;
  const double dmb = static_cast<double>(mb);
  bd.compute = dmb * (F + B);
  bd.recompute = dmb * R;
  bd.tp_comm = dmb * TP;
  bd.cp_comm = dmb * CP;
  bd.ep_comm = dmb * EP;

  // Pipeline bubble: (p-1) micro-batch slots for 1F1B and GPipe, divided by
  // the number of model chunks when interleaved (Narayanan et al. 2021 §2.2).
  const double v = par.schedule == PipeSchedule::interleaved ? par.virtual_stages : 1;
  bd.pp_bubble = (par.pp - 1) / v * per_mb;
  if (par.pp > 1) {
    const double act = t.micro_batch * (t.seq_len / static_cast<double>(par.cp)) * m.hidden * 2.0 /
                       (par.sp && par.tp > 1 ? par.tp : 1);  // Megatron scatter-gather across tp ranks
    const double hop = collective_time(s.system, Collective::p2p, g.pp, act);
    // Forward activation and backward gradient per chunk boundary; with
    // overlap only the pipeline fill and drain stay on the critical path.
    bd.pp_comm = t.overlap.pp ? 2.0 * (par.pp - 1) * hop : dmb * 2.0 * v * hop;
    Op p2p;
    p2p.name = "pp.send_recv";
    p2p.phase = "fwd";
    p2p.kind = OpKind::comm;
    p2p.comm_axis = "pp";
    p2p.count = dmb * 2 * v;
    p2p.cost.bytes.assign(s.system.device.memory.size(), 0.0);
    p2p.cost.time_s = hop;
    p2p.cost.bound = kBoundNetwork;
    r.ops.push_back(p2p);
  }

  // Data-parallel gradient reduction (+ parameter all-gather for the
  // distributed optimizer), hidden behind the last micro-batch's backward
  // except the last bucket (Megatron DDP, bucket of max(40M, 1M x dp) params).
  const TrainingMemory mem = training_memory(s);
  const double params = mem.params_on_gpu;
  const double grad_bytes = params * 4, weight_bytes = params * 2;
  const Group dpg = g.dp_cp;
  double reduce = 0, gather = 0, bucket_reduce = 0, bucket_gather = 0;
  if (dpg.size > 1) {
    const double bucket = std::min(params, std::max(4e7, 1e6 * static_cast<double>(dpg.size)));
    const Collective rc = par.zero >= 1 ? Collective::reduce_scatter : Collective::all_reduce;
    reduce = collective_time(s.system, rc, dpg, grad_bytes);
    bucket_reduce = collective_time(s.system, rc, dpg, bucket * 4);
    if (par.zero >= 1) {
      gather = collective_time(s.system, Collective::all_gather, dpg, weight_bytes);
      bucket_gather = collective_time(s.system, Collective::all_gather, dpg, bucket * 2);
    }
  }
  const double last_bwd = B + R + TP;
  if (par.zero >= 3 && dpg.size > 1) {
    // ZeRO-3 / FSDP: every micro-batch gathers the weights for its forward
    // and again for its backward and reduce-scatters its gradients; each is
    // prefetched layer by layer behind the compute of the layer before, so
    // only the first layer's share and any excess over the compute show.
    const double first = gather / std::max(1.0, layers);
    const double fwd_exposed = std::max(first, gather - F);
    const double bwd_exposed = std::max(first + reduce / std::max(1.0, layers), gather + reduce - last_bwd);
    bd.dp_comm = t.overlap.dp ? dmb * (fwd_exposed + bwd_exposed) : dmb * (2 * gather + reduce);
    reduce *= dmb;
    gather *= 2 * dmb;
  } else {
    bd.dp_comm = t.overlap.dp ? std::max(bucket_reduce, reduce - last_bwd) + std::max(bucket_gather, gather - F)
                              : reduce + gather;
  }

  // Optimizer step of Megatron's mixed-precision optimizer, bytes per
  // parameter: unscale + inf check of the fp32 grads (4), grad norm (4),
  // Adam reads master, m, v, grad and writes master, m, v (28), copy to the
  // 16-bit weights (6), zero the grad buffer (4) = 46; SGD with momentum 38.
  const double local_params = par.zero >= 1 ? params / static_cast<double>(dpg.size) : params;
  const double opt_bytes = local_params * (t.optimizer == Optimizer::adam ? 46 : 38);
  OpCost oc = elementwise_cost(s.system.device, opt_bytes, local_params * 12, Precision::fp32);
  bd.optimizer = oc.time_s;

  r.iteration_time_s = bd.total();
  const double gpus = static_cast<double>(par.gpus());
  const double tokens = static_cast<double>(t.global_batch) * t.seq_len;
  r.tokens_per_s = tokens / r.iteration_time_s;
  // Model FLOPs: 3 x forward (Narayanan et al. 2021 eq. 3, full s^2 attention).
  const double fwd_tok = forward_flops_per_token(m, t.seq_len);
  r.model_flops = 3 * fwd_tok * tokens;
  double extra = 0;
  if (t.recompute == Recompute::full)
    extra = (fwd_tok - 2.0 * m.vocab * m.hidden) * tokens;
  else if (t.recompute == Recompute::selective && !t.flash_attention)
    extra = m.layers * attention_core_flops_per_token(m, t.seq_len) * tokens;
  r.hardware_flops = r.model_flops + extra;
  const double peak = s.system.device.matmul_flops[static_cast<int>(t.precision)];
  r.tflops_per_gpu = r.model_flops / r.iteration_time_s / gpus / 1e12;
  r.mfu = r.model_flops / (r.iteration_time_s * gpus * peak);
  r.hfu = r.hardware_flops / (r.iteration_time_s * gpus * peak);
  if (t.tokens > 0) r.time_to_train_s = t.tokens / r.tokens_per_s;
  r.memory = mem;
  r.fits = mem.total <= mem.capacity;

  r.pipeline.stages = par.pp;
  r.pipeline.virtual_stages = static_cast<int>(v);
  r.pipeline.microbatches = mb;
  r.pipeline.schedule = par.schedule == PipeSchedule::gpipe ? "gpipe"
                        : par.schedule == PipeSchedule::interleaved ? "interleaved" : "1f1b";
  r.pipeline.t_fwd_s = F + (exposed_tp ? per_stage(&PassTime::tp, &LayerTimes::fwd) : 0) + per_stage(&PassTime::cp, &LayerTimes::fwd);
  r.pipeline.t_bwd_s = per_mb - r.pipeline.t_fwd_s;

  // Ops table: per-occurrence cost, counted per iteration on the slowest stage.
  r.ops.reserve(r.ops.size() + dense.ops.size() + moe.ops.size() + edge_list.size() + 3);
  auto push_layer_ops = [&](const LayerTimes& lt, double n_layers) {
    for (Op op : lt.ops) {
      op.count = n_layers * dmb;
      r.ops.push_back(op);
    }
  };
  push_layer_ops(dense, layers * (1 - moe_frac));
  if (has_moe) push_layer_ops(moe, layers * moe_frac);
  for (Op op : edge_list) {
    op.count = dmb;
    r.ops.push_back(op);
  }
  auto push_single = [&](const std::string& name, const std::string& phase, OpKind k, double time, int bound,
                         const std::string& axis) {
    Op op;
    op.name = name;
    op.phase = phase;
    op.kind = k;
    op.count = 1;
    op.comm_axis = axis;
    op.cost.bytes.assign(s.system.device.memory.size(), 0.0);
    op.cost.time_s = time;
    op.cost.bound = bound;
    r.ops.push_back(op);
  };
  if (reduce > 0) push_single(par.zero >= 1 ? "dp.grad_reduce_scatter" : "dp.grad_all_reduce", "bwd", OpKind::comm, reduce, kBoundNetwork, "dp");
  if (gather > 0) push_single("dp.param_all_gather", "optimizer", OpKind::comm, gather, kBoundNetwork, "dp");
  Op opt;
  opt.name = "optimizer.step";
  opt.phase = "optimizer";
  opt.kind = OpKind::elementwise;
  opt.cost = oc;
  r.ops.push_back(opt);

  // What limits the iteration: the largest part of the breakdown.
  const std::pair<const char*, double> parts[] = {
      {"compute", bd.compute + bd.recompute}, {"tp_comm", bd.tp_comm}, {"cp_comm", bd.cp_comm},
      {"ep_comm", bd.ep_comm}, {"pp_comm", bd.pp_comm}, {"pp_bubble", bd.pp_bubble},
      {"dp_comm", bd.dp_comm}, {"optimizer", bd.optimizer}};
  double best = -1;
  for (const auto& [name, val] : parts)
    if (val > best) {
      best = val;
      r.bound = name;
    }
  return r;
}

}  // namespace llmcalc
