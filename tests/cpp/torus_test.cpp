// Collectives on a torus tier (TPU ICI) against closed forms: per-link rate
// L = tier bandwidth / (2 dims); a ring along one axis with wraparound gets
// 2L, a line without it L, a group over k axes the sum of its axes' rates;
// all-gather (hops) a + (n-1)/n S/B; all-to-all S max(c/(4 B_axis), (n-1)/n/B);
// p2p a + S/L (docs/sources.md [R147], hardware-facts-2 §3 [HF9]).
#include <gtest/gtest.h>

#include "test_util.h"
#include "torus.h"

namespace llmcalc {
namespace {

// A 16 x 16 2D torus of 256 chips (a v6e pod) joined by a slow outer tier;
// efficiency 1, 400 GB/s per chip per direction = 100 GB/s per link.
constexpr double kChipBw = 400e9, kLink = 100e9, kLat = 1e-6, kS = 1e9;

System pod(Topology inner = Topology::torus) {
  System s;
  s.gpus_per_node = 256;
  NetworkTier ici{"ici", 256, kChipBw, kLat, 1.0};
  ici.topology = inner;
  ici.torus_dims = inner == Topology::torus ? 2 : 0;
  s.network = {ici, {"dcn", 0, 3e9, 5e-6, 1.0}};
  return s;
}

TEST(Torus, AxesAreNearCubic) {
  EXPECT_EQ(torus_axes(6144, 3), (std::vector<long long>{16, 16, 24}));  // the largest v5p slice
  EXPECT_EQ(torus_axes(256, 2), (std::vector<long long>{16, 16}));
  EXPECT_EQ(torus_axes(64, 3), (std::vector<long long>{4, 4, 4}));
  EXPECT_EQ(torus_axes(7, 2), (std::vector<long long>{1, 7}));
}

TEST(Torus, OneFullAxisRunsABidirectionalRing) {
  // 16 ranks fill axis 0 and close it through the wraparound: 2 links.
  const double t = collective_time(pod(), Collective::all_gather, {16, 1}, kS);
  EXPECT_NEAR(t, 15 * kLat + 15.0 / 16 * kS / (2 * kLink), 1e-12);
}

TEST(Torus, TwoAxesDoubleTheBandwidth) {
  // The whole pod: rings along both axes at once, 15 hops each.
  const double one = collective_time(pod(), Collective::all_gather, {16, 1}, kS) - 15 * kLat;
  const double two = collective_time(pod(), Collective::all_gather, {256, 1}, kS);
  EXPECT_NEAR(two, 30 * kLat + 255.0 / 256 * kS / (4 * kLink), 1e-12);
  EXPECT_NEAR((two - 30 * kLat) / one, (255.0 / 256) / (15.0 / 16) / 2, 1e-9);
}

TEST(Torus, PartOfAnAxisHasNoWraparound) {
  // tp 4 on a 16-chip axis is a line: half the bandwidth of a closed ring.
  const double t = collective_time(pod(), Collective::all_reduce, {4, 1}, kS);
  EXPECT_NEAR(t, 2 * 3 * kLat + 2 * 0.75 * kS / kLink, 1e-12);
}

TEST(Torus, StridedGroupsShareTheLinks) {
  // Ranks 0, 4, 8, 12 close axis 0 through the wraparound, but the groups at
  // offsets 1, 2, 3 use the same links at the same time: 2 L / 4.
  const double t = collective_time(pod(), Collective::reduce_scatter, {4, 4}, kS);
  EXPECT_NEAR(t, 3 * kLat + 0.75 * kS / (2 * kLink / 4), 1e-12);
}

TEST(Torus, AllToAllIsBisectionBound) {
  // One 16-chip ring: S c / (4 x 2L) = S 16 / 8L, above the injection bound.
  const double t = collective_time(pod(), Collective::all_to_all, {16, 1}, kS);
  EXPECT_NEAR(t, 15 * kLat + kS * 16 / (4 * 2 * kLink), 1e-12);
  // The whole pod: the cut across either 16-chip axis binds the same way.
  const double pod_t = collective_time(pod(), Collective::all_to_all, {256, 1}, kS);
  EXPECT_NEAR(pod_t, 30 * kLat + kS * 16 / (4 * 2 * kLink), 1e-12);
}

TEST(Torus, PointToPointUsesOneLink) {
  const double t = collective_time(pod(), Collective::p2p, {2, 16}, kS);
  EXPECT_NEAR(t, kLat + kS / kLink, 1e-12);
}

TEST(Torus, SwitchTierKeepsItsModel) {
  // The same tier as a switch: every member gets the full chip bandwidth.
  const double t = collective_time(pod(Topology::switched), Collective::all_gather, {16, 1}, kS);
  EXPECT_NEAR(t, 15 * kLat + 15.0 / 16 * kS / kChipBw, 1e-12);
  EXPECT_NE(t, collective_time(pod(), Collective::all_gather, {16, 1}, kS));
}

TEST(Torus, GroupsBeyondTheTorusUseTheOuterTier) {
  // 512 ranks leave the 256-chip torus: the DCN tier binds, as for a switch.
  const double torus = collective_time(pod(), Collective::all_gather, {512, 1}, kS);
  const double sw = collective_time(pod(Topology::switched), Collective::all_gather, {512, 1}, kS);
  EXPECT_DOUBLE_EQ(torus, sw);
}

}  // namespace

namespace test {
namespace {

json tpu_scenario(json network) {
  return {{"mode", "inference"},
          {"model", "llama2-7b"},
          {"system", {{"preset", "dgx-h100"}, {"network", std::move(network)}}},
          {"parallelism", {{"tp", 4}}}};
}

void expect_error_at(const json& scenario, const std::string& path) {
  const json out = eval(scenario);
  ASSERT_TRUE(out.contains("error")) << out.dump();
  EXPECT_EQ(out["error"].at("path"), path) << out.dump();
}

TEST(TorusParse, DimsRequiredOnATorusAndOnlyThere) {
  const json dcn = {{"name", "dcn"}, {"bandwidth_GBps", 3}};
  expect_error_at(tpu_scenario({{{"span_gpus", 256}, {"bandwidth_GBps", 400}, {"topology", "torus"}}, dcn}),
                  "system.network[0].torus_dims");
  expect_error_at(tpu_scenario({{{"span_gpus", 256}, {"bandwidth_GBps", 400}, {"torus_dims", 2}}, dcn}),
                  "system.network[0].torus_dims");
  expect_error_at(
      tpu_scenario({{{"span_gpus", 256}, {"bandwidth_GBps", 400}, {"topology", "torus"}, {"torus_dims", 4}}, dcn}),
      "system.network[0].torus_dims");
  expect_error_at(tpu_scenario({{{"bandwidth_GBps", 400}, {"topology", "torus"}, {"torus_dims", 2}}}),
                  "system.network[0].topology");
  eval_ok(tpu_scenario({{{"span_gpus", 256}, {"bandwidth_GBps", 400}, {"topology", "torus"}, {"torus_dims", 2}}, dcn}));
}

}  // namespace
}  // namespace test
}  // namespace llmcalc
