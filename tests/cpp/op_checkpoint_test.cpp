// Op-level selective activation checkpointing (recompute "selective_op",
// core/src/model/op_checkpoint.cpp): torchtitan's policy keeps the outputs
// of the 1st, 3rd, 5th ... matmul of a layer, the fused attention and the
// reduce-scatters, and runs everything else again in backward.
#include <gtest/gtest.h>

#include "test_util.h"

namespace llmcalc::test {
namespace {

json llama(const std::string& rc, int layers = 32) {
  return {{"mode", "training"},
          {"model", {{"preset", "llama3.1-8b"}, {"layers", layers}}},
          {"system", "dgx-h100"},
          {"parallelism", {{"dp", 8}, {"zero", 3}}},
          {"training", {{"global_batch", 64}, {"seq_len", 8192}, {"recompute", rc}, {"recompute_to_fit", false}}}};
}

TEST(OpCheckpoint, CostsAndSavesBetweenNoneAndFull) {
  const json none = eval_ok(llama("none"))["training"], op = eval_ok(llama("selective_op"))["training"],
             full = eval_ok(llama("full"))["training"];
  EXPECT_LT(none["iteration_time_s"].get<double>(), op["iteration_time_s"].get<double>());
  EXPECT_LT(op["iteration_time_s"].get<double>(), full["iteration_time_s"].get<double>());
  EXPECT_GT(none["memory_bytes"]["activations"].get<double>(), op["memory_bytes"]["activations"].get<double>());
  EXPECT_GT(op["memory_bytes"]["activations"].get<double>(), full["memory_bytes"]["activations"].get<double>());
  EXPECT_GT(op["hfu"].get<double>(), op["mfu"].get<double>());  // the recomputed matmuls are hardware FLOPs
}

// Llama: wq wk wv wo w1 w3 w2 in order; wk, wo and w3 are recomputed.
TEST(OpCheckpoint, RecomputesEverySecondMatmul) {
  const json out = eval_ok(llama("selective_op"));
  auto flops = [&](const char* name, const char* phase) {
    const json op = find_op(out, name, phase);
    return op.is_null() ? 0.0 : op["flops"].get<double>();
  };
  // wk of the fused QKV: kv / (q + 2 kv) = 1024 / 6144 of its columns.
  EXPECT_NEAR(flops("attn.qkv", "recompute") / flops("attn.qkv", "fwd"), 1024.0 / 6144, 1e-9);
  EXPECT_DOUBLE_EQ(flops("attn.proj", "recompute"), flops("attn.proj", "fwd"));
  EXPECT_NEAR(flops("mlp.up", "recompute") / flops("mlp.up", "fwd"), 0.5, 1e-9);  // w3 of w1, w3
  EXPECT_TRUE(find_op(out, "mlp.down", "recompute").is_null());                 // w2, the 7th: kept
  EXPECT_TRUE(find_op(out, "attn.flash", "recompute").is_null());               // the fused attention: kept
  EXPECT_FALSE(find_op(out, "mlp.act", "recompute").is_null());                 // element-wise: run again
}

// One more layer adds what one layer keeps: its input, the outputs of wq,
// wv, w1 and w2, the attention output and its log-sum-exp (16-bit tensors,
// float log-sum-exp; one micro-batch of 8192 tokens, tp 1).
TEST(OpCheckpoint, KeepsTheSavedOutputs) {
  const double a2 = eval_ok(llama("selective_op", 2))["training"]["memory_bytes"]["activations"].get<double>();
  const double a3 = eval_ok(llama("selective_op", 3))["training"]["memory_bytes"]["activations"].get<double>();
  const double s = 8192, h = 4096, q = 4096, kv = 1024, ffn = 14336, heads = 32;
  const double expected = 2 * s * h + 2 * s * (q + kv + ffn + h) + 2 * s * q + 4 * s * heads;
  EXPECT_NEAR(a3 - a2, expected, 1e-9 * expected);
}

TEST(OpCheckpoint, IsAnInputChoice) {
  const json schema = json::parse(schema_json());
  bool listed = false;
  for (const json& f : schema.at("fields"))
    if (f.at("key") == "training.recompute")
      for (const json& v : f.at("values")) listed = listed || v == "selective_op";
  EXPECT_TRUE(listed);
  json bad = llama("op");
  EXPECT_EQ(eval(bad)["error"]["path"], "training.recompute");
}

}  // namespace
}  // namespace llmcalc::test
