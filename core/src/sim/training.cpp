// Training iteration time: per-op roofline costs, collectives on the tiered
// network, a pipeline schedule with its bubble, recomputation and overlap.
// Structure after Narayanan et al. 2021 (arXiv 2104.04473) and Korthikanti
// et al. 2022 (arXiv 2205.05198); per-op costing after Kundu et al. 2024.
#include "training.h"

#include <algorithm>
#include <cmath>

#include "eager_ops.h"
#include "fsdp.h"
#include "lora.h"
#include "offload.h"
#include "recompute.h"
#include "schedule.h"
#include "sparse_attention.h"
#include "training_formats.h"

namespace llmcalc {

Groups make_groups(const Parallelism& p) {
  Groups g;
  const long long n = p.gpus();
  const long long etp = p.expert_tp();
  g.tp = {p.tp, 1, n};
  g.cp = {p.cp, p.tp, n};
  g.etp = {etp, 1, n};
  g.ep = {p.ep, etp, n};
  g.edp = {p.expert_dp(), etp * p.ep, n};
  g.dp_cp = {1LL * p.dp * p.cp, p.tp, n};
  g.pp = {p.pp, 1LL * p.tp * p.cp * p.dp, n};
  return g;
}

namespace {

LayerPass training_pass(const Scenario& s, const Groups& g, bool moe_layer) {
  const Training& t = s.train;
  LayerPass p;
  p.batch = t.micro_batch;
  p.q_len = t.seq_len / static_cast<double>(s.par.cp);
  p.kv_len = t.seq_len;
  p.kv_chunks = s.par.cp;
  p.causal = true;
  p.tp = s.par.tp;
  p.sp = s.par.sp && s.par.tp > 1;
  p.flash = t.flash_attention;
  p.attn_kernel = t.attention_kernel;
  p.dropout = s.model.dropout;
  p.moe_layer = moe_layer;
  p.ep = s.par.ep;
  p.etp = s.par.expert_tp();
  p.moe_dispatch = true;
  p.moe_balance = t.moe_balance;
  p.moe_node_dedup = t.moe_dispatcher == MoeDispatcher::deepep;
  // FP8 dispatch: one byte per element, plus one E8M0 scale per 32 with the
  // MXFP8 recipe or FP4 training (OCP MX v1.0); per-tensor scales otherwise.
  if (t.moe_dispatch_precision == DispatchPrecision::fp8)
    p.moe_dispatch_bytes = t.fp8_recipe == Fp8Recipe::mxfp8 || t.precision == Precision::fp4 ? 1 + 1.0 / 32 : 1;
  p.moe_capacity_factor = t.moe_capacity_factor;
  p.math = t.precision;
  // FP8 and FP4 recipes (Transformer Engine; arXiv 2509.25147) run attention in 16-bit.
  const bool narrow = t.precision == Precision::fp8 || t.precision == Precision::fp4;
  p.attn_math = narrow ? Precision::bf16 : t.precision;
  p.act_bytes = is_fp32(t.precision) ? 4 : 2;
  p.weight_bytes = t.precision == Precision::fp4 ? fp4_gemm_bytes(t.fp4_mx)
                                                 : bytes_per_element(t.precision == Precision::tf32 ? Precision::fp32 : t.precision);
  p.gemm_act_bytes = p.weight_bytes;
  p.kv_bytes = p.act_bytes;
  p.tp_group = g.tp;
  p.ep_group = g.ep;
  p.etp_group = g.etp;
  return p;
}

// Context parallelism (ring attention, as in Megatron-Core / TE): K and V
// blocks circulate cp-1 times forward; K, V and their gradients backward.
// Sparse attention's indexer scores every earlier token (DeepSeek-V3.2-Exp
// report §2.1), so its key per token (whole on every tensor rank) travels too.
OpSpec cp_exchange(const Scenario& s, const Groups& g, double factor) {
  const double kvd = std::max(1.0, s.model.kv_heads / static_cast<double>(s.par.tp)) * s.model.head_dim;
  const double index_key = s.model.sparse.on() ? indexer_key_bytes(s.model) : 0;
  OpSpec c;
  c.name = "attn.cp_kv_exchange";
  c.kind = OpKind::comm;
  c.coll = Collective::p2p;
  c.group = g.cp;
  c.comm_axis = "cp";
  c.bytes = factor * s.train.micro_batch * (s.train.seq_len / static_cast<double>(s.par.cp)) * (2 * kvd * 2 + index_key);
  return c;
}

}  // namespace

void PassTime::add(const Op& op) {
  const double t = op.cost.time_s * op.count;  // count: the op's share of the layers (1 for most)
  kernels += op.count * op.kernels;
  if (op.kind != OpKind::comm) {
    compute += t;
    flops += op.cost.flops * op.count;
    const std::string& n = op.name;
    if (op.kind == OpKind::gemm && n.size() > 6 && n.compare(n.size() - 6, 6, ".wgrad") == 0) wgrad += t;
    if (op.kind == OpKind::attention || is_attention_core(op.name)) attention += t;
  } else if (op.comm_axis == "tp") {
    tp += t;
  } else if (op.comm_axis == "ep") {
    ep += t;
  } else if (op.comm_axis == "cp") {
    cp += t;
  }
}

LayerTimes layer_times(const Scenario& s, bool moe_layer, bool keep_ops) {
  LayerTimes lt;
  const Groups g = make_groups(s.par);
  const LayerPass pass = training_pass(s, g, moe_layer);
  std::vector<OpSpec> fwd = layer_forward(s.model, pass);
  apply_lora(fwd, s.model, s.train, pass);
  if (s.train.fusion == Fusion::eager) apply_eager_kernels(fwd, s.model, pass.act_bytes);
  if (keep_ops) lt.ops.reserve(4 * fwd.size());
  if (s.train.precision == Precision::fp8) apply_fp8_recipe(fwd, s.train.fp8_recipe, pass);
  if (s.train.precision == Precision::fp4) apply_fp4_recipe(fwd, s.train.fp4_mx);
  const System& sys = s.system;
  const Recompute rc = s.train.recompute;
  auto account = [&](const OpSpec& spec, const char* phase, PassTime& into) {
    Op op = cost_op(sys, spec, phase, 1);
    into.add(op);
    if (keep_ops) lt.ops.push_back(std::move(op));
  };
  const std::vector<MatmulPart> mms = rc == Recompute::selective_op ? layer_matmuls(s.model, s.par.tp, moe_layer)
                                                                     : std::vector<MatmulPart>{};
  for (const OpSpec& f : fwd) {
    account(f, "fwd", lt.fwd);
    const double share = recompute_share(f, rc, s.train.flash_attention, mms);
    if (share >= 1) account(f, "recompute", lt.rec);
    else if (share > 0) account(narrowed(f, share), "recompute", lt.rec);
    for (const OpSpec& b : backward_of(f)) account(b, "bwd", lt.bwd);
  }
  if (s.par.cp > 1) {
    // The exchange overlaps the attention of the blocks already received.
    Op f = cost_op(sys, cp_exchange(s, g, s.par.cp - 1), "fwd", 1);
    Op b = cost_op(sys, cp_exchange(s, g, 2.0 * (s.par.cp - 1)), "bwd", 1);
    lt.fwd.cp += std::max(0.0, f.cost.time_s - lt.fwd.attention);
    lt.bwd.cp += std::max(0.0, b.cost.time_s - lt.bwd.attention);
    if (keep_ops) {
      lt.ops.push_back(f);
      lt.ops.push_back(b);
    }
  }
  return lt;
}

namespace {

// Cross-entropy over the [tokens x vocab/tp] logits, in fp32 as Megatron-Core
// computes it (tensor_parallel/cross_entropy.py), bytes per logit, fused as
// --cross-entropy-loss-fusion runs it (NeMo 2 and Megatron-Bridge default,
// megatron/core/fusions/fused_cross_entropy.py): cast to fp32 with the row
// max (read 2, write 4), subtract + exp + row sum (4 + 4), divide by the sum
// into the softmax kept for backward (4 + 4) = 22 in three kernels; backward
// scales it by the incoming gradient and writes the 16-bit gradient for the
// LM head (4 + 2) = 6 in one. Eager (training.fusion), one pass per step:
// the cast (2 + 4), the row max (4), subtract (4 + 4), exp (4 + 4), the row
// sum (4), the division (4 + 4) = 38 bytes in 6 kernels, and backward the
// scaling (4 + 4) and the cast to 16 bits (4 + 2) = 14 in 2.
std::pair<OpSpec, OpSpec> cross_entropy_ops(double logits, bool eager) {
  OpSpec f = make_elementwise("cross_entropy", (eager ? 38 : 22) * logits, 5 * logits);
  f.kernels = eager ? 6 : 3;
  OpSpec b = make_elementwise("cross_entropy.bwd", (eager ? 14 : 6) * logits, 2 * logits);
  b.kernels = eager ? 2 : 1;
  return {f, b};
}

// The input embedding: forward gathers rows; backward builds the dense
// [vocab/tp x h] weight gradient (PyTorch embedding_dense_backward: zero-fill,
// read the incoming gradient, write the rows) and Megatron-Core's DDP hook adds
// it into the fp32 main_grad buffer (param.main_grad.add_(param.grad): read 2 +
// 4, write 4), 12 bytes per table element; the table does not shrink with the
// tokens, which makes it a fixed cost per micro-batch for large vocabularies.
std::pair<OpSpec, OpSpec> embedding_ops(double tokens, double table, double hidden, double act_bytes) {
  OpSpec f = make_elementwise("embedding", 2 * tokens * hidden * act_bytes, 0);
  OpSpec b = make_elementwise("embedding.bwd", 2 * tokens * hidden * act_bytes + 12 * table, table);
  b.kernels = 3;
  return {f, b};
}

}  // namespace

PassTime edge_times(const Scenario& s, bool first, bool last, std::vector<Op>* ops) {
  PassTime t;
  const Model& m = s.model;
  const double tokens = s.train.micro_batch * s.train.seq_len / static_cast<double>(s.par.cp);
  const double vocab = m.vocab / static_cast<double>(s.par.tp);
  const LayerPass pass = training_pass(s, make_groups(s.par), false);
  std::vector<std::pair<OpSpec, std::vector<OpSpec>>> list;  // (forward op, its backward ops)
  // LoRA freezes the embedding and the LM head: no gradient for the table
  // (nothing below it trains) and only the head's data gradient.
  const bool lora = s.train.lora();
  if (first) {
    auto [f, b] = embedding_ops(tokens, vocab * m.hidden, m.hidden, pass.act_bytes);
    list.push_back({f, lora ? std::vector<OpSpec>{} : std::vector<OpSpec>{b}});
  }
  if (last) {
    OpSpec head;
    head.name = "lm_head";
    head.kind = OpKind::gemm;
    // Transformer Engine's fp8 covers the transformer layers only: Megatron's
    // output layer is a plain ColumnParallelLinear and runs in 16-bit.
    const bool fp8 = pass.math == Precision::fp8 || pass.math == Precision::fp4;
    head.gemm = {tokens, vocab, static_cast<double>(m.hidden), 1,
                 fp8 ? 2.0 : pass.gemm_act_bytes, fp8 ? 2.0 : pass.weight_bytes, pass.act_bytes,
                 fp8 ? Precision::bf16 : pass.math};
    head.frozen = lora;
    list.push_back({head, backward_of(head)});
    auto [f, b] = cross_entropy_ops(tokens * vocab, s.train.fusion == Fusion::eager);
    list.push_back({f, {b}});
  }
  for (const auto& [spec, bwd] : list) {
    Op f = cost_op(s.system, spec, "fwd", 1);
    t.add(f);
    if (ops) ops->push_back(f);
    for (const OpSpec& b : bwd) {
      Op bo = cost_op(s.system, b, "bwd", 1);
      t.add(bo);  // folded into the same pass total
      if (ops) ops->push_back(bo);
    }
  }
  if (last) add_mtp(s, t, ops);
  return t;
}

namespace {

// recomputed_layer_flops: what op-level checkpointing runs again over the
// iteration, from the layers' recompute ops.
double model_flops_of(const Scenario& s, double recomputed_layer_flops, double adapter_params, double* hardware) {
  const Model& m = s.model;
  const Training& t = s.train;
  const double tokens = static_cast<double>(t.global_batch) * t.seq_len;
  // Model FLOPs: 3 x forward (Narayanan et al. 2021 eq. 3, full s^2 attention);
  // hardware FLOPs add what recomputation runs again.
  const double fwd_tok = forward_flops_per_token(m, t.seq_len) + mtp_forward_flops_per_token(m, t.seq_len);
  double extra = 0;
  if (t.recompute == Recompute::full)
    extra = recomputed_share(t, stage_layout(m, s.par).max_layers) * (fwd_tok - 2.0 * m.vocab * m.hidden) * tokens;
  else if (t.recompute == Recompute::selective && !t.flash_attention)
    extra = m.layers * attention_core_flops_per_token(m, t.seq_len) * tokens;
  else if (t.recompute == Recompute::selective_op)
    extra = recomputed_layer_flops;
  // LoRA: the frozen weights' gradient GEMMs (as many FLOPs as their forward,
  // every forward FLOP outside the attention core) are not run; the adapters
  // a token passes through train as 6 FLOPs per parameter and token.
  double model = 3 * fwd_tok * tokens;
  if (t.lora()) {
    const double frozen_wgrad = fwd_tok - m.layers * attention_core_flops_per_token(m, t.seq_len);
    model += (6 * adapter_params - frozen_wgrad) * tokens;
  }
  *hardware = model + extra;
  return model;
}

// Model FLOPs that run in a narrower format than the training precision:
// DeepSeek Sparse Attention's indexer scores in fp8 whatever the run's
// precision (sparse_attention.cpp), in every layer and MTP block, three
// times its forward as model_flops_of counts it.
double narrow_model_flops(const Scenario& s) {
  const Model& m = s.model;
  if (!m.sparse.on()) return 0;
  const double tokens = static_cast<double>(s.train.global_batch) * s.train.seq_len;
  return 3 * (m.layers + m.mtp_layers) * s.train.seq_len * indexer_pair_flops(m) * tokens;
}

// What MFU and HFU divide by: the device's matmul peak in the training
// precision (PaLM, Chowdhery et al. 2022, App. B), except that the FLOPs
// which run in a faster, narrower format count at that format's peak (the
// fp8 indexer in a 16-bit run), so a run at or below every peak stays at or
// below 100%. Without such FLOPs it is the plain peak.
double utilisation_peak(const Scenario& s, double flops, double narrow) {
  const Device& d = s.system.device;
  const double peak = d.matmul_flops[static_cast<int>(s.train.precision)];
  const double fast = std::max(peak, d.matmul_flops[static_cast<int>(attention_precision(d, Precision::fp8))]);
  if (narrow <= 0 || flops <= narrow || fast <= peak) return peak;
  return flops / ((flops - narrow) / peak + narrow / fast);
}

// The ops table: per-occurrence costs, counted per iteration on the slowest stage.
void fill_ops(const Scenario& s, const IterationParts& parts, const std::vector<Op>& edge_list, TrainingResult& r) {
  const Model& m = s.model;
  const Parallelism& par = s.par;
  const double layers = stage_layout(m, par).max_layers;
  const double mb = static_cast<double>(r.pipeline.microbatches);
  const double moe_frac = stage_moe_share(s, parts);
  auto single = [&](const char* name, const char* phase, OpKind k, OpCost cost, const char* axis, double count) {
    Op op;
    op.name = name;
    op.phase = phase;
    op.kind = k;
    op.count = count;
    op.comm_axis = axis;
    op.cost = std::move(cost);
    if (op.cost.bytes.empty()) op.cost.bytes.assign(s.system.device.memory.size(), 0.0);
    r.ops.push_back(std::move(op));
  };
  auto network = [](double time) {
    OpCost c;
    c.time_s = time;
    c.bound = kBoundNetwork;
    return c;
  };
  const double v = par.schedule == PipeSchedule::interleaved ? par.virtual_stages : 1;
  if (par.pp > 1) single("pp.send_recv", "fwd", OpKind::comm, network(parts.hop), "pp", mb * 2 * v);
  const double rec_share = recomputed_share(s.train, layers);
  for (Op op : parts.dense->ops) {
    op.count *= layers * (1 - moe_frac) * mb * (op.phase == "recompute" ? rec_share : 1.0);
    if (op.count > 0) r.ops.push_back(std::move(op));  // none for the dense kind of an all-MoE model
  }
  if (parts.moe)
    for (Op op : parts.moe->ops) {
      op.count *= layers * moe_frac * mb * (op.phase == "recompute" ? rec_share : 1.0);
      if (op.count > 0) r.ops.push_back(std::move(op));
    }
  for (Op op : edge_list) {
    op.count *= mb;
    r.ops.push_back(std::move(op));
  }
  const DpParts& d = *parts.dp;
  // ZeRO-3 gathers and reduces every micro-batch, ZeRO-2 reduces every one;
  // under pipeline stages ZeRO-3 does both once (zero3_holds_stage).
  const bool once = zero3_holds_stage(s);
  const double per_iteration = par.zero >= 2 && !once ? mb : 1;
  if (d.reduce > 0)
    single(par.zero >= 1 ? "dp.grad_reduce_scatter" : "dp.grad_all_reduce", "bwd", OpKind::comm, network(d.reduce), "dp",
           per_iteration);
  if (d.gather > 0)
    single("dp.param_all_gather", par.zero >= 3 ? "fwd" : "optimizer", OpKind::comm, network(d.gather), "dp",
           par.zero >= 3 && !once ? 2 * mb : 1);
  for (const HostOp& h : offload_ops(s, d, layers, mb)) {
    OpCost c = network(h.time_s);
    if (h.host_bound) c.bound = kBoundHost;
    single(h.name, h.phase, h.host_bound ? OpKind::elementwise : OpKind::comm, c, h.host_bound ? "" : "host", h.count);
  }
  if (s.train.offload == Offload::none) single("optimizer.step", "optimizer", OpKind::elementwise, d.optimizer, "", 1);
}

// What bounds the step: its largest part. When the host's launches outlast
// the GPU's chain (a host wait, sim/step_waits.cpp), the GPU's compute, its
// exposed communication and its activation copies all run under the host's
// chain, which is then their sum plus the wait: making any of them faster
// would not shorten the step.
std::string bounding_part(const TimeBreakdown& bd) {
  const double gpu_chain = bd.compute + bd.recompute + bd.tp_comm + bd.cp_comm + bd.ep_comm + bd.dp_comm + bd.offload;
  const double host_chain = bd.host > 0 ? gpu_chain + bd.host : 0.0;
  const std::pair<const char*, double> parts[] = {
      {"compute", bd.compute + bd.recompute}, {"tp_comm", bd.tp_comm}, {"cp_comm", bd.cp_comm},
      {"ep_comm", bd.ep_comm}, {"pp_comm", bd.pp_comm}, {"pp_bubble", bd.pp_bubble},
      {"dp_comm", bd.dp_comm}, {"optimizer", bd.optimizer}, {"host", host_chain}, {"offload", bd.offload}};
  std::string name;
  double best = -1;
  for (const auto& [n, val] : parts)
    if (val > best) {
      best = val;
      name = n;
    }
  return name;
}

}  // namespace

TrainingResult evaluate_training(const Scenario& s) {
  TrainingResult r;
  const Parallelism& par = s.par;
  const Training& t = s.train;
  // One layer of each kind; the stage's totals scale by its layer count.
  const LayerTimes dense = layer_times(s, false, true);
  const LayerTimes moe = s.model.is_moe() ? layer_times(s, true, true) : LayerTimes{};
  // The slowest stage: with pp == 1 one stage has both ends.
  std::vector<Op> edge_list;
  const PassTime first_edge = edge_times(s, true, par.pp == 1, &edge_list);
  const PassTime last_edge = par.pp > 1 ? edge_times(s, false, true, &edge_list) : PassTime{};
  r.memory = training_memory(s);
  const DpParts dp = dp_parts(s, r.memory.params_on_gpu, r.memory.expert_params_on_gpu, r.memory.adapter_params_on_gpu,
                              r.memory.expert_adapter_params_on_gpu);
  IterationParts parts;
  parts.dense = &dense;
  parts.moe = s.model.is_moe() ? &moe : nullptr;
  parts.edge_first = first_edge.compute;
  parts.edge_last = last_edge.compute;
  parts.hop = pipeline_hop_time(s);
  parts.dp = &dp;
  const Iteration it = compose_iteration(s, parts);

  r.breakdown = it.breakdown;
  r.iteration_time_s = r.breakdown.total();
  const double gpus = static_cast<double>(par.gpus());
  r.tokens_per_s = static_cast<double>(t.global_batch) * t.seq_len / r.iteration_time_s;
  // Every GPU runs its layers' recompute for every micro-batch: per-GPU
  // layer FLOPs x layers x micro-batches of the whole batch x the tp x cp
  // GPUs that share a layer.
  const double moe_frac = s.model.is_moe() ? moe_layer_count(s.model) / static_cast<double>(s.model.layers) : 0.0;
  const double rec_layer = (1 - moe_frac) * dense.rec.flops + moe_frac * moe.rec.flops;
  const double rec_all = rec_layer * s.model.layers * (static_cast<double>(t.global_batch) / t.micro_batch) * par.tp * par.cp;
  double active_adapters = 0;
  r.trainable_params = trainable_params(s.model, s.train, &active_adapters);
  r.model_flops = model_flops_of(s, rec_all, t.lora() ? active_adapters : 0.0, &r.hardware_flops);
  const double peak = utilisation_peak(s, r.model_flops, narrow_model_flops(s));
  r.tflops_per_gpu = r.model_flops / r.iteration_time_s / gpus / 1e12;
  r.mfu = r.model_flops / (r.iteration_time_s * gpus * peak);
  r.hfu = r.hardware_flops / (r.iteration_time_s * gpus * peak);
  if (t.tokens > 0) r.time_to_train_s = t.tokens / r.tokens_per_s;
  // What is offloaded must fit in the host's memory too.
  r.fits = r.memory.total <= r.memory.capacity && !host_short(r.memory);

  r.pipeline.stages = par.pp;
  const StageLayout layout = stage_layout(s.model, par);
  r.pipeline.layers_per_stage = layout.max_layers, r.pipeline.short_stages = layout.short_stages;
  r.pipeline.virtual_stages = par.schedule == PipeSchedule::interleaved ? par.virtual_stages : 1;
  r.pipeline.microbatches = microbatches_per_replica(t, par);
  r.pipeline.schedule = par.schedule == PipeSchedule::gpipe ? "gpipe"
                        : par.schedule == PipeSchedule::interleaved ? "interleaved"
                        : par.schedule == PipeSchedule::zb_h1       ? "zb_h1"
                        : par.schedule == PipeSchedule::dualpipe    ? "dualpipe"
                                                                     : "1f1b";
  r.pipeline.t_fwd_s = it.t_fwd_s;
  r.pipeline.t_bwd_s = it.t_bwd_s;
  r.pipeline.t_wgrad_s = it.t_wgrad_s;
  fill_ops(s, parts, edge_list, r);
  r.bound = bounding_part(r.breakdown);
  return r;
}

}  // namespace llmcalc
