// Every result names the kind of run it is (core/src/io/accuracy.cpp) and
// quotes how far the model has been from published runs of that kind.
#include <gtest/gtest.h>

#include "accuracy.h"
#include "test_util.h"

namespace llmcalc::test {
namespace {

json training(json par, const std::string& model = "llama3.1-8b") {
  return {{"mode", "training"},
          {"model", model},
          {"system", "dgx-h100"},
          {"parallelism", par},
          {"training", {{"global_batch", 64}, {"seq_len", 4096}}}};
}

json inference(const std::string& model, const std::string& weights) {
  return {{"mode", "inference"},
          {"model", model},
          {"system", "dgx-h100"},
          {"parallelism", {{"tp", 8}}},
          {"inference", {{"weight_precision", weights}}}};
}

std::string regime(const json& scenario) { return eval_ok(scenario)["accuracy"]["regime"].get<std::string>(); }

TEST(Accuracy, RegimeFollowsHowTheModelIsSplit) {
  EXPECT_EQ(regime(training({{"tp", 2}, {"dp", 4}})), "dense_model_parallel_training");
  EXPECT_EQ(regime(training({{"pp", 2}, {"dp", 4}})), "dense_model_parallel_training");
  EXPECT_EQ(regime(training({{"cp", 2}, {"dp", 4}})), "dense_data_parallel_training");
  EXPECT_EQ(regime(training({{"dp", 8}, {"zero", 1}})), "dense_data_parallel_training");
  EXPECT_EQ(regime(training({{"dp", 8}, {"zero", 3}})), "sharded_data_parallel_training");
  // Its per-layer gathers, not the tensor-parallel split, are what Megatron's runs never had.
  EXPECT_EQ(regime(training({{"tp", 2}, {"dp", 4}, {"zero", 3}})), "sharded_data_parallel_training");
  // Experts decide first, whatever the split.
  EXPECT_EQ(regime(training({{"dp", 8}, {"ep", 8}, {"zero", 3}}, "mixtral-8x7b")), "moe_training");
  // LoRA fine-tuning is its own kind, and no published run of it is in the set yet.
  json lora = training({{"dp", 8}, {"zero", 3}}, "mixtral-8x7b");
  lora["training"]["lora_rank"] = 16;
  const json out = eval_ok(lora);
  EXPECT_EQ(out["accuracy"]["regime"], "lora_training");
  EXPECT_TRUE(out["accuracy"]["metrics"].empty());
  // So is optimizer offload, whatever the split.
  json offload = training({{"dp", 8}, {"zero", 3}});
  offload["training"]["offload"] = "optimizer";
  const json off = eval_ok(offload);
  EXPECT_EQ(off["accuracy"]["regime"], "offloaded_training");
  EXPECT_TRUE(off["accuracy"]["metrics"].empty());
  EXPECT_EQ(regime(inference("llama3.1-70b", "bf16")), "dense_inference");
  EXPECT_EQ(regime(inference("llama3.1-70b", "int4")), "weight_only_inference");
  EXPECT_EQ(regime(inference("mixtral-8x7b", "fp8")), "moe_inference");
}

// A ZeRO-3 run of another kind also runs the per-layer gathers the fully
// sharded kind's runs measure: its result quotes that kind beside its own.
TEST(Accuracy, AZeroThreeRunOfAnotherKindAlsoQuotesTheShardedKind) {
  const json moe = eval_ok(training({{"dp", 8}, {"ep", 8}, {"zero", 3}}, "mixtral-8x7b"))["accuracy"];
  EXPECT_EQ(moe["regime"], "moe_training");
  ASSERT_TRUE(moe.contains("also")) << moe.dump();
  ASSERT_EQ(moe["also"].size(), 1u);
  EXPECT_EQ(moe["also"][0]["regime"], "sharded_data_parallel_training");
  EXPECT_FALSE(moe["also"][0]["metrics"].empty()) << "the fully sharded runs are in the validation set";
  for (const json& par : {json{{"dp", 8}, {"ep", 8}, {"zero", 1}}, json{{"dp", 8}, {"zero", 3}}}) {
    const json a = eval_ok(training(par, par.contains("ep") ? "mixtral-8x7b" : "llama3.1-8b"))["accuracy"];
    EXPECT_FALSE(a.contains("also")) << par.dump();  // ZeRO 1, or already the fully sharded kind
  }
}

TEST(Accuracy, QuotedFiguresAreWellFormed) {
  const json a = eval_ok(training({{"dp", 8}, {"zero", 3}}))["accuracy"];
  EXPECT_FALSE(a["label"].get<std::string>().empty());
  ASSERT_TRUE(a["metrics"].is_array());
  ASSERT_FALSE(a["metrics"].empty()) << "the public set holds FSDP / ZeRO-3 runs";
  for (const json& m : a["metrics"]) {
    EXPECT_GT(m["cases"].get<int>(), 0);
    EXPECT_LE(std::fabs(m["mean_error"].get<double>()), m["mean_abs_error"].get<double>() + 1e-12);
    EXPECT_LE(m["mean_abs_error"].get<double>(), m["max_abs_error"].get<double>() + 1e-12);
  }
}

// A kind of run the model has been optimistic about (15% or more mean error,
// the bias flattering it) carries a caution naming it, its bias and its
// runs; the others none.
TEST(Accuracy, CautionForKindsTheModelFlatters) {
  for (const Regime& r : regimes()) {
    const json accuracy = regime_accuracy(r);  // held: a range-for over .at() of a temporary dangles
    for (const json& m : accuracy.at("metrics")) {
      const std::string metric = m.at("metric").get<std::string>();
      const std::string caution = regime_caution(r, metric);
      const double bias = m.at("mean_error").get<double>();
      const bool flattered = metric.find("per_s") != std::string::npos ? bias > 0 : bias < 0;
      const bool wide = m.at("mean_abs_error").get<double>() >= kWideMeanError && flattered;
      EXPECT_EQ(caution.empty(), !wide) << r.id << " " << metric;
      if (!wide) continue;
      EXPECT_NE(caution.find(r.label), std::string::npos) << caution;
      EXPECT_NE(caution.find(std::to_string(m.at("cases").get<int>()) + " published run"), std::string::npos) << caution;
      EXPECT_NE(caution.find(bias < 0 ? " low on balance" : " high on balance"), std::string::npos) << caution;
    }
  }
  // A kind no published run measured has none.
  EXPECT_TRUE(regime_caution(*find_regime("lora_training"), "training.iteration_time_s").empty());
}

// The quoted runs say on which devices they ran; a result on another device
// says that none of them used it (the efficiencies of AMD, TPU, Gaudi and the
// newest NVIDIA parts are partly assumptions).
TEST(Accuracy, NamesWhetherTheRunsUsedThisDevice) {
  json h100 = training({{"tp", 2}, {"dp", 4}});
  const json on = eval_ok(h100)["accuracy"];
  EXPECT_EQ(on["device"], "H100 SXM5 80GB");
  EXPECT_TRUE(on["device_validated"].get<bool>());
  for (const char* other : {"intel-gaudi3", "amd-mi300x", "tpu-v6e", "dgx-b300"}) {
    json s = h100;
    s["system"] = other;
    const json off = eval_ok(s)["accuracy"];
    EXPECT_FALSE(off["device_validated"].get<bool>()) << other;
    EXPECT_EQ(off["metrics"], on["metrics"]) << other;  // the same runs are quoted
  }
  // The A100 80GB ran Megatron-style training (Korthikanti et al.), not MoE.
  json a100 = training({{"tp", 2}, {"dp", 4}});
  a100["system"] = "dgx-a100-80gb";
  EXPECT_TRUE(eval_ok(a100)["accuracy"]["device_validated"].get<bool>());
  json moe = training({{"dp", 8}, {"ep", 8}}, "mixtral-8x7b");
  moe["system"] = "dgx-a100-80gb";
  EXPECT_FALSE(eval_ok(moe)["accuracy"]["device_validated"].get<bool>());
}

// Layer kinds none of the quoted runs had are named: their cost rests on
// counted work and traffic alone (README, "Assumptions and limits").
TEST(Accuracy, NamesLayerKindsNoRunHad) {
  EXPECT_EQ(eval_ok(training({{"tp", 2}, {"dp", 4}}))["accuracy"]["architecture_unvalidated"], json::array());
  EXPECT_EQ(eval_ok(training({{"dp", 8}}, "bamba-9b"))["accuracy"]["architecture_unvalidated"], json{"Mamba-2 layers"});
  const json next = eval_ok(training({{"dp", 8}, {"ep", 8}}, "qwen3-next-80b-a3b"))["accuracy"];
  EXPECT_EQ(next["regime"], "moe_training");
  EXPECT_EQ(next["architecture_unvalidated"], (json{"gated attention", "Gated DeltaNet layers"}));
  const json v3 = eval_ok(training({{"pp", 8}, {"dp", 8}, {"ep", 8}}, "deepseek-v3"))["accuracy"];
  EXPECT_EQ(v3["architecture_unvalidated"], (json{"multi-head latent attention", "multi-token prediction"}));
  // The validation set's record of what its runs had, per regime.
  const json& dense = accuracy_table().at("regimes").at("dense_model_parallel_training");
  EXPECT_EQ(dense.at("architectures"), json::array());
}

}  // namespace
}  // namespace llmcalc::test
