// Cost, energy and CO2 (core/src/sim/energy_cost.cpp, docs/sources.md [CE6]):
// the figures follow from the modelled time, the GPU count, the node power of
// the preset and the cost inputs; dollars only with a price.
#include <gtest/gtest.h>

#include "test_util.h"

namespace llmcalc::test {
namespace {

json training(json cost) {
  json s = {{"mode", "training"},
            {"model", "llama3.1-8b"},
            {"system", "dgx-h100"},
            {"parallelism", {{"dp", 8}}},
            {"training", {{"global_batch", 64}, {"seq_len", 8192}, {"tokens", 15e12}}}};
  if (!cost.is_null()) s["cost"] = cost;
  return s;
}

TEST(EnergyCost, TrainingEnergyIsGpuHoursTimesWallPower) {
  const json t = eval_ok(training(nullptr))["training"];
  const double iter = t["iteration_time_s"].get<double>();
  const json& c = t["cost"];
  // 8 GPUs x the iteration; wall power = 0.75 x 10.2 kW / 8 x PUE 1.25 (DGX H100, defaults).
  const double watts = 0.75 * 1275 * 1.25;
  EXPECT_NEAR(c["power_W_per_gpu"].get<double>(), watts, 1e-9);
  EXPECT_NEAR(c["per_iteration"]["gpu_hours"].get<double>(), 8 * iter / 3600, 1e-12);
  EXPECT_NEAR(c["per_iteration"]["kwh"].get<double>(), 8 * iter * watts / 3.6e6, 1e-12);
  EXPECT_NEAR(c["per_iteration"]["co2_kg"].get<double>(), c["per_iteration"]["kwh"].get<double>() * 0.481, 1e-12);
  // A million tokens is 1e6 / (64 x 8192) iterations; the run 15T / (64 x 8192).
  const double per_iter_kwh = c["per_iteration"]["kwh"].get<double>();
  EXPECT_NEAR(c["per_million_tokens"]["kwh"].get<double>(), per_iter_kwh * 1e6 / (64 * 8192.0), 1e-9);
  EXPECT_NEAR(c["to_train"]["kwh"].get<double>() / per_iter_kwh, 15e12 / (64 * 8192.0), 1e-3);
  EXPECT_FALSE(c["per_iteration"].contains("usd")) << "no price given: no dollars";
}

TEST(EnergyCost, PriceAndGridInputsScaleTheirFigures) {
  const json a = eval_ok(training({{"gpu_hour_usd", 2.5}}))["training"]["cost"]["to_train"];
  EXPECT_NEAR(a["usd"].get<double>(), 2.5 * a["gpu_hours"].get<double>(), 1e-6);
  const json b = eval_ok(training({{"gpu_hour_usd", 2.5}, {"pue", 1.1}, {"g_co2_per_kwh", 56}}))["training"]["cost"]["to_train"];
  EXPECT_NEAR(b["kwh"].get<double>() / a["kwh"].get<double>(), 1.1 / 1.25, 1e-9);
  EXPECT_NEAR(b["co2_kg"].get<double>(), b["kwh"].get<double>() * 0.056, 1e-6);
  EXPECT_NEAR(b["usd"].get<double>(), a["usd"].get<double>(), 1e-6) << "the GPU-hour price does not depend on power";
}

TEST(EnergyCost, ServingEnergyPerTokenIsReplicaPowerOverThroughput) {
  const json s = {{"mode", "inference"}, {"model", "llama3.1-70b"}, {"system", "dgx-h100"},
                  {"parallelism", {{"tp", 4}}}, {"inference", {{"batch", 32}, {"input_tokens", 1024}, {"output_tokens", 256}}},
                  {"cost", {{"gpu_hour_usd", 3}}}};
  const json i = eval_ok(s)["inference"];
  const double tps = i["output_tokens_per_s"].get<double>();
  const json& c = i["cost"];
  const double watts = 0.75 * 1275 * 1.25;
  EXPECT_NEAR(c["joules_per_output_token"].get<double>(), 4 * watts / tps, 1e-9);
  EXPECT_NEAR(c["per_million_output_tokens"]["usd"].get<double>(), 4 * 3.0 * 1e6 / tps / 3600, 1e-9);
}

TEST(EnergyCost, DeviceWithoutNodePowerUsesTheDgxRatioToItsTdp) {
  // gb300-nvl72 gives no node power: 1400 W TDP x 10.2 kW / (8 x 700 W).
  json s = training(nullptr);
  s["system"] = "gb300-nvl72";
  const json c = eval_ok(s)["training"]["cost"];
  EXPECT_NEAR(c["power_W_per_gpu"].get<double>(), 0.75 * 1400 * 10200.0 / 5600 * 1.25, 1e-9);
}

TEST(EnergyCost, OutOfRangeInputsAreErrorsWithTheirPath) {
  for (const auto& [key, value] : std::vector<std::pair<std::string, double>>{{"pue", 0.5}, {"gpu_hour_usd", -1}, {"power_fraction", 0}}) {
    const json out = eval(training({{key, value}}));
    ASSERT_TRUE(out.contains("error")) << key;
    EXPECT_EQ(out["error"]["path"], "cost." + key);
  }
  const json out = eval(training({{"price", 2}}));
  ASSERT_TRUE(out.contains("error"));
  EXPECT_EQ(out["error"]["path"], "cost.price");
}

}  // namespace
}  // namespace llmcalc::test
