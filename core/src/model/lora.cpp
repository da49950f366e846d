#include "lora.h"

#include <string>

#include "model_math.h"

namespace llmcalc {

double frozen_weight_bytes(const Training& t) {
  if (t.frozen_weights == FrozenWeights::nf4) return (4 + 8.0 / 64 + 32.0 / (64 * 256)) / 8;
  return t.precision == Precision::fp32 || t.precision == Precision::tf32 ? 4 : 2;
}

bool is_weight_gemm(const OpSpec& op) {
  return op.kind == OpKind::gemm && op.name != "attn.scores" && op.name != "attn.context";
}

bool lora_adapts(const OpSpec& op, LoraTargets targets) {
  if (!is_weight_gemm(op)) return false;
  if (op.name.rfind("attn.", 0) == 0) return true;
  if (targets == LoraTargets::attention) return false;
  // A hybrid's linear-attention projections (in_proj_qkvz, in_proj_ba, out_proj): all-linear targets reach them.
  if (op.name.rfind("linear.", 0) == 0) return true;
  if (op.name == "mlp.up" || op.name == "mlp.down" || op.name == "moe.shared_up" || op.name == "moe.shared_down") return true;
  // Routed experts: one adapter per expert, run over its own tokens (the
  // grouped GEMM's batch is the rank's local experts).
  return targets == LoraTargets::all_experts && (op.name == "moe.up" || op.name == "moe.down");
}

namespace {

// bitsandbytes dequantize_4bit before each frozen GEMM (QLoRA section 3: the
// storage type is dequantised to the compute type for the forward and the
// backward pass): read the NF4 weights and their scales, write 16-bit ones.
// Marked frozen, its backward is the same dequantisation again for the data
// gradient's GEMM.
OpSpec dequant_op(const OpSpec& w, double nf4_bytes) {
  const double elements = w.gemm.n * w.gemm.k * w.gemm.batch;
  OpSpec d = make_elementwise(w.name + ".dequant", elements * (nf4_bytes + w.gemm.b_bytes), 2 * elements);
  d.frozen = true;
  d.layer_share = w.layer_share;  // in the layers that run the GEMM
  return d;
}

// Adapters sit on the checkpoint's own linear modules, as PEFT wraps them
// (LoraConfig target_modules): a fused GEMM stands for several, q, k and v
// beside the QKV GEMM and gate and up beside a gated up-projection, each
// with its own A over the same input (the A's run as one GEMM of width
// modules x r) and its own B over its slice of the output.
double adapter_modules(const OpSpec& w, const Model& m) {
  if (w.name == "attn.qkv") return 3;
  if ((w.name == "mlp.up" || w.name == "moe.shared_up" || w.name == "moe.up") && is_gated(m.ffn_type)) return 2;
  return 1;
}

// The adapter beside a weight GEMM of m rows: u = x A (m x r x k), then u B
// (m x n x r), scaled and added into the output as PEFT's LoRA Linear does it
// (result + lora_B(lora_A(x)) * scaling: a multiply and an add, two kernels
// over the m x n output, 5 accesses per element). Backward the add passes
// its gradient through, the scaling reads and writes it (2 per output
// element), and autograd sums the adapter's input gradient into the base
// GEMM's (read 2, write 1 per input element).
void add_adapter(std::vector<OpSpec>& out, const OpSpec& w, double rank, double modules, const LayerPass& p) {
  const double m = w.gemm.m, n = w.gemm.n, k = w.gemm.k, b = w.gemm.batch;
  const size_t first = out.size();
  out.push_back(make_gemm(w.name + ".lora_a", m, modules * rank, k, p, b));
  out.push_back(make_gemm(w.name + ".lora_b", m, n, rank, p, b));
  OpSpec add = make_elementwise(w.name + ".lora_add", 5 * m * n * b * p.act_bytes, 2 * m * n * b);
  add.kernels = 2;
  add.grad_bytes = (2 * m * n + 3 * m * k) * b * p.act_bytes / 1.5;  // backward_of streams 1.5 x this
  out.push_back(add);
  // The adapter runs in the layers that run its GEMM (a hybrid's mixers, the MLP of all but mixer-only layers).
  for (size_t i = first; i < out.size(); ++i) out[i].layer_share = w.layer_share;
}

}  // namespace

void apply_lora(std::vector<OpSpec>& fwd, const Model& m, const Training& t, const LayerPass& p) {
  if (!t.lora()) return;
  const bool nf4 = t.frozen_weights == FrozenWeights::nf4;
  const double nf4_bytes = frozen_weight_bytes(t);
  std::vector<OpSpec> out;
  out.reserve(fwd.size() * 2);
  for (OpSpec op : fwd) {
    if (!is_weight_gemm(op)) {
      out.push_back(std::move(op));
      continue;
    }
    op.frozen = true;
    if (nf4) out.push_back(dequant_op(op, nf4_bytes));
    out.push_back(op);
    if (lora_adapts(op, t.lora_targets)) add_adapter(out, op, t.lora_rank, adapter_modules(op, m), p);
  }
  fwd.swap(out);
}

LoraParams lora_layer_params(const Model& m, const Parallelism& par, const Training& t, bool moe_layer) {
  LoraParams out;
  if (!t.lora()) return out;
  // One token through the layer as this GPU shards it: the GEMMs' k and n.
  LayerPass p;
  p.tp = par.tp;
  p.moe_layer = moe_layer;
  p.ep = par.ep;
  p.etp = par.expert_tp();
  p.moe_dispatch = true;
  p.flash = true;
  for (const OpSpec& op : layer_forward(m, p)) {
    if (!lora_adapts(op, t.lora_targets)) continue;
    // (weighted by the share of the layers that run the GEMM: a hybrid's two mixers)
    const double params = t.lora_rank * (adapter_modules(op, m) * op.gemm.k + op.gemm.n) * op.gemm.batch * op.layer_share;
    out.all += params;
    if (op.name == "moe.up" || op.name == "moe.down") out.expert += params;
  }
  return out;
}

// Weights that train: every one, or with LoRA the adapters of all layers
// (counted unsharded). `active`: of those, what one token runs through (a
// routed expert's adapter serves top_k / experts of the tokens).
double trainable_params(const Model& m, const Training& t, double* active) {
  if (!t.lora()) return *active = count_params(m).total;
  const Parallelism whole;  // tp 1: each adapter once
  const double moe_layers = moe_layer_count(m);
  const LoraParams dense = lora_layer_params(m, whole, t, false);
  const LoraParams moe = moe_layers > 0 ? lora_layer_params(m, whole, t, true) : LoraParams{};
  const double routed = moe_layers > 0 ? static_cast<double>(m.moe.top_k) / m.moe.experts : 0.0;
  *active = (m.layers - moe_layers) * dense.all + moe_layers * (moe.all - moe.expert * (1 - routed));
  return (m.layers - moe_layers) * dense.all + moe_layers * moe.all;
}

}  // namespace llmcalc
