// Recompute to fit: a plan stated without recomputation whose activations
// overflow the device is timed with the fewest whole layers recomputed that
// make it fit; and fp8 layers save their quantised GEMM inputs.
#include "test_util.h"

namespace llmcalc::test {
namespace {

json fsdp_70b(const char* recompute) {  // 70B, ZeRO-3 over 64 GPUs, 4k tokens per micro-batch
  return {{"mode", "training"}, {"model", "llama3.1-70b"}, {"system", "dgx-h100"},
          {"parallelism", {{"dp", 64}, {"zero", 3}}},
          {"training", {{"global_batch", 128}, {"micro_batch", 1}, {"seq_len", 4096}, {"recompute", recompute}}}};
}

bool has_fit_warning(const json& out) {
  for (const auto& w : out["warnings"])
    if (w.get<std::string>().find("recomputed whole to fit") != std::string::npos) return true;
  return false;
}

TEST(RecomputeFit, OverflowingPlanRecomputesSomeLayers) {
  const json on = eval_ok(fsdp_70b("none"));
  json s = fsdp_70b("none");
  s["training"]["recompute_to_fit"] = false;
  const json off = eval_ok(s);
  const json full = eval_ok(fsdp_70b("full"));
  ASSERT_FALSE(off["training"]["fits"].get<bool>());  // the premise: 80 layers of 4k tokens overflow 80 GB
  EXPECT_TRUE(has_fit_warning(on));
  EXPECT_FALSE(has_fit_warning(off));
  const double t_on = on["training"]["iteration_time_s"], t_off = off["training"]["iteration_time_s"];
  const double t_full = full["training"]["iteration_time_s"];
  EXPECT_GT(on["training"]["time_breakdown_s"]["recompute"].get<double>(), 0.0);
  EXPECT_EQ(off["training"]["time_breakdown_s"]["recompute"].get<double>(), 0.0);
  EXPECT_GT(t_on, t_off);
  EXPECT_LT(t_on, t_full);  // only some layers, not every one
  // Memory stays the plan as given.
  EXPECT_EQ(on["training"]["memory_bytes"]["activations"], off["training"]["memory_bytes"]["activations"]);
}

TEST(RecomputeFit, PlanThatFitsIsUnchanged) {
  json s = fsdp_70b("none");
  s["training"]["seq_len"] = 2048;
  const json on = eval_ok(s);
  ASSERT_TRUE(on["training"]["fits"].get<bool>());
  s["training"]["recompute_to_fit"] = false;
  const json off = eval_ok(s);
  EXPECT_FALSE(has_fit_warning(on));
  EXPECT_EQ(on["training"]["iteration_time_s"], off["training"]["iteration_time_s"]);
}

// Transformer Engine keeps the fp8 copy of each GEMM input for the wgrad:
// fp8 activations are smaller than bf16, MXFP8's block scales add 1/32.
TEST(RecomputeFit, Fp8SavesQuantisedGemmInputs) {
  auto act = [](const char* precision, const char* recipe) {
    json s = {{"mode", "training"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"},
              {"parallelism", {{"dp", 8}, {"zero", 1}}},
              {"training", {{"global_batch", 64}, {"micro_batch", 1}, {"seq_len", 4096}, {"recompute", "none"},
                            {"precision", precision}, {"fp8_recipe", recipe}}}};
    return eval_ok(s)["training"]["memory_bytes"]["activations"].get<double>();
  };
  const double bf16 = act("bf16", "delayed"), fp8 = act("fp8", "delayed"), mx = act("fp8", "mxfp8");
  EXPECT_LT(fp8, 0.95 * bf16);
  EXPECT_GT(fp8, 0.6 * bf16);  // norm inputs, Q/K/V and the up-projection output stay 16-bit
  EXPECT_GT(mx, fp8);
  EXPECT_LT(mx, bf16);
}

}  // namespace
}  // namespace llmcalc::test
