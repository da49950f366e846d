// Collectives on a full-mesh tier (topology "mesh": AMD Infinity Fabric, 8
// devices, each with one point-to-point link to every other): a group of g
// peers uses g-1 of a device's span-1 links, a point-to-point transfer one
// (docs/sources.md [HF1.3], [HF8.3]). Closed forms as in network_test.cpp.
#include <gtest/gtest.h>

#include <cmath>

#include "network.h"
#include "parse.h"
#include "test_util.h"

namespace llmcalc {
namespace {

// 8 devices, 7 links of 100 GB/s each, joined by 80 GB/s NICs; efficiencies
// 1 so that the wire rates are the effective rates.
constexpr double kLinkBw = 100e9, kMeshLat = 1e-6, kNicBw = 80e9, kNicLat = 5e-6;

System mesh_system(Topology inner = Topology::mesh) {
  System s;
  s.gpus_per_node = 8;
  s.network = {{"xgmi", 8, 7 * kLinkBw, kMeshLat, 1.0}, {"ethernet", 0, kNicBw, kNicLat, 1.0}};
  s.network[0].topology = inner;
  return s;
}

TEST(Mesh, WholeMeshGetsEveryLink) {
  // 8 ranks: all 7 links, the same as a switch of the same total bandwidth.
  const double n = 8, S = 1e9;
  const double ring = 2 * (n - 1) * kMeshLat + 2 * (n - 1) / n * S / (7 * kLinkBw);
  EXPECT_NEAR(collective_time(mesh_system(), Collective::all_reduce, {8, 1}, S), ring, 1e-12 * ring);
}

TEST(Mesh, SubgroupGetsOnlyTheLinksToItsMembers) {
  // 4 ranks reach each other over 3 of the 7 links.
  const double n = 4, S = 3e8;
  const double ag = (n - 1) * kMeshLat + (n - 1) / n * S / (3 * kLinkBw);
  EXPECT_NEAR(collective_time(mesh_system(), Collective::all_gather, {4, 1}, S), ag, 1e-12 * ag);
  // The same group behind a switch gets the device's full 700 GB/s.
  const double sw = (n - 1) * kMeshLat + (n - 1) / n * S / (7 * kLinkBw);
  EXPECT_NEAR(collective_time(mesh_system(Topology::switched), Collective::all_gather, {4, 1}, S), sw, 1e-12 * sw);
}

TEST(Mesh, PointToPointUsesOneLink) {
  // A pipeline send between neighbouring stages of a 4-stage group: one link.
  const double S = 2e8, p2p = kMeshLat + S / kLinkBw;
  EXPECT_NEAR(collective_time(mesh_system(), Collective::p2p, {4, 1}, S), p2p, 1e-12 * p2p);
}

TEST(Mesh, AllToAllSendsEachShareOverItsOwnLink) {
  // 8 ranks: S/8 to each of 7 peers, all links at once: S/8 per link.
  const double S = 8e8, t = 7 * kMeshLat + S / 8 / kLinkBw;
  EXPECT_NEAR(collective_time(mesh_system(), Collective::all_to_all, {8, 1}, S), t, 1e-12 * t);
}

TEST(Mesh, MembersCrossingNodesAreCappedByTheirLinks) {
  // 4 ranks, stride 4, on 16 GPUs: 2 members per node cross the NICs together
  // (2 x 80 = 160 GB/s) but join each other over one mesh link (100 GB/s).
  const LinkModel l = group_link(mesh_system(), {4, 4, 16});
  EXPECT_EQ(l.tier, 1);
  EXPECT_DOUBLE_EQ(l.bandwidth_Bps, kLinkBw);
  EXPECT_DOUBLE_EQ(group_link(mesh_system(Topology::switched), {4, 4, 16}).bandwidth_Bps, 2 * kNicBw);
}

TEST(Mesh, LoneMembersGoStraightToTheirNics) {
  // 2 ranks, stride 8: one per node, no mesh hop, so the NIC binds even
  // where it is faster than one mesh link.
  System sys = mesh_system();
  sys.network[1].bandwidth_Bps = 150e9;  // a NIC faster than one mesh link
  EXPECT_DOUBLE_EQ(group_link(sys, {2, 8, 16}).bandwidth_Bps, 150e9);
}

// The amd-mi300x preset against RCCL all-reduce bus bandwidth measured on
// 8x MI300X (docs/sources.md [HF2.6] [R23]: 316.8 GB/s on 8 GPUs; [HF11.2]:
// 47.7 GB/s on 2): busbw = 2 (n-1)/n S / t at 8 GiB.
double busbw(const System& sys, long long n) {
  const double S = 8.0 * 1073741824.0;
  return 2.0 * (n - 1) / n * S / collective_time(sys, Collective::all_reduce, {n, 1, 8}, S);
}

TEST(Mesh, Mi300xPresetMatchesMeasuredAllReduce) {
  const System sys = parse_system(std::string("amd-mi300x"), "system");
  ASSERT_EQ(sys.network[0].topology, Topology::mesh);
  EXPECT_NEAR(busbw(sys, 8) / 1e9, 316.8, 0.05 * 316.8);
  EXPECT_NEAR(busbw(sys, 2) / 1e9, 47.7, 0.10 * 47.7);  // one link: 6.5x less, not the switch's 1x
}

TEST(Mesh, ParseRejectsAMeshThatIsNotTheInnermostTier) {
  using test::json;
  json s = {{"mode", "training"}, {"model", "llama2-7b"}, {"parallelism", {{"dp", 8}}}, {"training", {{"global_batch", 8}}}};
  const json xgmi = {{"name", "xgmi"}, {"span_gpus", 8}, {"bandwidth_GBps", 448}, {"topology", "mesh"}};
  const json eth = {{"name", "eth"}, {"bandwidth_GBps", 50}};
  s["system"] = {{"preset", "amd-mi300x"}, {"network", json::array({eth, xgmi})}};  // span 0 cluster tier first
  s["system"]["network"][0]["span_gpus"] = 8;
  s["system"]["network"][1]["span_gpus"] = 16;
  json out = test::eval(s);
  ASSERT_TRUE(out.contains("error")) << out.dump();
  EXPECT_EQ(out["error"]["path"], "system.network[1].topology");
  // A single (cluster-wide) tier cannot be a mesh either: it joins no fixed set of devices.
  s["system"]["network"] = json::array({xgmi});
  out = test::eval(s);
  ASSERT_TRUE(out.contains("error")) << out.dump();
  EXPECT_EQ(out["error"]["path"], "system.network[0].topology");
  // Nor a mesh of one device.
  json one = xgmi;
  one["span_gpus"] = 1;
  s["system"]["network"] = json::array({one, eth});
  out = test::eval(s);
  ASSERT_TRUE(out.contains("error")) << out.dump();
  EXPECT_EQ(out["error"]["path"], "system.network[0].span_gpus");
}

}  // namespace
}  // namespace llmcalc
