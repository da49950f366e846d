// Current architectures (issue 13): parameter counts of the new presets
// against their published figures, KV-cache bytes per layer type against the
// hand-derived vectors of tests/fixtures/kv-cache.json, MLA and local
// attention FLOPs against their formulas, MTP, block-scaled FP4 training.
#include <fstream>

#include "attention_pattern.h"
#include "memory.h"
#include "mla.h"
#include "model_math.h"
#include "parse.h"
#include "presets.h"
#include "sparse_attention.h"
#include "test_util.h"

namespace llmcalc::test {
namespace {

const char* const kNewPresets[] = {"deepseek-v3", "deepseek-v2-lite", "kimi-k2", "qwen3-8b", "qwen3-32b",
                                   "qwen3-30b-a3b", "qwen3-235b-a22b", "gpt-oss-20b", "gpt-oss-120b", "llama4-scout",
                                   "llama4-maverick", "gemma3-27b", "mistral-large-2", "llama3.3-70b", "glm4.5",
                                   "glm4.5-air", "qwen3-next-80b-a3b", "qwen3-0.6b", "qwen3-14b",
                                   "gemma3-4b", "phi-4", "deepseek-v2", "bamba-9b"};

// 1%, unless the preset names a wider tolerance and says why in its sources
// (figures published to two digits, a config that was not read).
double tolerance(const json& file, const char* key) { return file.value(key, 0.01); }

// The op of that name and phase that runs (an all-MoE model lists its dense
// layer's ops with count 0).
json counted_op(const json& out, const std::string& name, const std::string& phase) {
  for (const auto& op : out.at("ops"))
    if (op.at("name") == name && op.at("phase") == phase && op.at("count").get<double>() > 0) return op;
  return nullptr;
}

TEST(Architectures, ParameterCountsMatchPublishedFigures) {
  for (const char* id : kNewPresets) {
    ASSERT_TRUE(all_presets().at("models").contains(id)) << id;
    const json* file = &all_presets().at("models").at(id);
    const ParamCount pc = count_params(parse_model(id, "model"));
    const double total = pc.total + file->value("published_params_unmodelled", 0.0);
    const double published = file->at("published_params").get<double>();
    EXPECT_NEAR(total / published, 1.0, tolerance(*file, "published_params_tolerance")) << id << ": " << total;
    if (!file->contains("published_active_params")) continue;
    const double active = pc.active - (file->at("active_counts_input_embedding").get<bool>() ? 0.0 : pc.embedding);
    EXPECT_NEAR(active / file->at("published_active_params").get<double>(), 1.0,
                tolerance(*file, "published_active_tolerance"))
        << id << ": " << active;
  }
}

TEST(Architectures, HandCountedLayers) {
  // DeepSeek-V3 MLA attention: 7168*1536 + 1536 + 1536*128*192 + 7168*576 + 512 + 512*128*256 + 128*128*7168.
  const Model v3 = parse_model("deepseek-v3", "model");
  EXPECT_DOUBLE_EQ(layer_params(v3, true).attention, 187107328.0);
  EXPECT_EQ(moe_layer_count(v3), 58);
  // MTP: one MoE block + M (2h x h) + 2 norms = 11.61B (the report: 11.5B unique; 685B - 671B = 14B in the checkpoint).
  EXPECT_NEAR(count_params(v3).mtp / 11.61e9, 1.0, 0.002);
  const Model mav = parse_model("llama4-maverick", "model");
  EXPECT_EQ(moe_layer_count(mav), 24);
  EXPECT_FALSE(is_moe_layer(mav, 0));
  EXPECT_TRUE(is_moe_layer(mav, 1));
  const Model oss = parse_model("gpt-oss-120b", "model");
  // Attention 2880*(64+16)*64 + 5120 + 4096*2880 + 2880 + 64 sinks = 26,550,144.
  EXPECT_DOUBLE_EQ(layer_params(oss, true).attention, 26550144.0);
  EXPECT_EQ(global_layers(oss, 0, oss.layers), 18);
  EXPECT_FALSE(is_global_layer(oss, 0));
  EXPECT_TRUE(is_global_layer(oss, 1));
  EXPECT_EQ(global_layers(parse_model("gemma3-27b", "model"), 0, 62), 10);
  EXPECT_EQ(global_layers(parse_model("llama4-scout", "model"), 0, 48), 12);
}

json kv_fixture() {
  std::ifstream f(std::string(LLMCALC_TEST_DATA) + "/fixtures/kv-cache.json");
  return json::parse(f);
}

TEST(Architectures, KvCacheBytesPerLayerType) {
  const json fx = kv_fixture();
  const int context = fx["context"], out_tokens = fx["output_tokens"];
  ASSERT_GE(fx["vectors"].size(), 14u);
  for (const json& v : fx["vectors"]) {
    const std::string where = v["preset"].get<std::string>() + " " + v["kv_precision"].get<std::string>();
    const json out = eval_ok({{"mode", "inference"}, {"model", v["preset"]}, {"system", "dgx-b200"},
                              {"parallelism", {{"tp", 1}}},
                              {"inference", {{"batch", 1}, {"input_tokens", context - out_tokens},
                                             {"output_tokens", out_tokens}, {"kv_precision", v["kv_precision"]}}}});
    const json& types = out["inference"]["kv_cache_by_layer_type"];
    ASSERT_EQ(types.size(), v["layer_types"].size()) << where;
    double full = 0;
    for (size_t i = 0; i < types.size(); ++i) {
      const json& want = v["layer_types"][i];
      EXPECT_EQ(types[i]["type"], want["type"]) << where;
      EXPECT_EQ(types[i]["layers"], want["layers"]) << where;
      EXPECT_DOUBLE_EQ(types[i]["bytes_per_token_per_layer"].get<double>(), want["bytes_per_token_per_layer"].get<double>()) << where;
      EXPECT_DOUBLE_EQ(types[i]["tokens_cached"].get<double>(), want["tokens_cached"].get<double>()) << where;
      if (want.contains("bytes_per_sequence"))
        EXPECT_DOUBLE_EQ(types[i]["bytes_per_sequence"].get<double>(), want["bytes_per_sequence"].get<double>()) << where;
      if (types[i]["tokens_cached"] == context) full += types[i]["bytes_per_token"].get<double>();
    }
    EXPECT_DOUBLE_EQ(full, v["full_context_bytes_per_token"].get<double>()) << where;
    EXPECT_DOUBLE_EQ(out["inference"]["memory_bytes"]["kv_cache"].get<double>(), v["bytes_per_sequence"].get<double>()) << where;
  }
}

TEST(Architectures, MlaFlopsFollowDeepSeekV2Formulas) {
  const Model v3 = parse_model("deepseek-v3", "model");
  // Per (query, key) pair, 128 heads: 2*128*192 + 2*128*128 decompressed; 2*128*(2*512 + 64) absorbed.
  EXPECT_DOUBLE_EQ(mla_pair_flops(v3, false), 81920.0);
  EXPECT_DOUBLE_EQ(mla_pair_flops(v3, true), 278528.0);
  EXPECT_DOUBLE_EQ(mla_pair_flops(parse_model("kimi-k2", "model"), true), 139264.0);
  const int in = 4096, out_tokens = 256, b = 4;
  const json r = eval_ok({{"mode", "inference"}, {"model", "deepseek-v3"}, {"system", "gb200-nvl72"},
                          {"parallelism", {{"tp", 8}}},
                          {"inference", {{"batch", b}, {"input_tokens", in}, {"output_tokens", out_tokens}}}});
  // Prefill (decompressed): every causal pair of the prompt, per GPU (tp 8 splits the heads).
  const json pre = find_op(r, "attn.flash", "prefill");
  ASSERT_FALSE(pre.is_null());
  EXPECT_LT(rel_diff(pre["flops"].get<double>(), b * 81920.0 * in * (in + 1) / 2 / 8), 1e-9);
  EXPECT_FALSE(find_op(r, "attn.kv_up", "prefill").is_null());
  // Decode (absorbed): 278,528 FLOPs per cached key at the mean context, no K/V up-projection.
  const json dec = find_op(r, "attn.flash", "decode");
  EXPECT_LT(rel_diff(dec["flops"].get<double>(), b * 278528.0 * (in + out_tokens / 2.0) / 8), 1e-9);
  EXPECT_TRUE(find_op(r, "attn.kv_up", "decode").is_null());
  const json absorb = find_op(r, "attn.q_absorb", "decode");
  ASSERT_FALSE(absorb.is_null());
  EXPECT_DOUBLE_EQ(absorb["flops"].get<double>(), b * 2.0 * 128 * 128 * 512 / 8);
  EXPECT_DOUBLE_EQ(mla_absorb_flops(v3), 2.0 * 128 * 512 * 256);
  // The decode core reads the 576-wide latent row once for all heads.
  EXPECT_LT(rel_diff(dec["bytes"]["hbm"].get<double>(), b * (in + out_tokens / 2.0) * 576 * 2 + b * 16 * 1088 * 2), 1e-9);
}

TEST(Architectures, SlidingWindowFlopsFollowTheMask) {
  const Model oss = parse_model("gpt-oss-120b", "model");
  // Sum_i min(i, W) = W S - W (W - 1) / 2 (query i sees keys i - W < j <= i).
  EXPECT_DOUBLE_EQ(causal_pairs(oss, true, 131072), 128.0 * 131072 - 128.0 * 127 / 2);
  EXPECT_DOUBLE_EQ(causal_pairs(oss, true, 100), 5050.0);
  EXPECT_DOUBLE_EQ(mean_decode_keys(oss, true, 4096, 64), 128.0);
  const Model scout = parse_model("llama4-scout", "model");
  EXPECT_DOUBLE_EQ(causal_pairs(scout, true, 3 * 8192.0 + 10), 3 * 8192.0 * 8193 / 2 + 55);
  const int in = 8192, out_tokens = 128, b = 2;
  const json r = eval_ok({{"mode", "inference"}, {"model", "gpt-oss-120b"}, {"system", "dgx-b200"},
                          {"parallelism", {{"tp", 1}}},
                          {"inference", {{"batch", b}, {"input_tokens", in}, {"output_tokens", out_tokens}}}});
  const json local = counted_op(r, "attn.flash.local", "prefill"), global = counted_op(r, "attn.flash", "prefill");
  ASSERT_FALSE(local.is_null());
  // 4 n_h d per pair (64 heads of 64): local layers W S - W(W-1)/2 pairs, global S(S+1)/2.
  EXPECT_LT(rel_diff(local["flops"].get<double>(), b * 4.0 * 64 * 64 * (128.0 * in - 128.0 * 127 / 2)), 1e-9);
  EXPECT_LT(rel_diff(global["flops"].get<double>(), b * 4.0 * 64 * 64 * in * (in + 1.0) / 2), 1e-9);
  EXPECT_DOUBLE_EQ(local["count"].get<double>(), 18.0);
  EXPECT_DOUBLE_EQ(global["count"].get<double>(), 18.0);
  EXPECT_LT(rel_diff(counted_op(r, "attn.flash.local", "decode")["flops"].get<double>(), b * 4.0 * 64 * 64 * 128), 1e-9);
  // Model FLOPs per token: the local layers' core is the window's share of the full one.
  const double full = 4.0 * in * 64 * 64;
  EXPECT_NEAR(attention_core_flops_per_token(oss, in),
              0.5 * full + 0.5 * full * (128.0 * in - 128.0 * 127 / 2) / (in * (in + 1.0) / 2), 1e-6 * full);
}

// DeepSeek Sparse Attention (DeepSeek-V3.2): the core attends at most top_k
// keys per query (the sliding-window count), decode gathers those rows; the
// indexer scores every earlier token and caches an fp8 key per token.
TEST(Architectures, SparseAttentionCapsTheCoreAndIndexesEveryToken) {
  const Model v32 = parse_model("deepseek-v3.2", "model"), v3 = parse_model("deepseek-v3", "model");
  EXPECT_DOUBLE_EQ(window_pairs(2048, 100), 5050.0);
  EXPECT_DOUBLE_EQ(window_pairs(2048, 65536), 2048.0 * 65536 - 2048.0 * 2047 / 2);
  EXPECT_DOUBLE_EQ(sparse_mean_keys(2048, 65536, 1024), 2048.0);
  // Indexer per layer: wq_b 1536 x 64 x 128, wk 7168 x 128, LayerNorm 2 x 128, weights_proj 7168 x 64.
  EXPECT_DOUBLE_EQ(indexer_params(v32), 1536.0 * 64 * 128 + 7168.0 * 128 + 256 + 7168.0 * 64);
  EXPECT_DOUBLE_EQ(count_params(v32).total - count_params(v3).total, 61 * indexer_params(v32));
  EXPECT_DOUBLE_EQ(indexer_key_bytes(v32), 132.0);  // 128 fp8 + one fp32 scale
  const int in = 65536, out_tokens = 1024, b = 4;
  auto serve = [&](const char* model) {
    return eval_ok({{"mode", "inference"}, {"model", model}, {"system", "dgx-b200"}, {"parallelism", {{"tp", 8}}},
                    {"inference", {{"batch", b}, {"input_tokens", in}, {"output_tokens", out_tokens}}}});
  };
  const json sparse = serve("deepseek-v3.2"), dense = serve("deepseek-v3");
  // Prefill: the core's pairs are the capped ones, per GPU (tp 8 splits the heads).
  EXPECT_LT(rel_diff(find_op(sparse, "attn.flash", "prefill")["flops"].get<double>(),
                     b * 81920.0 * window_pairs(2048, in) / 8), 1e-9);
  // Decode: 2,048 gathered latent rows per sequence, not the whole context.
  const json core = find_op(sparse, "attn.flash", "decode");
  EXPECT_LT(rel_diff(core["flops"].get<double>(), b * 278528.0 * 2048 / 8), 1e-9);
  EXPECT_LT(core["bytes"]["hbm"].get<double>(), find_op(dense, "attn.flash", "decode")["bytes"]["hbm"].get<double>() / 20);
  // The indexer, on every rank, scores the whole mean context: 2 x 64 x 128 + 2 x 64 FLOPs a pair.
  const double context = in + out_tokens / 2.0;
  const json index = find_op(sparse, "attn.index_scores", "decode");
  ASSERT_FALSE(index.is_null());
  EXPECT_LT(rel_diff(index["flops"].get<double>(), b * context * (2.0 * 64 * 128 + 2 * 64)), 1e-9);
  EXPECT_GE(index["bytes"]["hbm"].get<double>(), b * context * 132.0);
  EXPECT_TRUE(find_op(dense, "attn.index_scores", "decode").is_null());
  EXPECT_LT(sparse["inference"]["tpot_s"].get<double>(), dense["inference"]["tpot_s"].get<double>());
  // The cache keeps every token, plus the indexer's keys: a row of its own in the table.
  bool indexer_row = false;
  for (const json& t : sparse["inference"]["kv_cache_by_layer_type"]) {
    if (t["type"] != "indexer_keys") continue;
    indexer_row = true;
    EXPECT_DOUBLE_EQ(t["bytes_per_token_per_layer"].get<double>(), 132.0);
    EXPECT_DOUBLE_EQ(t["tokens_cached"].get<double>(), in + out_tokens);
  }
  EXPECT_TRUE(indexer_row);
  EXPECT_GT(sparse["inference"]["memory_bytes"]["kv_cache"].get<double>(), dense["inference"]["memory_bytes"]["kv_cache"].get<double>());
  // Model FLOPs per token: the capped core plus the indexer over the whole context.
  EXPECT_NEAR(attention_core_flops_per_token(v32, in),
              in * 81920.0 * window_pairs(2048, in) / (in * (in + 1.0) / 2) + in * (2.0 * 64 * 128 + 2 * 64), 1e-3);
  // Short contexts attend every token: the core is the dense one.
  EXPECT_DOUBLE_EQ(window_pairs(2048, 1024), 1024.0 * 1025 / 2);
  // Training with context parallelism: each rank's queries score half the whole sequence on average.
  const int seq = 32768;
  const json train = eval_ok({{"mode", "training"}, {"model", "deepseek-v3.2"}, {"system", "dgx-b200"},
                              {"parallelism", {{"tp", 1}, {"pp", 16}, {"cp", 2}, {"dp", 4}, {"ep", 8}}},
                              {"training", {{"global_batch", 64}, {"micro_batch", 1}, {"seq_len", seq}, {"precision", "fp8"}, {"recompute", "full"}}}});
  const json fwd = find_op(train, "attn.index_scores", "fwd");
  ASSERT_FALSE(fwd.is_null());
  EXPECT_LT(rel_diff(fwd["flops"].get<double>(), seq / 2.0 * (seq + 1) / 2 * (2.0 * 64 * 128 + 2 * 64)), 1e-9);
  // The ring passes each rank's indexer keys (132 B a token) beside its K and V: cp - 1 = 1 block forward.
  json v3_scenario = {{"mode", "training"}, {"model", "deepseek-v3"}, {"system", "dgx-b200"}, {"parallelism", {{"tp", 1}, {"pp", 16}, {"cp", 2}, {"dp", 4}, {"ep", 8}}},
                {"training", {{"global_batch", 64}, {"micro_batch", 1}, {"seq_len", seq}, {"precision", "fp8"}, {"recompute", "full"}}}};
  const json v3_train = eval_ok(v3_scenario);
  // Against the 128 x 128 x 2 x 2 = 64 KiB of K and V a token the ring exchange takes at most 132 / 65,536 longer
  // (its fixed latency is the same for both).
  const double ring = find_op(train, "attn.cp_kv_exchange", "fwd")["time_s"].get<double>();
  const double ring_v3 = find_op(v3_train, "attn.cp_kv_exchange", "fwd")["time_s"].get<double>();
  EXPECT_GT(ring / ring_v3 - 1, 0.5 * 132 / 65536.0);
  EXPECT_LE(ring / ring_v3 - 1, 132 / 65536.0 + 1e-12);
  // Its activations: the indexer's fp8 queries and key, head weights, and per query the selected
  // indices and the loss's target over them (64 x 128 + 132 + 4 x 64 + 8 x 2048 bytes a token).
  Parallelism par;
  Training tr;
  tr.seq_len = seq;
  tr.micro_batch = 1;
  tr.recompute = Recompute::selective;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(v32, par, tr, true) - layer_activation_bytes(v3, par, tr, true),
                   seq * (64.0 * 128 + 132 + 4 * 64 + 8 * 2048));
  // One attention pattern at a time, and every field named.
  json bad = {{"mode", "inference"}, {"model", {{"preset", "gpt-oss-20b"}, {"sparse_attention", {{"top_k", 2048}, {"index_heads", 64}, {"index_head_dim", 128}}}}}};
  EXPECT_EQ(eval(bad)["error"]["path"], "model.sparse_attention");
  bad["model"] = {{"preset", "deepseek-v3"}, {"sparse_attention", {{"top_k", 2048}}}};
  EXPECT_EQ(eval(bad)["error"]["path"], "model.sparse_attention.index_heads");
}

// The indexer scores in fp8 in every run, so at long sequences a 16-bit
// run's model FLOPs outpace its 16-bit peak: MFU and HFU count the indexer's
// FLOPs at the fp8 peak (at the 16-bit one on a device without fp8, such
// as an A100 in an fp32 run), and stay at most 1.
TEST(Architectures, SparseAttentionIndexerCountsAtItsOwnPeakInUtilisation) {
  const Model v32 = parse_model("deepseek-v3.2", "model");
  const double seq = 131072, batch = 64;
  for (const auto& [system, precision] : {std::pair{"dgx-h100", "bf16"}, {"dgx-a100-80gb", "fp32"}}) {
    const json t = eval_ok({{"mode", "training"}, {"model", "deepseek-v3.2"}, {"system", system},
                            {"parallelism", {{"dp", 8}}},
                            {"training", {{"global_batch", batch}, {"micro_batch", 1}, {"seq_len", seq},
                                          {"precision", precision}}}})["training"];
    EXPECT_LE(t["hfu"].get<double>(), 1.0) << system;
    EXPECT_LE(t["mfu"].get<double>(), t["hfu"].get<double>()) << system;
    // MFU = model FLOPs / (time x GPUs x P), P weighing the indexer's FLOPs N
    // at the fast peak: P = F / ((F - N) / peak + N / fast).
    const Device d = parse_system(std::string(system), "system").device;
    const bool h100 = std::string(system) == "dgx-h100";
    const double peak = d.matmul_flops[static_cast<int>(h100 ? Precision::bf16 : Precision::fp32)];
    const double fast = d.matmul_flops[static_cast<int>(h100 ? Precision::fp8 : Precision::bf16)];
    const double F = t["flops"]["model_per_iteration"].get<double>();
    const double N = 3.0 * (v32.layers + v32.mtp_layers) * seq * indexer_pair_flops(v32) * batch * seq;
    ASSERT_LT(N, F);
    const double P = F / ((F - N) / peak + N / fast);
    EXPECT_NEAR(t["mfu"].get<double>(), F / (t["iteration_time_s"].get<double>() * 8 * P), 1e-9) << system;
  }
}

double iteration(const std::string& model, const std::string& precision, int seq, int tp) {
  const json r = eval_ok({{"mode", "training"}, {"model", model}, {"system", "dgx-b200"},
                          {"parallelism", {{"tp", tp}, {"dp", 8 / tp}, {"sp", tp > 1}}},
                          {"training", {{"global_batch", 512}, {"micro_batch", 1}, {"seq_len", seq},
                                        {"precision", precision}, {"recompute", "selective"}}}});
  return r["training"]["iteration_time_s"].get<double>();
}

TEST(Architectures, Fp4TrainingPaysWhereGemmsDominate) {
  // Large GEMMs, short sequence, no tensor parallelism: the FP4 GEMMs (2x the
  // fp8 peak) carry the step; the recipe's BF16 layers keep it well below 2x.
  const double fp8 = iteration("llama3.3-70b", "fp8", 2048, 1), nv = iteration("llama3.3-70b", "nvfp4", 2048, 1);
  const double mx = iteration("llama3.3-70b", "mxfp4", 2048, 1);
  EXPECT_GT(fp8 / nv, 1.2);
  EXPECT_LT(fp8 / nv, 1.6);
  EXPECT_LE(mx, nv);  // smaller scale factors (one byte per 32 instead of per 16)
  // A narrow model at a long sequence: attention (16-bit in every recipe) dominates.
  const double fp8_long = iteration("gpt-oss-20b", "fp8", 65536, 1), nv_long = iteration("gpt-oss-20b", "nvfp4", 65536, 1);
  EXPECT_LT(fp8_long / nv_long, 1.1);
  EXPECT_GT(fp8 / nv, fp8_long / nv_long);
}

TEST(Architectures, MtpAddsTrainingWorkAndMemory) {
  json s = {{"mode", "training"}, {"model", "deepseek-v2-lite"}, {"system", "dgx-h100"},
            {"parallelism", {{"tp", 1}, {"dp", 8}, {"ep", 8}}},
            {"training", {{"global_batch", 64}, {"micro_batch", 1}, {"seq_len", 4096}}}};
  const json base = eval_ok(s);
  s["model"] = {{"preset", "deepseek-v2-lite"}, {"mtp_layers", 1}};
  const json mtp = eval_ok(s);
  EXPECT_GT(mtp["training"]["iteration_time_s"].get<double>(), base["training"]["iteration_time_s"].get<double>());
  EXPECT_GT(mtp["training"]["memory_bytes"]["weights"].get<double>(), base["training"]["memory_bytes"]["weights"].get<double>());
  EXPECT_DOUBLE_EQ(mtp["model"]["parameters"].get<double>(), base["model"]["parameters"].get<double>());
  EXPECT_GT(mtp["model"]["parameters_mtp"].get<double>(), 0.0);
  EXPECT_FALSE(find_op(mtp, "mtp.lm_head", "fwd").is_null());
}

// Qwen3-8B (36 layers, 32 query and 8 KV heads of 128) trained at tp 2 on 8 H100, 4,096 tokens a micro-batch.
json qwen3_8b_at_tp2() {
  return {{"mode", "training"}, {"model", "qwen3-8b"}, {"system", "dgx-h100"},
          {"parallelism", {{"tp", 2}, {"dp", 4}}},
          {"training", {{"global_batch", 32}, {"micro_batch", 1}, {"seq_len", 4096}, {"recompute", "none"}}}};
}

// QK-Norm (Qwen3 report, arXiv 2505.09388 §2): an RMSNorm over each head's
// queries and keys.
TEST(Architectures, QkNormReadsAndKeepsEachHeadsQueriesAndKeys) {
  json s = qwen3_8b_at_tp2();
  const json with = eval_ok(s);
  s["model"] = {{"preset", "qwen3-8b"}, {"qk_norm", false}};
  const json without = eval_ok(s);
  const json op = counted_op(with, "attn.qk_norm", "fwd");
  ASSERT_FALSE(op.is_null());
  EXPECT_TRUE(counted_op(without, "attn.qk_norm", "fwd").is_null());
  EXPECT_FALSE(counted_op(with, "attn.qk_norm.bwd", "bwd").is_null());
  // At tp 2 a rank holds 16 query and 4 KV heads: 4096 x 20 x 128 elements read and written in 16 bits.
  const double elements = 4096.0 * 20 * 128;
  EXPECT_DOUBLE_EQ(op["bytes"]["hbm"].get<double>(), 2 * elements * 2);
  // Its inputs wait for the backward in each of the 36 layers (one micro-batch in flight at pp 1).
  const double kept = with["training"]["memory_bytes"]["activations"].get<double>() -
                      without["training"]["memory_bytes"]["activations"].get<double>();
  EXPECT_DOUBLE_EQ(kept, 36 * 2 * elements);
  // One weight of head_dim for the queries and one for the keys per layer.
  EXPECT_DOUBLE_EQ(with["model"]["parameters"].get<double>() - without["model"]["parameters"].get<double>(), 36 * 2 * 128);
  EXPECT_GT(with["training"]["iteration_time_s"].get<double>(), without["training"]["iteration_time_s"].get<double>());
  // MLA normalises its compressed latents instead.
  s["model"] = {{"preset", "deepseek-v2-lite"}, {"qk_norm", true}};
  EXPECT_EQ(eval(s).value("error", json::object()).value("path", std::string()), "model.qk_norm");
}

// Rotary embeddings (RoFormer, arXiv 2104.09864): in training a kernel reads
// and writes each rank's queries and keys; its backward rotates their
// gradients back with one read and one write. Learned absolute positions
// (GPT-3) have no such step, nor does serving (folded into the cache write).
TEST(Architectures, RotaryEmbeddingStreamsTheQueriesAndKeysOnce) {
  json s = qwen3_8b_at_tp2();
  const json rotary = eval_ok(s);
  s["model"] = {{"preset", "qwen3-8b"}, {"learned_positions", true}};
  const json learned = eval_ok(s);
  const json op = counted_op(rotary, "attn.rope", "fwd"), back = counted_op(rotary, "attn.rope.bwd", "bwd");
  ASSERT_FALSE(op.is_null());
  ASSERT_FALSE(back.is_null());
  EXPECT_TRUE(counted_op(learned, "attn.rope", "fwd").is_null());
  // At tp 2 a rank holds 16 query and 4 KV heads of 128: read and written in 16 bits.
  const double elements = 4096.0 * 20 * 128;
  EXPECT_DOUBLE_EQ(op["bytes"]["hbm"].get<double>(), 2 * elements * 2);
  EXPECT_DOUBLE_EQ(back["bytes"]["hbm"].get<double>(), 2 * elements * 2);
  EXPECT_EQ(op["count"].get<double>(), 36 * 8.0);  // 36 layers x 8 micro-batches
  EXPECT_EQ(op["bound"], "hbm");
  json serve = {{"mode", "inference"}, {"model", "qwen3-8b"}, {"system", "dgx-h100"},
                {"inference", {{"batch", 8}, {"input_tokens", 512}, {"output_tokens", 16}}}};
  EXPECT_TRUE(counted_op(eval_ok(serve), "attn.rope", "prefill").is_null());
}

TEST(Architectures, FormatsAndErrors) {
  auto err = [](const json& s) { return eval(s).value("error", json::object()).value("path", std::string()); };
  json s = {{"mode", "inference"}, {"model", "gpt-oss-20b"}, {"system", "dgx-b200"},
            {"inference", {{"batch", 1}, {"input_tokens", 512}, {"output_tokens", 16}, {"weight_precision", "mxfp4"}}}};
  const double mx = eval_ok(s)["inference"]["memory_bytes"]["weights"];
  s["inference"]["weight_precision"] = "nvfp4";
  EXPECT_GT(eval_ok(s)["inference"]["memory_bytes"]["weights"].get<double>(), mx);
  s["model"] = {{"preset", "gpt-oss-20b"}, {"attention", {{"window", 128}, {"chunk", 64}}}};
  EXPECT_EQ(err(s), "model.attention");
  s["model"] = {{"preset", "qwen3-8b"}, {"mla", {{"kv_lora_rank", 512}}}};
  EXPECT_EQ(err(s), "model.mla.qk_nope_head_dim");
  json t = {{"mode", "training"}, {"model", "qwen3-8b"}, {"system", "dgx-h100"},
            {"training", {{"global_batch", 8}, {"precision", "nvfp4"}}}};
  EXPECT_EQ(err(t), "training.precision");  // Hopper has no FP4 tensor cores
  t["training"] = {{"global_batch", 8}, {"precision", "mxfp8"}, {"fp8_recipe", "delayed"}};
  EXPECT_EQ(err(t), "training.fp8_recipe");
}

// The table of KV cache by layer type is the reported stage's: its bytes
// per sequence, times the sequences, are memory_bytes.kv_cache, whichever
// stage is the most loaded and with a draft head's layers beside them.
TEST(Architectures, KvCacheTableSumsToTheReportedCache) {
  int checked = 0;
  for (const char* model : {"qwen3-8b", "gemma3-27b", "deepseek-v3", "qwen3-next-80b-a3b", "llama4-scout"})
    for (int pp : {1, 2, 4})
      for (int draft : {0, 2}) {
        const json out = eval_ok({{"mode", "inference"}, {"model", model}, {"system", "gb200-nvl72"},
                                  {"parallelism", {{"tp", 2}, {"pp", pp}}},
                                  {"inference", {{"batch", 4}, {"input_tokens", 2048}, {"output_tokens", 256},
                                                 {"draft_tokens", draft}}}});
        double per_sequence = 0;
        for (const json& t : out["inference"]["kv_cache_by_layer_type"]) per_sequence += t["bytes_per_sequence"].get<double>();
        const double kv = out["inference"]["memory_bytes"]["kv_cache"].get<double>();
        EXPECT_NEAR(4 * per_sequence, kv, 1e-9 * kv) << model << " pp " << pp << " draft " << draft;
        ++checked;
      }
  EXPECT_EQ(checked, 30);
}

}  // namespace
}  // namespace llmcalc::test
