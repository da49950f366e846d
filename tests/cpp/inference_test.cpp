// Inference: prefill is compute-bound, decode streams the weights and the KV
// cache from device memory (Kundu et al. 2024, arXiv 2407.14645 §V; Pope et
// al. 2022, arXiv 2211.05102 §2), and the spec's latency identities hold.
#include "test_util.h"

namespace llmcalc::test {
namespace {

json inference(const std::string& model, const std::string& system, int tp, json infer) {
  return {{"mode", "inference"}, {"model", model}, {"system", system},
          {"parallelism", {{"tp", tp}}}, {"inference", std::move(infer)}};
}

json llama7b_a100(int batch, const std::string& weights = "bf16") {
  return inference("llama2-7b", "dgx-a100-80gb", 1,
                   {{"batch", batch}, {"input_tokens", 1024}, {"output_tokens", 256}, {"weight_precision", weights}});
}

TEST(Inference, DecodeAtBatchOneStreamsWeightsAndCache) {
  const json out = eval_ok(llama7b_a100(1));
  const json& r = out["inference"];
  EXPECT_EQ(r["bound"]["decode"], "hbm");
  // Llama 2 7B: 6,738,415,616 parameters (HF safetensors count); every step
  // reads all of them at 2 bytes except the embedding table (32000 x 4096),
  // of which it gathers one row. KV cache at the mean decode context
  // 1024 + 256/2: 2 x 32 layers x 4096 x 2 bytes per token.
  const double weights = (6738415616.0 - 32000.0 * 4096) * 2;
  const double kv = 2 * 32 * 4096 * 2 * (1024 + 128.0);
  // A100 80GB: 2039 GB/s HBM2e, 0.83 achievable (the preset's STREAM figure).
  const double expected = (weights + kv) / (2039e9 * 0.83);
  EXPECT_NEAR(r["tpot_s"].get<double>() / expected, 1.0, 0.25) << r["tpot_s"] << " vs " << expected;
  EXPECT_GE(r["tpot_s"].get<double>(), (weights + kv) / 2039e9);  // never faster than the datasheet peak
}

TEST(Inference, LongPrefillIsComputeBound) {
  const json out = eval_ok(inference("llama3.1-8b", "dgx-h100", 1, {{"batch", 1}, {"input_tokens", 8192}, {"output_tokens", 16}}));
  EXPECT_EQ(out["inference"]["bound"]["prefill"], "compute");
  // And its time is at least 2 x parameters x tokens over the bf16 peak (989.4 TFLOP/s).
  EXPECT_GE(out["inference"]["ttft_s"].get<double>(), 2 * 8.0e9 * 8192 / 989.4e12);
}

TEST(Inference, Int4WeightsCutMemoryBoundDecode) {
  // BUG: at batch 1 the int4 decode of llama2-7b on A100 is reported
  // "compute"-bound (tpot ratio int4/bf16 = 0.507). A GEMV reads 0.5 byte
  // per 2 FLOPs (4 FLOP/B, far below the A100 ridge of ~150 FLOP/B), but
  // gemm_cost() pads M=1 to its smallest 32-row tile (quant_eff = 1/32) and
  // adds a tile overhead per wave, so the GEMVs' "compute" time exceeds
  // their weight streaming time. Marlin-style int4 kernels stay memory-bound
  // up to batch ~16 (Frantar et al. 2024, arXiv 2408.11743).
  const json b16 = eval_ok(llama7b_a100(1))["inference"];
  const json i4 = eval_ok(llama7b_a100(1, "int4"))["inference"];
  EXPECT_EQ(i4["bound"]["decode"], "hbm");
  // Weight bytes fall 2 -> 0.5 (+ scales): a ratio of ~0.26 on the weights,
  // diluted by the unchanged KV cache, the dequantising kernels' slower
  // stream and their fixed per-kernel costs (gpt-fast's README measures
  // 104.9 and 196.8 tokens/s on this A100: 0.53).
  const double ratio = i4["tpot_s"].get<double>() / b16["tpot_s"].get<double>();
  EXPECT_GT(ratio, 0.25);
  EXPECT_LT(ratio, 0.6);
}

TEST(Inference, Int8WeightsCutMemoryBoundDecode) {
  // Same with int8 (1 byte): between the byte ratio 0.5 and 1.
  const double b16 = eval_ok(llama7b_a100(1))["inference"]["tpot_s"];
  const double i8 = eval_ok(llama7b_a100(1, "int8"))["inference"]["tpot_s"];
  EXPECT_GT(i8 / b16, 0.5);
  EXPECT_LT(i8 / b16, 0.75);
}

TEST(Inference, LatencyIdentities) {
  for (const json& s : {llama7b_a100(1), llama7b_a100(16, "fp8"),
                        inference("llama3.1-70b", "dgx-h100", 4, {{"batch", 32}, {"input_tokens", 2048}, {"output_tokens", 256},
                                                                  {"weight_precision", "fp8"}, {"kv_precision", "fp8"},
                                                                  {"compute_precision", "fp8"}}),
                        inference("mixtral-8x7b", "dgx-h200", 2, {{"batch", 4}, {"input_tokens", 512}, {"output_tokens", 1}})}) {
    const json r = eval_ok(s)["inference"];
    const double out_tokens = s["inference"]["output_tokens"], batch = s["inference"]["batch"];
    const double e2e = r["ttft_s"].get<double>() + (out_tokens - 1) * r["tpot_s"].get<double>();
    EXPECT_NEAR(r["e2e_latency_s"].get<double>(), e2e, 1e-12 * e2e) << s.dump();
    EXPECT_NEAR(r["output_tokens_per_s"].get<double>(), batch * out_tokens / e2e, 1e-9 * batch * out_tokens / e2e);
    EXPECT_GT(r["ttft_s"].get<double>(), 0.0);
    EXPECT_GT(r["tpot_s"].get<double>(), 0.0);
  }
}

// Mixtral 8x7B (8 experts, top-2): one token touches 2 experts; a batch of b
// tokens touches E (1 - (1 - k/E)^b) of them under uniform routing, ~8 at
// b=64. The grouped up-projection reads h x 2f x 2 bytes per touched expert.
TEST(Inference, MoeDecodeReadsOnlyTouchedExperts) {
  auto up_bytes = [](int batch) {
    const json out = eval_ok(inference("mixtral-8x7b", "dgx-h100", 2,
                                       {{"batch", batch}, {"input_tokens", 1024}, {"output_tokens", 128}}));
    const json op = find_op(out, "moe.up", "decode");
    EXPECT_FALSE(op.is_null());
    return op.is_null() ? 0.0 : op["bytes"]["hbm"].get<double>();
  };
  const double h = 4096, f = 14336 / 2.0;  // tp=2 splits the expert width
  const double per_expert = h * 2 * f * 2;
  // Plus the routed activations in (b k x h) and out (b k x 2f), 2 bytes each.
  auto expected = [&](double b) { return 8 * (1 - std::pow(0.75, b)) * per_expert + b * 2 * (h + 2 * f) * 2; };
  const double b1 = up_bytes(1), b64 = up_bytes(64);
  EXPECT_LT(b1, b64);
  EXPECT_NEAR(b1 / expected(1), 1.0, 1e-3);   // 2 experts
  EXPECT_NEAR(b64 / expected(64), 1.0, 1e-3);  // ~8 experts
}

// W8A8 (SmoothQuant, Xiao et al. 2023): int8 weights times int8 activations
// on the integer tensor cores. On A100 (624 TOPS against 312 TFLOP/s fp16)
// the prefill GEMMs run at twice the 16-bit rate after each input is
// quantised; decode reads the same int8 weights without dequantising them.
// B300 cut its int8 rate (the preset's peak), so there it is the slower path.
TEST(Inference, Int8MathRunsOnTheIntegerTensorCores) {
  const auto run = [](const char* system, const char* math, const char* weights) {
    return eval_ok(inference("llama3.1-8b", system, 1,
                             {{"batch", 32}, {"input_tokens", 2048}, {"output_tokens", 128},
                              {"compute_precision", math}, {"weight_precision", weights}}));
  };
  const json w8a16 = run("dgx-a100-80gb", "fp16", "int8"), w8a8 = run("dgx-a100-80gb", "int8", "int8");
  const double g16 = find_op(w8a16, "mlp.up", "prefill")["time_s"].get<double>();
  const double g8 = find_op(w8a8, "mlp.up", "prefill")["time_s"].get<double>();
  EXPECT_LT(g8, 0.6 * g16);
  EXPECT_FALSE(find_op(w8a8, "mlp.up.cast", "prefill").is_null()) << "each GEMM input is quantised";
  EXPECT_LT(w8a8["inference"]["ttft_s"].get<double>(), 0.7 * w8a16["inference"]["ttft_s"].get<double>());
  EXPECT_LE(w8a8["inference"]["tpot_s"].get<double>(), w8a16["inference"]["tpot_s"].get<double>());
  EXPECT_GT(run("dgx-b300", "int8", "int8")["inference"]["ttft_s"].get<double>(),
            2 * run("dgx-b300", "fp8", "fp8")["inference"]["ttft_s"].get<double>());
  const json bad = eval(inference("llama3.1-8b", "dgx-a100-80gb", 1, {{"compute_precision", "int8"}}));
  EXPECT_EQ(bad["error"]["path"], "inference.compute_precision");
  EXPECT_NE(bad["error"]["message"].get<std::string>().find("needs inference.weight_precision int8 or int4"), std::string::npos);
}

// Every pipeline stage serves the same sequences, and the most loaded one
// decides what fits: a stage holds at least its share of the weights. The
// first stage of DeepSeek-V3 or GLM-4.5 holds the small leading dense layers,
// so its weights alone under-counted the last stage's (DeepSeek-V3 at pp 8:
// 72% of the even share), and such plans were said to fit.
TEST(Inference, ServingMemoryIsTheMostLoadedStages) {
  const json presets = json::parse(presets_json());
  const auto weights = [](const std::string& model, int pp) {
    json sc = inference(model, "dgx-h100", 1, {{"batch", 1}, {"input_tokens", 128}, {"output_tokens", 16}});
    sc["parallelism"]["pp"] = pp;
    return eval_ok(sc)["inference"]["memory_bytes"]["weights"].get<double>();
  };
  int checked = 0;
  for (auto m = presets["models"].begin(); m != presets["models"].end(); ++m) {
    const double whole = weights(m.key(), 1);
    for (int pp : {2, 4, 8}) {
      EXPECT_GE(weights(m.key(), pp) * pp, 0.999 * whole) << m.key() << " pp " << pp;
      ++checked;
    }
  }
  EXPECT_GT(checked, 90);
  // GLM-4.5 in 16 bits on eight H100 stages: its last stage's twelve MoE
  // layers and LM head (about 96 GB) do not fit in 80 GiB.
  json glm = inference("glm4.5", "dgx-h100", 1, {{"batch", 1}, {"input_tokens", 128}, {"output_tokens", 16}});
  glm["parallelism"]["pp"] = 8;
  const json out = eval_ok(glm);
  EXPECT_FALSE(out["inference"]["fits"].get<bool>());
  EXPECT_EQ(out["inference"]["max_batch"].get<long long>(), 0);
}

// A batch passes every pipeline stage once: its latency is the model's work
// once and the hops between stages, not pp times the slowest stage (which
// counted Llama 3.1 8B's 128k-vocabulary LM head once per stage: +20% per
// token at pp 4). With pp batches in flight the slowest stage (its layers
// and the head) sets the pace, so the pipelined rate grows nearly pp-fold.
TEST(Inference, PipelineLatencyIsEveryStageOnce) {
  const auto run = [](int pp) {
    json sc = inference("llama3.1-8b", "dgx-h100", 1, {{"batch", 8}, {"input_tokens", 1024}, {"output_tokens", 128}});
    sc["parallelism"]["pp"] = pp;
    return eval_ok(sc)["inference"];
  };
  const json one = run(1);
  for (int pp : {2, 4, 8}) {
    const json piped = run(pp);
    for (const char* k : {"ttft_s", "tpot_s"}) {
      EXPECT_GT(piped[k].get<double>(), one[k].get<double>()) << k << " pp " << pp << ": the hops add";
      EXPECT_LT(piped[k].get<double>(), 1.01 * one[k].get<double>()) << k << " pp " << pp;
    }
    const double rate = piped["pipelined_output_tokens_per_s"].get<double>() / one["output_tokens_per_s"].get<double>();
    EXPECT_GT(rate, 0.75 * pp) << pp;
    EXPECT_LT(rate, pp) << pp;
  }
}

// Every batch in flight keeps its K/V on each stage, so the pipelined rate
// grows with the batches the memory holds: Llama 3.1 70B at tp 2, pp 2 on
// H100 holds 138 sequences, two batches of 64 but one of 128.
TEST(Inference, PipelinedBatchesNeedTheirKvCache) {
  const auto run = [](int batch) {
    json sc = inference("llama3.1-70b", "dgx-h100", 2,
                        {{"batch", batch}, {"input_tokens", 2048}, {"output_tokens", 256}, {"batching", "inflight"}});
    sc["parallelism"]["pp"] = 2;
    return eval_ok(sc)["inference"];
  };
  const json two = run(64), one = run(128);
  ASSERT_GE(two["max_batch"].get<double>(), 128);
  ASSERT_LT(one["max_batch"].get<double>(), 256);
  EXPECT_GT(two["pipelined_output_tokens_per_s"].get<double>(), 1.9 * two["output_tokens_per_s"].get<double>());
  EXPECT_DOUBLE_EQ(one["pipelined_output_tokens_per_s"].get<double>(), one["output_tokens_per_s"].get<double>());
}

// Serving beyond the model's context window is flagged, not beyond its
// pre-training seq_len: Llama 3.1 8B pre-trained at 8,192 tokens serves 128K
// (model.context); a model without one keeps its seq_len as its window.
TEST(Inference, LengthsAreCheckedAgainstTheContextWindow) {
  json s = {{"mode", "inference"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"}, {"parallelism", {{"tp", 8}}},
            {"inference", {{"batch", 1}, {"input_tokens", 32768}, {"output_tokens", 1024}}}};
  const auto warned = [](const json& out) {
    for (const auto& w : out.at("warnings"))
      if (w.get<std::string>().find("context window") != std::string::npos) return w.get<std::string>();
    return std::string();
  };
  EXPECT_EQ(warned(eval_ok(s)), "");
  s["inference"]["input_tokens"] = 131072;
  EXPECT_EQ(warned(eval_ok(s)), "input + output tokens exceed the model's context window (model.context, 131072 tokens)");
  s["model"] = "llama2-7b";  // no context given: its seq_len, 4,096
  s["inference"]["input_tokens"] = 4000;
  EXPECT_EQ(warned(eval_ok(s)), "input + output tokens exceed the model's context window (model.context, 4096 tokens)");
  s["model"] = {{"preset", "llama2-7b"}, {"context", 0}};
  const json bad = eval(s);
  ASSERT_TRUE(bad.contains("error")) << bad.dump();
  EXPECT_EQ(bad.at("error").at("path"), "model.context");
}

}  // namespace
}  // namespace llmcalc::test
