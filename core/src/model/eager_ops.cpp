#include "eager_ops.h"

#include <string>

namespace llmcalc {

namespace {

constexpr double kFp32 = 4;

bool ends_with(const std::string& s, const char* tail) {
  const std::string t(tail);
  return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

// Bytes per element of an eager RMSNorm written as tensor operations
// (Hugging Face transformers' LlamaRMSNorm and its copies, torchtitan's
// RMSNorm of 2024; PyTorch's own F.rms_norm is one fused kernel): forward
// x.float() (read a, write 4; no kernel when a is already 4), pow(2) (4 + 4),
// mean (4), x * rsqrt (4 + 4), .to(dtype) (4 + a), * weight (a + a), in 8
// kernels. Backward, one autograd node each: the weight product's two
// gradients (4a), the cast back (a + 4), the rsqrt product's two (4 + 4,
// 4 + 4), the square's (2 x 8), the sum of x's two gradients (12), the cast
// to the input's type (4 + a).
double eager_norm_forward(double a) { return (a < kFp32 ? 2 * (a + kFp32) : 0) + 20 + 2 * a; }
double eager_norm_backward(double a) { return 6 * a + 52; }
constexpr double kEagerNormKernels = 8;

// Rotary embedding as torchtitan applies it (models/llama apply_rotary_emb:
// view_as_complex(x.float()), times the complex frequencies, view_as_real,
// type_as): per Q or K element, the cast to fp32 (a + 4), the complex product
// (4 + 4), the cast back (4 + a), three kernels for each of Q and K; the
// backward undoes each step with the same traffic. Hugging Face's
// rotate_half form (x cos + rotate_half(x) sin) streams about as much.
double eager_rope(double a) { return 2 * a + 16; }
constexpr double kEagerRopeKernels = 6;

// A gated MLP's activation (below), or a gated norm's gate: silu (a + a),
// then the product (2a + a), per element; backward 9a.
constexpr double kGateForward = 5, kGateBackward = 9;

// The fused kernel reads and writes each element once (2a); a gated norm
// (linear attention's RMSNorm(x) * silu(z)) also reads the gate (3a) and,
// eager, runs silu and the product after the norm.
void eager_norm(OpSpec& op, double a) {
  const bool gated = op.name == "linear.norm_gate";
  const double elements = op.bytes / ((gated ? 3 : 2) * a);
  op.bytes = elements * (eager_norm_forward(a) + (gated ? kGateForward * a : 0));
  // backward_of streams 1.5 x grad_bytes
  op.grad_bytes = elements * (eager_norm_backward(a) + (gated ? kGateBackward * a : 0)) / 1.5;
  op.kernels = kEagerNormKernels + (gated ? 2 : 0);
  // Point-wise kernels and one plain row reduction: they stream at the copy
  // rate, not the fused norm kernel's (efficiency.elementwise.norm).
  op.stream = StreamKind::copy;
}

// A gated MLP's activation, F.silu(w1(x)) * w3(x) (Hugging Face LlamaMLP,
// torchtitan FeedForward): silu (a + a), then the product (2a + a), two
// kernels, 5a per output element against the fused kernel's 3a; backward the
// product's two gradients (3a each) and silu's (3a): 9a, as fused 4.5a.
void eager_gated_activation(OpSpec& op, double a) {
  const double elements = op.bytes / (3 * a);
  op.bytes = kGateForward * a * elements;
  op.grad_bytes = kGateBackward * a * elements / 1.5;
  op.kernels = 2;
}

}  // namespace

void apply_eager_kernels(std::vector<OpSpec>& fwd, const Model& m, double act_bytes) {
  const double a = act_bytes;
  for (OpSpec& op : fwd) {
    if (op.kind != OpKind::elementwise || op.bytes <= 0) continue;
    const bool block_norm = op.name == "attn.norm" || op.name == "mlp.norm";
    if (op.stream == StreamKind::norm && !(block_norm && m.norm == NormType::layernorm)) {
      eager_norm(op, a);  // every other norm of a layer (QK-Norm, MLA's latent norms) is an RMSNorm
    } else if (is_gated(m.ffn_type) && ends_with(op.name, "act")) {  // mlp.act, moe.act, moe.shared_act
      eager_gated_activation(op, a);
    } else if (op.name == "attn.rope") {
      const double elements = op.bytes / (2 * a);
      op.bytes = elements * eager_rope(a);
      op.grad_bytes = op.bytes / 1.5;
      op.kernels = kEagerRopeKernels;
    }
  }
}

double eager_extra_activation_bytes(double norm_width, double rope_width, double gated_width, double act_bytes) {
  // x.float() is saved by pow and by the rsqrt product (one fp32 tensor), and
  // the 16-bit normalised x by the weight product, where the fused kernel
  // keeps only its 16-bit input: 4 bytes more per element.
  const double norm = kFp32 * norm_width;
  // torchtitan's complex product keeps its fp32 complex operand.
  const double rope = kFp32 * rope_width;
  // The product keeps silu's output beside w3's (which both paths save).
  const double gated = act_bytes * gated_width;
  return norm + rope + gated;
}

}  // namespace llmcalc
