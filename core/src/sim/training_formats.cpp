#include "training_formats.h"

#include "cost.h"

namespace llmcalc {

namespace {
// Share of the linear layers the NVFP4 recipe keeps in BF16: the first two
// and last eight of the 62 blocks of its 12B model (arXiv 2509.25147 §4.1,
// "about 15% of the linear layers").
constexpr double kFp4Bf16Share = 10.0 / 62;
// Per element: a 16-point Hadamard transform (16 multiply-adds) on the
// column-wise copy, and the scale and round of both copies.
constexpr double kFp4CastFlops = 2 + 32;
}  // namespace

// NVFP4: E2M1 values with one E4M3 scale per 16 (and an fp32 tensor scale);
// MXFP4: one E8M0 scale per 32 (OCP Microscaling Formats spec v1.0).
double fp4_gemm_bytes(bool mx) { return 0.5 + (mx ? 1.0 / 32 : 1.0 / 16); }

namespace {

// Transformer Engine's quantisation of each GEMM input, bytes per element:
// delayed scaling reads 16 bits and writes the fp8 copy and its transpose
// with the amax fused in (2 + 1 + 1); current scaling first computes the
// tensor's amax in a separate pass (+2, a second kernel); MXFP8 writes row-
// and column-wise copies, each with one E8M0 scale per 32 elements (OCP MX
// spec v1.0), in one pass (2 + 2 x (1 + 1/32)).
void add_fp8_casts(std::vector<OpSpec>& ops, Fp8Recipe r) {
  switch (r) {
    case Fp8Recipe::delayed: add_input_casts(ops, 4); break;
    case Fp8Recipe::current: add_input_casts(ops, 6, 2); break;
    case Fp8Recipe::mxfp8: add_input_casts(ops, 2 + 2 * (1 + 1.0 / 32)); break;
  }
}

// With sequence parallelism, Transformer Engine quantises a column-parallel
// GEMM's input on the local shard and all-gathers the FP8 (or MXFP8: data
// plus one scale per 32) bytes instead of the 16-bit activation
// (TransformerEngine 2.x, pytorch/distributed.py gather_along_first_dim with
// a quantizer: _all_gather_fp8 / _all_gather_mxfp8; module/linear.py and
// layernorm_linear.py quantise before the sequence-parallel all-gather). The
// cast then covers 1/tp of the tokens; the gradient is still reduce-scattered
// in 16 bits, and the backward casts are unchanged.
void gather_quantized_inputs(std::vector<OpSpec>& ops, Fp8Recipe r, int tp, double act_bytes) {
  const double narrow = r == Fp8Recipe::mxfp8 ? 1 + 1.0 / 32 : 1.0;
  for (size_t i = 0; i + 2 < ops.size(); ++i) {
    OpSpec& gather = ops[i];
    OpSpec& cast = ops[i + 1];
    const OpSpec& gemm = ops[i + 2];
    const bool pattern = gather.kind == OpKind::comm && gather.coll == Collective::all_gather &&
                         gather.comm_axis == "tp" && gemm.kind == OpKind::gemm && gemm.gemm.math == Precision::fp8 &&
                         cast.name == gemm.name + ".cast";
    if (!pattern) continue;
    gather.grad_bytes = gather.bytes;
    gather.bytes *= narrow / act_bytes;
    cast.grad_bytes = cast.bytes;
    cast.bytes /= tp;
    cast.flops /= tp;
    std::swap(gather, cast);
  }
}

}  // namespace

void apply_fp8_recipe(std::vector<OpSpec>& fwd, Fp8Recipe r, const LayerPass& pass) {
  add_fp8_casts(fwd, r);
  if (pass.sp && pass.tp > 1) gather_quantized_inputs(fwd, r, pass.tp, pass.act_bytes);
}

void apply_fp4_recipe(std::vector<OpSpec>& fwd, bool mx) {
  std::vector<OpSpec> out;
  for (const OpSpec& op : fwd) {
    out.push_back(op);
    if (op.kind != OpKind::gemm || op.gemm.math != Precision::fp4) continue;
    out.back().layer_share = op.layer_share * (1 - kFp4Bf16Share);
    OpSpec bf16 = op;
    bf16.name = op.name + ".bf16";
    bf16.layer_share = op.layer_share * kFp4Bf16Share;
    bf16.gemm.math = Precision::bf16;
    bf16.gemm.a_bytes = bf16.gemm.b_bytes = 2;
    out.push_back(bf16);
  }
  // Read the 16-bit input, write two FP4 copies with their scales.
  add_input_casts(out, 2 + 2 * fp4_gemm_bytes(mx));
  for (size_t i = 0; i + 1 < out.size(); ++i)
    if (out[i].kind == OpKind::elementwise && out[i + 1].kind == OpKind::gemm && out[i + 1].gemm.math == Precision::fp4 &&
        out[i].name == out[i + 1].name + ".cast") {
      out[i].flops *= kFp4CastFlops / 2;
    }
  fwd.swap(out);
}

void add_mtp(const Scenario& s, PassTime& t, std::vector<Op>* ops) {
  const Model& m = s.model;
  if (m.mtp_layers <= 0) return;
  const double d = m.mtp_layers;
  Scenario with_mlp = s;
  with_mlp.model = mtp_block_model(m);
  const LayerTimes block = layer_times(with_mlp, is_moe_layer(m, m.layers - 1), ops != nullptr);
  for (const PassTime* pt : {&block.fwd, &block.bwd}) {
    t.compute += d * (pt->compute + pt->tp + pt->cp + pt->ep);
    t.kernels += d * pt->kernels;
  }
  if (ops)
    for (Op op : block.ops) {
      if (op.phase == "recompute") continue;
      op.name = "mtp." + op.name;
      op.count *= d;
      ops->push_back(std::move(op));
    }
  // The projection M: [tokens, 2h] x [2h, h / tp], forward and backward (3x).
  const double tokens = s.train.micro_batch * s.train.seq_len / static_cast<double>(s.par.cp);
  OpSpec proj;
  proj.name = "mtp.eh_proj";
  proj.kind = OpKind::gemm;
  proj.gemm = {tokens, m.hidden / static_cast<double>(s.par.tp), 2.0 * m.hidden};
  std::vector<OpSpec> specs = {proj};
  for (const OpSpec& b : backward_of(proj)) specs.push_back(b);
  for (const OpSpec& spec : specs) {
    Op op = cost_op(s.system, spec, spec.name == proj.name ? "fwd" : "bwd", d);
    t.compute += op.cost.time_s * op.count;
    t.kernels += op.count * op.kernels;
    if (ops) ops->push_back(std::move(op));
  }
  // A second output head and cross-entropy per module.
  Scenario head = s;
  head.model.mtp_layers = 0;
  std::vector<Op> head_ops;
  const PassTime h = edge_times(head, false, true, ops ? &head_ops : nullptr);
  t.compute += d * h.compute;
  t.kernels += d * h.kernels;
  for (Op& op : head_ops) {
    op.name = "mtp." + op.name;
    op.count *= d;
    ops->push_back(std::move(op));
  }
}

double mtp_forward_flops_per_token(const Model& m, double seq_len) {
  if (m.mtp_layers <= 0) return 0;
  const LayerParams block = layer_params(mtp_block_model(m), is_moe_layer(m, m.layers - 1));
  const double mm = block.attention + block.mlp_active;
  const double h = m.hidden;
  return m.mtp_layers * (2 * mm + attention_core_flops_per_token(m, seq_len) + 2 * 2 * h * h + 2.0 * m.vocab * h);
}

}  // namespace llmcalc
