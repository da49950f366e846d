// Per-GPU memory against hand counts.
// Training activations: Korthikanti et al. 2022, "Reducing Activation
// Recomputation in Large Transformer Models" (arXiv 2205.05198), §4:
//   per layer, no parallelism:        s*b*h*(34 + 5*a*s/h)            (eq. 1)
//   tensor parallel t:                s*b*h*(10 + 24/t + 5*a*s/(h*t)) (eq. 2)
//   t + sequence parallel + selective: 34*s*b*h/t                      (eq. 5)
//   full recomputation:               2*s*b*h (/t with sp)             (§4.1)
// The first pipeline stage holds p micro-batches of L/p layers under 1F1B
// (§4.2.3, "L layers' worth"), times 1 + (p-1)/(p*v) when interleaved.
// Weights + gradients + optimizer: 2 + 4 + 12 = 18 bytes per parameter for
// mixed-precision Adam with fp32 gradients and master weights (Megatron-LM;
// ZeRO stages shard optimizer / +gradients / +weights over dp, Rajbhandari
// et al. 2020, arXiv 1910.02054, §5).
#include "test_util.h"

namespace llmcalc::test {
namespace {

// L=4, h=256, a=8, GELU MLP 4h, layer norm, dropout, vocab 128, no biases.
constexpr double L = 4, h = 256, a = 8, V = 128, s = 128, b = 2;
constexpr double sbh = s * b * h;

json tiny_model(int layers = 4) {
  return {{"name", "tiny"}, {"layers", layers}, {"hidden", 256}, {"heads", 8}, {"vocab", 128},
          {"seq_len", 128}, {"ffn_type", "gelu"}, {"norm", "layernorm"}, {"dropout", true}};
}

json training_scenario(json par, const std::string& recompute, long long microbatches, int layers = 4) {
  const long long dp = par.value("dp", 1);
  return {{"mode", "training"},
          {"model", tiny_model(layers)},
          {"system", "dgx-h100"},
          {"parallelism", std::move(par)},
          {"training",
           {{"global_batch", static_cast<long long>(b) * dp * microbatches},
            {"micro_batch", static_cast<int>(b)},
            {"seq_len", static_cast<int>(s)},
            {"recompute", recompute},
            {"flash_attention", false}}}};
}

double activations(const json& scenario) {
  const json out = eval_ok(scenario);
  return out["training"]["memory_bytes"].value("activations", -1.0);
}

// pp=2 so that the reported (most loaded) GPU is the first stage, which holds
// no LM head: the count is layers only. 1F1B with m=4 >= p=2 micro-batches
// keeps min(m, p) x L/p = L layer-microbatches.
TEST(TrainingMemory, ActivationsNoParallelism) {
  const double per_layer = sbh * (34 + 5 * a * s / h);  // eq. 1
  EXPECT_NEAR(activations(training_scenario({{"pp", 2}}, "none", 4)), per_layer * L, 1e-6 * per_layer);
}

TEST(TrainingMemory, ActivationsTensorParallel) {
  const double t = 2;
  const double per_layer = sbh * (10 + 24 / t + 5 * a * s / (h * t));  // eq. 2
  EXPECT_NEAR(activations(training_scenario({{"pp", 2}, {"tp", 2}}, "none", 4)), per_layer * L, 1e-6 * per_layer);
}

TEST(TrainingMemory, ActivationsSequenceParallelSelective) {
  const double t = 4;
  const double per_layer = 34 * sbh / t;  // eq. 5
  EXPECT_NEAR(activations(training_scenario({{"pp", 2}, {"tp", 4}, {"sp", true}}, "selective", 4)), per_layer * L,
              1e-6 * per_layer);
}

// Full recomputation keeps each layer's input (2sbh, /t with sp) and, while
// one layer is recomputed for its backward, that layer's full activations.
TEST(TrainingMemory, ActivationsFullRecompute) {
  const double one_layer_none = sbh * (34 + 5 * a * s / h);
  EXPECT_NEAR(activations(training_scenario({{"pp", 2}}, "full", 4)), 2 * sbh * L + one_layer_none, 1e-6 * sbh);
  const double t = 2;
  const double one_layer_sp = sbh * (10 / t + 24 / t + 5 * a * s / (h * t));  // eq. 2 with the 10 split by sp
  EXPECT_NEAR(activations(training_scenario({{"pp", 2}, {"tp", 2}, {"sp", true}}, "full", 4)),
              2 * sbh / t * L + one_layer_sp, 1e-6 * sbh);
}

// With fewer micro-batches than stages, 1F1B's first stage holds only m.
TEST(TrainingMemory, ActivationsFewMicrobatches) {
  const double per_layer = sbh * (34 + 5 * a * s / h);
  // p=4 stages of 1 layer each (L=4); m=2: 2 micro-batches x 1 layer.
  EXPECT_NEAR(activations(training_scenario({{"pp", 4}}, "none", 2)), per_layer * 2, 1e-6 * per_layer);
}

// Layers that pp does not divide: the end stages are the short ones (as the
// time model has them), so rank 0 holds p micro-batches of a layer fewer and
// rank 1 p - 1 of them all. p=4: L=14 gives stages of 3, 4, 4, 3: max(3 x 4,
// 4 x 3) = 12 layer-microbatches; L=15 (one short stage, the last) keeps 4 on
// rank 0: 16; L=16: 16.
TEST(TrainingMemory, ActivationsWithShortEndStages) {
  const double per_layer = sbh * (34 + 5 * a * s / h);
  const json par = {{"pp", 4}};
  EXPECT_NEAR(activations(training_scenario(par, "none", 8, 14)), per_layer * 12, 1e-6 * per_layer);
  EXPECT_NEAR(activations(training_scenario(par, "none", 8, 15)), per_layer * 16, 1e-6 * per_layer);
  EXPECT_NEAR(activations(training_scenario(par, "none", 8, 16)), per_layer * 16, 1e-6 * per_layer);
  // Interleaved, p=4, v=2, L=14 (chunks of 2 and 1): rank 0 holds 2x3 + 1x4 + 1
  // = 11 chunk forwards of 3/2 layers, rank 1 9 of 4/2: max(16.5, 18) = 18.
  const json inter = {{"pp", 4}, {"pp_schedule", "interleaved"}, {"virtual_stages", 2}};
  EXPECT_NEAR(activations(training_scenario(inter, "none", 8, 14)), per_layer * 18, 1e-6 * per_layer);
}

TEST(TrainingMemory, ActivationsInterleaved) {
  const double per_layer = sbh * (34 + 5 * a * s / h);
  // p=4, v=2, L=8, m=8: L x (1 + (p-1)/(p v)) = 8 x 11/8 = 11 layer-microbatches.
  const json par = {{"pp", 4}, {"pp_schedule", "interleaved"}, {"virtual_stages", 2}};
  EXPECT_NEAR(activations(training_scenario(par, "none", 8, 8)), per_layer * 8 * (1 + 3.0 / 8), 1e-6 * per_layer);
  // p=2, v=2, L=4, m=4: 4 x (1 + 1/4) = 5.
  const json par2 = {{"pp", 2}, {"pp_schedule", "interleaved"}, {"virtual_stages", 2}};
  EXPECT_NEAR(activations(training_scenario(par2, "none", 4)), per_layer * 5, 1e-6 * per_layer);
}

// pp=1: the only stage also holds the fp32 logits of the vocab-parallel
// cross-entropy, 4*s*b*V/t bytes (Korthikanti et al. 2022 §4.3).
TEST(TrainingMemory, ActivationsSingleStageIncludeLogits) {
  const double per_layer = sbh * (34 + 5 * a * s / h);
  EXPECT_NEAR(activations(training_scenario(json::object(), "none", 1)), per_layer * L + 4 * s * b * V,
              1e-6 * per_layer);
}

// Parameters of the tiny model (layout of Shoeybi et al. 2019): per layer
// 4h^2 attention + 8h^2 MLP + two layer norms 4h; embedding and untied LM
// head V*h each; final norm 2h.
constexpr double P = L * (12 * h * h + 4 * h) + 2 * V * h + 2 * h;

TEST(TrainingMemory, StatesEighteenBytesPerParam) {
  const json out = eval_ok(training_scenario(json::object(), "selective", 1));
  const json& m = out["training"]["memory_bytes"];
  EXPECT_DOUBLE_EQ(out["model"]["parameters"].get<double>(), P);
  EXPECT_NEAR(m["weights"].get<double>(), 2 * P, 1e-9 * P);
  EXPECT_NEAR(m["gradients"].get<double>(), 4 * P, 1e-9 * P);
  EXPECT_NEAR(m["optimizer"].get<double>(), 12 * P, 1e-9 * P);
}

TEST(TrainingMemory, ZeroStagesShardOverDp) {
  const double dp = 4;
  struct Case {
    int zero;
    double w, g, o;  // bytes per parameter
  } cases[] = {{0, 2, 4, 12}, {1, 2, 4, 12 / dp}, {2, 2, 4 / dp, 12 / dp}, {3, 2 / dp, 4 / dp, 12 / dp}};
  // ZeRO-3 gathers units whole (PyTorch FSDP §3.3-3.4): the root (embedding,
  // LM head, every norm: 2Vh + 4hL + 2h) and two 12h^2 layers of 16-bit
  // weights, and the root's and one layer's 16-bit gradients.
  const double root = 2 * V * h + 4 * h * L + 2 * h, layer = 12 * h * h;
  for (const Case& c : cases) {
    const json out = eval_ok(training_scenario({{"dp", 4}, {"zero", c.zero}}, "selective", 1));
    const json& m = out["training"]["memory_bytes"];
    const double gathered_w = c.zero == 3 ? 2 * (root + 2 * layer) : 0, gathered_g = c.zero == 3 ? 2 * (root + layer) : 0;
    EXPECT_NEAR(m["weights"].get<double>(), c.w * P + gathered_w, 1e-9 * P) << "zero " << c.zero;
    EXPECT_NEAR(m["gradients"].get<double>(), c.g * P + gathered_g, 1e-9 * P) << "zero " << c.zero;
    EXPECT_NEAR(m["optimizer"].get<double>(), c.o * P, 1e-9 * P) << "zero " << c.zero;
  }
}

json llama70b_inference(int tp, int batch, const std::string& kv = "bf16") {
  return {{"mode", "inference"},
          {"model", "llama3.1-70b"},
          {"system", "dgx-h100"},
          {"parallelism", {{"tp", tp}}},
          {"inference", {{"batch", batch}, {"input_tokens", 2048}, {"output_tokens", 256}, {"kv_precision", kv}}}};
}

// KV cache = 2 (K and V) x layers x kv_heads/tp x head_dim x bytes x
// (input + output tokens) x batch. Llama 3.1 70B: 80 layers, 8 KV heads of
// 128 (Meta's config.json), so tp=4 keeps 2 heads per GPU.
TEST(InferenceMemory, KvCacheGqa) {
  const double ctx = 2048 + 256, batch = 8;
  const double expected = 2 * 80 * (8 / 4.0) * 128 * 2 * ctx * batch;
  EXPECT_DOUBLE_EQ(eval_ok(llama70b_inference(4, 8))["inference"]["memory_bytes"]["kv_cache"].get<double>(), expected);
  // fp8 cache: 1 byte per element.
  EXPECT_DOUBLE_EQ(eval_ok(llama70b_inference(4, 8, "fp8"))["inference"]["memory_bytes"]["kv_cache"].get<double>(),
                   expected / 2);
  // tp=16 > 8 KV heads: each GPU keeps one (replicated) head, as at tp=8.
  EXPECT_DOUBLE_EQ(eval_ok(llama70b_inference(16, 8))["inference"]["memory_bytes"]["kv_cache"].get<double>(),
                   2 * 80 * 1.0 * 128 * 2 * ctx * batch);
}

TEST(InferenceMemory, MaxBatchIsTheLargestThatFits) {
  const json probe = eval_ok(llama70b_inference(4, 1));
  const long long max_batch = probe["inference"].value("max_batch", -1LL);
  ASSERT_GT(max_batch, 1);
  auto fits = [&](long long batch) {
    const json out = eval_ok(llama70b_inference(4, static_cast<int>(batch)));
    const json& m = out["inference"]["memory_bytes"];
    const bool by_bytes = m["total"].get<double>() <= m["capacity"].get<double>();
    EXPECT_EQ(out["inference"]["fits"].get<bool>(), by_bytes) << "batch " << batch;
    EXPECT_EQ(out["inference"]["max_batch"].get<long long>(), max_batch) << "max_batch depends on batch";
    return by_bytes;
  };
  EXPECT_TRUE(fits(max_batch));
  EXPECT_FALSE(fits(max_batch + 1));
}

TEST(InferenceMemory, MaxBatchZeroWhenWeightsDoNotFit) {
  // 405B parameters at 2 bytes (810 GB) on one 80 GiB GPU.
  const json out = eval_ok({{"mode", "inference"}, {"model", "llama3.1-405b"}, {"system", "dgx-h100"},
                            {"inference", {{"batch", 1}}}});
  EXPECT_EQ(out["inference"].value("max_batch", -1LL), 0);
  EXPECT_FALSE(out["inference"].value("fits", true));
}

// A plan that fits with less than 5% of the memory free is flagged: what the
// model does not count (CUDA context, communication buffers, fragmentation)
// may not fit. Same plan, three capacities around its total.
bool warns_tight(const json& out) {
  for (const auto& w : out.at("warnings"))
    if (w.get<std::string>().find("under 5% to spare") != std::string::npos) return true;
  return false;
}

json with_hbm(json scenario, double gib) {
  const json hbm = {{"name", "hbm"}, {"capacity_GiB", gib}, {"bandwidth_GBps", 3350}};
  scenario["system"] = {{"preset", "dgx-h100"}, {"device", {{"memory", json::array({hbm})}}}};
  return scenario;
}

TEST(Memory, TightFitIsFlaggedInBothModes) {
  const json training = training_scenario({{"tp", 1}}, "none", 1);
  const json inference = {{"mode", "inference"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"},
                          {"inference", {{"batch", 8}, {"input_tokens", 1024}, {"output_tokens", 256}}}};
  for (const json& base : {training, inference}) {
    const std::string mode = base.at("mode");
    const double total_gib = eval_ok(base)[mode]["memory_bytes"]["total"].get<double>() / 1073741824.0;
    EXPECT_FALSE(warns_tight(eval_ok(with_hbm(base, total_gib / 0.90)))) << mode;  // 10% free
    const json tight = eval_ok(with_hbm(base, total_gib / 0.97));                  // 3% free
    EXPECT_TRUE(warns_tight(tight)) << mode << tight["warnings"].dump();
    const json over = eval_ok(with_hbm(base, total_gib * 0.99));                    // does not fit
    EXPECT_FALSE(warns_tight(over)) << mode;
  }
}

// Rank 1 of a pipeline holds a micro-batch less than rank 0 and no
// embedding, but its layers can be the heaviest: leading dense layers
// (DeepSeek-V3, GLM-4.5) sit on rank 0. Here rank 0 holds the two thin dense
// layers, rank 1 two MoE layers with three of the four micro-batches (1F1B),
// the last stage two MoE layers with one: rank 1 is the most loaded. Its
// figures are those of rank 1 of the same model without dense layers (whose
// rank 0, with the embedding of a tiny vocabulary and four micro-batches, is
// reported there): the same weights, 3/4 of the activations.
TEST(TrainingMemory, RankOneWithTheHeavierLayersIsTheMostLoaded) {
  const auto moe_model = [](int dense_layers) {
    return json{{"name", "moe"}, {"layers", 8}, {"hidden", 1024}, {"heads", 8}, {"vocab", 128},
                {"seq_len", 512}, {"ffn_hidden", 256}, {"ffn_type", "swiglu"}, {"norm", "rmsnorm"},
                {"moe", {{"experts", 32}, {"top_k", 2}, {"ffn_hidden", 2048}, {"dense_layers", dense_layers}}}};
  };
  const auto memory = [&](int dense_layers) {
    json sc = {{"mode", "training"}, {"model", moe_model(dense_layers)}, {"system", "dgx-h100"},
               {"parallelism", {{"pp", 4}}},
               {"training", {{"global_batch", 8}, {"micro_batch", 2}, {"seq_len", 512}, {"recompute", "none"},
                             {"moe_balance", "forced"}}}};
    return eval_ok(sc)["training"]["memory_bytes"];
  };
  const json leading = memory(2), uniform = memory(0);
  EXPECT_NEAR(leading["weights"].get<double>(), uniform["weights"].get<double>(), 0.001 * uniform["weights"].get<double>());
  EXPECT_NEAR(leading["activations"].get<double>(), 0.75 * uniform["activations"].get<double>(),
              1e-9 * uniform["activations"].get<double>());
}

}  // namespace
}  // namespace llmcalc::test
