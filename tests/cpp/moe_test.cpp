// Mixture-of-experts training mechanisms: parallel folding (etp x ep over
// tp x cp x dp), Megatron-Core token dispatch volumes, the expected maximum
// load under top-k routing, all-to-all across nodes (DeepEP's per-node
// dispatch too), EP overlap, fp8
// recipes, and the Blackwell GEMM operand sharing.
#include <gtest/gtest.h>

#include <set>

#include "compute.h"
#include "moe.h"
#include "memory.h"
#include "network.h"
#include "parse.h"
#include "test_util.h"
#include "training.h"

namespace llmcalc {
namespace {

using test::eval;
using test::eval_ok;
using test::find_op;
using test::json;

// Qwen3-235B-A22B on 256 H100s as Megatron-Bridge runs it: tp 2, pp 8, dp 16, ep 32.
json folding() {
  return {{"mode", "training"},
          {"model", {{"layers", 16}, {"hidden", 4096}, {"heads", 64}, {"kv_heads", 4}, {"head_dim", 128},
                     {"vocab", 151936}, {"ffn_hidden", 1536}, {"ffn_type", "swiglu"}, {"norm", "rmsnorm"},
                     {"moe", {{"experts", 128}, {"top_k", 8}, {"ffn_hidden", 1536}}}}},
          {"system", "dgx-h100"},
          {"parallelism", {{"tp", 2}, {"pp", 8}, {"dp", 16}, {"ep", 32}, {"sp", true}, {"zero", 1}}},
          {"training", {{"global_batch", 256}, {"micro_batch", 1}, {"seq_len", 4096}, {"precision", "bf16"},
                        {"recompute", "none"}, {"moe_balance", "forced"}}}};
}

TEST(Moe, FoldingEvaluatesWithEtpOne) {
  const json out = eval_ok(folding());
  ASSERT_TRUE(out.contains("training"));
  EXPECT_GT(out["training"]["time_breakdown_s"]["ep_comm"].get<double>(), 0);
}

TEST(Moe, EtpThatCannotFoldIsAnErrorWithItsPath) {
  json s = folding();
  s["parallelism"]["etp"] = 2;  // 2 x 32 = 64 does not divide 2 x 16 = 32
  const json out = eval(s);
  ASSERT_TRUE(out.contains("error"));
  EXPECT_EQ(out["error"]["path"], "parallelism.etp");
}

TEST(Moe, EtpDefaultsToTpWhereEpDividesDp) {
  Parallelism p;
  p.tp = 4, p.dp = 8, p.cp = 2, p.ep = 8;
  EXPECT_EQ(p.expert_tp(), 4);  // Megatron-Core: expert_tensor_parallel_size = tp
  EXPECT_EQ(p.expert_dp(), 2);  // 4 x 2 x 8 ranks / (4 x 8)
  p.tp = 2, p.dp = 16, p.cp = 1, p.ep = 32;
  EXPECT_EQ(p.expert_tp(), 1);  // folding
  EXPECT_EQ(p.expert_dp(), 1);
}

TEST(Moe, ExpertWeightsShardOverEtpTimesEp) {
  json a = folding(), b = folding();
  b["parallelism"]["ep"] = 16;  // with etp 1: twice the experts per GPU (the default would be etp = tp = 2)
  b["parallelism"]["etp"] = 1;
  const double wa = eval_ok(a)["training"]["memory_bytes"]["weights"];
  const double wb = eval_ok(b)["training"]["memory_bytes"]["weights"];
  // 2 MoE layers per stage x 128 experts x 3 x 4096 x 1536 bf16 weights, over 32 vs 16 GPUs.
  const double expert_bytes_ep32 = 2.0 * 128 * 3 * 4096 * 1536 / 32 * 2;
  EXPECT_NEAR(wb - wa, expert_bytes_ep32, 1e-6 * expert_bytes_ep32);
}

// Expert gradients live in their own buffers and are reduced over the
// ranks that hold the same experts (expert-dp = tp x cp x dp / (etp x ep)),
// not over dp x cp as the dense ones (Megatron-Core DDP expert_data_parallel_group).
TEST(Moe, ExpertGradientsReduceOverTheExpertDataParallelGroup) {
  json j = folding();  // tp 2, dp 16, ep 32, etp 1: expert-dp = 1, nothing to reduce
  Scenario s = parse_scenario(j);
  TrainingMemory mem = training_memory(s);
  const double P = mem.params_on_gpu, E = mem.expert_params_on_gpu;
  ASSERT_GT(E, 0);
  const DpParts dense_only = dp_parts(s, P - E);
  DpParts d = dp_parts(s, P, E);
  EXPECT_DOUBLE_EQ(d.reduce, dense_only.reduce);
  EXPECT_DOUBLE_EQ(d.gather, dense_only.gather);
  // Each GPU steps the optimizer on all of its experts (unsharded over 1 rank).
  EXPECT_GT(d.optimizer.time_s, 5 * dense_only.optimizer.time_s);

  j["parallelism"]["ep"] = 8;  // etp = tp = 2: expert-dp = 2 x 16 / (2 x 8) = 2, stride etp x ep = 16
  s = parse_scenario(j);
  mem = training_memory(s);
  const double P8 = mem.params_on_gpu, E8 = mem.expert_params_on_gpu;
  d = dp_parts(s, P8, E8);
  const Group edp{2, 16, s.par.gpus()};
  const double expected = dp_parts(s, P8 - E8).reduce +
                          collective_time(s.system, Collective::reduce_scatter, edp, E8 * s.par.reduce_bytes);
  EXPECT_NEAR(d.reduce, expected, 1e-12 * expected);
}

// The expert shard group divides expert-dp (equal replicas), and a layout
// that does not fold (ep > tp x cp x dp) gives 1 rather than a division by zero.
TEST(Moe, ExpertShardRanksDivideExpertDp) {
  Parallelism p;
  p.dp = 64, p.ep = 8, p.zero = 1;
  EXPECT_EQ(p.expert_shard_ranks(), 8);  // full sharding: all expert-dp ranks
  p.zero_shard = 32;                     // 32 of 64 dp ranks: 4 copies of each expert inside
  EXPECT_EQ(p.expert_shard_ranks(), 4);
  p.zero_shard = 48;                     // 6 inside, not a divisor of 8: the largest one below
  EXPECT_EQ(p.expert_shard_ranks(), 4);
  p.zero_shard = 4;                      // fewer ranks than ep: each expert once
  EXPECT_EQ(p.expert_shard_ranks(), 1);
  p.dp = 2, p.zero_shard = 0;            // ep 8 over 2 ranks: not a layout
  EXPECT_EQ(p.expert_shard_ranks(), 1);
}

// Per layer, each rank sends its sequence-parallel shard's k copies of each
// token: tokens / tp x k x h x 2 bytes per all-to-all.
TEST(Moe, DispatchVolumePerLayer) {
  json s = folding();
  const json out = eval_ok(s);
  const json d = find_op(out, "moe.dispatch", "fwd");
  ASSERT_FALSE(d.is_null());
  // Time at least the off-node share over one 400 Gb/s NIC (3 of 4 nodes' peers).
  const double bytes = 4096.0 / 2 * 8 * 4096 * 2;
  EXPECT_GT(d["time_s"].get<double>(), 0.75 * bytes / 50e9);
  EXPECT_TRUE(find_op(out, "moe.etp_all_gather", "fwd").is_null());  // etp 1: no gather
  EXPECT_FALSE(find_op(out, "moe.permute", "fwd").is_null());
  EXPECT_FALSE(find_op(out, "moe.unpermute", "fwd").is_null());
  EXPECT_FALSE(find_op(out, "moe.router.topk", "fwd").is_null());
}

TEST(Moe, ExpectedMaxLoadRisesAsTokensPerExpertFall) {
  MoeRouting r;
  r.experts = 128, r.top_k = 8, r.ranks = 32;
  r.tokens = 1 << 16;
  const double many = moe_load_factor(r);
  r.tokens = 1 << 10;
  const double few = moe_load_factor(r);
  EXPECT_GT(many, 1.0);
  EXPECT_GT(few, many);
  // Balls in bins: 1024 x 8 copies over 32 ranks, mean 256, sd ~15.6, and
  // the expected maximum of 32 normals is ~2.04 sd (Blom): ~ +12%.
  EXPECT_NEAR(few, 1.12, 0.02);
  r.balance = MoeBalance::forced;
  EXPECT_EQ(moe_load_factor(r), 1.0);
  r.balance = MoeBalance::random;
  r.capacity_factor = 1.05;
  EXPECT_DOUBLE_EQ(moe_load_factor(r), 1.05);  // tokens beyond capacity are dropped
  r.ranks = 1;
  r.capacity_factor = 0;
  EXPECT_DOUBLE_EQ(moe_load_factor(r), 1.0);  // one rank holds every expert
}

TEST(Moe, RandomRoutingIsSlowerThanForcedBalance) {
  json a = folding(), b = folding();
  b["training"]["moe_balance"] = "random";
  EXPECT_GT(eval_ok(b)["training"]["iteration_time_s"].get<double>(),
            eval_ok(a)["training"]["iteration_time_s"].get<double>());
}

TEST(Moe, EpOverlapHidesAllToAll) {
  json a = folding(), b = folding();
  b["training"]["overlap"] = {{"ep", true}};
  EXPECT_LT(eval_ok(b)["training"]["time_breakdown_s"]["ep_comm"].get<double>(),
            0.5 * eval_ok(a)["training"]["time_breakdown_s"]["ep_comm"].get<double>());
}

// Transformer Engine's GroupedLinear issues one GEMM per local expert: on a
// host-bound step (1 ms per launch) twice the local experts add one launch
// per extra expert for each expert GEMM, forward (up, down) and backward
// (their data and weight gradients).
TEST(Moe, GroupedGemmLaunchesOneKernelPerLocalExpert) {
  auto per_microbatch = [](int experts) {
    json s = {{"mode", "training"},
              {"model", {{"layers", 2}, {"hidden", 1024}, {"heads", 8}, {"kv_heads", 8}, {"head_dim", 128},
                         {"vocab", 1024}, {"ffn_hidden", 512}, {"ffn_type", "swiglu"}, {"norm", "rmsnorm"},
                         {"moe", {{"experts", experts}, {"top_k", 2}, {"ffn_hidden", 512}}}}},
              {"system", "dgx-h100"},
              {"parallelism", {{"dp", 8}, {"ep", 8}}},
              {"training", {{"global_batch", 8}, {"micro_batch", 1}, {"seq_len", 512}, {"precision", "bf16"},
                            {"recompute", "none"}, {"host_overhead_us", 1000}}}};
    const json p = eval_ok(s)["training"]["pipeline"];
    return p["t_fwd_s"].get<double>() + p["t_bwd_s"].get<double>();
  };
  const double extra_launches = per_microbatch(128) / 1e-3 - per_microbatch(64) / 1e-3;
  // 2 layers x (16 - 8) experts x 6 GEMMs.
  EXPECT_NEAR(extra_launches, 2 * 8 * 6, 1e-6);
}

// All-to-all over 16 ranks on two 8-GPU nodes: half of each rank's data
// leaves through its own NIC, all NICs busy at once.
TEST(Moe, AllToAllAcrossNodesUsesEachRanksOwnLink) {
  System sys;
  sys.gpus_per_node = 8;
  sys.network = {{"nvlink", 8, 100e9, 0, 1.0}, {"infiniband", 0, 10e9, 0, 1.0}};
  const double S = 1e9;
  EXPECT_NEAR(collective_time(sys, Collective::all_to_all, {16, 1, 16}, S), 0.5 * S / 10e9, 1e-9);
  // Inside a node: (n-1)/n of the buffer over NVLink.
  EXPECT_NEAR(collective_time(sys, Collective::all_to_all, {8, 1, 16}, S), 7.0 / 8 * S / 100e9, 1e-9);
}

// DeepEP dispatch: a token crosses the network once per remote node that
// holds any of its experts. Hypergeometric: one copy reaches a given remote
// node with probability 1/D; k copies over E experts miss a node with
// probability C(E - E/D, k) / C(E, k).
TEST(Moe, NodeDedupCountsRemoteNodesPerToken) {
  EXPECT_EQ(remote_domains_per_token({8, 128}, 1), 0.0);
  EXPECT_NEAR(remote_domains_per_token({1, 128}, 4), 3.0 / 4, 1e-12);
  double miss = 1;  // DeepSeek-V3: 256 experts, top 8, EP over 8 nodes
  for (int i = 0; i < 8; ++i) miss *= (224.0 - i) / (256.0 - i);
  EXPECT_NEAR(remote_domains_per_token({8, 256}, 8), 7 * (1 - miss), 1e-12);
  EXPECT_LT(remote_domains_per_token({8, 256}, 8), 7 * 8 / 8.0);  // fewer than the remote copies
  EXPECT_NEAR(remote_domains_per_token({64, 64}, 4), 3.0, 1e-12);  // every expert: every node
}

// Group-limited routing, by enumeration: every choice of M of G groups, then
// every k-subset of their experts, equally likely; the expected number of
// remote domains touched (the sender sits in domain 0).
double enumerate_remote(int E, int G, int M, int k, int D) {
  const int e = E / G, per_domain = E / D;
  double total = 0, cases = 0;
  for (int gm = 0; gm < (1 << G); ++gm) {
    if (__builtin_popcount(gm) != M) continue;
    std::vector<int> pool;
    for (int x = 0; x < E; ++x)
      if (gm >> (x / e) & 1) pool.push_back(x);
    const int n = static_cast<int>(pool.size());
    for (int em = 0; em < (1 << n); ++em) {
      if (__builtin_popcount(em) != k) continue;
      std::set<int> domains;
      for (int i = 0; i < n; ++i)
        if (em >> i & 1) domains.insert(pool[i] / per_domain);
      total += static_cast<double>(domains.size()) - domains.count(0);
      cases += 1;
    }
  }
  return total / cases;
}

TEST(Moe, GroupLimitedRoutingReachesFewerNodes) {
  // Groups inside domains (DeepSeek-V3's shape: a group per node), several
  // groups per domain, and groups spanning domains.
  EXPECT_NEAR(remote_domains_per_token({2, 8, 4, 2}, 4), enumerate_remote(8, 4, 2, 2, 4), 1e-12);
  EXPECT_NEAR(remote_domains_per_token({3, 12, 4, 2}, 4), enumerate_remote(12, 4, 2, 3, 4), 1e-12);
  EXPECT_NEAR(remote_domains_per_token({3, 16, 8, 3}, 4), enumerate_remote(16, 8, 3, 3, 4), 1e-12);
  EXPECT_NEAR(remote_domains_per_token({2, 16, 2, 1}, 4), enumerate_remote(16, 2, 1, 2, 4), 1e-12);
  // DeepSeek-V3 on 8 nodes: at most 4 nodes per token, so at most 3.5 remote on average.
  const double limited = remote_domains_per_token({8, 256, 8, 4}, 8);
  EXPECT_LE(limited, 4 * 7 / 8.0);
  EXPECT_LT(limited, 0.75 * remote_domains_per_token({8, 256}, 8));
  // All groups allowed, or groups that neither divide nor are divided by the domains: no limit modelled.
  EXPECT_EQ(remote_domains_per_token({8, 256, 8, 8}, 8), remote_domains_per_token({8, 256}, 8));
  EXPECT_EQ(remote_domains_per_token({8, 240, 5, 2}, 8), remote_domains_per_token({8, 240}, 8));
}

TEST(Moe, GroupFieldsAreCheckedAgainstTheExperts) {
  json s = folding();
  s["model"]["moe"]["groups"] = 6;
  EXPECT_EQ(eval(s)["error"]["path"], "model.moe.groups");
  s["model"]["moe"]["groups"] = 8;
  s["model"]["moe"]["top_groups"] = 9;
  EXPECT_EQ(eval(s)["error"]["path"], "model.moe.top_groups");
  s["model"]["moe"]["groups"] = 64;
  s["model"]["moe"]["top_groups"] = 2;  // 2 groups of 2 experts hold fewer than top_k 8
  EXPECT_EQ(eval(s)["error"]["path"], "model.moe.top_groups");
}

// The IB part shrinks from the remote copies, (D-1)/D of the buffer, to the
// remote nodes per token over k; inside one node nothing changes.
TEST(Moe, NodeDedupAllToAllSendsLessOverTheNetwork) {
  System sys;
  sys.gpus_per_node = 8;
  sys.network = {{"nvlink", 8, 100e9, 0, 1.0}, {"infiniband", 0, 10e9, 0, 1.0}};
  const double S = 1e9;
  const Routing r{8, 128};
  const double far = remote_domains_per_token(r, 4) / 8 * S / 10e9;
  EXPECT_NEAR(routed_all_to_all_time(sys, {32, 1, 32}, S, r), far, 1e-9);
  EXPECT_LT(routed_all_to_all_time(sys, {32, 1, 32}, S, r), collective_time(sys, Collective::all_to_all, {32, 1, 32}, S));
  EXPECT_EQ(routed_all_to_all_time(sys, {8, 1, 8}, S, r), collective_time(sys, Collective::all_to_all, {8, 1, 8}, S));
  EXPECT_EQ(routed_all_to_all_time(sys, {32, 1, 32}, S, {0, 0}), collective_time(sys, Collective::all_to_all, {32, 1, 32}, S));
}

TEST(Moe, DeepEpDispatcherCutsExpertParallelTimeAcrossNodes) {
  json a = folding(), b = folding();
  b["training"]["moe_dispatcher"] = "deepep";
  const json ra = eval_ok(a), rb = eval_ok(b);
  const double ea = ra["training"]["time_breakdown_s"]["ep_comm"], eb = rb["training"]["time_breakdown_s"]["ep_comm"];
  EXPECT_LT(eb, 0.7 * ea);  // 32 ranks on 4 nodes, top 8 of 128: 2.7 remote nodes per token, not 6 copies
  EXPECT_GT(eb, 0.2 * ea);
  EXPECT_EQ(ra["training"]["time_breakdown_s"]["compute"], rb["training"]["time_breakdown_s"]["compute"]);
  json c = b;
  c["training"]["moe_dispatcher"] = "nccl";
  EXPECT_EQ(eval(c)["error"]["path"], "training.moe_dispatcher");
}

// FP8 dispatch (DeepSeek-V3 section 3.3.3): the dispatch and the combine's
// backward (the output gradients going to the experts) carry one byte per
// element; the combine and the dispatch's backward stay 16-bit.
TEST(Moe, Fp8DispatchHalvesTheDispatchesOnly) {
  json s = folding();
  s["training"]["precision"] = "fp8";
  const json a = eval_ok(s);
  s["training"]["moe_dispatch_precision"] = "fp8";
  const json b = eval_ok(s);
  auto t = [](const json& out, const char* name, const char* phase) { return find_op(out, name, phase)["time_s"].get<double>(); };
  for (const auto& [name, phase] : {std::pair{"moe.dispatch", "fwd"}, {"moe.combine.bwd", "bwd"}}) {
    EXPECT_LT(t(b, name, phase), 0.6 * t(a, name, phase)) << name;
    EXPECT_GT(t(b, name, phase), 0.4 * t(a, name, phase)) << name;
  }
  for (const auto& [name, phase] : {std::pair{"moe.combine", "fwd"}, {"moe.dispatch.bwd", "bwd"}})
    EXPECT_EQ(t(b, name, phase), t(a, name, phase)) << name;
  EXPECT_EQ(a["training"]["time_breakdown_s"]["compute"], b["training"]["time_breakdown_s"]["compute"]);
  // MXFP8 copies carry an E8M0 scale per 32 elements: a little more than per-tensor FP8.
  s["training"]["fp8_recipe"] = "mxfp8";
  json c = s;
  c["system"] = "dgx-b200";
  json d = c;
  d["training"]["moe_dispatch_precision"] = "bf16";
  const double mx = t(eval_ok(c), "moe.dispatch", "fwd"), bf = t(eval_ok(d), "moe.dispatch", "fwd");
  EXPECT_GT(mx, 0.5 * bf);
  EXPECT_LT(mx, 0.6 * bf);
  // Only with fp8 or fp4 expert GEMMs.
  s["training"]["precision"] = "bf16";
  s["training"].erase("fp8_recipe");
  EXPECT_EQ(eval(s)["error"]["path"], "training.moe_dispatch_precision");
}

TEST(Moe, Fp8CurrentScalingAddsAnAmaxPass) {
  json s = folding();
  s["training"]["precision"] = "fp8";
  s["training"]["fp8_recipe"] = "delayed";
  const double delayed = find_op(eval_ok(s), "moe.up.cast", "fwd")["time_s"];
  s["training"]["fp8_recipe"] = "current";
  const double current = find_op(eval_ok(s), "moe.up.cast", "fwd")["time_s"];
  EXPECT_GT(current, 1.3 * delayed);
}

TEST(Moe, BlackwellOperandSharingHalvesL2Traffic) {
  Device d;
  d.sm_count = 148;
  d.matmul_flops.fill(2500e12);
  d.memory = {{"smem", 33e6, 39e12}, {"l2", 126e6, 14e12}, {"hbm", 180e9, 8e12}};
  const GemmShape g{16384, 16384, 16384, 1, 1, 1, 2, Precision::fp8};
  const double one = gemm_cost(d, g).bytes[1];
  d.efficiency.gemm_multicast = 2;
  const double two = gemm_cost(d, g).bytes[1];
  EXPECT_LT(two, 0.6 * one);
}

// A shared expert is a dense MLP beside the routed ones (Megatron-Core
// SharedExpertMLP): every expert-parallel rank holds all of it, so going
// from ep 4 to ep 8 sheds routed experts only.
TEST(Moe, SharedExpertsStayWholeOnEveryExpertRank) {
  json s = folding();
  s["model"]["moe"] = {{"experts", 16}, {"top_k", 2}, {"ffn_hidden", 1536}, {"shared_experts", 1}, {"shared_ffn_hidden", 4096}};
  s["parallelism"] = {{"dp", 8}, {"ep", 4}};
  const double ep4 = eval_ok(s)["training"]["memory_bytes"]["weights"].get<double>();
  s["parallelism"]["ep"] = 8;
  const double ep8 = eval_ok(s)["training"]["memory_bytes"]["weights"].get<double>();
  // 16 layers x (4 - 2 routed experts of 3 x 4096 x 1536) x 2 bytes.
  EXPECT_NEAR(ep4 - ep8, 16 * 2 * 3.0 * 4096 * 1536 * 2, 16.0);
}

// Leading dense layers sit on the first pipeline stage (DeepSeek-V3's three):
// the slowest stage runs MoE layers only, so the ops table counts no dense
// layer there; with one stage both kinds count in proportion. A dense layer
// slower than an MoE layer makes the stage with the dense layers the slowest.
TEST(Moe, LeadingDenseLayersLeaveTheOtherStagesAllMoe) {
  json s = folding();
  s["model"]["moe"]["dense_layers"] = 2;
  s["parallelism"] = {{"tp", 2}, {"pp", 4}, {"dp", 16}, {"ep", 32}, {"sp", true}};
  const json staged = eval_ok(s);
  const double mb = 256 / 16;  // micro-batches per iteration
  EXPECT_TRUE(find_op(staged, "mlp.up", "fwd").is_null());  // ops that do not run are left out
  EXPECT_DOUBLE_EQ(find_op(staged, "moe.up", "fwd")["count"].get<double>(), 4 * mb);  // 16 layers / 4 stages
  s["parallelism"] = {{"tp", 2}, {"pp", 1}, {"dp", 64}, {"ep", 32}, {"sp", true}};
  const json whole = eval_ok(s);
  EXPECT_DOUBLE_EQ(find_op(whole, "mlp.up", "fwd")["count"].get<double>(), 2 * 256 / 64.0);
  EXPECT_DOUBLE_EQ(find_op(whole, "moe.up", "fwd")["count"].get<double>(), 14 * 256 / 64.0);
  // A dense MLP 64x an expert's width outlasts the MoE layer: the first stage
  // (two dense layers and two MoE layers) paces the pipeline.
  s["model"]["ffn_hidden"] = 1536 * 64;
  s["parallelism"] = {{"tp", 2}, {"pp", 4}, {"dp", 16}, {"ep", 32}, {"sp", true}};
  const json heavy = eval_ok(s);
  EXPECT_DOUBLE_EQ(find_op(heavy, "mlp.up", "fwd")["count"].get<double>(), 2 * mb);
  EXPECT_DOUBLE_EQ(find_op(heavy, "moe.up", "fwd")["count"].get<double>(), 2 * mb);
  // Serving on two stages: the second, eight MoE layers, paces the decode steps.
  json serve = {{"mode", "inference"}, {"model", folding()["model"]}, {"system", "dgx-h100"},
                {"parallelism", {{"tp", 4}, {"pp", 2}}},
                {"inference", {{"batch", 16}, {"input_tokens", 512}, {"output_tokens", 32}}}};
  serve["model"]["moe"]["dense_layers"] = 2;
  const json served = eval_ok(serve);
  EXPECT_TRUE(find_op(served, "mlp.up", "decode").is_null());
  EXPECT_DOUBLE_EQ(find_op(served, "moe.up", "decode")["count"].get<double>(), 8.0);
}

}  // namespace
}  // namespace llmcalc
