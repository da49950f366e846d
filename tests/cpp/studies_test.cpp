// Studies: every one runs, gives finite numbers, and the physics holds.
#include "studies.h"
#include "test_util.h"

namespace llmcalc::test {
namespace {

json study(const std::string& name) {
  json out = json::parse(study_json(name));
  EXPECT_FALSE(out.contains("error")) << out.dump().substr(0, 400);
  EXPECT_FALSE(study_text(name).empty());
  return out;
}

TEST(Studies, GpuGenerations) {
  const json r = study("gpu-generations");
  ASSERT_GE(r["generations"].size(), 4u);
  const json& steps = r["decomposition"];
  ASSERT_EQ(steps.size(), 8u);  // baseline, six hardware factors, fp8 -> nvfp4
  double prev = 0;
  for (const json& s : steps) {
    ASSERT_TRUE(s["fits"].get<bool>()) << s.dump();
    const double speedup = s["speedup"].get<double>();
    EXPECT_TRUE(std::isfinite(speedup) && speedup > 0);
    EXPECT_GE(speedup, prev * (1 - 1e-9)) << s["step"];  // every factor helps or is neutral
    prev = speedup;
  }
  EXPECT_GT(prev, 3.0);  // GB200 fp4 vs A100 bf16
  // fp4 helps, but less than the 2x of its peak: only the linear layers'
  // GEMMs run in fp4, with quantisation costs, and the rest stays.
  const double fp8 = steps[6]["speedup"].get<double>(), fp4 = steps[7]["speedup"].get<double>();
  EXPECT_GT(fp4, fp8);
  EXPECT_LT(fp4, 2 * fp8);
  bool nvfp4_row = false;
  for (const json& g : r["generations"]) nvfp4_row |= g["step"].get<std::string>().find("nvfp4") != std::string::npos;
  EXPECT_TRUE(nvfp4_row);
}

TEST(Studies, DramScaling) {
  const json r = study("dram-scaling");
  const json& rows = r["rows"];
  // One row per HBM generation of the technology data (HBM2 ... HBM4).
  ASSERT_EQ(rows.size(), json::parse(presets_json())["technology"]["technology"]["hbm"].size());
  ASSERT_GE(rows.size(), 4u);
  for (size_t i = 1; i < rows.size(); ++i) {
    EXPECT_LT(rows[i]["tpot_s_batch1"].get<double>(), rows[i - 1]["tpot_s_batch1"].get<double>());
    EXPECT_GE(rows[i]["max_batch"].get<long long>(), rows[i - 1]["max_batch"].get<long long>());
  }
}

// Technology nodes: every node's derived device runs both workloads; the
// physics the engine encodes shows (density buys SMs; HBM4's power budget
// makes the 2 nm die power-limited; decode time falls with HBM bandwidth).
TEST(Studies, TechnologyNodes) {
  const json r = study("technology-nodes");
  const json& rows = r["rows"];
  ASSERT_EQ(rows.size(), 7u);
  for (size_t i = 0; i < rows.size(); ++i) {
    const json& x = rows[i];
    EXPECT_TRUE(x["training"]["fits"].get<bool>()) << x["node"];
    EXPECT_GT(x["inference"]["tpot_s"].get<double>(), 0);
    if (i == 0) continue;
    EXPECT_GT(x["sm_count"].get<int>(), rows[i - 1]["sm_count"].get<int>());
    if (x["hbm_Bps"].get<double>() > rows[i - 1]["hbm_Bps"].get<double>() && x["inference"]["bound"]["decode"] == "hbm")
      EXPECT_LT(x["inference"]["tpot_s"].get<double>(), rows[i - 1]["inference"]["tpot_s"].get<double>()) << x["node"];
  }
  EXPECT_EQ(rows[2]["node"], "5nm");
  EXPECT_FALSE(rows[2]["power_limited"].get<bool>());  // the H100 anchor itself
  EXPECT_TRUE(rows[4]["power_limited"].get<bool>());
  // 5 nm reproduces the H100 that calibrated it: ~989 TFLOP/s.
  EXPECT_NEAR(rows[2]["bf16_flops"].get<double>() / 1e12, 989.4, 10);
}

// The technology-nodes study takes a budget: more power never slows a node,
// and a budget error names its key under "params".
TEST(Studies, TechnologyNodesWithABudget) {
  const json base = study("technology-nodes");
  const json more = json::parse(study_request_json(R"({"name":"technology-nodes","params":{"tdp_W":1000}})"));
  ASSERT_FALSE(more.contains("error")) << more.dump().substr(0, 300);
  EXPECT_EQ(more["budget"]["tdp_W"], 1000);
  for (size_t i = 0; i < base["rows"].size(); ++i) {
    EXPECT_GE(more["rows"][i]["bf16_flops"].get<double>(), base["rows"][i]["bf16_flops"].get<double>() * (1 - 1e-12));
    EXPECT_LE(more["rows"][i]["training"]["iteration_time_s"].get<double>(),
              base["rows"][i]["training"]["iteration_time_s"].get<double>() * 1.02);  // plans may differ
  }
  const json bad = json::parse(study_request_json(R"({"name":"technology-nodes","params":{"tdp_W":"x"}})"));
  EXPECT_EQ(bad["error"]["path"], "params.tdp_W");
  EXPECT_EQ(json::parse(study_request_json(R"({"name":"technology-nodes","params":{"node":"3nm"}})"))["error"]["path"], "params.node");
  EXPECT_EQ(json::parse(study_request_json(R"({"name":"dram-scaling","params":{"tdp_W":1}})"))["error"]["path"], "params");
  EXPECT_TRUE(json::parse(study_request_json(R"({"name":"technology-nodes","extra":1})")).contains("error"));
}

TEST(Studies, InferenceBoundedness) {
  const json r = study("inference-boundedness");
  ASSERT_EQ(r["systems"].size(), 4u);
  for (const json& s : r["systems"]) {
    EXPECT_GT(s["ridges"]["hbm"].get<double>(), 0);
    EXPECT_EQ(s["bound"]["decode"], "hbm");  // decode GEMVs stream weights
    for (const json& op : s["ops"])
      for (auto it = op["intensity"].begin(); it != op["intensity"].end(); ++it)
        EXPECT_TRUE(std::isfinite(it.value().get<double>()));
  }
  EXPECT_TRUE(json::parse(study_json("nope")).contains("error"));
}

}  // namespace
}  // namespace llmcalc::test
