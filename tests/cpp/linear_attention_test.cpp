// Hybrid models with linear-attention layers (Gated DeltaNet, Qwen3-Next;
// Mamba-2, Bamba): the layer pattern, hand-counted weights, a
// context-independent state in place of a KV cache, the work by layer type,
// op-level checkpointing and the inputs refused.
#include <gtest/gtest.h>

#include "parse.h"
#include "presets.h"
#include "linear_attention.h"
#include "model_math.h"
#include "test_util.h"

namespace llmcalc {
namespace {

using test::eval;
using test::eval_ok;
using test::find_op;

const char* const kNext = "qwen3-next-80b-a3b";

json serving(const json& model, long long context, int batch, int tp = 4) {
  return {{"mode", "inference"}, {"model", model}, {"system", "dgx-h100"}, {"parallelism", {{"tp", tp}}},
          {"inference", {{"batch", batch}, {"input_tokens", context - 64}, {"output_tokens", 64}}}};
}

// The preset with every layer softmax attention (full_every 1), for comparison.
json all_full() { return {{"preset", kNext}, {"linear_attention", {{"full_every", 1}}}}; }

TEST(LinearAttention, EveryFourthLayerKeepsSoftmaxAttention) {
  const Model m = parse_model(kNext, "model");
  EXPECT_TRUE(is_linear_layer(m, 0));
  EXPECT_TRUE(is_linear_layer(m, 2));
  EXPECT_FALSE(is_linear_layer(m, 3));  // transformers Qwen3NextConfig: (i + 1) % 4 == 0 is full
  EXPECT_EQ(linear_layers(m, 0, 48), 36);
  EXPECT_DOUBLE_EQ(linear_share(m), 0.75);
  // Counted per pipeline stage: the same as layer by layer for every range.
  for (int every : {0, 1, 3, 4}) {
    Model v = m;
    v.linear.full_every = every;
    for (int first = 0; first < 48; ++first)
      for (int count = 1; first + count <= 48; ++count) {
        int n = 0;
        for (int l = first; l < first + count; ++l) n += is_linear_layer(v, l) ? 1 : 0;
        ASSERT_EQ(linear_layers(v, first, count), n) << every << " " << first << " " << count;
      }
  }
  // full_layers: N softmax layers spread evenly; as many as given, and at
  // every f-th layer when N = L / f.
  for (int n : {1, 5, 6, 12, 47, 48}) {
    Model v = m;
    v.linear.full_layers = n;
    int full = 0;
    for (int l = 0; l < 48; ++l) {
      full += is_linear_layer(v, l) ? 0 : 1;
      if (48 % n == 0) ASSERT_EQ(is_linear_layer(v, l), (l + 1) % (48 / n) != 0) << n << " " << l;
    }
    EXPECT_EQ(full, n);
    for (int first = 0; first < 48; ++first)
      for (int count = 1; first + count <= 48; ++count) {
        int k = 0;
        for (int l = first; l < first + count; ++l) k += is_linear_layer(v, l) ? 1 : 0;
        ASSERT_EQ(linear_layers(v, first, count), k) << n << " " << first << " " << count;
      }
  }
  Model none = m;
  none.linear.full_every = 0;
  EXPECT_EQ(linear_layers(none, 0, 48), 48);
  EXPECT_DOUBLE_EQ(linear_share(parse_model("llama3.1-8b", "model")), 0.0);
}

TEST(LinearAttention, WeightsMatchAHandCount) {
  const Model m = parse_model(kNext, "model");
  // in_proj_qkvz 2048 x (2*16*128 + 2*32*128), in_proj_ba 2048 x 64, conv1d
  // (2*2048 + 4096) x 4, A_log and dt_bias 2 x 32, norm 128, out_proj 4096 x 2048.
  EXPECT_DOUBLE_EQ(linear_attention_params(m), 25165824.0 + 131072 + 32768 + 64 + 128 + 8388608);
  // Gated attention: q_proj 2048 x 2 x 16 x 256 with the gate, k, v 2048 x 2 x 256 each, o_proj 4096 x 2048.
  const double gated = 2048.0 * (8192 + 1024) + 4096.0 * 2048;
  EXPECT_DOUBLE_EQ(layer_params(m, true).attention, (12 * gated + 36 * linear_attention_params(m)) / 48);
  EXPECT_NEAR(count_params(m).total / 79.674e9, 1.0, 1e-3);
}

TEST(LinearAttention, StateDoesNotGrowWithTheContext) {
  const json short_ctx = eval_ok(serving(kNext, 4096, 1)), long_ctx = eval_ok(serving(kNext, 65536, 1));
  auto type = [](const json& out, const char* t) {
    for (const json& row : out["inference"]["kv_cache_by_layer_type"])
      if (row["type"] == t) return row;
    return json();
  };
  const json s1 = type(short_ctx, "linear_state"), s2 = type(long_ctx, "linear_state");
  ASSERT_FALSE(s1.is_null());
  EXPECT_EQ(s1["layers"], 36);
  EXPECT_DOUBLE_EQ(s1["bytes_per_sequence"].get<double>(), s2["bytes_per_sequence"].get<double>());
  // tp 4: 8 value heads x 128 x 128 fp32, and 3 inputs of the convolution over 2048 channels, per layer.
  EXPECT_DOUBLE_EQ(s1["bytes_per_sequence"].get<double>(), 36 * (8.0 * 128 * 128 * 4 + 3 * 2048 * 2));
  // A 16-bit state halves the recurrent part (the convolution's inputs stay 16-bit).
  const json half = eval_ok(serving({{"preset", kNext}, {"linear_attention", {{"state_precision", "bf16"}}}}, 4096, 1));
  EXPECT_DOUBLE_EQ(type(half, "linear_state")["bytes_per_sequence"].get<double>(), 36 * (8.0 * 128 * 128 * 2 + 3 * 2048 * 2));
  // The KV cache grows by the 12 softmax layers' K and V only.
  const double grown = long_ctx["inference"]["memory_bytes"]["kv_cache"].get<double>() -
                       short_ctx["inference"]["memory_bytes"]["kv_cache"].get<double>();
  EXPECT_DOUBLE_EQ(grown, (65536 - 4096) * type(short_ctx, "full")["bytes_per_token"].get<double>());
  EXPECT_DOUBLE_EQ(type(short_ctx, "full")["bytes_per_token"].get<double>(), 12 * 2 * 256 * 2.0);
}

TEST(LinearAttention, LongContextsCostLessThanAllSoftmaxLayers) {
  // At 64k tokens the softmax layers' attention dominates: a hybrid with a
  // quarter of them prefills faster, decodes faster and fits more sequences.
  const json hybrid = eval_ok(serving(kNext, 65536, 16)), full = eval_ok(serving(all_full(), 65536, 16));
  EXPECT_LT(hybrid["inference"]["ttft_s"].get<double>(), 0.7 * full["inference"]["ttft_s"].get<double>());
  EXPECT_LT(hybrid["inference"]["tpot_s"].get<double>(), full["inference"]["tpot_s"].get<double>());
  EXPECT_GT(hybrid["inference"]["max_batch"].get<double>(), 2 * full["inference"]["max_batch"].get<double>());
  // The recurrence streams its state each step: decode traffic grows with the batch.
  const json op1 = find_op(eval_ok(serving(kNext, 4096, 1)), "linear.core", "decode");
  const json op64 = find_op(eval_ok(serving(kNext, 4096, 64)), "linear.core", "decode");
  ASSERT_FALSE(op1.is_null());
  EXPECT_NEAR(op64["bytes"]["hbm"].get<double>() / op1["bytes"]["hbm"].get<double>(), 64, 1e-6);
  EXPECT_EQ(op1["count"], 36);
  EXPECT_EQ(find_op(eval_ok(serving(kNext, 4096, 1)), "attn.flash", "decode")["count"], 12);
}

json training(const json& model, const std::string& recompute, int seq = 4096) {
  return {{"mode", "training"}, {"model", model}, {"system", "dgx-h100"},
          {"parallelism", {{"tp", 2}, {"pp", 2}, {"dp", 4}, {"ep", 8}, {"sp", true}, {"zero", 1}}},
          {"training", {{"global_batch", 64}, {"micro_batch", 1}, {"seq_len", seq}, {"recompute", recompute}}}};
}

TEST(LinearAttention, TrainingRunsEachLayerTypeByItsShare) {
  const json out = eval_ok(training(kNext, "full"));
  const json core = find_op(out, "linear.core", "fwd"), flash = find_op(out, "attn.flash", "fwd");
  ASSERT_FALSE(core.is_null());
  ASSERT_FALSE(flash.is_null());
  // 24 layers per stage, 16 micro-batches: 18 linear and 6 softmax layers each.
  EXPECT_DOUBLE_EQ(core["count"].get<double>(), 18.0 * 16);
  EXPECT_DOUBLE_EQ(flash["count"].get<double>(), 6.0 * 16);
  EXPECT_FALSE(find_op(out, "linear.core.bwd", "bwd").is_null());
  EXPECT_FALSE(find_op(out, "attn.gate", "fwd").is_null());
  const json& t = out["training"];
  EXPECT_GT(t["mfu"].get<double>(), 0.0);
  EXPECT_LT(t["mfu"].get<double>(), 1.0);
  // Long sequences: the hybrid's attention time is a fraction of all-softmax layers'.
  auto attention_time = [](const json& o) {
    double s = 0;
    for (const json& op : o["ops"])
      if (op["kind"] == "attention") s += op["time_s"].get<double>() * op["count"].get<double>();
    return s;
  };
  const json h32 = eval_ok(training(kNext, "full", 32768)), f32 = eval_ok(training(all_full(), "full", 32768));
  EXPECT_LT(attention_time(h32), 0.4 * attention_time(f32));
  EXPECT_LT(h32["training"]["iteration_time_s"].get<double>(), f32["training"]["iteration_time_s"].get<double>());
}

TEST(LinearAttention, OpLevelCheckpointingSavesEveryOtherMatmul) {
  const json out = eval_ok(training(kNext, "selective_op"));
  // in_proj_qkvz (1st mm) and out_proj (3rd) are kept, in_proj_ba (2nd) and
  // the recurrence (not on the save list) run again.
  EXPECT_TRUE(find_op(out, "linear.in_proj", "recompute").is_null());
  EXPECT_FALSE(find_op(out, "linear.in_proj_ba", "recompute").is_null());
  EXPECT_TRUE(find_op(out, "linear.out_proj", "recompute").is_null());
  EXPECT_FALSE(find_op(out, "linear.core", "recompute").is_null());
  EXPECT_TRUE(find_op(out, "attn.flash", "recompute").is_null());
  const double none = eval_ok(training(kNext, "none"))["training"]["memory_bytes"]["activations"].get<double>();
  const double op = out["training"]["memory_bytes"]["activations"].get<double>();
  EXPECT_LT(op, none);
  EXPECT_GT(op, eval_ok(training(kNext, "full"))["training"]["memory_bytes"]["activations"].get<double>());
}

TEST(LinearAttention, LoraAdaptersSitOnEachMixersProjections) {
  json s = training(kNext, "full");
  s["parallelism"] = {{"tp", 1}, {"dp", 8}, {"ep", 8}, {"zero", 1}};
  s["training"]["lora_rank"] = 16;
  // Rank 16, r (modules x k + n) per adapted GEMM: a softmax layer's qkv (3
  // modules, n 8192 + 1024 with the gate) and o_proj: 344,064; a linear
  // layer's in_proj_qkvz, in_proj_ba and out_proj: 361,472; the shared
  // expert's gate+up and down: 122,880. 12 and 36 of the 48 layers.
  const double full = 16 * (3 * 2048 + 9216) + 16 * (4096 + 2048), linear = 16 * (2048 + 12288) + 16 * (2048 + 64) + 16 * (4096 + 2048);
  const double shared = 16 * (2 * 2048 + 1024) + 16 * (512 + 2048);
  EXPECT_DOUBLE_EQ(eval_ok(s)["training"]["trainable_params"].get<double>(), 12 * full + 36 * linear + 48 * shared);
  // The adapters' kernels run in the layers of their GEMM's type, not in all of them.
  const json out = eval_ok(s);
  for (const char* gemm : {"linear.in_proj", "attn.qkv"})
    EXPECT_DOUBLE_EQ(find_op(out, std::string(gemm) + ".lora_a", "fwd")["count"].get<double>(),
                     find_op(out, gemm, "fwd")["count"].get<double>())
        << gemm;
  s["training"]["lora_targets"] = "attention";  // q, k, v, o only: the linear layers keep none
  EXPECT_DOUBLE_EQ(eval_ok(s)["training"]["trainable_params"].get<double>(), 12 * full);
}

TEST(LinearAttention, Fp8CastsRunInTheLayersOfTheirGemm) {
  json s = training(kNext, "full");
  s["training"]["precision"] = "fp8";
  const json out = eval_ok(s);
  for (const char* gemm : {"linear.in_proj", "linear.out_proj", "attn.qkv"}) {
    const json cast = find_op(out, std::string(gemm) + ".cast", "fwd");
    ASSERT_FALSE(cast.is_null()) << gemm;
    EXPECT_DOUBLE_EQ(cast["count"].get<double>(), find_op(out, gemm, "fwd")["count"].get<double>()) << gemm;
  }
}

TEST(LinearAttention, RefusesWhatItDoesNotModel) {
  auto error_path = [](const json& s) {
    const json out = eval(s);
    return out.contains("error") ? out["error"]["path"].get<std::string>() : std::string("no error");
  };
  json with_mla = {{"preset", kNext},
                   {"mla", {{"kv_lora_rank", 512}, {"qk_nope_head_dim", 128}, {"qk_rope_head_dim", 64}, {"v_head_dim", 128}}}};
  EXPECT_EQ(error_path(serving(with_mla, 4096, 1)), "model.linear_attention");
  EXPECT_EQ(error_path(serving({{"preset", kNext}, {"linear_attention", {{"value_heads", 24}}}}, 4096, 1)),
            "model.linear_attention.value_heads");
  EXPECT_EQ(error_path(serving({{"preset", kNext}, {"linear_attention", {{"bogus", 1}}}}, 4096, 1)),
            "model.linear_attention.bogus");
  EXPECT_EQ(error_path(serving(kNext, 4096, 1, 32)), "parallelism.tp");  // 32 does not divide 16 key heads
  json cp = training(kNext, "full");
  cp["parallelism"]["cp"] = 2;
  cp["parallelism"]["dp"] = 2;
  EXPECT_EQ(error_path(cp), "parallelism.cp");
  EXPECT_EQ(error_path(serving({{"preset", "llama3.1-8b"}, {"attention", {{"global_every", 4}}}}, 4096, 1)),
            "model.attention.global_every");
  EXPECT_EQ(error_path(serving({{"preset", "deepseek-v2-lite"}, {"attention", {{"output_gate", true}}}}, 4096, 1, 1)),
            "model.attention.output_gate");
}

const char* const kBamba = "bamba-9b";

TEST(Mamba2, WeightsAndWorkMatchAHandCount) {
  const Model m = parse_model(kBamba, "model");
  EXPECT_EQ(linear_layers(m, 0, 32), 29);
  // in_proj 4096 x (2 x 8192 (z, x) + 2 x 128 (B, C) + 128 (dt)), conv1d
  // over x, B, C (8448 channels) of 4 taps with bias, A_log, D and dt_bias
  // per head, the gated norm's 8192 weights, out_proj 8192 x 4096.
  EXPECT_DOUBLE_EQ(linear_attention_params(m), 4096.0 * 16768 + 8448 * 5 + 3 * 128 + 8192 + 8192.0 * 4096);
  EXPECT_DOUBLE_EQ(linear_in_proj_width(m, 1), 16768);
  EXPECT_DOUBLE_EQ(linear_small_proj_width(m, 1), 0);  // no in_proj_ba: dt comes out of in_proj
  // SSD per token, chunks of 256: 128 heads x (2 Q P + 4 N P) and one group's C B^T (2 Q N).
  EXPECT_DOUBLE_EQ(linear_core_flops_per_token(m), 128 * (2.0 * 256 * 64 + 4.0 * 128 * 64) + 2.0 * 256 * 128);
  // The same widths as Gated DeltaNet: mamba_ssm saves no C x C block for backward.
  Model gdn = m;
  gdn.linear.kind = LinearKind::gated_deltanet;
  EXPECT_DOUBLE_EQ(linear_activation_bytes(gdn, 1, 1000, 2) - linear_activation_bytes(m, 1, 1000, 2), 1000.0 * 4 * 256 * 128);
  // The state: 128 heads x 128 x 64 fp32 and the convolution's last 3 inputs.
  EXPECT_DOUBLE_EQ(linear_state_bytes(m, 1), 128.0 * 128 * 64 * 4 + 3 * 8448 * 2);
}

TEST(Mamba2, ChunkDefaultsToTheKernels) {
  json model = {{"preset", kBamba}, {"linear_attention", {{"chunk", 0}}}};
  EXPECT_EQ(parse_model(model, "model").linear.chunk, 256);  // mamba_ssm chunk_size
  model["linear_attention"]["kind"] = "gated_deltanet";
  EXPECT_EQ(parse_model(model, "model").linear.chunk, 64);  // flash-linear-attention
  model["linear_attention"]["chunk"] = 128;
  EXPECT_EQ(parse_model(model, "model").linear.chunk, 128);
  model["linear_attention"]["kind"] = "mamba3";
  EXPECT_EQ(eval(serving(model, 4096, 1))["error"]["path"], "model.linear_attention.kind");
}

TEST(Mamba2, TrainsAndServesByLayerType) {
  json s = training(kBamba, "full");
  s["parallelism"] = {{"dp", 8}, {"zero", 1}};
  const json out = eval_ok(s);
  EXPECT_TRUE(find_op(out, "linear.in_proj_ba", "fwd").is_null());
  const json in_proj = find_op(out, "linear.in_proj", "fwd");
  // 8 micro-batches of 4096 tokens through 29 Mamba-2 layers, each 4096 x 16768 x 4096.
  EXPECT_DOUBLE_EQ(in_proj["count"].get<double>(), 29.0 * 8);
  EXPECT_DOUBLE_EQ(in_proj["flops"].get<double>(), 2.0 * 4096 * 16768 * 4096);
  EXPECT_DOUBLE_EQ(find_op(out, "attn.flash", "fwd")["count"].get<double>(), 3.0 * 8);
  const double mfu = out["training"]["mfu"].get<double>();
  EXPECT_GT(mfu, 0.0);
  EXPECT_LT(mfu, 1.0);
  // LoRA on all linear modules: Mamba-2's in_proj and out_proj, the 3
  // attention layers' q, k, v (3 modules) and o, every layer's MLP.
  s["training"]["lora_rank"] = 16;
  const double mamba = 16 * (4096 + 16768) + 16 * (8192 + 4096), attention = 16 * (3 * 4096 + 6144) + 16 * (4096 + 4096);
  const double mlp = 16 * (2 * 4096 + 2 * 14336) + 16 * (14336 + 4096);
  EXPECT_DOUBLE_EQ(eval_ok(s)["training"]["trainable_params"].get<double>(), 29 * mamba + 3 * attention + 32 * mlp);
  // Serving: 29 fixed states and 3 layers of KV cache.
  const json served = eval_ok(serving(kBamba, 32768, 8, 1));
  for (const json& row : served["inference"]["kv_cache_by_layer_type"])
    if (row["type"] == "linear_state") EXPECT_EQ(row["layers"], 29);
  EXPECT_EQ(find_op(served, "linear.core", "decode")["count"], 29);
  // tp 8 splits the 128 heads; each rank keeps a copy of the one B/C group
  // (vLLM's MambaMixer2 replicates groups that do not divide by tp).
  const json tp8 = eval_ok(serving(kBamba, 32768, 8, 8));
  for (const json& row : tp8["inference"]["kv_cache_by_layer_type"])
    if (row["type"] == "linear_state")
      EXPECT_DOUBLE_EQ(row["bytes_per_sequence"].get<double>(), 29 * (16.0 * 128 * 64 * 4 + 3 * (1024 + 2 * 128) * 2));
  EXPECT_EQ(eval(serving({{"preset", kBamba}, {"linear_attention", {{"key_heads", 2}}}}, 4096, 1, 8)).contains("error"), false);
  // 3 groups over 2 ranks: neither divides the other.
  EXPECT_EQ(eval(serving({{"preset", kBamba}, {"linear_attention", {{"key_heads", 3}, {"value_heads", 96}}}}, 4096, 1, 2))["error"]["path"],
            "parallelism.tp");
}

// A model shaped like Nemotron-H 8B's pattern: 24 Mamba-2, 4 attention and
// 24 MLP blocks, i.e. 28 mixer layers of which 4 have no MLP after them.
json pattern_model(int mixer_only) {
  return {{"layers", 28}, {"hidden", 4096}, {"heads", 32}, {"kv_heads", 8}, {"ffn_hidden", 21504}, {"ffn_type", "relu2"},
          {"norm", "rmsnorm"}, {"vocab", 131072}, {"seq_len", 8192}, {"mixer_only_layers", mixer_only},
          {"linear_attention", {{"kind", "mamba2"}, {"key_heads", 8}, {"value_heads", 128}, {"key_head_dim", 128},
                                {"value_head_dim", 64}, {"full_every", 7}}}};
}

TEST(MixerOnlyLayers, HaveNoMlpBlock) {
  const Model m = parse_model(pattern_model(4), "model"), all = parse_model(pattern_model(0), "model");
  EXPECT_DOUBLE_EQ(mlp_share(m, false), 24.0 / 28);
  // 24 MLPs of 2 x 4096 x 21504 and 52 RMSNorms, beside the same mixers.
  EXPECT_NEAR(count_params(all).layers - count_params(m).layers, 4 * (2.0 * 4096 * 21504 + 4096), 1.0);
  // An MTP module is a whole block, its MLP included, whatever layers lack one.
  json with_mtp = pattern_model(4), with_mtp0 = pattern_model(0);
  with_mtp["mtp_layers"] = with_mtp0["mtp_layers"] = 1;
  EXPECT_DOUBLE_EQ(mtp_params(parse_model(with_mtp, "model")), mtp_params(parse_model(with_mtp0, "model")));
  json s = training(pattern_model(4), "none");
  s["parallelism"] = {{"tp", 2}, {"dp", 4}, {"sp", true}};
  json s0 = s;
  s0["model"] = pattern_model(0);
  const json out = eval_ok(s), out0 = eval_ok(s0);
  // 16 micro-batches: MLP ops for 24 of the 28 layers, the mixers' for all of them.
  EXPECT_DOUBLE_EQ(find_op(out, "mlp.up", "fwd")["count"].get<double>(), 24.0 * 16);
  EXPECT_DOUBLE_EQ(find_op(out, "mlp.norm", "fwd")["count"].get<double>(), 24.0 * 16);
  EXPECT_DOUBLE_EQ(find_op(out, "attn.norm", "fwd")["count"].get<double>(), 28.0 * 16);
  EXPECT_DOUBLE_EQ(find_op(out, "linear.in_proj", "fwd")["count"].get<double>(), 24.0 * 16);
  EXPECT_LT(out["training"]["iteration_time_s"].get<double>(), out0["training"]["iteration_time_s"].get<double>());
  EXPECT_LT(out["training"]["memory_bytes"]["activations"].get<double>(), out0["training"]["memory_bytes"]["activations"].get<double>());
  // Op-level checkpointing keeps the MLP mms of the layers that have one.
  s["training"]["recompute"] = "selective_op";
  s0["training"]["recompute"] = "selective_op";
  EXPECT_LT(eval_ok(s)["training"]["memory_bytes"]["activations"].get<double>(),
            eval_ok(s0)["training"]["memory_bytes"]["activations"].get<double>());
  // MFU counts the work that runs: the same share of MLP FLOPs.
  EXPECT_GT(out["training"]["mfu"].get<double>(), 0.0);
  EXPECT_LT(out["training"]["mfu"].get<double>(), 1.0);
}

// The pattern with MoE blocks in place of the MLPs (Nemotron 3's M, E and *
// blocks): 8 experts of 1024, top 2, one shared expert.
json moe_pattern_model(int mixer_only) {
  json m = pattern_model(mixer_only);
  m["moe"] = {{"experts", 8}, {"top_k", 2}, {"ffn_hidden", 1024}, {"shared_experts", 1}};
  return m;
}

TEST(MixerOnlyLayers, InAnMoeModelAreMoeLayers) {
  const Model m = parse_model(moe_pattern_model(6), "model"), all = parse_model(moe_pattern_model(0), "model");
  EXPECT_DOUBLE_EQ(mlp_share(m, true), 22.0 / 28);
  EXPECT_DOUBLE_EQ(mlp_share(m, false), 1.0);
  // 6 MoE blocks fewer: 8 routed and 1 shared expert of 2 x 4096 x 1024
  // (relu2), the router 4096 x 8, and the norm before each block.
  const double expert = 2.0 * 4096 * 1024, router = 4096.0 * 8, norm = 4096;
  EXPECT_NEAR(count_params(all).layers - count_params(m).layers, 6 * (9 * expert + router + norm), 1.0);
  EXPECT_NEAR(count_params(all).active - count_params(m).active, 6 * (3 * expert + router + norm), 1.0);
  json s = training(moe_pattern_model(6), "none");
  s["parallelism"] = {{"dp", 8}, {"ep", 4}};
  json s0 = s;
  s0["model"] = moe_pattern_model(0);
  const json out = eval_ok(s), out0 = eval_ok(s0);
  // 8 micro-batches: the MoE block and its all-to-alls in 22 of the 28 layers.
  for (const char* op : {"moe.router", "moe.dispatch", "moe.up", "moe.combine", "mlp.norm"})
    EXPECT_DOUBLE_EQ(find_op(out, op, "fwd")["count"].get<double>(), 22.0 * 8) << op;
  EXPECT_DOUBLE_EQ(find_op(out, "attn.norm", "fwd")["count"].get<double>(), 28.0 * 8);
  // The experts this rank holds: 2 of 8 in 22 layers, against 28.
  const double held = out["training"]["memory_bytes"]["weights"].get<double>(), held0 = out0["training"]["memory_bytes"]["weights"].get<double>();
  EXPECT_NEAR(held0 - held, 2.0 * 6 * (2 * expert + expert + router + norm), 16.0);
  EXPECT_LT(out["training"]["iteration_time_s"].get<double>(), out0["training"]["iteration_time_s"].get<double>());
  EXPECT_LT(out["training"]["memory_bytes"]["activations"].get<double>(), out0["training"]["memory_bytes"]["activations"].get<double>());
  // Serving, with a one-layer draft head (a whole layer at this share).
  json serve = serving(moe_pattern_model(6), 4096, 8, 1);
  serve["inference"]["draft_tokens"] = 2;
  const json served = eval_ok(serve);
  EXPECT_DOUBLE_EQ(find_op(served, "moe.up", "decode")["count"].get<double>(), 22.0);
  EXPECT_GT(served["inference"]["output_tokens_per_s"].get<double>(), 0.0);
}

// Nemotron 3 Nano's 29 mixers hold 6 softmax layers, which no full_every
// gives (every 4th: 7, every 5th: 5): full_layers places them evenly.
TEST(LinearAttention, FullLayersGiveAnIrregularCount) {
  json model = moe_pattern_model(6);
  model["layers"] = 29;
  model["linear_attention"].erase("full_every");
  model["linear_attention"]["full_layers"] = 6;
  const Model m = parse_model(model, "model");
  EXPECT_DOUBLE_EQ(linear_share(m), 23.0 / 29);
  json s = training(model, "none");
  s["parallelism"] = {{"dp", 8}, {"ep", 4}};
  const json out = eval_ok(s);
  EXPECT_DOUBLE_EQ(find_op(out, "attn.flash", "fwd")["count"].get<double>(), 6.0 * 8);
  EXPECT_DOUBLE_EQ(find_op(out, "linear.in_proj", "fwd")["count"].get<double>(), 23.0 * 8);
  // Served: 6 layers of KV cache and 23 fixed states.
  const json served = eval_ok(serving(model, 8192, 4, 1));  // held: the loop runs over a part of it
  for (const json& row : served["inference"]["kv_cache_by_layer_type"])
    EXPECT_EQ(row["layers"], row["type"] == "linear_state" ? 23 : 6);
  // Over a preset's full_every (the page sends a preset and the fields changed), full_layers rules.
  model["linear_attention"]["full_every"] = 5;
  EXPECT_DOUBLE_EQ(linear_share(parse_model(model, "model")), 23.0 / 29);
  json over = {{"preset", "bamba-9b"}, {"linear_attention", {{"full_layers", 4}}}};
  EXPECT_DOUBLE_EQ(linear_share(parse_model(over, "model")), 28.0 / 32);
  model["linear_attention"]["full_layers"] = 30;
  EXPECT_EQ(eval(serving(model, 4096, 1, 1))["error"]["path"], "model.linear_attention.full_layers");
}

TEST(MixerOnlyLayers, RefusesWhatItDoesNotModel) {
  EXPECT_EQ(eval(serving(pattern_model(29), 4096, 1))["error"]["path"], "model.mixer_only_layers");
  // With moe they are MoE layers: 4 of the 28 here, after 24 dense ones.
  json moe = moe_pattern_model(6);
  moe["moe"]["dense_layers"] = 24;
  const json refused = eval(serving(moe, 4096, 1, 1));
  EXPECT_EQ(refused["error"]["path"], "model.mixer_only_layers");
  EXPECT_NE(refused["error"]["message"].get<std::string>().find("4 MoE layers"), std::string::npos);
}

}  // namespace
}  // namespace llmcalc
