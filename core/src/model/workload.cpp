#include "workload.h"

#include <algorithm>

#include "model_math.h"
#include "moe.h"

namespace llmcalc {

const char* to_string(OpKind k) {
  switch (k) {
    case OpKind::gemm: return "gemm";
    case OpKind::attention: return "attention";
    case OpKind::elementwise: return "elementwise";
    case OpKind::comm: return "comm";
  }
  return "?";
}

OpSpec make_gemm(const std::string& name, double m, double n, double k, const LayerPass& p, double batch) {
  OpSpec s;
  s.name = name;
  s.kind = OpKind::gemm;
  s.gemm = {m, n, k, batch, p.gemm_act_bytes, p.weight_bytes, p.act_bytes, p.math, p.dequant_ops};
  return s;
}

OpSpec make_elementwise(const std::string& name, double bytes, double flops, StreamKind kind) {
  OpSpec s;
  s.name = name;
  s.kind = OpKind::elementwise;
  s.bytes = bytes;
  s.flops = flops;
  s.stream = kind;
  return s;
}

OpSpec make_comm(const std::string& name, Collective c, const Group& g, double bytes, const std::string& axis) {
  OpSpec s;
  s.name = name;
  s.kind = OpKind::comm;
  s.coll = c;
  s.group = g;
  s.bytes = bytes;
  s.comm_axis = axis;
  return s;
}

// Megatron tensor parallelism (Shoeybi et al. 2019, §3): one all-reduce after
// each row-parallel GEMM; with sequence parallelism (Korthikanti et al. 2022,
// §4.2.2) an all-gather before the block and a reduce-scatter after it.
void tp_exit(std::vector<OpSpec>& ops, const std::string& block, const LayerPass& p, double hidden_bytes) {
  if (p.tp <= 1) return;
  if (p.sp)
    ops.push_back(make_comm(block + ".tp_reduce_scatter", Collective::reduce_scatter, p.tp_group, hidden_bytes, "tp"));
  else
    ops.push_back(make_comm(block + ".tp_all_reduce", Collective::all_reduce, p.tp_group, hidden_bytes, "tp"));
}
void tp_enter(std::vector<OpSpec>& ops, const std::string& block, const LayerPass& p, double hidden_bytes) {
  if (p.tp > 1 && p.sp)
    ops.push_back(make_comm(block + ".tp_all_gather", Collective::all_gather, p.tp_group, hidden_bytes, "tp"));
}

namespace {

OpSpec gemm(const std::string& name, double m, double n, double k, const LayerPass& p, double batch = 1) {
  return make_gemm(name, m, n, k, p, batch);
}
OpSpec elementwise(const std::string& name, double bytes, double flops, StreamKind kind = StreamKind::copy) {
  return make_elementwise(name, bytes, flops, kind);
}

}  // namespace

// Context parallelism's ring as Transformer Engine runs it [TE-CP]
// (AttnFuncWithCPAndKVP2P, bshd layout): after the steps, each step's partial
// output is rescaled by exp(lse_step - lse) and added into the 16-bit output
// (flash_attn_fwd_out_correction, one fused kernel: read the step's output,
// read and write the output, 2 + 2 + 2 bytes per element; and the lse's own
// correction: 2 kernels a step); in backward each step's dQ and dK/dV are added
// into their accumulators (read both, write one: 6 bytes per element, 2
// kernels a step). The last rank of the load-balanced ring corrects its whole
// output at every step and the ring waits for it: cp steps. `out` and `kv`:
// this rank's output and K/V elements.
OpSpec cp_correction(const LayerPass& p, double out, double kv) {
  const double steps = p.kv_chunks;
  OpSpec c = make_elementwise("attn.cp_correction", steps * 6 * out, steps * 3 * out);
  c.grad_bytes = steps * 6 * (out + kv) / 1.5;  // backward_of streams 1.5 x grad_bytes
  c.kernels = 2 * steps;
  return c;
}

void attention_ops(std::vector<OpSpec>& ops, const Model& m, const LayerPass& p, double q_heads, double kv_heads) {
  const double hd = m.head_dim, b = p.batch;
  // Causal masking skips half of a square score block (FlashAttention; the
  // unfused Megatron path computes the full block and masks it).
  const double causal_frac = p.causal && p.q_len > 1 ? 0.5 * (1 + 1.0 / std::max(1.0, p.q_len)) : 1.0;
  const double q_bytes = b * p.q_len * q_heads * hd * p.act_bytes;
  // A per-query-head decode kernel (one thread block per query head on the
  // CUDA cores: masked MHA) loads and converts its K/V once per query head;
  // grouped kernels on the tensor cores (XQA, FlashInfer) load and convert
  // each KV head once (TensorRT-LLM docs, gpt_attention "XQA optimization":
  // it reduces "data loading and conversion"). Over an 8-bit cache the
  // per-head kernel reads each KV head from device memory once (the group's
  // re-reads of one sequence's KV head, a few hundred KiB, hit L2, whose
  // bandwidth exceeds the conversion rate) and converts every element once
  // per query head, at one conversion per element: 16 per clock per SM
  // (CUDA C++ Programming Guide, arithmetic-instruction throughput, "all
  // other type conversions", compute capability 7.x-9.0), the rate of the
  // special-function units, so device.sfu_tops bounds it (the packed fp8
  // instructions convert two elements, a widening to fp32 adds one: one per
  // element is between). Over a 16-bit cache, or on a device without that
  // rate, the kernel is taken to load its K/V once per query head.
  const bool per_head = p.kv_cached && p.kv_per_head;
  const bool converts = per_head && p.kv_bytes < p.act_bytes && p.convert_rate > 0;
  const double kv_streams = per_head && !converts ? q_heads : kv_heads;
  const double kv_bytes = 2 * b * p.kv_len * kv_streams * hd * (p.kv_cached ? p.kv_bytes : p.act_bytes);
  // Local layers pass the mean keys per row of their window or chunks.
  const double keys = p.keys_per_row > 0 ? p.keys_per_row : p.kv_len * causal_frac;
  if (p.flash) {
    OpSpec s;
    s.name = "attn.flash";
    s.kind = OpKind::attention;
    s.math = p.attn_math;
    // QK^T and PV: 2 x 2 x q x kv x d per head (Dao et al. 2022).
    s.flops = p.keys_per_row > 0 ? 4 * b * q_heads * p.q_len * keys * hd : 4 * b * q_heads * p.q_len * p.kv_len * hd * causal_frac;
    // Keys per query row in one kernel: a context-parallel ring launches one
    // kernel per KV chunk (Liu et al. 2023, Ring Attention; Megatron-Core CP).
    s.kv_per_row = keys / p.kv_chunks;
    s.bytes = 2 * q_bytes + kv_bytes;  // read Q, K, V; write O
    s.head_dim = hd;
    if (converts) s.convert_elems = 2 * b * p.kv_len * q_heads * hd;
    s.kernel = p.attn_kernel;
    s.kernels = p.kv_chunks;
    ops.push_back(s);
    if (p.kv_chunks > 1) ops.push_back(cp_correction(p, q_bytes / p.act_bytes, 2 * b * p.q_len * kv_heads * hd));
    return;
  }
  // Unfused path (Megatron baddbmm + fused scale-mask-softmax + dropout).
  const double batch = b * q_heads;
  OpSpec qk = make_gemm("attn.scores", p.q_len, p.kv_len, hd, p, batch);
  qk.gemm.a_bytes = qk.gemm.b_bytes = p.act_bytes;
  qk.gemm.math = p.attn_math;
  qk.gemm.dequant_ops = 0;
  ops.push_back(qk);
  const double scores = batch * p.q_len * p.kv_len;
  ops.push_back(make_elementwise("attn.softmax", 2 * scores * p.act_bytes, 5 * scores));
  if (p.dropout) ops.push_back(make_elementwise("attn.dropout", scores * (2 * p.act_bytes + 1), scores));
  OpSpec av = make_gemm("attn.context", p.q_len, hd, p.kv_len, p, batch);
  av.gemm.a_bytes = av.gemm.b_bytes = p.act_bytes;
  av.gemm.math = p.attn_math;
  av.gemm.dequant_ops = 0;
  ops.push_back(av);
}

namespace {

void mlp_ops(std::vector<OpSpec>& ops, const Model& m, const LayerPass& p, double tokens) {
  const double h = m.hidden;
  const int up_mats = is_gated(m.ffn_type) ? 2 : 1;
  if (!p.moe_layer) {
    const double f = m.ffn_hidden / static_cast<double>(p.tp);
    ops.push_back(gemm("mlp.up", tokens, up_mats * f, h, p));
    ops.push_back(elementwise("mlp.act", tokens * f * (up_mats + 1) * p.act_bytes, 4 * tokens * f, StreamKind::activation));
    ops.push_back(gemm("mlp.down", tokens, h, f, p));
    return;
  }
  moe_replicated_ops(ops, m, p, tokens);
}

}  // namespace

std::vector<OpSpec> layer_forward(const Model& m, const LayerPass& p) {
  std::vector<OpSpec> ops;
  const double h = m.hidden;
  const double tokens = p.batch * p.q_len;               // rows of every GEMM
  const double local = p.sp ? tokens / p.tp : tokens;     // rows element-wise ops see
  const double hidden_bytes = tokens * h * p.act_bytes;   // one [tokens x h] activation
  const double norm_flops = (m.norm == NormType::layernorm ? 8.0 : 5.0) * local * h;

  ops.push_back(elementwise("attn.norm", 2 * local * h * p.act_bytes, norm_flops, StreamKind::norm));
  tp_enter(ops, "attn", p, hidden_bytes);
  attention_block(ops, m, p);
  tp_exit(ops, "attn", p, hidden_bytes);
  // Fused bias + dropout + residual add: read two inputs, write one (+ mask).
  ops.push_back(elementwise("attn.residual", local * h * (3 * p.act_bytes + (p.dropout ? 1 : 0)), 2 * local * h));
  const size_t first_mlp = ops.size();
  ops.push_back(elementwise("mlp.norm", 2 * local * h * p.act_bytes, norm_flops, StreamKind::norm));
  if (p.moe_layer && p.moe_dispatch) {
    moe_dispatch_ops(ops, m, p, tokens);  // the MoE block handles its own tp layout
  } else {
    tp_enter(ops, "mlp", p, hidden_bytes);
    mlp_ops(ops, m, p, tokens);
    tp_exit(ops, "mlp", p, hidden_bytes);
  }
  ops.push_back(elementwise("mlp.residual", local * h * (3 * p.act_bytes + (p.dropout ? 1 : 0)), 2 * local * h));
  // Mixer-only layers run no MLP block: it stands for the layers that have one.
  const double mlps = mlp_share(m, p.moe_layer);
  for (size_t i = first_mlp; i < ops.size(); ++i) ops[i].layer_share *= mlps;
  return ops;
}

void add_input_casts(std::vector<OpSpec>& ops, double bytes_per_element, double kernels) {
  std::vector<OpSpec> out;
  for (const OpSpec& s : ops) {
    const bool narrow = s.gemm.math == Precision::fp8 || s.gemm.math == Precision::fp4 || s.gemm.math == Precision::int8;
    if (s.kind == OpKind::gemm && narrow) {
      const double elements = s.gemm.m * s.gemm.k * s.gemm.batch;
      out.push_back(elementwise(s.name + ".cast", elements * bytes_per_element, 2 * elements));
      out.back().kernels = kernels * s.kernels;  // a grouped GEMM casts each member's input
      out.back().layer_share = s.layer_share;    // in the layers that run the GEMM
    }
    out.push_back(s);
  }
  ops.swap(out);
}

std::vector<OpSpec> backward_of(const OpSpec& f) {
  std::vector<OpSpec> out;
  switch (f.kind) {
    case OpKind::gemm: {
      // dX = dY W^T (m x k) and dW = X^T dY (k x n).
      OpSpec dgrad = f;
      dgrad.name = f.name + ".dgrad";
      dgrad.gemm.n = f.gemm.k;
      dgrad.gemm.k = f.gemm.n;
      dgrad.gemm.b_bytes = f.gemm.b_bytes;
      OpSpec wgrad = f;
      wgrad.name = f.name + ".wgrad";
      wgrad.gemm.m = f.gemm.k;
      wgrad.gemm.n = f.gemm.n;
      wgrad.gemm.k = f.gemm.m;
      wgrad.gemm.a_bytes = f.gemm.a_bytes;
      wgrad.gemm.b_bytes = f.gemm.a_bytes;
      out.push_back(dgrad);
      if (!f.frozen) out.push_back(wgrad);  // a frozen weight takes no gradient (LoRA)
      break;
    }
    case OpKind::attention: {
      // FlashAttention backward: 5 matmuls against 2 forward (2.5x FLOPs,
      // Dao 2023 §3.2); reads Q, K, V, O, dO and writes dQ, dK, dV.
      OpSpec b = f;
      b.name = f.name + ".bwd";
      b.flops = 2.5 * f.flops;
      b.bytes = 2 * f.bytes;
      b.backward = true;
      out.push_back(b);
      break;
    }
    case OpKind::elementwise: {
      if (f.frozen) {  // a frozen weight dequantised again for the data gradient
        OpSpec again = f;
        again.name = f.name + ".bwd";
        out.push_back(again);
        break;
      }
      // Read the incoming gradient and the saved input, write the gradient.
      OpSpec b = f;
      b.name = f.name + ".bwd";
      const double basis = f.grad_bytes > 0 ? f.grad_bytes : f.bytes;
      b.bytes = 1.5 * basis;
      b.flops = 2 * f.flops * (f.bytes > 0 ? basis / f.bytes : 1.0);
      out.push_back(b);
      break;
    }
    case OpKind::comm: {
      // The conjugate collective: all-gather <-> reduce-scatter, all-reduce stays.
      OpSpec b = f;
      if (f.coll == Collective::all_gather) b.coll = Collective::reduce_scatter;
      if (f.coll == Collective::reduce_scatter) b.coll = Collective::all_gather;
      if (f.grad_bytes > 0) b.bytes = f.grad_bytes;
      b.name = f.name + ".bwd";
      out.push_back(b);
      break;
    }
  }
  return out;
}

}  // namespace llmcalc
