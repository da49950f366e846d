// Serving mechanisms: weight-only dequantising GEMV kernels stream below the
// 16-bit rate and read their group scales (gpt-fast README, A100), and
// in-flight batching keeps no more sequences in flight than the KV cache holds.
#include "test_util.h"

namespace llmcalc::test {
namespace {

json gptfast(const std::string& weights, int group, const json& system = "dgx-a100-80gb") {
  return {{"mode", "inference"}, {"model", "llama2-7b"}, {"system", system},
          {"inference", {{"batch", 1}, {"input_tokens", 5}, {"output_tokens", 200}, {"weight_precision", weights},
                         {"weight_group_size", group}, {"compute_precision", "fp16"}, {"kv_precision", "fp16"}}}};
}

double tpot(const json& scenario) { return eval_ok(scenario)["inference"]["tpot_s"].get<double>(); }

TEST(Serving, DequantisingGemvStreamsAtItsMeasuredFraction) {
  // The same system with full-rate weight-only kernels.
  json full = {{"preset", "dgx-a100-80gb"},
               {"device", {{"efficiency", {{"weight_only", {{"int8", 1.0}, {"int4", 1.0}}}}}}}};
  for (const char* w : {"int8", "int4"}) {
    const double slow = tpot(gptfast(w, 32)), fast = tpot(gptfast(w, 32, full));
    // The weight GEMVs are most of the step at batch 1 (the rest: launches,
    // the 16-bit LM head, the KV cache): the step slows by over 45% of
    // 1 / fraction - 1 (0.85 int8, 0.75 int4), never by more than 1 / fraction.
    const double frac = std::string(w) == "int8" ? 0.85 : 0.75;
    EXPECT_GT(slow / fast, 1 + 0.45 * (1 / frac - 1)) << w;
    EXPECT_LE(slow / fast, 1 / frac + 1e-9) << w;
  }
  // Still faster than 16-bit weights: fewer bytes outweigh the slower stream.
  EXPECT_LT(tpot(gptfast("int4", 32)), tpot(gptfast("int8", 32)));
  EXPECT_LT(tpot(gptfast("int8", 32)), tpot(gptfast("bf16", 32)));
}

TEST(Serving, EachDequantisingKernelTakesItsSetupOnce) {
  // efficiency.weight_only.setup_us (the intercept of tinygemm's time on an
  // H100): a decode step takes it once per weight-only GEMM it launches (the
  // layers' projections; the LM head stays 16-bit).
  const auto setup = [](double us) {
    return json{{"preset", "dgx-a100-80gb"}, {"device", {{"efficiency", {{"weight_only", {{"setup_us", us}}}}}}}};
  };
  const json with = eval_ok(gptfast("int4", 32, setup(10))), without = eval_ok(gptfast("int4", 32, setup(0)));
  double launches = 0;
  for (const auto& op : with["ops"])
    if (op["phase"] == "decode" && op["kind"] == "gemm" && op["name"] != "lm_head") launches += op["count"].get<double>();
  EXPECT_EQ(launches, 4 * 32);  // qkv, proj, up (gate and up fused), down in each of Llama 2 7B's 32 layers
  EXPECT_NEAR(with["inference"]["tpot_s"].get<double>() - without["inference"]["tpot_s"].get<double>(), launches * 10e-6, 1e-9);
  // 16-bit weights launch no dequantising kernel and take none.
  EXPECT_DOUBLE_EQ(tpot(gptfast("bf16", 32, setup(10))), tpot(gptfast("bf16", 32, setup(0))));
}

TEST(Serving, WeightOnlyFractionsReproduceTheirSourceRates) {
  // The presets' weight_only fractions are the values with which the model
  // reproduces gpt-fast's Llama-2-70B tp 1 rates on an A100 (19.13 tok/s int8,
  // 25.25 int4 at G=32). A change to the stream, launch or scale model that
  // moves these calls for the fractions to be derived again.
  for (const auto& [w, tokens_per_s] : {std::pair<std::string, double>{"int8", 19.13}, {"int4", 25.25}}) {
    json s = gptfast(w, 32);
    s["model"] = "llama2-70b";
    EXPECT_NEAR(tpot(s) * tokens_per_s, 1.0, 0.02) << w;
  }
}

TEST(Serving, Int4GroupScalesAreStoredAndRead) {
  const json g32 = eval_ok(gptfast("int4", 32)), g128 = eval_ok(gptfast("int4", 128));
  // 16-bit scale + 16-bit zero per group: 0.5 + 4/32 vs 0.5 + 4/128 bytes per weight.
  const double ratio = g32["inference"]["memory_bytes"]["weights"].get<double>() /
                       g128["inference"]["memory_bytes"]["weights"].get<double>();
  EXPECT_GT(ratio, 1.10);
  EXPECT_LT(ratio, (0.5 + 4.0 / 32) / (0.5 + 4.0 / 128));  // embeddings stay 16-bit
  EXPECT_GT(g32["inference"]["tpot_s"].get<double>(), 1.08 * g128["inference"]["tpot_s"].get<double>());
  // Other formats ignore the group size.
  EXPECT_DOUBLE_EQ(tpot(gptfast("int8", 32)), tpot(gptfast("int8", 128)));
}

// A checkpoint released narrower than the run stores it is named where the
// run does not fit: gpt-oss-120b (MXFP4 experts) served as bf16 on one
// H100 needs 218 GiB; as mxfp4 it fits, with no such note. A model released
// in bf16, and a run already at the released width, get none either.
TEST(Serving, ANarrowerReleaseIsNamedWhereTheRunDoesNotFit) {
  auto warnings = [](const json& model, const std::string& weights, const char* system = "dgx-h100") {
    const json out = eval_ok({{"mode", "inference"}, {"model", model}, {"system", system}, {"parallelism", {{"tp", 1}}},
                              {"inference", {{"batch", 1}, {"input_tokens", 1024}, {"output_tokens", 128},
                                             {"weight_precision", weights}}}});
    std::string all;
    for (const auto& w : out["warnings"]) all += w.get<std::string>() + "\n";
    return std::make_pair(out["inference"]["fits"].get<bool>(), all);
  };
  const std::string hint = "is released with mxfp4 weights, narrower than these figures store them: "
                           "inference.weight_precision \"mxfp4\" serves it as released";
  const auto [bf16_fits, bf16] = warnings("gpt-oss-120b", "bf16");
  EXPECT_FALSE(bf16_fits);
  EXPECT_NE(bf16.find("does not fit"), std::string::npos);
  EXPECT_NE(bf16.find("gpt-oss-120b " + hint), std::string::npos) << bf16;
  // an object naming the preset keeps it
  EXPECT_NE(warnings({{"preset", "gpt-oss-120b"}, {"layers", 30}}, "bf16").second.find(hint), std::string::npos);
  const auto [mx_fits, mx] = warnings("gpt-oss-120b", "mxfp4");
  EXPECT_TRUE(mx_fits) << mx;
  EXPECT_EQ(mx.find("released"), std::string::npos) << mx;
  EXPECT_EQ(warnings("gpt-oss-120b", "int4").second.find("released"), std::string::npos);  // as narrow already
  // DeepSeek-V3 (fp8) on one H200 in bf16 does not fit, and names fp8
  EXPECT_NE(warnings("deepseek-v3", "bf16", "dgx-h200").second.find("is released with fp8 weights"), std::string::npos);
  const auto [llama_fits, llama] = warnings("llama3.1-405b", "bf16");
  EXPECT_FALSE(llama_fits);
  EXPECT_EQ(llama.find("released"), std::string::npos) << llama;
}

TEST(Serving, ContextParallelismIsNamedAsATrainingInput) {
  // Serving is modelled without context parallelism: a cp given with it
  // changes no figure and is said to be ignored, not shown in the plan.
  const json base = {{"mode", "inference"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"},
                     {"parallelism", {{"dp", 2}}}, {"inference", {{"batch", 1}, {"input_tokens", 32768}, {"output_tokens", 64}}}};
  json with_cp = base;
  with_cp["parallelism"]["cp"] = 8;
  const json a = eval_ok(base), b = eval_ok(with_cp);
  EXPECT_EQ(a["inference"]["ttft_s"], b["inference"]["ttft_s"]);
  EXPECT_EQ(a["gpus"], b["gpus"]);
  std::string all;
  for (const auto& w : b["warnings"]) all += w.get<std::string>() + "\n";
  EXPECT_NE(all.find("parallelism.cp 8 is a training input: serving is modelled without context parallelism"), std::string::npos) << all;
  EXPECT_TRUE(a["warnings"].empty()) << a["warnings"];
  const std::string text = evaluate_text(with_cp.dump());
  EXPECT_NE(text.find("tp 1 · pp 1 · dp 2 · batch 1"), std::string::npos) << "no cp in the plan\n" << text;
}

json serving(int batch, const std::string& batching) {
  return {{"mode", "inference"}, {"model", "llama2-7b"}, {"system", "dgx-h100"},
          {"inference", {{"batch", batch}, {"input_tokens", 128}, {"output_tokens", 2048}, {"batching", batching},
                         {"weight_precision", "fp8"}, {"kv_precision", "fp8"}, {"compute_precision", "fp8"}}}};
}

TEST(Serving, InflightBatchingIsCappedByTheKvCache) {
  // Llama 2 7B keeps 256 KiB of fp8 KV per token: 896 sequences of 2176
  // tokens (490 GB) cannot be in flight on an 80 GB H100.
  const json st = eval_ok(serving(896, "static"));
  const json in = eval_ok(serving(896, "inflight"));
  EXPECT_FALSE(st["inference"]["fits"].get<bool>());
  EXPECT_EQ(st["inference"]["concurrency"].get<double>(), 896);
  const double c = in["inference"]["concurrency"].get<double>();
  EXPECT_EQ(c, in["inference"]["max_batch"].get<double>());
  EXPECT_LT(c, 200);
  EXPECT_GT(c, 50);
  EXPECT_TRUE(in["inference"]["fits"].get<bool>());
  bool warned = false;
  for (const auto& w : in["warnings"]) warned |= w.get<std::string>().find("in-flight") != std::string::npos;
  EXPECT_TRUE(warned);
  // The capped run is the static run at that concurrency.
  const json capped = eval_ok(serving(static_cast<int>(c), "static"));
  EXPECT_DOUBLE_EQ(in["inference"]["output_tokens_per_s"].get<double>(),
                   capped["inference"]["output_tokens_per_s"].get<double>());
  // A batch that fits runs as given.
  EXPECT_DOUBLE_EQ(eval_ok(serving(32, "inflight"))["inference"]["output_tokens_per_s"].get<double>(),
                   eval_ok(serving(32, "static"))["inference"]["output_tokens_per_s"].get<double>());
}

TEST(Serving, NewInputsAreCheckedAtTheirPath) {
  json bad = serving(8, "dynamic");
  EXPECT_EQ(eval(bad)["error"]["path"], "inference.batching");
  bad = gptfast("int4", 0);
  EXPECT_EQ(eval(bad)["error"]["path"], "inference.weight_group_size");
  bad = gptfast("int4", 32, {{"preset", "dgx-a100-80gb"}, {"device", {{"efficiency", {{"weight_only", {{"int4", 1.5}}}}}}}});
  const std::string path = eval(bad)["error"]["path"].get<std::string>();
  EXPECT_NE(path.find("weight_only"), std::string::npos) << path;
}

json decode_run(const std::string& model, const std::string& kernel, const std::string& kv = "fp8",
                const json& system = "dgx-h100") {
  return {{"mode", "inference"}, {"model", model}, {"system", system},
          {"inference", {{"batch", 64}, {"input_tokens", 1024}, {"output_tokens", 1024}, {"decode_attention", kernel},
                         {"weight_precision", "fp8"}, {"kv_precision", kv}, {"compute_precision", "fp8"}}}};
}

double attention_bytes(const json& out) {
  return find_op(out, "attn.flash", "decode")["bytes"]["hbm"].get<double>();
}
double attention_time(const json& out) { return find_op(out, "attn.flash", "decode")["time_s"].get<double>(); }

TEST(Serving, PerHeadDecodeAttentionStreamsKvPerQueryHead) {
  // Llama 3.1 8B: 32 query heads on 8 KV heads. Over a 16-bit cache one
  // thread block per query head streams its group's K/V itself: four times
  // the grouped kernel's cache reads.
  const json grouped = eval_ok(decode_run("llama3.1-8b", "grouped", "bf16"));
  const json per_head = eval_ok(decode_run("llama3.1-8b", "per_head", "bf16"));
  // The Q reads and O writes are the same in both; the KV part dominates.
  EXPECT_GT(attention_bytes(per_head) / attention_bytes(grouped), 3.9);
  EXPECT_LT(attention_bytes(per_head) / attention_bytes(grouped), 4.0 + 1e-9);
  EXPECT_GT(per_head["inference"]["tpot_s"].get<double>(), 1.2 * grouped["inference"]["tpot_s"].get<double>());
  // Prefill does not read the cache: the same TTFT.
  EXPECT_DOUBLE_EQ(per_head["inference"]["ttft_s"].get<double>(), grouped["inference"]["ttft_s"].get<double>());
  // auto: groups of 4 run per head, groups of 8 (Llama 2 70B) grouped.
  EXPECT_DOUBLE_EQ(attention_bytes(eval_ok(decode_run("llama3.1-8b", "auto", "bf16"))), attention_bytes(per_head));
  EXPECT_DOUBLE_EQ(attention_bytes(eval_ok(decode_run("llama2-70b", "auto"))),
                   attention_bytes(eval_ok(decode_run("llama2-70b", "grouped"))));
  // Multi-head attention has nothing to share: both kernels read the same.
  EXPECT_DOUBLE_EQ(attention_bytes(eval_ok(decode_run("llama2-7b", "per_head"))),
                   attention_bytes(eval_ok(decode_run("llama2-7b", "grouped"))));
}

TEST(Serving, PerHeadDecodeOverAnFp8CacheIsBoundByConversions) {
  // Over an fp8 cache the per-head kernel reads each KV head once (the
  // group's re-reads hit L2) and converts every element once per query
  // head, at the device's special-function rate (16 per clock per SM).
  const json grouped = eval_ok(decode_run("llama3.1-8b", "grouped"));
  const json per_head = eval_ok(decode_run("llama3.1-8b", "per_head"));
  EXPECT_DOUBLE_EQ(attention_bytes(per_head), attention_bytes(grouped));
  // 64 sequences at a mean context of 1024 + 512 tokens, K and V, 32 query
  // heads of width 128: the elements converted in each layer.
  const double converted = 2.0 * 64 * 1536 * 32 * 128;
  const double sfu = 3.86e12;  // dgx-h100 sfu_tops
  const json op = find_op(per_head, "attn.flash", "decode");
  EXPECT_EQ(op["bound"], "compute");
  EXPECT_NEAR(op["time_s"].get<double>(), converted / sfu + 3e-6, 1e-9);  // and the 3 us launch
  EXPECT_GT(attention_time(per_head), 1.5 * attention_time(grouped));
  // The rate is the device's: twice the special-function rate, half the time.
  const json fast = eval_ok(decode_run("llama3.1-8b", "per_head", "fp8", {{"preset", "dgx-h100"}, {"device", {{"sfu_tops", 7.72}}}}));
  EXPECT_NEAR(attention_time(fast) - 3e-6, (attention_time(per_head) - 3e-6) / 2, 1e-9);
  // Without a conversion rate (the AMD presets give none) the kernel is
  // taken to load its K/V once per query head, as over a 16-bit cache.
  const json amd_grouped = eval_ok(decode_run("llama3.1-8b", "grouped", "fp8", "amd-mi300x"));
  const json amd_per_head = eval_ok(decode_run("llama3.1-8b", "per_head", "fp8", "amd-mi300x"));
  EXPECT_GT(attention_bytes(amd_per_head) / attention_bytes(amd_grouped), 3.9);
}

json mixtral(const std::string& gemm, const std::string& system = "dgx-h100") {
  return {{"mode", "inference"}, {"model", "mixtral-8x7b"}, {"system", system}, {"parallelism", {{"tp", 2}}},
          {"inference", {{"batch", 1}, {"input_tokens", 2048}, {"output_tokens", 1}, {"moe_gemm", gemm},
                         {"weight_precision", "fp8"}, {"kv_precision", "fp8"}, {"compute_precision", "fp8"}}}};
}

TEST(Serving, LegacyMoeGemmRunsSixteenBitAtTheLegacyMmaRate) {
  const json legacy = eval_ok(mixtral("legacy16")), native = eval_ok(mixtral("native"));
  const json up_l = find_op(legacy, "moe.up", "prefill"), up_n = find_op(native, "moe.up", "prefill");
  ASSERT_FALSE(up_l.is_null());
  EXPECT_DOUBLE_EQ(up_l["flops"].get<double>(), up_n["flops"].get<double>());
  // 16-bit math (half the fp8 peak, at the bf16 ceiling) x legacy_mma 0.48:
  // 2048 x 2 / 8 = 512 rows per expert fill the tiles, so the ratio is close
  // to 1979 x 0.649 / (989 x 0.732 x 0.48) = 3.7.
  const double ratio = up_l["time_s"].get<double>() / up_n["time_s"].get<double>();
  EXPECT_GT(ratio, 3.3);
  EXPECT_LT(ratio, 4.1);
  // No fp8 casts before the 16-bit expert GEMMs; the native path has them.
  EXPECT_TRUE(find_op(legacy, "moe.up.cast", "prefill").is_null());
  EXPECT_FALSE(find_op(native, "moe.up.cast", "prefill").is_null());
  // The plugin's permute and finalize copies run in both.
  EXPECT_FALSE(find_op(legacy, "moe.permute", "prefill").is_null());
  EXPECT_FALSE(find_op(native, "moe.unpermute", "prefill").is_null());
  EXPECT_GT(legacy["inference"]["ttft_s"].get<double>(), 1.5 * native["inference"]["ttft_s"].get<double>());
  // Without an fp8 path the experts are held in 16-bit: about twice the weights.
  const double wl = legacy["inference"]["memory_bytes"]["weights"].get<double>();
  const double wn = native["inference"]["memory_bytes"]["weights"].get<double>();
  EXPECT_GT(wl / wn, 1.8);
  EXPECT_LT(wl / wn, 2.0);
  // A100's native path is mma.sync: legacy16 costs it nothing beyond 16-bit math.
  json a_l = mixtral("legacy16", "dgx-a100-80gb"), a_n = mixtral("native", "dgx-a100-80gb");
  for (const char* k : {"weight_precision", "kv_precision", "compute_precision"})
    a_l["inference"][k] = a_n["inference"][k] = "bf16";
  EXPECT_NEAR(find_op(eval_ok(a_l), "moe.up", "prefill")["time_s"].get<double>(),
              find_op(eval_ok(a_n), "moe.up", "prefill")["time_s"].get<double>(), 1e-12);
}

TEST(Serving, KernelChoicesAreCheckedAtTheirPath) {
  json bad = decode_run("llama3.1-8b", "xqa");
  EXPECT_EQ(eval(bad)["error"]["path"], "inference.decode_attention");
  bad = mixtral("cutlass3");
  EXPECT_EQ(eval(bad)["error"]["path"], "inference.moe_gemm");
  bad = mixtral("native", "dgx-h100");
  bad["system"] = {{"preset", "dgx-h100"}, {"device", {{"efficiency", {{"legacy_mma", 0}}}}}};
  const std::string path = eval(bad)["error"]["path"].get<std::string>();
  EXPECT_NE(path.find("legacy_mma"), std::string::npos) << path;
}

// moe_gemm "auto": the legacy 16-bit kernel for 16-bit and fp8 experts on
// Hopper when its 16-bit experts fit; the native kernels for fp4-family
// experts, on Blackwell, and where only the checkpoint's own format fits.
TEST(Serving, AutoMoeGemmPicksTheKernelThatServes) {
  auto run = [](const std::string& model, const std::string& system, int tp, const std::string& weights,
                const std::string& kernel) {
    json in = {{"mode", "inference"}, {"model", model}, {"system", system}, {"parallelism", {{"tp", tp}}},
               {"inference", {{"batch", 8}, {"input_tokens", 2048}, {"output_tokens", 128}, {"weight_precision", weights},
                              {"compute_precision", weights == "bf16" ? "bf16" : "fp8"}, {"moe_gemm", kernel}}}};
    return eval_ok(in)["inference"]["e2e_latency_s"].get<double>();
  };
  // Mixtral fp8 on 2 H100: the 16-bit experts fit, so auto is legacy16.
  EXPECT_EQ(run("mixtral-8x7b", "dgx-h100", 2, "fp8", "auto"), run("mixtral-8x7b", "dgx-h100", 2, "fp8", "legacy16"));
  EXPECT_GT(run("mixtral-8x7b", "dgx-h100", 2, "fp8", "auto"), run("mixtral-8x7b", "dgx-h100", 2, "fp8", "native"));
  // Llama 4 Maverick fp8 on 8 H100: 16-bit experts would not fit, fp8 ones do.
  EXPECT_EQ(run("llama4-maverick", "dgx-h100", 8, "fp8", "auto"), run("llama4-maverick", "dgx-h100", 8, "fp8", "native"));
  // Blackwell has fp4 tensor cores and only the newer kernels.
  EXPECT_EQ(run("mixtral-8x7b", "dgx-b200", 2, "fp8", "auto"), run("mixtral-8x7b", "dgx-b200", 2, "fp8", "native"));
  // TensorRT-LLM's legacy kernel is not what serves AMD or TPU devices.
  EXPECT_EQ(run("mixtral-8x7b", "amd-mi300x", 1, "fp8", "auto"), run("mixtral-8x7b", "amd-mi300x", 1, "fp8", "native"));
  EXPECT_GT(run("mixtral-8x7b", "amd-mi300x", 1, "fp8", "legacy16"), run("mixtral-8x7b", "amd-mi300x", 1, "fp8", "native"));
  EXPECT_EQ(run("mixtral-8x7b", "tpu-v5p", 4, "bf16", "auto"), run("mixtral-8x7b", "tpu-v5p", 4, "bf16", "native"));
  // In-flight batching serves whatever batch fits: GPT-OSS-120B fp8 on one
  // H200 fits 324 of 384 sequences of 1024 + 1024 tokens with fp8 experts,
  // none with 16-bit ones, so auto is native (it picked legacy16, which
  // fits none, once the whole batch no longer fit).
  json oss = {{"mode", "inference"}, {"model", "gpt-oss-120b"}, {"system", "dgx-h200"},
              {"inference", {{"batch", 384}, {"input_tokens", 1024}, {"output_tokens", 1024}, {"weight_precision", "fp8"},
                             {"batching", "inflight"}, {"moe_gemm", "auto"}}}};
  const json automatic = eval_ok(oss)["inference"];
  oss["inference"]["moe_gemm"] = "native";
  const json native = eval_ok(oss)["inference"];
  EXPECT_TRUE(automatic["fits"].get<bool>());
  EXPECT_GT(automatic["concurrency"].get<double>(), 1);
  EXPECT_LT(automatic["concurrency"].get<double>(), 384);
  EXPECT_EQ(automatic["e2e_latency_s"], native["e2e_latency_s"]);
}

// The output says which expert kernel ran, and whether auto took the native
// kernels only because the 16-bit experts do not fit: Mixtral 8x22B fp8 on 4
// H100 holds 256 sequences of 128 + 512 tokens with 16-bit experts
// (legacy16), not of 128 + 1024 (native, a shorter TTFT). That is no warning:
// the plan is sound, and the search still recommends it.
TEST(Serving, AutoMoeGemmSaysWhichKernelRan) {
  json in = {{"mode", "inference"}, {"model", "mixtral-8x22b"}, {"system", "dgx-h100"}, {"parallelism", {{"tp", 4}}},
             {"inference", {{"batch", 256}, {"input_tokens", 128}, {"output_tokens", 512}, {"weight_precision", "fp8"}}}};
  const json shorter = eval_ok(in);
  EXPECT_EQ(shorter["inference"]["moe_gemm"], "legacy16");
  EXPECT_FALSE(shorter["inference"].contains("moe_gemm_fallback"));
  in["inference"]["output_tokens"] = 1024;
  const json longer = eval_ok(in);
  EXPECT_EQ(longer["inference"]["moe_gemm"], "native");
  EXPECT_EQ(longer["inference"]["moe_gemm_fallback"], true);
  EXPECT_TRUE(longer["warnings"].empty()) << longer["warnings"].dump();
  EXPECT_LT(longer["inference"]["ttft_s"].get<double>(), shorter["inference"]["ttft_s"].get<double>());
  // A named kernel is run as given; dense models have no field.
  in["inference"]["moe_gemm"] = "native";
  EXPECT_FALSE(eval_ok(in)["inference"].contains("moe_gemm_fallback"));
  in["model"] = "llama3.1-8b";
  in["inference"].erase("moe_gemm");
  EXPECT_FALSE(eval_ok(in)["inference"].contains("moe_gemm"));
}

// Expert-parallel serving: E/ep experts per rank. Across data-parallel
// replicas (wide EP: tp 1, dp 8, ep 8) each rank runs its own batch's
// attention and its one Mixtral expert for the copies all 8 batches route
// there, exchanged by all-to-all; inside a tp group (tp 8, ep 8, etp 1:
// TensorRT-LLM's moe_ep) the tokens are on every rank already and the tp
// all-reduce combines.
json mixtral_ep(const json& par, int batch) {
  return {{"mode", "inference"}, {"model", "mixtral-8x7b"}, {"system", "dgx-h100"}, {"parallelism", par},
          {"inference", {{"batch", batch}, {"input_tokens", 1024}, {"output_tokens", 256}, {"moe_gemm", "native"},
                         {"weight_precision", "fp8"}, {"kv_precision", "fp8"}, {"compute_precision", "fp8"}}}};
}

TEST(Serving, ExpertParallelServingHoldsAndRunsLocalExperts) {
  const int b = 16;
  const double h = 4096, f = 14336, k = 2, E = 8;
  const json wide = eval_ok(mixtral_ep({{"tp", 1}, {"dp", 8}, {"ep", 8}}, b));
  const json flat = eval_ok(mixtral_ep({{"tp", 1}, {"dp", 8}}, b));
  // Decode: the 8 x 16 tokens' 256 copies land 32 on each rank's one expert
  // (it is touched for sure), whose fp8 gate and up matrices are read once.
  const json up = find_op(wide, "moe.up", "decode");
  ASSERT_FALSE(up.is_null());
  EXPECT_NEAR(up["flops"].get<double>(), 2 * (8 * b * k / E) * 2 * f * h, 1e-6 * up["flops"].get<double>());
  EXPECT_GE(up["bytes"]["hbm"].get<double>(), 2 * f * h);
  EXPECT_LT(up["bytes"]["hbm"].get<double>(), 1.1 * 2 * f * h);
  // Without ep every rank reads all 8 experts (16 tokens touch them all).
  EXPECT_GT(find_op(flat, "moe.up", "decode")["bytes"]["hbm"].get<double>(), 7.5 * up["bytes"]["hbm"].get<double>());
  // The copies travel both ways by all-to-all over the 8 ranks: b k h bytes each.
  for (const char* name : {"moe.dispatch", "moe.combine"}) {
    const json a2a = find_op(wide, name, "decode");
    ASSERT_FALSE(a2a.is_null()) << name;
    EXPECT_GT(a2a["time_s"].get<double>(), 0);
  }
  EXPECT_TRUE(find_op(flat, "moe.dispatch", "decode").is_null());
  // Weights: 1 expert and the replicated attention per GPU, not 8 experts.
  const double w_wide = wide["inference"]["memory_bytes"]["weights"].get<double>();
  const double w_flat = flat["inference"]["memory_bytes"]["weights"].get<double>();
  EXPECT_LT(w_wide, 0.25 * w_flat);
  EXPECT_LT(wide["inference"]["tpot_s"].get<double>(), flat["inference"]["tpot_s"].get<double>());

  // Inside the tp group: no all-to-all; each rank's expert is whole (etp 1),
  // so its GEMMs see the full ffn width, for the replica's 16 x 2 / 8 copies.
  const json in_tp = eval_ok(mixtral_ep({{"tp", 8}, {"ep", 8}, {"etp", 1}}, b));
  EXPECT_TRUE(find_op(in_tp, "moe.dispatch", "decode").is_null());
  const json up_tp = find_op(in_tp, "moe.up", "prefill");
  EXPECT_NEAR(up_tp["flops"].get<double>(), 2 * (b * 1024 * k / E) * 2 * f * h, 1e-6 * up_tp["flops"].get<double>());
  // ep < tp inside the tp group: by default every expert splits tp / ep
  // ways (TensorRT-LLM's moe_tp x moe_ep = tp), so each rank holds 1/8 of the
  // experts as with ep 8 or ep 1, not two or four copies of larger shards
  // (which read 2-4x the weights per decode step).
  const double w_tp = in_tp["inference"]["memory_bytes"]["weights"].get<double>();
  for (int ep : {2, 4}) {
    const json folded = eval_ok(mixtral_ep({{"tp", 8}, {"ep", ep}}, b));
    EXPECT_DOUBLE_EQ(folded["inference"]["memory_bytes"]["weights"].get<double>(), w_tp) << "ep " << ep;
    EXPECT_EQ(folded, eval_ok(mixtral_ep({{"tp", 8}, {"ep", ep}, {"etp", 8 / ep}}, b))) << "ep " << ep;
    const json repeated = eval_ok(mixtral_ep({{"tp", 8}, {"ep", ep}, {"etp", 1}}, b));
    EXPECT_GT(repeated["inference"]["memory_bytes"]["weights"].get<double>(), 1.5 * w_tp) << "ep " << ep;
  }
  // The expert layout is checked as in training, at its path.
  EXPECT_EQ(eval(mixtral_ep({{"tp", 1}, {"dp", 6}, {"ep", 3}}, b))["error"]["path"], "parallelism.ep");
  EXPECT_EQ(eval(mixtral_ep({{"tp", 1}, {"dp", 1}, {"ep", 8}}, b))["error"]["path"], "parallelism.ep");
  EXPECT_EQ(eval(mixtral_ep({{"tp", 8}, {"ep", 8}, {"etp", 8}}, b))["error"]["path"], "parallelism.etp");
  json dense = mixtral_ep({{"tp", 1}, {"dp", 2}, {"ep", 2}}, b);
  dense["model"] = "llama3.1-8b";
  EXPECT_EQ(eval(dense)["error"]["path"], "parallelism.ep");
}

// Speculative decoding (Leviathan et al. 2023): a one-layer draft head
// proposes n tokens, the target verifies n + 1 rows per sequence in one pass,
// and a step emits (1 - a^(n+1)) / (1 - a) tokens on average.
json speculative(int batch, int n, double a) {
  json in = {{"batch", batch}, {"input_tokens", 1024}, {"output_tokens", 512}, {"weight_precision", "fp8"},
             {"kv_precision", "fp8"}, {"compute_precision", "fp8"}};
  if (n > 0) in.update({{"draft_tokens", n}, {"draft_acceptance", a}});
  return {{"mode", "inference"}, {"model", "llama3.1-70b"}, {"system", "dgx-h100"}, {"parallelism", {{"tp", 8}}},
          {"inference", in}};
}

TEST(Serving, SpeculativeDecodingVerifiesDraftsInOnePass) {
  const json plain = eval_ok(speculative(1, 0, 0)), spec = eval_ok(speculative(1, 3, 0.8));
  const double per_step = (1 - std::pow(0.8, 4)) / (1 - 0.8);  // 2.952
  EXPECT_NEAR(spec["inference"]["tokens_per_step"].get<double>(), per_step, 1e-12);
  EXPECT_EQ(plain["inference"]["tokens_per_step"].get<double>(), 1.0);
  EXPECT_EQ(eval_ok(speculative(1, 2, 1.0))["inference"]["tokens_per_step"].get<double>(), 3.0);
  EXPECT_EQ(eval_ok(speculative(1, 2, 0.0))["inference"]["tokens_per_step"].get<double>(), 1.0);
  // The verify pass runs 4 rows per sequence through the target's GEMMs.
  EXPECT_NEAR(find_op(spec, "attn.qkv", "decode")["flops"].get<double>(),
              4 * find_op(plain, "attn.qkv", "decode")["flops"].get<double>(), 1e-6);
  // Three passes of a one-layer draft head with the LM head each.
  const json draft_qkv = find_op(spec, "draft.attn.qkv", "decode"), draft_head = find_op(spec, "draft.lm_head", "decode");
  ASSERT_FALSE(draft_qkv.is_null());
  ASSERT_FALSE(draft_head.is_null());
  EXPECT_DOUBLE_EQ(draft_qkv["count"].get<double>(), 3);
  EXPECT_DOUBLE_EQ(draft_head["count"].get<double>(), 3);
  // Batch 1 is bound by reading the weights: verifying 4 rows costs about one
  // step, the drafts about 3 x (1/80 of the layers + the LM head), so the time
  // per token drops by close to the tokens per step.
  const double gain1 = plain["inference"]["tpot_s"].get<double>() / spec["inference"]["tpot_s"].get<double>();
  EXPECT_GT(gain1, 2.3);
  EXPECT_LT(gain1, per_step);
  // At batch 256 the verify pass does 4x the GEMM work on compute-bound
  // GEMMs: the gain shrinks.
  const double gain256 = eval_ok(speculative(256, 0, 0))["inference"]["tpot_s"].get<double>() /
                         eval_ok(speculative(256, 3, 0.8))["inference"]["tpot_s"].get<double>();
  EXPECT_LT(gain256, gain1);
  // The draft layer's weights and KV cache: about 1/80 of the target's layers.
  const double w = plain["inference"]["memory_bytes"]["weights"].get<double>();
  const double w_spec = spec["inference"]["memory_bytes"]["weights"].get<double>();
  EXPECT_GT(w_spec, w * 1.005);
  EXPECT_LT(w_spec, w * 1.02);
  const double kv = plain["inference"]["memory_bytes"]["kv_cache"].get<double>();
  EXPECT_NEAR(spec["inference"]["memory_bytes"]["kv_cache"].get<double>() / kv, 81.0 / 80, 1e-9);
  // Out-of-range inputs are refused at their path.
  json bad = speculative(1, 3, 0.8);
  bad["inference"]["draft_acceptance"] = 1.5;
  EXPECT_EQ(eval(bad)["error"]["path"], "inference.draft_acceptance");
  bad = speculative(1, 17, 0.8);
  EXPECT_EQ(eval(bad)["error"]["path"], "inference.draft_tokens");
}

json prefixed(int prefix, const std::string& model = "llama3.1-8b", int batch = 32) {
  return {{"mode", "inference"}, {"model", model}, {"system", "dgx-h100"},
          {"inference", {{"batch", batch}, {"input_tokens", 2048}, {"output_tokens", 256}, {"shared_prefix_tokens", prefix}}}};
}

TEST(Serving, SharedPrefixSkipsPrefillAndIsCachedOnce) {
  const json none = eval_ok(prefixed(0)), cached = eval_ok(prefixed(1920));
  // Prefill runs the 128 uncached tokens, each attending the 1,920 cached
  // ones and its causal part of the rest: keys per row 1920 + 129 / 2.
  const json attn = find_op(cached, "attn.flash", "prefill");
  ASSERT_TRUE(attn.is_object());
  EXPECT_NEAR(attn["flops"].get<double>(), 4.0 * 32 * 32 * 128 * (1920 + 64.5) * 128, 1);
  const double ttft = cached["inference"]["ttft_s"], ttft_full = none["inference"]["ttft_s"];
  EXPECT_LT(ttft, 0.15 * ttft_full);
  json short_prompt = prefixed(0);
  short_prompt["inference"]["input_tokens"] = 128;
  EXPECT_GT(ttft, eval_ok(short_prompt)["inference"]["ttft_s"].get<double>());  // it attends the prefix
  // Decode reads the same context either way.
  EXPECT_DOUBLE_EQ(cached["inference"]["tpot_s"].get<double>(), none["inference"]["tpot_s"].get<double>());
  // K/V: 32 layers x 8 heads x 128 x 2 (K, V) x 2 bytes = 128 KiB per token;
  // 32 sequences of 2,304 tokens, less 31 copies of the 1,920-token prefix.
  const double per_token = 32.0 * 8 * 128 * 2 * 2;
  EXPECT_NEAR(none["inference"]["memory_bytes"]["kv_cache"].get<double>(), 32 * 2304 * per_token, 1);
  EXPECT_NEAR(cached["inference"]["memory_bytes"]["kv_cache"].get<double>(), (32 * 2304 - 31 * 1920) * per_token, 1);
  EXPECT_GT(cached["inference"]["max_batch"].get<long long>(), 5 * none["inference"]["max_batch"].get<long long>());
  // One sequence shares with nobody.
  EXPECT_NEAR(eval_ok(prefixed(1920, "llama3.1-8b", 1))["inference"]["memory_bytes"]["kv_cache"].get<double>(),
              2304 * per_token, 1);
}

TEST(Serving, SharedPrefixStaysWholeOnlyInFullContextLayers) {
  // Gemma 3 27B: 1 global layer in 6, the others a 1,024-token window. The
  // prefix is shared in the 10 global layers only, and the local layers'
  // rows attend at most the window.
  const json none = eval_ok(prefixed(0, "gemma3-27b")), cached = eval_ok(prefixed(1920, "gemma3-27b"));
  const double per_token_layer = 16.0 * 128 * 2 * 2;
  EXPECT_NEAR(none["inference"]["memory_bytes"]["kv_cache"].get<double>() -
                  cached["inference"]["memory_bytes"]["kv_cache"].get<double>(),
              31 * 1920 * 10 * per_token_layer, 1);
  const json local = find_op(cached, "attn.flash.local", "prefill");
  ASSERT_TRUE(local.is_object());
  EXPECT_NEAR(local["flops"].get<double>(), 4.0 * 32 * 32 * 128 * 1024 * 128, 1);
  EXPECT_TRUE(eval(prefixed(2048)).contains("error"));
  EXPECT_EQ(eval(prefixed(2048))["error"]["path"], "inference.shared_prefix_tokens");
}

json disaggregated(int decode_tp, int prefill_tp, int prefill_batch = 1, const std::string& w = "fp8") {
  return {{"mode", "inference"}, {"model", "llama3.1-70b"}, {"system", "dgx-h100"}, {"parallelism", {{"tp", decode_tp}}},
          {"inference", {{"batch", 64}, {"input_tokens", 2048}, {"output_tokens", 256}, {"weight_precision", w},
                         {"compute_precision", w}, {"kv_precision", w}, {"prefill_tp", prefill_tp},
                         {"prefill_batch", prefill_batch}}}};
}

TEST(Serving, DisaggregatedPrefillRunsOnItsOwnInstances) {
  const json out = eval_ok(disaggregated(8, 4));
  const json colocated = eval_ok(disaggregated(8, 0));
  const json& i = out["inference"];
  const json& pool = i["disaggregation"];
  EXPECT_FALSE(colocated["inference"].contains("disaggregation"));
  // The prompt's K/V: 2,048 tokens x 80 layers x (K, V) x 8 heads x 128 x 1 byte (fp8).
  EXPECT_DOUBLE_EQ(pool["kv_transfer_bytes"].get<double>(), 2048.0 * 80 * 2 * 8 * 128);
  // Time to first token: one prompt prefilled on 4 GPUs, then its transfer.
  json alone = disaggregated(4, 0);
  alone["inference"]["batch"] = 1;
  const double single = eval_ok(alone)["inference"]["ttft_s"];
  EXPECT_NEAR(i["ttft_s"].get<double>() - single, pool["kv_transfer_s"].get<double>(), 1e-12);
  EXPECT_LT(i["ttft_s"].get<double>(), 0.1 * colocated["inference"]["ttft_s"].get<double>());
  // Decode runs the same steps; its GPUs no longer hold the prompt's working set.
  EXPECT_DOUBLE_EQ(i["tpot_s"].get<double>(), colocated["inference"]["tpot_s"].get<double>());
  EXPECT_LT(i["memory_bytes"]["activations"].get<double>(), colocated["inference"]["memory_bytes"]["activations"].get<double>());
  // The decode instance finishes batch / ((output - 1) tpot) requests per
  // second; prefill instances to match, each prefill_batch prompts per prefill time.
  const double rps = 64 / (255 * i["tpot_s"].get<double>());
  EXPECT_NEAR(pool["prefill_instances"].get<double>(), rps * pool["prefill_time_s"].get<double>(), 1e-9);
  EXPECT_NEAR(i["output_tokens_per_s"].get<double>(), rps * 256, 1e-6);
  const double gpus = 8 + 4 * pool["prefill_instances"].get<double>();
  EXPECT_NEAR(i["replica_gpus"].get<double>(), gpus, 1e-9);
  EXPECT_NEAR(i["cost"]["per_million_output_tokens"]["gpu_hours"].get<double>(),
              gpus * 1e6 / i["output_tokens_per_s"].get<double>() / 3600, 1e-9);
  // Both instances in one 8-GPU node: the K/V moves over NVLink, not InfiniBand.
  const json near = eval_ok(disaggregated(4, 4));
  EXPECT_LT(near["inference"]["disaggregation"]["kv_transfer_s"].get<double>(), 0.5 * pool["kv_transfer_s"].get<double>());
  // Larger prefill batches: fewer prefill GPUs, a later first token.
  const json batched = eval_ok(disaggregated(8, 4, 8));
  EXPECT_GT(batched["inference"]["ttft_s"].get<double>(), i["ttft_s"].get<double>());
  EXPECT_LT(batched["inference"]["disaggregation"]["prefill_instances"].get<double>(), pool["prefill_instances"].get<double>());
}

TEST(Serving, DisaggregatedPrefillInstanceIsCheckedLikeADeployment) {
  const json bad = eval(disaggregated(8, 3));
  ASSERT_TRUE(bad.contains("error"));
  EXPECT_EQ(bad["error"]["path"], "inference.prefill_tp");
  // 70B in 16 bits on one 80 GB GPU: the prefill instance cannot hold it.
  const json big = eval_ok(disaggregated(8, 1, 1, "bf16"));
  EXPECT_FALSE(big["inference"]["disaggregation"]["fits"].get<bool>());
  EXPECT_FALSE(big["inference"]["fits"].get<bool>());
  bool warned = false;
  for (const auto& w : big["warnings"]) warned |= w.get<std::string>().find("prefill instance does not fit") != std::string::npos;
  EXPECT_TRUE(warned) << big["warnings"].dump();
}

TEST(Serving, CapacityCountsWholeReplicasForTheTargetRate) {
  json in = disaggregated(8, 0);
  in["inference"]["target_requests_per_s"] = 20;
  const json out = eval_ok(in);
  const json& i = out["inference"];
  const json& cap = i["capacity"];
  // A replica serves its batch every end-to-end latency: 64 requests per e2e.
  const double per_replica = 64 / i["e2e_latency_s"].get<double>();
  EXPECT_NEAR(cap["requests_per_s_per_replica"].get<double>(), per_replica, 1e-9 * per_replica);
  const long long replicas = static_cast<long long>(std::ceil(20 / per_replica));
  EXPECT_EQ(cap["replicas"].get<long long>(), replicas);
  EXPECT_DOUBLE_EQ(cap["gpus"].get<double>(), 8.0 * replicas);
  EXPECT_FALSE(cap.contains("prefill_instances"));
  // Disaggregated: decode instances at their continuous rate, prefill
  // instances apart, each one prompt per prefill time.
  json apart = disaggregated(8, 4);
  apart["inference"]["target_requests_per_s"] = 20;
  const json d = eval_ok(apart);
  const json& dc = d["inference"]["capacity"];
  const double prefill_rate = 1 / d["inference"]["disaggregation"]["prefill_time_s"].get<double>();
  EXPECT_EQ(dc["prefill_instances"].get<long long>(), static_cast<long long>(std::ceil(20 / prefill_rate)));
  EXPECT_DOUBLE_EQ(dc["gpus"].get<double>(), 8.0 * dc["replicas"].get<long long>() + 4.0 * dc["prefill_instances"].get<long long>());
  // Not asked: no capacity.
  EXPECT_FALSE(eval_ok(disaggregated(8, 0))["inference"].contains("capacity"));
}

}  // namespace
}  // namespace llmcalc::test
