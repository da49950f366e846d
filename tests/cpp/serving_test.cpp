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
    // the 16-bit LM head, the KV cache): the step slows by well over half of
    // 1 / fraction - 1 (0.89 int8, 0.74 int4), never by more than 1 / fraction.
    const double frac = std::string(w) == "int8" ? 0.89 : 0.74;
    EXPECT_GT(slow / fast, 1 + 0.5 * (1 / frac - 1)) << w;
    EXPECT_LE(slow / fast, 1 / frac + 1e-9) << w;
  }
  // Still faster than 16-bit weights: fewer bytes outweigh the slower stream.
  EXPECT_LT(tpot(gptfast("int4", 32)), tpot(gptfast("int8", 32)));
  EXPECT_LT(tpot(gptfast("int8", 32)), tpot(gptfast("bf16", 32)));
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

}  // namespace
}  // namespace llmcalc::test
