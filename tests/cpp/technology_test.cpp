// The technology-node engine: it keeps within its budgets, reproduces its
// anchor devices, and scales the way the cited node data says.
#include <gtest/gtest.h>

#include <cmath>

#include "llmcalc/api.h"
#include "presets.h"
#include "strict_json.h"
#include "technology.h"

namespace llmcalc {
namespace {

using nlohmann::json;

const json& anchors() { return all_presets().at("technology").at("technology").at("anchors"); }

DerivedDevice anchor_device(const json& a) {
  TechBudget b;
  b.architecture = a.at("architecture").get<std::string>();
  b.node = a.at("node").get<std::string>();
  b.die_area_mm2 = a.at("die_area_mm2").get<double>();
  b.package_area_mm2 = a.at("package_area_mm2").get<double>();
  b.tdp_W = a.at("tdp_W").get<double>();
  return derive_device(b);
}

double rel(double a, double b) { return std::fabs(a - b) / b; }

TEST(Technology, EveryPresetNumberHasASource) {
  const json& t = all_presets().at("technology").at("technology");
  for (const char* key : {"nodes", "hbm", "architectures", "floorplan", "constants", "anchors"}) {
    bool cited = false;
    for (const auto& item : t.at("sources").items()) cited = cited || item.key().rfind(key, 0) == 0;
    EXPECT_TRUE(cited) << key;
  }
}

TEST(Technology, AnchorDevicesReproduced) {
  for (const auto& item : anchors().items()) {
    const json& m = item.value().at("measured");
    const DerivedDevice d = anchor_device(item.value());
    SCOPED_TRACE(item.key());
    EXPECT_EQ(d.sm_count, m.at("sm_count").get<int>());
    EXPECT_LT(rel(d.bf16_flops / 1e12, m.at("bf16_tflops").get<double>()), 0.02);
    EXPECT_EQ(d.hbm_stacks, m.at("hbm_stacks").get<int>());
    EXPECT_NEAR(d.hbm_bytes / 1e9, m.at("hbm_GB").get<double>(), 1e-6);
    // Spec pin rates: the H100 runs its HBM3 at 5.2 of 6.4 Gb/s, so 22% over.
    EXPECT_LT(rel(d.hbm_Bps / 1e9, m.at("hbm_GBps").get<double>()), 0.25);
    EXPECT_LT(rel(d.nvlink_Bps / 1e9, m.at("nvlink_GBps").get<double>()), 0.01);
    // The L2 array efficiency is fitted on the H100 only: the A100 is a real check.
    EXPECT_LT(rel(d.l2_bytes / 1048576.0, m.at("l2_MiB").get<double>()), 0.05);
    EXPECT_FALSE(d.power_limited);
  }
}

TEST(Technology, BudgetsHold) {
  for (const std::string& node : technology_nodes())
    for (double tdp : {300.0, 700.0, 1200.0})
      for (double area : {400.0, 814.0}) {
        TechBudget b;
        b.node = node;
        b.tdp_W = tdp;
        b.die_area_mm2 = area;
        b.package_area_mm2 = area + 600;
        DerivedDevice d;
        try {
          d = derive_device(b);
        } catch (const InputError&) {
          continue;  // HBM and links alone exceed a small budget: a clear error, checked below
        }
        SCOPED_TRACE(node + " " + std::to_string(tdp) + " W " + std::to_string(area) + " mm2");
        const double areas = d.area_compute + d.area_l2 + d.area_l1 + d.area_controllers + d.area_io;
        EXPECT_LT(rel(areas, area), 0.001);
        const double power = d.power_compute + d.power_hbm + d.power_io + d.power_uncore;
        EXPECT_LE(power, tdp * (1 + 1e-4));  // 1e-4: the anchor's datasheet peak is rounded
        if (d.power_limited) EXPECT_GT(power, tdp * 0.999);  // a power-limited chip spends its budget
        EXPECT_LE(d.frequency_GHz, d.nominal_frequency_GHz + 1e-12);
        EXPECT_LE(d.hbm_stacks * 86.0, b.package_area_mm2 - area + 1e-9);
        EXPECT_GT(d.bf16_flops, 0);
      }
}

// With the memory generation held (HBM3), each node buys compute; with the
// node's own generation, HBM4's power can take it back (the study shows it).
TEST(Technology, ScalesAcrossNodes) {
  double last_flops = 0, last_energy = 1e9, last_density = 0;
  for (const std::string& node : technology_nodes()) {
    TechBudget b;
    b.node = node;
    b.hbm = "HBM3";
    const DerivedDevice d = derive_device(b);
    SCOPED_TRACE(node);
    EXPECT_GT(d.bf16_flops, last_flops);
    EXPECT_LT(d.energy_pJ_per_flop, last_energy);
    EXPECT_GE(d.sm_count / b.die_area_mm2, last_density);
    last_flops = d.bf16_flops;
    last_energy = d.energy_pJ_per_flop;
    last_density = d.sm_count / b.die_area_mm2;
  }
}

// The voltage-frequency law turns the foundries' iso-power speed steps into
// iso-speed power savings; it should land near their separate claims.
TEST(Technology, VoltageFrequencyLawMatchesFoundryPowerClaims) {
  const json& nodes = all_presets().at("technology").at("technology").at("nodes");
  for (size_t i = 2; i + 1 < nodes.size(); ++i) {  // 7nm->5nm ... 2nm->1.4nm: the cited steps
    const double s = nodes[i]["speed_step"].get<double>(), vnom = nodes[i]["vdd_V"].get<double>(), vt = 0.2;
    // Voltage at which the new node runs the old clock: (V-Vt)^2/V = (Vnom-Vt)^2/Vnom / s.
    const double target = (vnom - vt) * (vnom - vt) / vnom / s;
    double lo = vt + 1e-6, hi = vnom;
    for (int k = 0; k < 60; ++k) {
      const double mid = 0.5 * (lo + hi);
      ((mid - vt) * (mid - vt) / mid > target ? hi : lo) = mid;
    }
    const double power = (1 / s) * (lo / vnom) * (lo / vnom);  // energy/s x (V/Vnom)^2 at the old clock
    EXPECT_NEAR(power, nodes[i]["power_step"].get<double>(), 0.10) << nodes[i]["node"];
  }
}

TEST(Technology, DerivedSystemEvaluates) {
  for (const std::string& node : technology_nodes()) {
    TechBudget b;
    b.node = node;
    const json sys = derived_system(derive_device(b));
    const json s = {{"mode", "inference"}, {"model", "llama3.1-8b"}, {"system", sys},
                    {"inference", {{"batch", 8}, {"input_tokens", 1024}, {"output_tokens", 128}}}};
    const json out = json::parse(evaluate_json(s.dump()));
    ASSERT_FALSE(out.contains("error")) << node << ": " << out.dump().substr(0, 300);
    EXPECT_GT(out["inference"]["tpot_s"].get<double>(), 0);
    // The page calls the derived device's memory by its generation.
    EXPECT_EQ(out["device"]["roofs"].back()["label"], derive_device(b).hbm) << node;
  }
}

TEST(Technology, BadBudgetsAreClearErrors) {
  EXPECT_THROW(parse_budget(json{{"nod", "3nm"}}), InputError);
  EXPECT_THROW(parse_budget(json{{"tdp_W", "700"}}), InputError);
  TechBudget b;
  b.node = "4nm";
  EXPECT_THROW(derive_device(b), InputError);
  b.node = "3nm";
  b.die_area_mm2 = 1e9;
  EXPECT_THROW(derive_device(b), InputError);
  b.die_area_mm2 = 814;
  b.tdp_W = 60;  // HBM and links need more than this
  EXPECT_THROW(derive_device(b), InputError);
}

}  // namespace
}  // namespace llmcalc
