#include "memory.h"

#include <algorithm>
#include <cmath>

#include "attention_pattern.h"
#include "linear_attention.h"
#include "lora.h"
#include "mla.h"
#include "model_math.h"
#include "op_checkpoint.h"

namespace llmcalc {

namespace {

double kv_dim_local(const Model& m, int tp) {
  return std::max(1.0, m.kv_heads / static_cast<double>(tp)) * m.head_dim;
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

// The most layer x micro-batch activations a stage holds. Rank 0 holds the
// most micro-batches; when pp does not divide the layers and both ends are
// short (end_stage_excess), it holds a layer fewer, and rank 1, with all its
// layers and the micro-batches of one stage less, can hold more.
double inflight_layer_microbatches(const Model& m, const Parallelism& p, long long microbatches) {
  const StageLayout l = stage_layout(m, p);
  const double layers = l.max_layers, first = l.short_stages >= 2 ? layers - 1 : layers;
  const double mb = static_cast<double>(microbatches);
  switch (p.schedule) {
    case PipeSchedule::gpipe: return layers * mb;  // every forward before any backward
    case PipeSchedule::one_f_one_b:
    case PipeSchedule::zb_h1:  // the same in-flight micro-batches (Qi et al. 2024, ZB-H1)
      return std::max(first * std::min(mb, 1.0 * p.pp), layers * std::min(mb, p.pp - 1.0));
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
      const double rank0 = std::min(mb * v, 2.0 * (p.pp - 1) + (v - 1) * p.pp + 1);
      const double rank1 = std::min(mb * v, 2.0 * (p.pp - 2) + (v - 1) * p.pp + 1);
      return std::max(rank0 * first / v, p.pp > 1 ? rank1 * layers / v : 0.0);
    }
  }
  return layers;
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
  b.weights = root * (t.lora() ? pb.weight : gb) + 2 * unit * unit_bytes;
  // Gradients are whole where they are reduce-scattered or copied to the host.
  if (!t.lora()) b.gradients = (root + unit) * pb.weight;
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

TrainingMemory stage_memory(const Scenario& s, const StageParams& sp, bool first, bool last, long long microbatches) {
  const Model& m = s.model;
  const Parallelism& p = s.par;
  const int max_layers = stage_layout(m, p).max_layers;
  TrainingMemory r;
  r.params_on_gpu = sp.dense + sp.expert;
  r.expert_params_on_gpu = sp.expert;
  r.adapter_params_on_gpu = sp.adapters;
  r.expert_adapter_params_on_gpu = sp.expert_adapters;
  add_model_states(s, sp, max_layers, r);
  const int first_layer = first ? 0 : m.layers - max_layers;
  const bool moe_here = m.is_moe() && moe_layer_count(m) > 0 && m.layers - m.moe.dense_layers > first_layer;
  const bool dualpipe = p.schedule == PipeSchedule::dualpipe;  // every rank holds as many in flight
  const double inflight = first || dualpipe ? inflight_layer_microbatches(m, p, microbatches) : max_layers;
  add_layer_activations(s, max_layers, moe_here, inflight, r);
  if (last) r.activations += last_stage_activations(s);
  r.total = r.weights + r.gradients + r.optimizer + r.activations;
  return r;
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

StageParamsPair stage_params(const Model& m, const Parallelism& p, const Training& t) {
  const int layers = stage_layout(m, p).max_layers;
  StageParamsPair sp{params_of_stage(m, p, 0, layers, true, p.pp == 1),
                     params_of_stage(m, p, m.layers - layers, layers, false, true)};
  add_stage_adapters(m, p, t, 0, layers, sp.first);
  add_stage_adapters(m, p, t, m.layers - layers, layers, sp.last);
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
TrainingMemory dualpipe_rank(const Scenario& s, const StageParamsPair& sp, long long microbatches) {
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

TrainingMemory most_loaded_stage(const Scenario& s, const StageParamsPair& sp, long long microbatches) {
  const bool single = s.par.pp == 1;
  const bool dualpipe = s.par.schedule == PipeSchedule::dualpipe && !single;
  TrainingMemory result = dualpipe ? dualpipe_rank(s, sp, microbatches) : stage_memory(s, sp.first, true, single, microbatches);
  if (!single && !dualpipe) {
    TrainingMemory last = stage_memory(s, sp.last, false, true, microbatches);
    if (last.total > result.total) result = last;
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
  const long long microbatches = s.train.global_batch / (static_cast<long long>(s.train.micro_batch) * s.par.dp);
  return most_loaded_stage(s, stage_params(s.model, s.par, s.train), microbatches);
}

// Weight-only formats carry block scales: int4 (asymmetric group
// quantisation: GPTQ, Frantar et al. 2022; AWQ, Lin et al. 2023; gpt-fast's
// scales_and_zeros) a 16-bit scale and a 16-bit zero point per group of
// `group` weights; fp4 (NVFP4) one fp8 scale per 16 (NVIDIA Blackwell docs).
// MXFP4 (OCP Microscaling Formats spec v1.0) shares one E8M0 byte per 32.
double stored_weight_bytes(Precision p, int group, bool mx) {
  double b = bytes_per_element(p);
  if (p == Precision::int4) b += 4.0 / std::max(1, group);
  if (p == Precision::fp4) b += mx ? 1.0 / 32 : 1.0 / 16;
  return b;
}

Precision expert_weight_precision(const Inference& in) {
  const bool tensor_core_format = in.weight_precision == Precision::fp8 || in.weight_precision == Precision::fp4;
  return in.moe_gemm == MoeGemm::legacy16 && tensor_core_format ? Precision::bf16 : in.weight_precision;
}

namespace {

// K/V bytes of a shared prefix in the first stage's full-context layers (the
// ones that keep it whole; "full" and "mla" in kv_cache_by_layer_type).
double shared_prefix_kv_bytes(const Model& m, int tp, Precision kv, double prefix, int layers) {
  double bytes = 0;
  for (const KvLayerType& t : kv_cache_by_layer_type(m, tp, kv, prefix, 0, layers))
    if (t.type == "full" || t.type == "mla") bytes += t.bytes_per_sequence;
  return bytes;
}

}  // namespace

InferenceMemory inference_memory_at(const Scenario& s, double batch) {
  const Model& m = s.model;
  const Parallelism& p = s.par;
  const Inference& in = s.infer;
  const StageLayout lay = stage_layout(m, p);
  InferenceMemory r;
  const StageParams sp = params_of_stage(m, p, 0, lay.max_layers, true, p.pp == 1);
  const double embed = 1.0 * m.vocab * m.hidden / p.tp;  // stays 16-bit: a lookup table
  const double wb = stored_weight_bytes(in.weight_precision, in.weight_group_size, in.weight_mx);
  // Experts as laid out for serving: sp.expert is this rank's etp x ep share.
  const double eb = stored_weight_bytes(expert_weight_precision(in), in.weight_group_size, expert_weight_precision(in) == in.weight_precision && in.weight_mx);
  r.weights = (sp.dense - embed) * wb + sp.expert * eb + embed * 2;
  const double context = 1.0 * in.input_tokens + in.output_tokens;
  // A speculative draft head: draft_layers more layers shaped as the target's
  // last ones (its LM head is the target's), with their own KV cache.
  const int draft = in.draft_tokens > 0 ? std::min(in.draft_layers, m.layers) : 0;
  if (draft > 0) {
    const StageParams dp = params_of_stage(m, p, m.layers - draft, draft, false, false);
    r.weights += dp.dense * wb + dp.expert * eb;
  }
  // Per layer type: local layers keep at most their span (attention_pattern.h).
  const bool plain = !m.mla.on() && !has_local_layers(m) && !m.linear.on() && in.kv_precision != Precision::fp4;
  r.kv_per_sequence = plain ? 2.0 * (lay.max_layers + draft) * kv_dim_local(m, p.tp) * bytes_per_element(in.kv_precision) * context
                            : kv_bytes_per_sequence(m, p.tp, in.kv_precision, context, 0, lay.max_layers) +
                                  kv_bytes_per_sequence(m, p.tp, in.kv_precision, context, m.layers - draft, draft);
  // Working set of the prefill: the widest intermediate of one layer for the
  // prompt, plus the fp32 logits of the last token.
  const double f_local = (m.is_moe() ? m.moe.ffn_hidden : m.ffn_hidden) / static_cast<double>(p.tp);
  const double widest = std::max({4.0 * m.hidden, f_local * (is_gated(m.ffn_type) ? 3.0 : 2.0),
                                  (m.heads * (m.attention.output_gate ? 2.0 : 1.0) + 2.0 * m.kv_heads) * m.head_dim / p.tp,
                                  linear_in_proj_width(m, p.tp)});
  // (only the prompt's uncached part is prefilled; a disaggregated decode
  // instance runs one row per sequence)
  const double prefill_rows = in.disaggregated() ? 1.0 : in.input_tokens - in.shared_prefix_tokens;
  r.act_per_sequence = prefill_rows * widest * 2.0 + 4.0 * m.vocab / p.tp;
  // A shared prefix's K/V sits once in the cache for the whole batch (vLLM,
  // SGLang: sequences reference the same blocks); in the full-context layers
  // only, as a local layer's window slides off the prefix.
  const double shared = in.shared_prefix_tokens > 0 ? shared_prefix_kv_bytes(m, p.tp, in.kv_precision, in.shared_prefix_tokens, lay.max_layers) : 0.0;
  r.kv_cache = r.kv_per_sequence * batch - shared * std::max(0.0, batch - 1);
  r.activations = r.act_per_sequence * batch;
  r.total = r.weights + r.kv_cache + r.activations;
  r.capacity = s.system.device.dram().capacity_bytes;
  // batch B needs B (per_seq - shared) + shared.
  const double free_bytes = r.capacity - r.weights - shared;
  const double per_seq = r.kv_per_sequence + r.act_per_sequence - shared;
  r.max_batch = free_bytes > 0 ? static_cast<long long>(std::min(1e15, std::floor(free_bytes / per_seq))) : 0;
  return r;
}

InferenceMemory inference_memory(const Scenario& s) { return inference_memory_at(s, s.infer.batch); }

}  // namespace llmcalc
