#include "memory.h"

#include <algorithm>
#include <cmath>

#include "eager_ops.h"
#include "linear_attention.h"
#include "lora.h"
#include "mla.h"
#include "model_math.h"
#include "op_checkpoint.h"
#include "sparse_attention.h"

namespace llmcalc {

namespace {

double kv_dim_local(const Model& m, int tp) {
  return std::max(1.0, m.kv_heads / static_cast<double>(tp)) * m.head_dim;
}

// What eager autograd saves beyond the fused kernels (training.fusion,
// model/eager_ops.h), per token of one layer: the block's RMSNorms (on the
// sequence-parallel shard) and QK-Norm's, the rotary embedding's Q and K
// (MLA turns only its decoupled rope dimensions; learned positions none),
// and the gated activation's output (`gated_width`, as the caller counts it).
double eager_saved_per_token(const Model& m, const Parallelism& p, double mlps, double gated_width, double linear) {
  const double tp = p.tp;
  const double qk = q_dim(m) / tp + kv_dim_local(m, p.tp);
  double norms = m.norm == NormType::rmsnorm ? (1 + mlps) * m.hidden / (p.sp ? tp : 1.0) : 0;
  if (m.qk_norm && !m.mla.on()) norms += (1 - linear) * qk;
  double rope = m.learned_positions ? 0 : m.mla.on() ? (m.heads / tp + 1) * m.mla.qk_rope_head_dim : qk;
  rope *= 1 - linear;
  return eager_extra_activation_bytes(norms, rope, is_gated(m.ffn_type) ? gated_width : 0, 2);
}

}  // namespace

// Bytes per parameter held for training with Megatron's mixed-precision
// optimizer (Korthikanti et al. 2022 §4: 18 bytes = 2 weight + 4 fp32 grad
// + 12 Adam state incl. fp32 master; fp8 training keeps bf16 weights).
ParamBytes param_bytes(const Training& t) {
  const bool full_fp32 = t.precision == Precision::fp32 || t.precision == Precision::tf32;
  const double w = full_fp32 ? 4 : 2;
  const double state = t.optimizer == Optimizer::adam ? 8 : 4;  // m, v  or momentum
  return {w, 4, state + (full_fp32 ? 0 : 4)};                   // + fp32 master copy
}

StageParams params_of_stage(const Model& m, const Parallelism& p, int first_layer, int layers, bool first, bool last) {
  struct {
    double dense = 0, expert = 0, norms = 0;  // norms stay whole on every tp rank (Megatron)
  } sp;
  const LayerParams dense = layer_params(m, false);
  const LayerParams moe = layer_params(m, true);
  for (int l = first_layer; l < first_layer + layers; ++l) {
    if (is_moe_layer(m, l)) {
      // The router and the shared experts are dense weights (Megatron-Core
      // TopKRouter, SharedExpertMLP: tensor-parallel, replicated over ep).
      sp.dense += moe.attention + moe.router + moe.shared;
      sp.norms += moe.norms;
      sp.expert += moe.routed();
    } else {
      sp.dense += dense.attention + dense.mlp;
      sp.norms += dense.norms;
    }
  }
  const double tp = p.tp;
  double edges = sp.norms;  // what is not a linear layer's weight
  // Vocab-parallel embedding (split over tp); learned positions replicated.
  if (first) edges += 1.0 * m.vocab * m.hidden / tp + (m.learned_positions ? 1.0 * m.seq_len * m.hidden : 0.0);
  // The output layer (or, with tied weights on a multi-stage pipeline, the
  // embedding copy Megatron keeps on the last stage) and the final norm.
  if (last && (!m.tied_embeddings || !first)) edges += 1.0 * m.vocab * m.hidden / tp;
  if (last) edges += (m.norm == NormType::layernorm ? 2.0 : 1.0) * m.hidden;
  // Experts split over etp x ep (MoE parallel folding; etp defaults to tp).
  return {sp.dense / tp + edges, sp.expert / (static_cast<double>(p.expert_tp()) * p.ep), edges, 0};
}

double layer_activation_bytes(const Model& m, const Parallelism& p, const Training& t, bool moe_layer) {
  const double s = t.seq_len / static_cast<double>(p.cp), b = t.micro_batch, h = m.hidden, tp = p.tp;
  const double a = m.heads / tp;  // heads on this GPU
  const double sbh = s * b * h;
  const double mask = m.dropout ? 1.0 : 0.0;
  if (t.recompute == Recompute::full) return 2 * sbh / (p.sp ? tp : 1.0);  // the layer input only
  if (t.recompute == Recompute::selective_op) return op_checkpoint_activation_bytes(m, p, t, moe_layer);
  // Bytes of each saved GEMM input: Transformer Engine's fp8 layers keep the
  // quantised copy their wgrad GEMM reads, not the 16-bit tensor (TE
  // Linear / LayerNormLinear save_for_backward of the fp8 input; MXFP8 adds
  // one E8M0 scale per 32 elements, OCP MX spec v1.0).
  const double g = t.precision != Precision::fp8 ? 2.0 : t.fp8_recipe == Fp8Recipe::mxfp8 ? 1 + 1.0 / 32 : 1.0;
  // Korthikanti et al. 2022 §4.1, generalised to GQA and gated MLPs.
  // Replicated over tp unless sequence parallel: two norm inputs (2 bytes
  // each), the QKV and MLP inputs (g bytes each) and the two dropout masks;
  // the MLP's half only in the layers that have one.
  const double mlps = mlp_share(m, moe_layer);
  const double replicated = sbh * (2 + g + mask) * (1 + mlps);
  const double qd = q_dim(m) / tp, kvd = kv_dim_local(m, p.tp);
  double split = m.mla.on() ? mla_activation_bytes(m, p.tp, s * b)
                            : 2 * s * b * (qd + kvd) + 2 * s * b * kvd + g * s * b * qd;  // Q, K; V; context (proj input)
  if (m.attention.output_gate) split += 2 * s * b * qd;  // the gate, and the core's output it multiplies
  if (m.qk_norm && !m.mla.on()) split += 2 * s * b * (qd + kvd);  // QK-Norm keeps its inputs for backward
  if (m.sparse.on()) split += indexer_activation_bytes(m, s * b);  // DeepSeek Sparse Attention's indexer
  // A hybrid's linear layers save their mixer's tensors instead (averaged over the layers).
  const double linear = linear_share(m);
  split = (1 - linear) * split + linear * linear_activation_bytes(m, p.tp, s * b, g);
  double ffn = m.ffn_hidden, k = 1;
  if (moe_layer) {
    ffn = m.moe.ffn_hidden;
    k = m.moe.top_k + (m.moe.shared_width() == m.moe.ffn_hidden ? m.moe.shared_experts : 0);
    split += mlps * 2 * sbh * m.moe.top_k * p.expert_tp() / tp;  // the dispatched copies, gathered over etp
    if (m.moe.shared_width() != m.moe.ffn_hidden)
      split += mlps * m.moe.shared_experts * s * b * (m.moe.shared_width() / tp) * (is_gated(m.ffn_type) ? 6 : 4);
  }
  // Up-projection output (2 bytes per column, two halves when gated) and the
  // activation's output, which is the down-projection's GEMM input (g bytes).
  split += mlps * k * s * b * (ffn / tp) * ((is_gated(m.ffn_type) ? 4 : 2) + g);
  if (t.fusion == Fusion::eager) split += s * b * eager_saved_per_token(m, p, mlps, mlps * k * ffn / tp, linear);
  // Attention scores: softmax output (2 B), dropout mask (1 B) and output
  // (2 B) per score; FlashAttention keeps only a float log-sum-exp per row.
  double scores = 0;
  if (t.flash_attention)
    scores = 4 * a * s * b;
  else if (t.recompute == Recompute::none)
    scores = a * s * (t.seq_len) * b * (2 + 3 * mask);
  scores *= 1 - linear;
  return replicated / (p.sp ? tp : 1.0) + split + scores;
}

double recomputed_share(const Training& t, double layers) {
  if (t.recompute != Recompute::full || !t.recompute_block || t.recompute_layers <= 0 || layers <= 0) return 1;
  return std::min(1.0, t.recompute_layers / layers);
}

namespace {

// Layer x micro-batch activations rank `rank` of the pipeline holds with
// `layers` layers.
double rank_inflight(const Parallelism& p, double mb, int rank, double layers) {
  switch (p.schedule) {
    case PipeSchedule::gpipe: return layers * mb;  // every forward before any backward
    case PipeSchedule::one_f_one_b:
    case PipeSchedule::zb_h1:  // the same in-flight micro-batches (Qi et al. 2024, ZB-H1)
      return layers * std::min(mb, 1.0 * (p.pp - rank));
    case PipeSchedule::dualpipe:
      // DeepSeek-V3 §3.2.1 Table 2: PP + 1 micro-batches' activations of a
      // stage on every rank (rank i holds pp - i of one direction's, i + 1 of
      // the other's).
      return layers * std::min(mb, p.pp + 1.0);
    case PipeSchedule::interleaved: {
      // Megatron's warm-up on rank r: 2(p-1-r) + (v-1)p model-chunk forwards,
      // plus the one in steady state (Korthikanti et al. 2022 §4.2.3:
      // a factor 1 + (p-1)/(pv) over 1F1B for rank 0).
      const double v = p.virtual_stages;
      return std::min(mb * v, 2.0 * (p.pp - 1 - rank) + (v - 1) * p.pp + 1) * layers / v;
    }
  }
  return layers;
}

}  // namespace

// The most layer x micro-batch activations a stage holds. Rank 0 holds the
// most micro-batches; when pp does not divide the layers and both ends are
// short (end_stage_excess), it holds a layer fewer, and rank 1, with all its
// layers and the micro-batches of one stage less, can hold more.
double inflight_layer_microbatches(const Model& m, const Parallelism& p, long long microbatches) {
  const StageLayout l = stage_layout(m, p);
  const double layers = l.max_layers, first = l.short_stages >= 2 ? layers - 1 : layers;
  const double mb = static_cast<double>(microbatches);
  const double rank0 = rank_inflight(p, mb, 0, first);
  return p.pp > 1 ? std::max(rank0, rank_inflight(p, mb, 1, layers)) : rank0;
}

namespace {

// ZeRO-3 / FSDP gathers a unit's weights whole before it computes, into
// buffers beside the shards (Zhao et al. 2023, PyTorch FSDP §3.3-3.4: the
// rate limiter keeps at most two units' gathers in flight, the computing
// unit and the prefetched one). The root unit (embedding, final norm, LM
// head) stays gathered from the forward through the backward (PyTorch
// fully_shard: the root does not reshard after forward, its weights being
// needed again at once). At the start of the backward, where activations
// peak, the root's gradient (reduce-scattered last) and the computing
// layer's are whole until reduced, in the weights' precision as autograd
// writes them. Units are layers, as in fsdp.cpp; a part sharded over one
// rank is not gathered, unless its weights are fetched from the host.
struct GatheredBuffers {
  double weights = 0, gradients = 0;
};
GatheredBuffers zero3_buffers(const Scenario& s, const StageParams& sp, int layers, double dp_shards,
                              double expert_shards) {
  const Parallelism& p = s.par;
  const Training& t = s.train;
  GatheredBuffers b;
  if (p.zero < 3 || layers <= 0) return b;
  const ParamBytes pb = param_bytes(t);
  // The root and one layer of the parts that are gathered (or fetched).
  const bool fetched = t.offload == Offload::parameters;
  const bool dense = dp_shards > 1 || fetched, expert = expert_shards > 1 || fetched;
  const double root = dense ? sp.unquantised : 0.0;
  const double unit = ((dense ? std::max(0.0, sp.dense - sp.unquantised) : 0.0) + (expert ? sp.expert : 0.0)) / layers;
  const double gb = p.gather_bytes > 0 ? p.gather_bytes : pb.weight;
  // LoRA: the frozen layers travel in their stored format, the root 16-bit;
  // only the adapters have gradients (left out: rank-r, a fraction of a percent).
  const double unit_bytes = t.lora() ? frozen_weight_bytes(t) : gb;
  // Under pipeline stages every layer stays gathered, and every gradient
  // whole, until the last micro-batch's backward (zero3_holds_stage).
  const bool whole_stage = zero3_holds_stage(s);
  const double units = whole_stage ? layers : 2, grad_units = whole_stage ? layers : 1;
  b.weights = root * (t.lora() ? pb.weight : gb) + units * unit * unit_bytes;
  // Gradients are whole where they are reduce-scattered or copied to the host.
  if (!t.lora()) b.gradients = (root + grad_units * unit) * pb.weight;
  return b;
}

// Weights, gradients and optimizer states of the stage's parameters, each
// sharded by the ZeRO stage that shards it (Rajbhandari et al. 2020): dense
// parameters over the shard group (all of dp x cp, or with hybrid sharding
// its innermost zero_shard ranks), experts over the ranks of that group
// holding the same experts.
void add_model_states(const Scenario& s, const StageParams& sp, int max_layers, TrainingMemory& r) {
  const Parallelism& p = s.par;
  const Training& t = s.train;
  const ParamBytes pb = param_bytes(t);
  const double dp_shards = static_cast<double>(p.shard_ranks());
  const double expert_shards = static_cast<double>(p.expert_shard_ranks());
  auto sharded = [&](double dense_bytes, double expert_bytes, int stage) {
    return p.zero >= stage ? dense_bytes / dp_shards + expert_bytes / expert_shards : dense_bytes + expert_bytes;
  };
  if (t.lora()) {
    // LoRA: frozen weights in their stored format (QLoRA: NF4 for the linear
    // layers), and the adapters' weights, gradients and optimizer states.
    // ZeRO shards them as it would the trained weights (FSDP-QLoRA shards the
    // quantised storage). The adapters' rank-r intermediates, r / hidden of a
    // layer input each, are left out of the activations.
    const double fb = frozen_weight_bytes(t);
    const double dense_adapters = sp.adapters - sp.expert_adapters, expert_adapters = sp.expert_adapters;
    const double dense_bytes = (sp.dense - sp.unquantised) * fb + sp.unquantised * pb.weight + dense_adapters * pb.weight;
    r.weights = sharded(dense_bytes, sp.expert * fb + expert_adapters * pb.weight, 3);
    r.gradients = sharded(dense_adapters * pb.grad, expert_adapters * pb.grad, 2);
    r.optimizer = sharded(dense_adapters * pb.optim, expert_adapters * pb.optim, 1);
  } else {
    r.weights = sharded(sp.dense * pb.weight, sp.expert * pb.weight, 3);
    r.gradients = sharded(sp.dense * pb.grad, sp.expert * pb.grad, 2);
    r.optimizer = sharded(sp.dense * pb.optim, sp.expert * pb.optim, 1);
  }
  // ZeRO-Offload (Ren et al. 2021, USENIX ATC, §4.1): the fp32 gradients and
  // the optimizer states (fp32 master weights, Adam's m and v) live in host
  // memory, both partitioned as the optimizer states are (each rank copies
  // its reduced shard); the GPU keeps a 16-bit gradient in their place.
  if (t.offload != Offload::none) {
    r.offloaded = r.optimizer * (pb.grad + pb.optim) / pb.optim;
    r.gradients *= pb.weight / pb.grad;
    r.optimizer = 0;
  }
  // Parameter offload (ZeRO-Infinity, Rajbhandari et al. 2021, SC '21, §5;
  // PyTorch FSDP CPUOffload(offload_params)): the rank's weight shard lives
  // in host memory too, and each micro-batch's gradient shard goes there as
  // it is reduced; the GPU holds only the units in flight.
  if (t.offload == Offload::parameters) {
    r.offloaded += r.weights;
    r.weights = r.gradients = 0;
  }
  const GatheredBuffers gathered = zero3_buffers(s, sp, max_layers, dp_shards, expert_shards);
  r.weights += gathered.weights;
  r.gradients += gathered.gradients;
}

// Saved activations of the layers in flight on the stage: `inflight`
// layer-micro-batches of `per_layer` bytes, fewer under recomputation, less
// what waits in host memory.
void add_layer_activations(const Scenario& s, int max_layers, bool moe_here, double inflight, TrainingMemory& r) {
  const Training& t = s.train;
  double per_layer = layer_activation_bytes(s.model, s.par, t, moe_here);
  if (t.recompute == Recompute::full) {
    Training none = t;
    none.recompute = Recompute::none;
    const double whole = layer_activation_bytes(s.model, s.par, none, moe_here);
    // Megatron --recompute-method (Korthikanti et al. 2022 §5; Megatron-LM
    // arguments): block keeps only the recomputed layers' inputs and the
    // others whole; uniform keeps one input per chunk of N layers and
    // materialises a whole chunk again during its backward.
    const double n = std::min<double>(t.recompute_layers > 0 ? t.recompute_layers : 1, max_layers);
    const double share = recomputed_share(t, max_layers);
    per_layer = t.recompute_block ? share * per_layer + (1 - share) * whole : per_layer / n;
    r.activations = per_layer * inflight + (t.recompute_block ? 1.0 : n) * whole;
  } else {
    r.activations = per_layer * inflight;
  }
  // Activation offload (Megatron-Core CPU offloading, cpu_offloading_num_layers;
  // pp 1): the saved activations of that many layers wait in host memory
  // between their forward and backward, but for one layer's being copied.
  if (t.offload_activations > 0) {
    const double share = std::min(1.0, t.offload_activations / static_cast<double>(max_layers));
    const double moved = share * per_layer * inflight;
    r.offloaded += moved;
    r.activations -= moved - per_layer;
  }
}

// The last stage's extras: vocab-parallel cross-entropy keeps the fp32
// softmax of [s, b, V/tp]; MTP modules (Megatron-Core) their block and
// second logits.
double last_stage_activations(const Scenario& s) {
  const Model& m = s.model;
  const Parallelism& p = s.par;
  const Training& t = s.train;
  const double logits = 4.0 * t.seq_len / p.cp * t.micro_batch * m.vocab / p.tp;
  double bytes = logits;
  if (m.mtp_layers > 0)
    bytes += m.mtp_layers * (layer_activation_bytes(mtp_block_model(m), p, t, is_moe_layer(m, m.layers - 1)) + logits);
  return bytes;
}

}  // namespace

namespace {

// One GPU of the stage whose layers start at `first_layer`, holding
// `inflight` layer x micro-batch activations.
TrainingMemory stage_memory_at(const Scenario& s, const StageParams& sp, int first_layer, double inflight, bool last) {
  const Model& m = s.model;
  const int max_layers = stage_layout(m, s.par).max_layers;
  TrainingMemory r;
  r.params_on_gpu = sp.dense + sp.expert;
  r.expert_params_on_gpu = sp.expert;
  r.adapter_params_on_gpu = sp.adapters;
  r.expert_adapter_params_on_gpu = sp.expert_adapters;
  add_model_states(s, sp, max_layers, r);
  bool moe_here = false;  // any MoE layer on the stage (the search asks this of every plan: stop at the first)
  if (m.is_moe())
    for (int l = first_layer; l < std::min(m.layers, first_layer + max_layers) && !moe_here; ++l) moe_here = is_moe_layer(m, l);
  add_layer_activations(s, max_layers, moe_here, inflight, r);
  if (last) r.activations += last_stage_activations(s);
  r.total = r.weights + r.gradients + r.optimizer + r.activations;
  return r;
}

}  // namespace

TrainingMemory stage_memory(const Scenario& s, const StageParams& sp, bool first, bool last, long long microbatches) {
  const Model& m = s.model;
  const int max_layers = stage_layout(m, s.par).max_layers;
  const bool dualpipe = s.par.schedule == PipeSchedule::dualpipe;  // every rank holds as many in flight
  const double inflight = first || dualpipe ? inflight_layer_microbatches(m, s.par, microbatches) : max_layers;
  return stage_memory_at(s, sp, first ? 0 : m.layers - max_layers, inflight, last);
}

namespace {

// LoRA adapters of `layers` layers from `first_layer` on one GPU, into sp.
void add_stage_adapters(const Model& m, const Parallelism& p, const Training& t, int first_layer, int layers,
                        StageParams& sp) {
  if (!t.lora()) return;
  double moe_layers = 0;
  for (int l = first_layer; l < first_layer + layers; ++l) moe_layers += is_moe_layer(m, l) ? 1 : 0;
  const double dense = layers - moe_layers;
  const LoraParams d = dense > 0 ? lora_layer_params(m, p, t, false) : LoraParams{};
  const LoraParams e = moe_layers > 0 ? lora_layer_params(m, p, t, true) : LoraParams{};
  sp.adapters = dense * d.all + moe_layers * e.all;
  sp.expert_adapters = moe_layers * e.expert;
}

}  // namespace

EdgeStageParams stage_params(const Model& m, const Parallelism& p, const Training& t) {
  const int layers = stage_layout(m, p).max_layers;
  const int second = std::clamp(m.layers - layers, 0, layers);  // rank 1's layers, after rank 0's
  EdgeStageParams sp{params_of_stage(m, p, 0, layers, true, p.pp == 1),
                     params_of_stage(m, p, m.layers - layers, layers, false, true),
                     params_of_stage(m, p, layers, second, false, false)};
  add_stage_adapters(m, p, t, 0, layers, sp.first);
  add_stage_adapters(m, p, t, m.layers - layers, layers, sp.last);
  add_stage_adapters(m, p, t, layers, second, sp.second);
  if (m.mtp_layers > 0) {
    // The MTP modules train on the last stage: experts split like the others.
    const bool moe = is_moe_layer(m, m.layers - 1);
    const LayerParams block = layer_params(mtp_block_model(m), moe);
    const double expert = moe ? block.routed() : 0.0;
    StageParams& last = p.pp == 1 ? sp.first : sp.last;
    last.dense += (mtp_params(m) - m.mtp_layers * expert) / p.tp;
    last.expert += m.mtp_layers * expert / (static_cast<double>(p.expert_tp()) * p.ep);
  }
  return sp;
}

namespace {

StageParams both(StageParams a, const StageParams& b) {
  a.dense += b.dense;
  a.expert += b.expert;
  a.unquantised += b.unquantised;
  a.adapters += b.adapters;
  a.expert_adapters += b.expert_adapters;
  return a;
}

// DualPipe (DeepSeek-V3 §3.2.1, Table 2: parameters 2x): rank i holds stage
// i and stage pp-1-i, the end ranks the embedding and the LM head; a middle
// rank (pp >= 4) two full stages.
TrainingMemory dualpipe_rank(const Scenario& s, const EdgeStageParams& sp, long long microbatches) {
  const Model& m = s.model;
  TrainingMemory end = stage_memory(s, both(sp.first, sp.last), true, true, microbatches);
  const int layers = stage_layout(m, s.par).max_layers;
  if (s.par.pp >= 4) {
    const StageParams mid = params_of_stage(m, s.par, layers, layers, false, false);
    const TrainingMemory middle = stage_memory(s, both(mid, mid), false, false, microbatches);
    if (middle.total > end.total) return middle;
  }
  return end;
}

}  // namespace

TrainingMemory most_loaded_stage(const Scenario& s, const EdgeStageParams& sp, long long microbatches) {
  const bool single = s.par.pp == 1;
  const bool dualpipe = s.par.schedule == PipeSchedule::dualpipe && !single;
  TrainingMemory result = dualpipe ? dualpipe_rank(s, sp, microbatches) : stage_memory(s, sp.first, true, single, microbatches);
  if (!single && !dualpipe) {
    TrainingMemory last = stage_memory(s, sp.last, false, true, microbatches);
    if (last.total > result.total) result = last;
  }
  // Rank 1 holds a micro-batch less than rank 0 but no embedding, and its
  // layers may be heavier: the leading dense layers of DeepSeek-V3 or GLM-4.5
  // sit on rank 0 (with few experts per rank, a dense layer holds more).
  const StageParams &r0 = sp.first, &r1 = sp.second;  // rank 1 with no more weights than rank 0 holds less
  const bool heavier = r1.dense > r0.dense || r1.expert > r0.expert || r1.adapters > r0.adapters;
  if (s.par.pp >= 3 && !dualpipe && heavier) {
    const int layers = stage_layout(s.model, s.par).max_layers;
    const double inflight = rank_inflight(s.par, static_cast<double>(microbatches), 1, layers);
    TrainingMemory second = stage_memory_at(s, sp.second, layers, inflight, false);
    if (second.total > result.total) result = second;
  }
  result.capacity = s.system.device.dram().capacity_bytes;
  if (s.train.offload != Offload::none || s.train.offload_activations > 0)
    result.host_capacity = s.system.host.capacity_bytes * host_share(s);
  return result;
}

double host_share(const Scenario& s) {
  const double sharing = std::max(1, s.system.host.gpus > 0 ? s.system.host.gpus : s.system.gpus_per_node);
  return sharing / std::clamp(static_cast<double>(s.par.gpus()), 1.0, sharing);
}

TrainingMemory training_memory(const Scenario& s) {
  const long long microbatches = microbatches_per_replica(s.train, s.par);
  return most_loaded_stage(s, stage_params(s.model, s.par, s.train), microbatches);
}

}  // namespace llmcalc
