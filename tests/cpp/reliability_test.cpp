// Interruptions, checkpoints and restarts of a training run
// (core/src/sim/reliability.cpp; docs/sources.md [RL1]): goodput from the
// job's mean time between interruptions, the checkpoint's pause and the
// restart, at the best checkpoint interval unless one is given.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "test_util.h"

namespace llmcalc::test {
namespace {

// Llama 3.1 405B at 8k tokens, tp 8 x pp 16 x `dp` H100.
json llama405(long long dp, json reliability = nullptr) {
  json s = {{"mode", "training"},
            {"model", "llama3.1-405b"},
            {"system", "dgx-h100"},
            {"parallelism", {{"tp", 8}, {"pp", 16}, {"dp", dp}, {"sp", true}, {"pp_schedule", "interleaved"}, {"virtual_stages", 4}}},
            {"training", {{"global_batch", 2048}, {"micro_batch", 1}, {"seq_len", 8192}, {"recompute", "selective"}, {"tokens", 15.6e12}}}};
  if (!reliability.is_null()) s["reliability"] = reliability;
  return s;
}

// Daly 2006's expected wall time of one segment (work + checkpoint).
double daly_goodput(double interval, double ckpt, double restart, double mtbf) {
  return interval / (mtbf * std::exp(restart / mtbf) * std::expm1((interval + ckpt) / mtbf));
}

TEST(Reliability, DefaultsGiveLlama3ItsReportedFloorAt16kGpus) {
  // The default restart time is derived so that this run, on Llama 3's
  // 16,384 GPUs, trains 90% of the time (Dubey et al. 2024 §3.3.4: "higher
  // than 90% effective training time"); this checks that derivation holds.
  const json r = eval_ok(llama405(128))["training"]["reliability"];
  EXPECT_NEAR(r["mtbf_s"].get<double>(), 45566.0 * 3600 / 16384, 1e-6);
  // 14 bytes per parameter (16-bit weights, fp32 master, Adam's two moments) over 16,384 GPUs.
  EXPECT_NEAR(r["checkpoint_bytes_per_gpu"].get<double>() / (14 * 405.85e9 / 16384), 1.0, 1e-3);
  EXPECT_NEAR(r["checkpoint_s"].get<double>(), r["checkpoint_bytes_per_gpu"].get<double>() / 0.122e9, 1e-9);
  EXPECT_NEAR(r["goodput"].get<double>(), 0.90, 0.002);
  // Young's first-order optimum sqrt(2 c M) is close to the exact one at c << M.
  const double young = std::sqrt(2 * r["checkpoint_s"].get<double>() * r["mtbf_s"].get<double>());
  EXPECT_NEAR(r["checkpoint_interval_s"].get<double>() / young, 1.0, 0.05);
}

TEST(Reliability, TheBestIntervalBeatsAnyGivenOne) {
  const json best = eval_ok(llama405(128))["training"]["reliability"];
  const double interval = best["checkpoint_interval_s"].get<double>();
  for (double k : {0.1, 0.5, 2.0, 10.0}) {
    const json r = eval_ok(llama405(128, {{"checkpoint_interval_s", k * interval}}))["training"]["reliability"];
    EXPECT_NEAR(r["checkpoint_interval_s"].get<double>(), k * interval, 1e-6);
    EXPECT_LT(r["goodput"].get<double>(), best["goodput"].get<double>()) << k;
    EXPECT_NEAR(r["goodput"].get<double>(),
                daly_goodput(k * interval, r["checkpoint_s"].get<double>(), r["restart_s"].get<double>(), r["mtbf_s"].get<double>()),
                1e-12);
  }
}

TEST(Reliability, MoreGpusInterruptMoreOften) {
  double last = 1.0;
  for (long long dp : {1, 8, 64, 512}) {
    const json r = eval_ok(llama405(dp))["training"]["reliability"];
    const double g = r["goodput"].get<double>();
    EXPECT_LT(g, last) << dp;
    EXPECT_GT(g, 0) << dp;
    last = g;
  }
}

TEST(Reliability, TimeToTrainCountsTheLostTime) {
  const json t = eval_ok(llama405(128))["training"];
  const json& r = t["reliability"];
  EXPECT_NEAR(r["time_to_train_s"].get<double>(), t["time_to_train_s"].get<double>() / r["goodput"].get<double>(), 1e-3);
  EXPECT_NEAR(r["interruptions"].get<double>(), r["time_to_train_s"].get<double>() / r["mtbf_s"].get<double>(), 1e-9);
  // The GPUs are held while the job restarts: GPU-hours (and dollars) over the wall-clock time.
  EXPECT_NEAR(r["gpu_hours"].get<double>(), t["cost"]["to_train"]["gpu_hours"].get<double>() / r["goodput"].get<double>(), 1e-3);
  EXPECT_FALSE(r.contains("usd")) << "no price given";
  json priced = llama405(128);
  priced["cost"] = {{"gpu_hour_usd", 2}};
  const json p = eval_ok(priced)["training"]["reliability"];
  EXPECT_NEAR(p["usd"].get<double>(), 2 * p["gpu_hours"].get<double>(), 1e-3);
  // Without a token budget there is no run to count interruptions over.
  json s = llama405(128);
  s["training"].erase("tokens");
  const json q = eval_ok(s)["training"]["reliability"];
  EXPECT_FALSE(q.contains("time_to_train_s"));
  EXPECT_NEAR(q["goodput"].get<double>(), r["goodput"].get<double>(), 1e-12);
}

TEST(Reliability, InputsMoveGoodputTheirWay) {
  const double base = eval_ok(llama405(128))["training"]["reliability"]["goodput"].get<double>();
  auto goodput = [](const json& in) { return eval_ok(llama405(128, in))["training"]["reliability"]["goodput"].get<double>(); };
  EXPECT_GT(goodput({{"storage_GBps_per_gpu", 2.0}}), base);
  EXPECT_GT(goodput({{"restart_s", 60}}), base);
  EXPECT_LT(goodput({{"gpu_hours_per_interruption", 10000}}), base);
  // No restart and free checkpoints: nothing is lost.
  EXPECT_NEAR(goodput({{"restart_s", 0}, {"storage_GBps_per_gpu", 1e4}}), 1.0, 1e-3);
}

TEST(Reliability, LoraCheckpointsOnlyTheAdapters) {
  json s = {{"mode", "training"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"}, {"parallelism", {{"dp", 8}}},
            {"training", {{"global_batch", 64}, {"seq_len", 4096}, {"lora_rank", 16}}}};
  const json t = eval_ok(s)["training"];
  EXPECT_NEAR(t["reliability"]["checkpoint_bytes_per_gpu"].get<double>(), t["trainable_params"].get<double>() * 14 / 8, 1e-3);
}

TEST(Reliability, BadInputIsNamedAndHopelessRunsStayFinite) {
  const json unknown = eval(llama405(128, {{"mtbf", 1}}));
  ASSERT_TRUE(unknown.contains("error"));
  EXPECT_EQ(unknown["error"]["path"], "reliability.mtbf");
  EXPECT_EQ(eval(llama405(128, {{"restart_s", -1}}))["error"]["path"], "reliability.restart_s");
  EXPECT_EQ(eval(llama405(128, {{"storage_GBps_per_gpu", 0}}))["error"]["path"], "reliability.storage_GBps_per_gpu");
  // An interruption every few seconds and a slow restart: no progress, but finite figures.
  const json r = eval_ok(llama405(128, {{"gpu_hours_per_interruption", 1}, {"restart_s", 1e7}, {"storage_GBps_per_gpu", 1e-4}}))["training"]["reliability"];
  for (auto it = r.begin(); it != r.end(); ++it) EXPECT_TRUE(std::isfinite(it.value().get<double>())) << it.key();
  EXPECT_GE(r["goodput"].get<double>(), 0);
  EXPECT_LT(r["goodput"].get<double>(), 1e-6);
  EXPECT_FALSE(r.contains("time_to_train_s")) << "no progress: no time to train";
  const json w = eval_ok(llama405(128, {{"gpu_hours_per_interruption", 1}, {"restart_s", 1e7}}))["warnings"];
  EXPECT_NE(w.dump().find("interruptions leave 0% of the wall-clock time training"), std::string::npos) << w.dump();
}

// Every corner of the inputs' ranges, on one GPU and on a million: finite figures.
TEST(Reliability, EveryCornerOfTheRangesStaysFinite) {
  for (long long dp : {1LL, 1LL << 20})
    for (double hours : {1.0, 1e9})
      for (double storage : {1e-4, 1e4})
        for (double restart : {0.0, 1e7})
          for (double interval : {0.0, 1e-3, 1e9}) {
            json s = {{"mode", "training"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"}, {"parallelism", {{"dp", dp}}},
                      {"training", {{"global_batch", dp}, {"seq_len", 1024}, {"tokens", 1e12}}},
                      {"reliability", {{"gpu_hours_per_interruption", hours}, {"storage_GBps_per_gpu", storage},
                                       {"restart_s", restart}, {"checkpoint_interval_s", interval}}}};
            const json out = eval_ok(s);
            if (!out.contains("training")) continue;
            const json& r = out["training"]["reliability"];
            for (auto it = r.begin(); it != r.end(); ++it)
              EXPECT_TRUE(std::isfinite(it.value().get<double>())) << it.key() << " " << s["reliability"].dump();
            EXPECT_GE(r["goodput"].get<double>(), 0);
            EXPECT_LE(r["goodput"].get<double>(), 1);
          }
}

}  // namespace
}  // namespace llmcalc::test
