// The ends of the model in training: the fp32 cross-entropy over the
// vocabulary (Megatron-Core fused_cross_entropy.py) and the dense embedding
// weight gradient accumulated into the fp32 main_grad.
#include "test_util.h"

namespace llmcalc::test {
namespace {

json small_model(int vocab, int tp) {
  return {{"mode", "training"},
          {"model", {{"layers", 4}, {"hidden", 2048}, {"heads", 16}, {"vocab", vocab}, {"ffn_type", "swiglu"},
                     {"ffn_hidden", 5632}, {"norm", "rmsnorm"}}},
          {"system", "dgx-h100"},
          {"parallelism", {{"tp", tp}, {"dp", 8 / tp}, {"sp", tp > 1}, {"zero", 1}}},
          {"training", {{"global_batch", 64}, {"micro_batch", 2}, {"seq_len", 4096}, {"recompute", "none"}}}};
}

// 22 bytes per logit forward, 6 backward, over tokens x vocab / tp.
TEST(Edge, CrossEntropyStreamsFp32LogitsPerPass) {
  for (int tp : {1, 2}) {
    const json out = eval_ok(small_model(128000, tp));
    const double logits = 2.0 * 4096 * 128000 / tp;
    const json f = find_op(out, "cross_entropy", "fwd");
    const json b = find_op(out, "cross_entropy.bwd", "bwd");
    ASSERT_FALSE(f.is_null());
    ASSERT_FALSE(b.is_null());
    EXPECT_NEAR(f["bytes"]["hbm"].get<double>(), 22 * logits, 1e-6 * logits);
    EXPECT_NEAR(b["bytes"]["hbm"].get<double>(), 6 * logits, 1e-6 * logits);
    // Memory-bound: at least the bytes over the HBM peak.
    EXPECT_GT(f["time_s"].get<double>(), 22 * logits / 3.35e12);
  }
}

// The embedding's backward writes and accumulates the whole [vocab/tp x h]
// table every micro-batch, whatever the tokens: 12 bytes per element.
TEST(Edge, EmbeddingGradientCoversTheTable) {
  const json out = eval_ok(small_model(256000, 1));
  const json b = find_op(out, "embedding.bwd", "bwd");
  ASSERT_FALSE(b.is_null());
  const double table = 256000.0 * 2048, tokens = 2.0 * 4096;
  EXPECT_NEAR(b["bytes"]["hbm"].get<double>(), 12 * table + 2 * tokens * 2048 * 2, 1e-6 * table);
  // A larger vocabulary costs more time per iteration, all else equal.
  const double t_small = eval_ok(small_model(32000, 1))["training"]["iteration_time_s"].get<double>();
  const double t_large = out["training"]["iteration_time_s"].get<double>();
  EXPECT_GT(t_large, t_small);
}

}  // namespace
}  // namespace llmcalc::test
