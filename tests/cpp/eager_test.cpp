// training.fusion "eager": the element-wise steps as PyTorch eager modules
// run them (core/src/model/eager_ops.cpp), against the fused kernels of
// Megatron-Core / Transformer Engine.
#include "test_util.h"

namespace llmcalc::test {
namespace {

// Llama 3.1 8B (RMSNorm, SwiGLU, RoPE) under FSDP on one H100 node.
json llama_fsdp(const char* fusion) {
  return {{"mode", "training"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"},
          {"parallelism", {{"tp", 1}, {"dp", 8}, {"zero", 3}}},
          {"training", {{"global_batch", 8}, {"micro_batch", 1}, {"seq_len", 8192}, {"recompute", "none"},
                        {"fusion", fusion}}}};
}

double hbm(const json& out, const char* name, const char* phase) {
  return find_op(out, name, phase)["bytes"]["hbm"].get<double>();
}

TEST(Eager, TensorOperationsStreamMoreBytes) {
  const json fused = eval_ok(llama_fsdp("fused")), eager = eval_ok(llama_fsdp("eager"));
  // RMSNorm: 36 bytes per element forward (casts, square, mean, product,
  // weight) and 64 backward, against the fused kernel's 4 and 6.
  EXPECT_NEAR(hbm(eager, "attn.norm", "fwd") / hbm(fused, "attn.norm", "fwd"), 36.0 / 4, 1e-9);
  EXPECT_NEAR(hbm(eager, "mlp.norm.bwd", "bwd") / hbm(fused, "mlp.norm.bwd", "bwd"), 64.0 / 6, 1e-9);
  // SwiGLU: silu then the product, 5 bytes per output element against 3.
  EXPECT_NEAR(hbm(eager, "mlp.act", "fwd") / hbm(fused, "mlp.act", "fwd"), 5.0 / 3, 1e-9);
  EXPECT_NEAR(hbm(eager, "mlp.act.bwd", "bwd") / hbm(fused, "mlp.act.bwd", "bwd"), 2.0, 1e-9);
  // Rotary embedding through fp32 complex numbers: 20 bytes per element against 4.
  EXPECT_NEAR(hbm(eager, "attn.rope", "fwd") / hbm(fused, "attn.rope", "fwd"), 5.0, 1e-9);
  // Cross-entropy one pass per step: 38 and 14 bytes per logit against 22 and 6.
  EXPECT_NEAR(hbm(eager, "cross_entropy", "fwd") / hbm(fused, "cross_entropy", "fwd"), 38.0 / 22, 1e-9);
  EXPECT_NEAR(hbm(eager, "cross_entropy.bwd", "bwd") / hbm(fused, "cross_entropy.bwd", "bwd"), 14.0 / 6, 1e-9);
  // GEMMs, attention and the residual adds are the same kernels either way.
  for (const char* name : {"attn.qkv", "attn.flash", "attn.residual", "mlp.down"})
    EXPECT_DOUBLE_EQ(find_op(eager, name, "fwd")["time_s"].get<double>(), find_op(fused, name, "fwd")["time_s"].get<double>()) << name;
  const double tf = fused["training"]["iteration_time_s"].get<double>(), te = eager["training"]["iteration_time_s"].get<double>();
  EXPECT_GT(te, 1.05 * tf);
  EXPECT_LT(te, 1.3 * tf);
}

TEST(Eager, AGatedNormRunsItsGateApart) {
  // Qwen3-Next's Gated DeltaNet layers end in RMSNorm(x) * silu(z): the norm's
  // 36 bytes per element and the gate's silu and product (10) against 6.
  json f = llama_fsdp("fused"), e = llama_fsdp("eager");
  f["model"] = e["model"] = "qwen3-next-80b-a3b";
  f["parallelism"]["ep"] = e["parallelism"]["ep"] = 8;
  f["training"]["seq_len"] = e["training"]["seq_len"] = 4096;
  const json fused = eval_ok(f), eager = eval_ok(e);
  ASSERT_FALSE(find_op(fused, "linear.norm_gate", "fwd").is_null());
  EXPECT_NEAR(hbm(eager, "linear.norm_gate", "fwd") / hbm(fused, "linear.norm_gate", "fwd"), 46.0 / 6, 1e-9);
  EXPECT_NEAR(hbm(eager, "linear.norm_gate.bwd", "bwd") / hbm(fused, "linear.norm_gate.bwd", "bwd"), 82.0 / 9, 1e-9);
}

TEST(Eager, LayerNormAndGeluAreOneKernelEitherWay) {
  // GPT-3 2.7B's shape (LayerNorm, GELU, learned positions): only the loss changes.
  json model = {{"name", "gpt-2.7b"}, {"layers", 32}, {"hidden", 2560}, {"heads", 32}, {"vocab", 50257},
                {"seq_len", 2048}, {"ffn_type", "gelu"}, {"norm", "layernorm"}, {"learned_positions", true}};
  json f = llama_fsdp("fused"), e = llama_fsdp("eager");
  f["model"] = e["model"] = model;
  f["training"]["seq_len"] = e["training"]["seq_len"] = 2048;
  const json fused = eval_ok(f), eager = eval_ok(e);
  for (const char* name : {"attn.norm", "mlp.norm", "mlp.act"})
    EXPECT_DOUBLE_EQ(hbm(eager, name, "fwd"), hbm(fused, name, "fwd")) << name;
  EXPECT_TRUE(find_op(eager, "attn.rope", "fwd").is_null());
  EXPECT_GT(hbm(eager, "cross_entropy", "fwd"), hbm(fused, "cross_entropy", "fwd"));
  EXPECT_DOUBLE_EQ(eager["training"]["memory_bytes"]["activations"].get<double>(),
                   fused["training"]["memory_bytes"]["activations"].get<double>());
}

TEST(Eager, AutogradSavesTheIntermediates) {
  const json fused = eval_ok(llama_fsdp("fused")), eager = eval_ok(llama_fsdp("eager"));
  // Per token of each of the 32 layers: two RMSNorms' fp32 inputs (4 x 4096
  // each), the rotary embedding's fp32 Q and K (4 x (4096 + 1024)) and
  // silu's output (2 x 14336).
  const double per_token = 2 * 4.0 * 4096 + 4.0 * (4096 + 1024) + 2.0 * 14336;
  const double extra = eager["training"]["memory_bytes"]["activations"].get<double>() -
                       fused["training"]["memory_bytes"]["activations"].get<double>();
  EXPECT_NEAR(extra, 32 * 8192 * per_token, 1e-6 * extra);
  // Full recompute keeps each layer's input, and the layer being recomputed
  // holds its whole activations again: one layer's extra. PyTorch's op-level
  // selective checkpointing keeps matmul outputs and recomputes the rest.
  auto extra_with = [&](const char* policy) {
    json f = llama_fsdp("fused"), e = llama_fsdp("eager");
    f["training"]["recompute"] = e["training"]["recompute"] = policy;
    return eval_ok(e)["training"]["memory_bytes"]["activations"].get<double>() -
           eval_ok(f)["training"]["memory_bytes"]["activations"].get<double>();
  };
  EXPECT_NEAR(extra_with("full"), 8192 * per_token, 1e-6 * extra);
  EXPECT_DOUBLE_EQ(extra_with("selective_op"), 0.0);
}

TEST(Eager, EachTensorOperationIsALaunch) {
  // With a host far slower than the GPU the step is the host's launches:
  // eager adds, per layer and pass, 7 kernels per RMSNorm, 1 for the gated
  // activation and 4 for the rotary embedding: 19 forward, 19 backward. (The
  // host paces the layers' launches; the loss's few per micro-batch are not
  // counted there, eager or fused.)
  json f = llama_fsdp("fused"), e = llama_fsdp("eager");
  f["training"]["host_overhead_us"] = e["training"]["host_overhead_us"] = 10000;
  const double tf = eval_ok(f)["training"]["iteration_time_s"].get<double>();
  const double te = eval_ok(e)["training"]["iteration_time_s"].get<double>();
  EXPECT_NEAR((te - tf) / 10000e-6, 32 * 2 * 19, 1e-6);
}

TEST(Eager, TheSummarySaysSo) {
  const std::string eager = evaluate_text(llama_fsdp("eager").dump()), fused = evaluate_text(llama_fsdp("fused").dump());
  EXPECT_NE(eager.find("recompute none · eager element-wise kernels\n"), std::string::npos);
  EXPECT_EQ(fused.find("eager element-wise kernels"), std::string::npos);
  // Each names the other kernels' step.
  EXPECT_NE(eager.find("element-wise kernels    fused (Megatron-Core, torch.compile) "), std::string::npos) << eager;
  EXPECT_NE(fused.find("element-wise kernels    eager PyTorch modules "), std::string::npos) << fused;
}

TEST(Eager, TheResultQuotesTheOtherKernels) {
  const json fused = eval_ok(llama_fsdp("fused")), eager = eval_ok(llama_fsdp("eager"));
  const json& f = fused["training"]["fusion_sensitivity"];
  ASSERT_TRUE(f.is_object());
  EXPECT_DOUBLE_EQ(f["iteration_time_s"]["fused"].get<double>(), fused["training"]["iteration_time_s"].get<double>());
  EXPECT_DOUBLE_EQ(f["iteration_time_s"]["eager"].get<double>(), eager["training"]["iteration_time_s"].get<double>());
  EXPECT_DOUBLE_EQ(f["memory_bytes_total"]["eager"].get<double>(), eager["training"]["memory_bytes"]["total"].get<double>());
  EXPECT_EQ(eager["training"]["fusion_sensitivity"], f);  // the same pair from either side
  // Under 2% apart there is nothing to say: GPT-3 175B (LayerNorm, GELU).
  const json gpt3 = eval_ok({{"mode", "training"}, {"model", "gpt3-175b"}, {"system", "dgx-a100-80gb"},
                              {"parallelism", {{"tp", 8}, {"pp", 8}, {"dp", 2}, {"sp", true}}},
                              {"training", {{"global_batch", 128}, {"fusion", "eager"}}}});
  EXPECT_FALSE(gpt3["training"].contains("fusion_sensitivity"));
}

TEST(Eager, AnUnknownFusionIsRefusedAtItsPath) {
  json s = llama_fsdp("compiled");
  const json out = eval(s);
  ASSERT_TRUE(out.contains("error"));
  EXPECT_EQ(out["error"]["path"], "training.fusion");
}

}  // namespace
}  // namespace llmcalc::test
