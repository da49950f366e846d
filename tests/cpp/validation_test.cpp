// The public validation cases (tests/validation/public, copied from the
// project's shared measurements) stay within the accuracy the issues set;
// the kernel timings measured on an H200 (tests/validation/device) stay
// within the bounds stated in the README.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "llmcalc/api.h"
#include "llmcalc/validate.h"

namespace llmcalc {
namespace {

ValidationReport run_cases(const std::string& folder) {
  std::vector<ValidationRow> rows;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(std::string(LLMCALC_TEST_DATA) + "/validation/" + folder))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f);
    std::stringstream ss;
    ss << in.rdbuf();
    auto r = validate_case(ss.str(), f.string());
    rows.insert(rows.end(), r.begin(), r.end());
  }
  return summarize(rows);
}

const ValidationReport& report(const std::string& folder = "public") {
  static std::map<std::string, ValidationReport> cache;
  auto it = cache.find(folder);
  if (it == cache.end()) it = cache.emplace(folder, run_cases(folder)).first;
  return it->second;
}

// Mean and max |error| over the rows whose source and metric start with
// `source` and `metric` (and whose id contains none of `skip_ids`).
std::pair<double, double> errors(const std::string& source, const std::string& metric, int* n = nullptr,
                                 const std::string& folder = "public", const std::vector<std::string>& skip_ids = {}) {
  double sum = 0, mx = 0;
  int count = 0;
  for (const auto& row : report(folder).rows) {
    if (row.skipped || row.source.rfind(source, 0) != 0 || row.metric.rfind(metric, 0) != 0) continue;
    bool skip = false;
    for (const auto& id : skip_ids) skip = skip || row.id.find(id) != std::string::npos;
    if (skip) continue;
    sum += std::fabs(row.error);
    mx = std::max(mx, std::fabs(row.error));
    ++count;
  }
  if (n) *n = count;
  return {count ? sum / count : 1e9, mx};
}

TEST(Validation, EveryCaseEvaluates) {
  ASSERT_GE(report().rows.size(), 30u);
  for (const auto& row : report().rows) EXPECT_FALSE(row.skipped) << row.id << ": " << row.note;
}

TEST(Validation, KorthikantiFigure1ActivationMemory) {
  int n = 0;
  auto [mean, max] = errors("Korthikanti et al. 2022", "training.memory_bytes.activations", &n);
  EXPECT_EQ(n, 8);
  EXPECT_LE(mean, 0.03);
  EXPECT_LE(max, 0.06);
}

TEST(Validation, KorthikantiFigure1ModelStates) {
  auto [mean, max] = errors("Korthikanti et al. 2022",
                            "training.memory_bytes.weights+training.memory_bytes.gradients+training.memory_bytes.optimizer");
  EXPECT_LE(max, 0.10);  // the figure leaves out the first stage's embedding; we count it
  (void)mean;
}

TEST(Validation, KorthikantiTable5IterationTime) {
  int n = 0;
  auto [mean, max] = errors("Korthikanti et al. 2022", "training.iteration_time_s", &n);
  EXPECT_EQ(n, 8);
  EXPECT_LE(mean, 0.03);
  EXPECT_LE(max, 0.07);
}

// The Megatron/NeMo rows of the DGX Cloud tables; its JAX FSDP rows
// (MaxText, PaxML) are bounded with the FSDP regime below.
TEST(Validation, DgxCloudH100IterationTime) {
  int n = 0;
  auto [mean, max] = errors("NVIDIA DGX Cloud", "training.iteration_time_s", &n, "public", {"maxtext", "paxml"});
  EXPECT_GE(n, 6);
  EXPECT_LE(mean, 0.06);
  EXPECT_LE(max, 0.13);
}

// FSDP / ZeRO-3 without model parallelism (issue 12). Bounds are what the
// model reaches today with every scenario at its defaults (best attention
// kernel, 16-bit weight gathers, every block recomputed where a plan given
// without recompute overflows): they guard against regressions, not the
// issue's 15% target. PaxML stays too fast (bias < 0).
TEST(Validation, FsdpRegimeIterationTime) {
  int n = 0;
  auto [mpt_mean, mpt_max] = errors("MosaicML llm-foundry", "training.iteration_time_s", &n);
  EXPECT_EQ(n, 4);
  EXPECT_LE(mpt_mean, 0.29);
  EXPECT_LE(mpt_max, 0.43);
  double sum = 0, mx = 0;
  int jax = 0;
  for (const auto& row : report().rows)
    if (!row.skipped && (row.id.find("maxtext") != std::string::npos || row.id.find("paxml") != std::string::npos)) {
      if (row.id.find("paxml") != std::string::npos) EXPECT_LT(row.error, 0.0) << row.id;
      sum += std::fabs(row.error);
      mx = std::max(mx, std::fabs(row.error));
      ++jax;
    }
  EXPECT_EQ(jax, 3);
  EXPECT_LE(sum / jax, 0.20);  // MaxText 70B and PaxML 175B overflow memory without recompute
  EXPECT_LE(mx, 0.31);
  auto [zero3, zero3_max] = errors("Narayanan et al. 2021, Table 2", "training.iteration_time_s", &n);
  EXPECT_EQ(n, 1);
  EXPECT_LE(zero3, 0.37);
  (void)zero3_max;
}

// MoE and fp8 training (issue 12): Megatron-Bridge MoE rows (GPT-OSS 120B,
// Qwen3-235B-A22B with parallel folding), fp8 Llama 3.1 405B on GB200, and
// the DGX Cloud Grok-1 recipe. Bounds are what the model reaches today; the
// issue's target is 15% mean and 40% max per family. Qwen3-30B-A3B on 8 B200
// (NeMo 26.02) is host-bound (its expert GEMMs are shorter than their
// launches) and still 45% too fast; it is only held from getting worse.
// Qwen3-235B is the 25.11 maximum (20% slow: its all-to-all over InfiniBand
// runs unhidden).
TEST(Validation, MoeAndFp8Training) {
  int n = 0;
  auto [mb_mean, mb_max] = errors("NVIDIA Megatron-Bridge performance summary (NeMo 25.11", "training.iteration_time_s", &n);
  EXPECT_EQ(n, 3);
  EXPECT_LE(mb_mean, 0.14);
  EXPECT_LE(mb_max, 0.21);
  auto [grok_mean, grok_max] = errors("NVIDIA DGX Cloud Benchmarking, Grok-1", "training.iteration_time_s", &n);
  EXPECT_EQ(n, 1);
  EXPECT_LE(grok_max, 0.15);
  (void)grok_mean;
  auto [q_mean, q_max] = errors("NVIDIA Megatron-Bridge performance summary (NeMo 26.02", "training.iteration_time_s", &n);
  EXPECT_EQ(n, 1);
  EXPECT_LE(q_max, 0.46);
  (void)q_mean;
}

// Inference, per source family. The bounds are what the model reaches today
// (issue 12's target is 15% mean / 40% max per family): gpt-fast and the
// peak-throughput table meet it (per-query-head decode attention, the legacy
// 16-bit MoE GEMM); the low-latency table's mean does not yet (Llama 2 7B at
// 128 prompt tokens is 33% too fast: per-request runtime costs are missing).
TEST(Validation, InferenceCases) {
  int n = 0;
  errors("", "inference.", &n);
  ASSERT_GE(n, 16);
  auto [gf_mean, gf_max] = errors("pytorch-labs/gpt-fast", "inference.tpot_s", &n);
  EXPECT_EQ(n, 4);
  EXPECT_LE(gf_mean, 0.12);
  EXPECT_LE(gf_max, 0.25);  // int4 at the default group size 128 (the run used 32)
  auto [ll_mean, ll_max] = errors("NVIDIA TensorRT-LLM \"Performance of TensorRT-LLM\" Low Latency", "inference.ttft_s", &n);
  EXPECT_EQ(n, 4);
  EXPECT_LE(ll_mean, 0.16);
  EXPECT_LE(ll_max, 0.34);
  auto [pt_mean, pt_max] = errors("NVIDIA TensorRT-LLM \"Performance of TensorRT-LLM\" Peak Throughput",
                                  "inference.output_tokens_per_s", &n);
  EXPECT_EQ(n, 7);
  EXPECT_LE(pt_mean, 0.08);
  EXPECT_LE(pt_max, 0.19);
}

// Kernel timings on an H200 and an H100 (tests/validation/device): one metric
// per kernel class, each prefix-matched, so "kernel.gemm.bf16" alone is the
// large GEMMs.
std::pair<double, double> kernel_errors(const std::string& metric, int* n, const std::string& gpu = "H200") {
  return errors(gpu + " kernels", metric, n, "device");
}

TEST(KernelValidation, EveryKernelEvaluates) {
  ASSERT_GE(report("device").rows.size(), 50u);
  for (const auto& row : report("device").rows) EXPECT_FALSE(row.skipped) << row.id << ": " << row.note;
}

TEST(KernelValidation, LargeGemms) {
  int n = 0;
  // Prefix "kernel.gemm.fp8" and the exact large-bf16 rows (skinny ones are separate).
  auto [fp8_mean, fp8_max] = kernel_errors("kernel.gemm.fp8", &n);
  EXPECT_GE(n, 6);
  EXPECT_LE(fp8_mean, 0.04);
  EXPECT_LE(fp8_max, 0.06);
  for (const std::string gpu : {"h200", "h100"}) {
    double sum = 0;
    int count = 0;
    for (const auto& row : report("device").rows) {
      if (row.id.rfind(gpu, 0) != 0 || row.metric != "kernel.gemm.bf16" || row.id.find("square 1024") != std::string::npos)
        continue;
      // GPT-3's qkv (2048 x 4608 x 12288) is the outlier on both: +10% (H200), +14% (H100)
      EXPECT_LE(std::fabs(row.error), 0.15) << row.id;
      sum += std::fabs(row.error);
      ++count;
    }
    EXPECT_GE(count, 20) << gpu;
    // The H100/H200 matmul ceilings were set on the H200 rows; the H100 rows,
    // timed later, check them on the other part.
    EXPECT_LE(sum / count, 0.04) << gpu;
  }
  auto [h100_fp8_mean, h100_fp8_max] = kernel_errors("kernel.gemm.fp8", &n, "H100");
  EXPECT_EQ(n, 6);
  EXPECT_LE(h100_fp8_mean, 0.04);
  EXPECT_LE(h100_fp8_max, 0.06);
}

// The H100's MoE and weight-only kernels: torch._grouped_mm over 4-128 local
// experts at 16-4096 rows each (Qwen3-30B-A3B, GPT-OSS 120B, Mixtral shapes)
// and tinygemm's int4 GEMV at batch 1. The ridge exponent was set on these
// rows with the skinny ones, the int4 stream on the four Llama-2-70B GEMVs.
TEST(KernelValidation, GroupedGemmsAndInt4Gemv) {
  int n = 0;
  auto [grouped_mean, grouped_max] = kernel_errors("kernel.gemm.grouped.bf16", &n, "H100");
  EXPECT_EQ(n, 50);
  EXPECT_LE(grouped_mean, 0.08);
  EXPECT_LE(grouped_max, 0.35);
  EXPECT_LE(kernel_errors("kernel.gemm.bf16.skinny", &n, "H100").first, 0.08);
  EXPECT_EQ(n, 35);
  // ".m16" rows are a separate metric (tinygemm at 16 rows: 3.4x its batch-1
  // time, which the model does not capture).
  double sum = 0;
  int count = 0;
  for (const auto& row : report("device").rows) {
    if (row.metric != "kernel.gemm.int4") continue;
    EXPECT_LE(std::fabs(row.error), 0.45) << row.id;  // Llama-2-7B's 4096 x 4096: -39%, fixed costs
    sum += std::fabs(row.error);
    ++count;
  }
  EXPECT_EQ(count, 8);
  EXPECT_LE(sum / count, 0.15);
}

TEST(KernelValidation, DecodeGemmsAttentionAndNorms) {
  int n = 0;
  EXPECT_LE(kernel_errors("kernel.gemm.bf16.skinny", &n).first, 0.20);
  EXPECT_GE(n, 15);
  EXPECT_LE(kernel_errors("kernel.attention.fwd", &n).first, 0.12);
  EXPECT_LE(kernel_errors("kernel.attention.bwd", &n).first, 0.12);
  // The norm and activation rates were set on these rows (zero mean signed error).
  EXPECT_LE(kernel_errors("kernel.elementwise", &n).first, 0.12);
  EXPECT_EQ(n, 6);
}

// PyTorch's FlashAttention-2 kernels against the "fa2" generation's table
// (FlashAttention-3 paper's 35% on H100; not fitted on these timings).
TEST(KernelValidation, FlashAttention2Generation) {
  int n = 0;
  EXPECT_LE(kernel_errors("kernel.attention.fa2.fwd", &n).first, 0.06);
  EXPECT_EQ(n, 4);
  EXPECT_LE(kernel_errors("kernel.attention.fa2.bwd", &n).first, 0.06);
  EXPECT_EQ(n, 3);
}

// Results quote the accuracy of their regime from the committed table
// (core/presets/validation/accuracy.json); it must be what the published runs
// give today, or the page would quote stale figures.
TEST(Accuracy, CommittedTableIsCurrent) {
  std::ifstream in(std::string(LLMCALC_TEST_DATA) + "/../core/presets/validation/accuracy.json");
  ASSERT_TRUE(in.good());
  const nlohmann::json committed = nlohmann::json::parse(in);
  const nlohmann::json fresh = nlohmann::json::parse(report_accuracy(report()));
  EXPECT_EQ(committed, fresh) << "the model's errors changed: run scripts/update-golden.sh";
  // Every scenario row falls in a regime; the table covers each row once.
  int rows = 0, covered = 0;
  for (const auto& row : report().rows)
    if (!row.skipped) {
      ++rows;
      EXPECT_FALSE(row.regime.empty()) << row.id;
    }
  for (const auto& [id, regime] : fresh.at("regimes").items())
    for (const auto& m : regime.at("metrics")) {
      covered += m.at("cases").get<int>();
      EXPECT_EQ(m.at("runs").size(), m.at("cases").get<size_t>()) << id;
    }
  EXPECT_EQ(covered, rows);
}

// The published-runs study reruns the cases embedded in the library: they
// must be the files of tests/validation/public, with the errors those give.
TEST(Validation, PublishedRunsStudyRerunsEveryPublicCase) {
  const nlohmann::json s = nlohmann::json::parse(study_json("published-runs"));
  ASSERT_FALSE(s.contains("error")) << s.dump().substr(0, 300);
  const ValidationReport& files = report();
  const nlohmann::json& rows = s.at("rows");
  ASSERT_EQ(rows.size(), files.rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const ValidationRow& f = files.rows[i];
    EXPECT_EQ(rows[i].at("id"), f.id);
    EXPECT_EQ(rows[i].at("metric"), f.metric);
    EXPECT_DOUBLE_EQ(rows[i].at("error").get<double>(), f.error) << f.id;
    EXPECT_FALSE(rows[i].at("kind_label").get<std::string>().empty()) << f.id;
  }
  // The sources weigh alike in the overall figure.
  ASSERT_EQ(s.at("groups").size(), files.groups.size());
  double sum = 0;
  for (const ValidationGroup& g : files.groups) sum += g.mean_abs_error;
  const nlohmann::json& overall = s.at("overall");
  EXPECT_NEAR(overall.at("mean_of_group_means").get<double>(), sum / static_cast<double>(files.groups.size()), 1e-12);
  EXPECT_EQ(overall.at("cases").get<size_t>(), files.rows.size());
  // Per kind of run: each case counted once, with the figures results quote.
  size_t kind_cases = 0;
  for (const nlohmann::json& k : s.at("kinds")) {
    kind_cases += k.at("cases").get<size_t>();
    EXPECT_FALSE(k.at("kind_label").get<std::string>().empty());
  }
  EXPECT_EQ(kind_cases, files.rows.size());
  // The text is `llmcalc validate`'s report.
  EXPECT_NE(study_text("published-runs").find(report_text(files).substr(0, 200)), std::string::npos);
  const nlohmann::json bad = nlohmann::json::parse(study_request_json(R"({"name": "published-runs", "params": {"x": 1}})"));
  ASSERT_TRUE(bad.contains("error"));
  EXPECT_EQ(bad["error"]["path"], "params");
}

}  // namespace
}  // namespace llmcalc
