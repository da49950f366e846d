// Sweeps: shape of the output, per-point errors, and monotone physics.
#include "test_util.h"

namespace llmcalc::test {
namespace {

json sweep(const json& in) {
  json out = json::parse(sweep_json(in.dump()));
  EXPECT_FALSE(out.contains("error")) << out.dump();
  return out["sweep"];
}

json training_base() {
  return {{"mode", "training"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"},
          {"parallelism", {{"tp", 2}, {"dp", 8}, {"sp", true}}},
          {"training", {{"global_batch", 64}, {"seq_len", 4096}}}};
}

std::vector<double> numbers(const json& a) {
  std::vector<double> v;
  for (const json& x : a) v.push_back(x.get<double>());
  return v;
}

// More HBM bandwidth is never slower, for training and for decode.
TEST(Sweep, HbmBandwidthNeverSlower) {
  json in = training_base();
  in["sweep"] = {{"input", "system.device.memory.hbm.bandwidth_GBps"}, {"from", 1000}, {"to", 16000}, {"steps", 9},
                 {"scale", "log"}, {"outputs", {"training.iteration_time_s"}},
                 {"series", {{"system", {"dgx-a100-80gb", "dgx-h100"}}}}};
  const json s = sweep(in);
  ASSERT_EQ(s["x"].size(), 9u);
  ASSERT_EQ(s["series"].size(), 2u);
  EXPECT_EQ(s["series"][0]["name"], "dgx-a100-80gb");
  for (const json& ser : s["series"]) {
    const auto t = numbers(ser["values"]["training.iteration_time_s"]);
    for (size_t i = 1; i < t.size(); ++i) EXPECT_LE(t[i], t[i - 1]);
  }
  json inf = {{"mode", "inference"}, {"model", "llama3.1-70b"}, {"system", "dgx-h100"}, {"parallelism", {{"tp", 4}}},
              {"inference", {{"batch", 16}}}};
  inf["sweep"] = {{"input", "system.device.memory.hbm.bandwidth_GBps"}, {"from", 1000}, {"to", 8000}, {"steps", 8},
                  {"outputs", {"inference.tpot_s", "inference.output_tokens_per_s"}}};
  const json si = sweep(inf);
  const auto tpot = numbers(si["series"][0]["values"]["inference.tpot_s"]);
  const auto tps = numbers(si["series"][0]["values"]["inference.output_tokens_per_s"]);
  for (size_t i = 1; i < tpot.size(); ++i) {
    EXPECT_LE(tpot[i], tpot[i - 1]);
    EXPECT_GE(tps[i], tps[i - 1]);
  }
}

// Peak compute and network bandwidth: never slower either; a larger global
// batch (same plan) never takes less time per iteration.
TEST(Sweep, MonotoneInComputeNetworkAndBatch) {
  const std::vector<std::pair<std::string, int>> cases = {
      {"system.device.matmul_tflops.bf16", -1}, {"system.network.nvlink.bandwidth_GBps", -1},
      {"system.network.infiniband.bandwidth_GBps", -1}, {"training.global_batch", 1}};
  for (const auto& [path, sign] : cases) {
    json in = training_base();
    const bool batch = path == "training.global_batch";
    in["sweep"] = {{"input", path}, {"from", batch ? 64 : 100}, {"to", batch ? 1024 : 2000}, {"steps", 5},
                   {"outputs", {"training.iteration_time_s"}}};
    if (batch) in["sweep"]["scale"] = "log";
    const auto t = numbers(sweep(in)["series"][0]["values"]["training.iteration_time_s"]);
    ASSERT_EQ(t.size(), 5u) << path;
    for (size_t i = 1; i < t.size(); ++i) EXPECT_GE(sign * (t[i] - t[i - 1]), 0) << path << " at " << i;
  }
}

TEST(Sweep, IntegerInputsAndPerPointErrors) {
  json in = training_base();
  // dp 1..16 at global batch 64: every point valid; tp 1..8 with 32 heads: 3, 5, 6, 7 are not.
  in["sweep"] = {{"input", "parallelism.tp"}, {"from", 1}, {"to", 8}, {"steps", 8},
                 {"outputs", {"training.iteration_time_s", "training.no_such_output"}}};
  const json s = sweep(in);
  EXPECT_EQ(s["x"], json({1, 2, 3, 4, 5, 6, 7, 8}));
  const json& v = s["series"][0]["values"]["training.iteration_time_s"];
  EXPECT_TRUE(v[0].is_number());
  EXPECT_TRUE(v[2].is_null());  // tp=3 does not divide 32 heads
  bool tp_error = false;
  for (const json& e : s["series"][0]["errors"]) tp_error |= e["path"] == "parallelism.tp";
  EXPECT_TRUE(tp_error);
}

TEST(Sweep, InvalidSectionIsAnError) {
  json in = training_base();
  in["sweep"] = {{"input", "parallelism.dp"}, {"from", 1}, {"to", 4}, {"outputs", {"training.iteration_time_s"}},
                 {"bogus", 1}};
  EXPECT_TRUE(json::parse(sweep_json(in.dump())).contains("error"));
  in["sweep"].erase("bogus");
  in["sweep"]["scale"] = "log";
  in["sweep"]["from"] = 0;
  EXPECT_EQ(json::parse(sweep_json(in.dump()))["error"]["path"], "sweep.from");
  in.erase("sweep");
  EXPECT_TRUE(json::parse(sweep_json(in.dump())).contains("error"));
}

}  // namespace
}  // namespace llmcalc::test
