// LoRA / QLoRA fine-tuning: only the adapters train (their parameters, as PEFT
// counts them; their gradients and optimizer states), frozen GEMMs run no
// weight gradient, NF4 weights are stored in 4.127 bits and dequantised for
// every GEMM, and data parallelism reduces the adapters' gradients alone.
#include "test_util.h"

namespace llmcalc::test {
namespace {

json finetune(const json& training_extra, const json& par = {{"dp", 1}}) {
  json t = {{"global_batch", 8}, {"micro_batch", 1}, {"seq_len", 4096}};
  if (training_extra.is_object()) t.update(training_extra);
  return {{"mode", "training"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"}, {"parallelism", par}, {"training", t}};
}

double gemm_flops(const json& out, const std::string& phase, bool adapters) {
  double sum = 0;
  for (const auto& op : out["ops"]) {
    const std::string name = op["name"];
    const bool adapter = name.find(".lora_") != std::string::npos;
    if (op["kind"] == "gemm" && op["phase"] == phase && adapter == adapters)
      sum += op["flops"].get<double>() * op["count"].get<double>();
  }
  return sum;
}

TEST(Lora, AdaptersAreTheOnlyTrainedWeights) {
  const json out = eval_ok(finetune({{"lora_rank", 16}}));
  // PEFT's count for Llama 3 8B, r 16 on q, k, v, o, gate, up, down: r (in + out)
  // per module over 32 layers: q, o 4096 + 4096; k, v 4096 + 1024; gate, up,
  // down 4096 + 14336.
  const double adapters = 32.0 * 16 * (2 * 8192 + 2 * 5120 + 3 * 18432);
  EXPECT_DOUBLE_EQ(out["training"]["trainable_params"].get<double>(), adapters);  // 41,943,040
  const json attention = eval_ok(finetune({{"lora_rank", 16}, {"lora_targets", "attention"}}));
  EXPECT_DOUBLE_EQ(attention["training"]["trainable_params"].get<double>(), 32.0 * 16 * (2 * 8192 + 2 * 5120));
  // fp32 gradient and Adam state (master, m, v) for the adapters only; the
  // frozen weights and the adapters in 16-bit.
  const json& mem = out["training"]["memory_bytes"];
  EXPECT_NEAR(mem["gradients"].get<double>(), 4 * adapters, 1);
  EXPECT_NEAR(mem["optimizer"].get<double>(), 12 * adapters, 1);
  const double params = out["model"]["parameters"].get<double>();
  EXPECT_NEAR(mem["weights"].get<double>(), 2 * (params + adapters), 1);
  // Full training of the same model: every weight trains.
  const json full = eval_ok(finetune({}));
  EXPECT_DOUBLE_EQ(full["training"]["trainable_params"].get<double>(), params);
  EXPECT_NEAR(full["training"]["memory_bytes"]["optimizer"].get<double>(), 12 * params, 1);
}

TEST(Lora, FrozenWeightsRunNoWeightGradient) {
  const json lora = eval_ok(finetune({{"lora_rank", 16}}));
  const json full = eval_ok(finetune({}));
  EXPECT_TRUE(find_op(lora, "mlp.up.dgrad", "bwd").is_object());
  EXPECT_TRUE(find_op(lora, "mlp.up.wgrad", "bwd").is_null());
  EXPECT_TRUE(find_op(lora, "lm_head.dgrad", "bwd").is_object());
  EXPECT_TRUE(find_op(lora, "lm_head.wgrad", "bwd").is_null());
  EXPECT_TRUE(find_op(lora, "embedding.bwd", "bwd").is_null());  // nothing below the frozen table trains
  EXPECT_TRUE(find_op(lora, "mlp.down.lora_b.wgrad", "bwd").is_object());
  // Base GEMMs backward: the data gradient only, as many FLOPs as forward
  // (full training: data and weight gradients, twice).
  EXPECT_NEAR(gemm_flops(lora, "bwd", false) / gemm_flops(lora, "fwd", false), 1.0, 1e-9);
  EXPECT_NEAR(gemm_flops(full, "bwd", false) / gemm_flops(full, "fwd", false), 2.0, 1e-9);
  // Adapters: r / hidden of the base's FLOPs, or less.
  EXPECT_LT(gemm_flops(lora, "fwd", true), 16.0 / 4096 * 2 * gemm_flops(lora, "fwd", false));
  // The step: faster than full training, but forward, attention and data
  // gradients all remain.
  const double t_lora = lora["training"]["iteration_time_s"], t_full = full["training"]["iteration_time_s"];
  EXPECT_LT(t_lora, 0.95 * t_full);
  EXPECT_GT(t_lora, 0.55 * t_full);
  // Model FLOPs: forward + data gradient of the frozen weights, 6 per adapter
  // parameter and token, the attention core's backward as before.
  EXPECT_LT(lora["training"]["flops"]["model_per_iteration"].get<double>(),
            0.8 * full["training"]["flops"]["model_per_iteration"].get<double>());
}

TEST(Lora, QloraFinetunes65BInUnder48GB) {
  // QLoRA (Dettmers et al. 2023, abstract and section 1): a 65B model
  // fine-tunes in under 48 GB where 16-bit full fine-tuning needs more than
  // 780 GB. LLaMA 65B, r 64 on every linear layer, gradient checkpointing.
  const json llama65 = {{"name", "LLaMA-65B"}, {"layers", 80}, {"hidden", 8192}, {"heads", 64}, {"vocab", 32000},
                        {"seq_len", 2048}, {"ffn_hidden", 22016}, {"ffn_type", "swiglu"}, {"norm", "rmsnorm"}};
  json q = finetune({{"lora_rank", 64}, {"frozen_weights", "nf4"}, {"recompute", "full"}, {"seq_len", 512}});
  q["model"] = llama65;
  q["system"] = "dgx-a100-80gb";
  const json out = eval_ok(q);
  const json& mem = out["training"]["memory_bytes"];
  // QLoRA's paged optimizer evicts the Adam states to host memory under
  // pressure (section 3); the model keeps them on the GPU, so they are left
  // out of the comparison.
  EXPECT_LT(mem["total"].get<double>() - mem["optimizer"].get<double>(), 48e9);
  // 4.127 bits per linear weight; embeddings and LM head (2 x 0.26 B) 16-bit.
  const double params = out["model"]["parameters"].get<double>();
  const double embed = 2.0 * 32000 * 8192;
  const double frozen = (params - embed - 161 * 8192.0) * 4.127 / 8 + (embed + 161 * 8192.0) * 2;
  EXPECT_NEAR(mem["weights"].get<double>() / (frozen + 2 * out["training"]["trainable_params"].get<double>()), 1.0, 1e-3);
  json full = q;
  full["training"].erase("lora_rank");
  full["training"].erase("frozen_weights");
  EXPECT_GT(eval_ok(full)["training"]["memory_bytes"]["total"].get<double>(), 780e9);
}

TEST(Lora, Nf4WeightsAreDequantisedForEveryGemm) {
  const json nf4 = eval_ok(finetune({{"lora_rank", 16}, {"frozen_weights", "nf4"}}));
  const json bf16 = eval_ok(finetune({{"lora_rank", 16}}));
  // Forward and again for the data gradient; reads 0.516 and writes 2 bytes per weight.
  const json fwd = find_op(nf4, "mlp.up.dequant", "fwd"), bwd = find_op(nf4, "mlp.up.dequant.bwd", "bwd");
  ASSERT_TRUE(fwd.is_object());
  ASSERT_TRUE(bwd.is_object());
  const double elements = 4096.0 * 2 * 14336;
  EXPECT_NEAR(fwd["bytes"]["hbm"].get<double>() / elements, 4.127 / 8 + 2, 1e-3);
  EXPECT_TRUE(find_op(bf16, "mlp.up.dequant", "fwd").is_null());
  EXPECT_GT(nf4["training"]["iteration_time_s"].get<double>(), bf16["training"]["iteration_time_s"].get<double>());
  EXPECT_LT(nf4["training"]["memory_bytes"]["weights"].get<double>(),
            0.4 * bf16["training"]["memory_bytes"]["weights"].get<double>());
}

TEST(Lora, DataParallelismReducesOnlyTheAdapters) {
  const json par = {{"dp", 8}, {"zero", 3}};
  const json lora = eval_ok(finetune({{"global_batch", 64}, {"lora_rank", 16}}, par));
  const json qlora = eval_ok(finetune({{"global_batch", 64}, {"lora_rank", 16}, {"frozen_weights", "nf4"}}, par));
  const json full = eval_ok(finetune({{"global_batch", 64}}, par));
  auto op_time = [](const json& out, const std::string& name, const std::string& phase) {
    const json op = find_op(out, name, phase);
    return op.is_object() ? op["time_s"].get<double>() : 0.0;
  };
  // Gradients: the adapters' 42 M instead of 8 B weights.
  EXPECT_LT(op_time(lora, "dp.grad_reduce_scatter", "bwd"), 0.05 * op_time(full, "dp.grad_reduce_scatter", "bwd"));
  // ZeRO-3 still gathers every frozen weight; NF4 sends about a quarter of the bytes.
  EXPECT_GT(lora["training"]["time_breakdown_s"]["dp_comm"].get<double>(), 0);
  EXPECT_LT(qlora["training"]["time_breakdown_s"]["dp_comm"].get<double>(),
            lora["training"]["time_breakdown_s"]["dp_comm"].get<double>());
  // Sharded over 8: the adapters' states and the frozen weights.
  EXPECT_NEAR(lora["training"]["memory_bytes"]["optimizer"].get<double>(),
              12 * lora["training"]["trainable_params"].get<double>() / 8, 1);
  // The optimizer step touches the adapters only.
  EXPECT_LT(lora["training"]["time_breakdown_s"]["optimizer"].get<double>(),
            0.05 * full["training"]["time_breakdown_s"]["optimizer"].get<double>());
}

TEST(Lora, RoutedExpertAdaptersAreHeldAndReducedLikeTheirExperts) {
  // Mixtral 8x7B, r 16: attention (q, o 4096 + 4096; k, v 4096 + 1024) and,
  // with all_experts, each of 8 experts' w1, w3 (4096 + 14336) and w2
  // (14336 + 4096), over 32 layers; the router stays frozen.
  auto mixtral = [](const std::string& targets, int zero) {
    return json{{"mode", "training"}, {"model", "mixtral-8x7b"}, {"system", "dgx-h100"},
                {"parallelism", {{"dp", 8}, {"ep", 8}, {"zero", zero}}},
                {"training", {{"global_batch", 8}, {"seq_len", 4096}, {"lora_rank", 16}, {"lora_targets", targets},
                              {"recompute", "full"}}}};
  };
  const double attention = 32.0 * 16 * (2 * 8192 + 2 * 5120), experts = 32.0 * 8 * 16 * 3 * 18432;
  EXPECT_DOUBLE_EQ(eval_ok(mixtral("all", 1))["training"]["trainable_params"].get<double>(), attention);
  const json out = eval_ok(mixtral("all_experts", 1));
  EXPECT_DOUBLE_EQ(out["training"]["trainable_params"].get<double>(), attention + experts);
  // ZeRO-1 over dp 8: the attention adapters' states split 8 ways; each rank
  // holds one expert's adapters (ep 8), whose states have no expert-dp replica to split over.
  EXPECT_NEAR(out["training"]["memory_bytes"]["optimizer"].get<double>(), 12 * (attention / 8 + experts / 8), 1);
  // Model FLOPs: a token trains the adapters of the 2 experts it is routed to, of 8.
  const double tokens = 8.0 * 4096;
  EXPECT_NEAR(out["training"]["flops"]["model_per_iteration"].get<double>() -
                  eval_ok(mixtral("all", 1))["training"]["flops"]["model_per_iteration"].get<double>(),
              6 * experts * 2 / 8 * tokens, 1e-6 * 6 * experts * tokens);
  EXPECT_TRUE(find_op(out, "moe.up.lora_a", "fwd").is_object());
  EXPECT_TRUE(find_op(out, "moe.router.wgrad", "bwd").is_null());
}

TEST(Lora, BadInputsAreRefusedAtTheirPaths) {
  const std::vector<std::pair<json, std::string>> bad = {
      {finetune({{"frozen_weights", "nf4"}}), "training.frozen_weights"},                  // nothing trains beside it
      {finetune({{"lora_rank", 16}, {"frozen_weights", "nf4"}, {"precision", "fp8"}}), "training.frozen_weights"},
      {finetune({{"lora_rank", -1}}), "training.lora_rank"},
      {finetune({{"lora_rank", 16}, {"lora_targets", "mlp"}}), "training.lora_targets"},
      {finetune({{"frozen_weights", "int4"}}), "training.frozen_weights"},
  };
  for (const auto& [scenario, path] : bad) {
    const json out = eval(scenario);
    ASSERT_TRUE(out.contains("error")) << scenario.dump();
    EXPECT_EQ(out["error"]["path"], path) << out.dump();
  }
}

}  // namespace
}  // namespace llmcalc::test
