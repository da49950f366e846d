// ZeRO-3 / FSDP (Rajbhandari et al. 2020 §5.3; Zhao et al. 2023, PyTorch
// FSDP §3): per-unit weight all-gathers in forward and again in backward,
// per-unit gradient reduce-scatters, one-unit prefetch, the compute slowdown
// of overlapped collectives, and the gather / reduce precisions; Megatron's
// --recompute-num-layers / --recompute-method.
#include "fsdp.h"

#include "network.h"
#include "parse.h"
#include "test_util.h"

namespace llmcalc::test {
namespace {

json fsdp(int dp, int mb, int seq) {  // Llama-2 7B, ZeRO-3 over dp GPUs
  return {{"mode", "training"}, {"model", "llama2-7b"}, {"system", "dgx-h100"},
          {"parallelism", {{"dp", dp}, {"zero", 3}}},
          {"training", {{"global_batch", dp * mb}, {"micro_batch", mb}, {"seq_len", seq}, {"recompute", "none"}}}};
}

Scenario scenario_of(const json& j) { return parse_scenario(j); }

TEST(Fsdp, OverlappedUnit) {
  // No contention: the longer of the two.
  EXPECT_DOUBLE_EQ(overlapped_unit(3, 2, 0), 3);
  EXPECT_DOUBLE_EQ(overlapped_unit(2, 3, 0), 3);
  // A quarter of the SMs held: compute under the collective runs at 3/4.
  EXPECT_DOUBLE_EQ(overlapped_unit(3, 2, 0.25), 3 + 2 * 0.25);  // collective ends first
  EXPECT_DOUBLE_EQ(overlapped_unit(1.5, 2, 0.25), 2);           // 1.5 of work fits in 2 x 0.75
}

TEST(Fsdp, UnitGatherIsOneLayersWeights) {
  const Scenario s = scenario_of(fsdp(64, 1, 4096));
  const double params = training_memory(s).params_on_gpu;
  const DpParts d = dp_parts(s, params);
  const double per_layer = count_params(s.model).layers / s.model.layers;
  const Group dpg{64, 1, 64};
  // Weights gathered as the 16-bit copy, gradients reduced in fp32 (defaults).
  EXPECT_DOUBLE_EQ(d.unit_gather, collective_time(s.system, Collective::all_gather, dpg, per_layer * 2));
  EXPECT_DOUBLE_EQ(d.unit_reduce, collective_time(s.system, Collective::reduce_scatter, dpg, per_layer * 4));
  // The root unit holds the embedding and LM head.
  const double root = params - s.model.layers * per_layer;
  EXPECT_GT(root, 2.0 * s.model.vocab * s.model.hidden * 0.99);
  EXPECT_DOUBLE_EQ(d.root_gather, collective_time(s.system, Collective::all_gather, dpg, root * 2));
}

TEST(Fsdp, GatherAndReducePrecisions) {
  json j = fsdp(64, 1, 4096);
  const Scenario base = scenario_of(j);
  j["parallelism"]["gather_precision"] = "fp32";
  j["parallelism"]["reduce_precision"] = "bf16";
  const Scenario wide = scenario_of(j);
  const double params = training_memory(base).params_on_gpu;
  const DpParts a = dp_parts(base, params), b = dp_parts(wide, params);
  EXPECT_GT(b.unit_gather, 1.8 * a.unit_gather);  // twice the bytes, bandwidth-bound
  EXPECT_LT(b.unit_reduce, 0.6 * a.unit_reduce);
  j["parallelism"]["gather_precision"] = "fp8";
  EXPECT_LT(dp_parts(scenario_of(j), params).unit_gather, 0.6 * a.unit_gather);
}

// Short units (one 512-token sequence per GPU) cannot hide a gather across
// 16 nodes: each layer's forward exposes gather - compute; long ones hide it.
TEST(Fsdp, ExposedWhenComputePerUnitIsShorterThanTheGather) {
  const json short_j = fsdp(128, 1, 512), long_j = fsdp(128, 4, 4096);
  const json shorter = eval_ok(short_j)["training"], longer = eval_ok(long_j)["training"];
  const Scenario s = scenario_of(short_j);
  const DpParts d = dp_parts(s, training_memory(s).params_on_gpu);
  const double fwd_layer = shorter["pipeline"]["t_fwd_s"].get<double>() / s.model.layers;
  ASSERT_GT(d.unit_gather, fwd_layer);  // the premise
  const double dp_short = shorter["time_breakdown_s"]["dp_comm"].get<double>();
  EXPECT_GE(dp_short, (s.model.layers - 1) * (d.unit_gather - fwd_layer));
  const double dp_long = longer["time_breakdown_s"]["dp_comm"].get<double>();
  EXPECT_LT(dp_long / longer["iteration_time_s"].get<double>(), 0.1);
  EXPECT_GT(dp_short / shorter["iteration_time_s"].get<double>(), 0.3);
}

// Without overlap every gather (forward and backward) and reduce-scatter
// of every micro-batch is on the critical path.
TEST(Fsdp, NoOverlapSerialisesEveryUnit) {
  json j = fsdp(16, 2, 2048);
  j["training"]["global_batch"] = 64;  // two micro-batches
  j["training"]["overlap"] = {{"dp", false}};
  const Scenario s = scenario_of(j);
  const DpParts d = dp_parts(s, training_memory(s).params_on_gpu);
  const double L = s.model.layers;
  const double expected = 2 * (2 * (d.root_gather + L * d.unit_gather) + d.root_reduce + L * d.unit_reduce);
  EXPECT_NEAR(eval_ok(j)["training"]["time_breakdown_s"]["dp_comm"].get<double>(), expected, 1e-9 * expected);
}

// The collective's SMs: with comm_sm_share 0 the overlapped compute runs at
// full speed, so the iteration is shorter.
TEST(Fsdp, OverlapSlowdownCostsTime) {
  json j = fsdp(64, 2, 4096);
  const double with = eval_ok(j)["training"]["iteration_time_s"].get<double>();
  j["system"] = {{"preset", "dgx-h100"}, {"device", {{"efficiency", {{"comm_sm_share", 0.0}}}}}};
  const double without = eval_ok(j)["training"]["iteration_time_s"].get<double>();
  EXPECT_GT(with, without);
  EXPECT_LT(with, 1.2 * without);
}

// Megatron --recompute-method block: only N layers per stage run again and
// the others keep their activations; uniform recomputes every layer.
TEST(Recompute, BlockRecomputesOnlyNLayers) {
  json j = {{"mode", "training"}, {"model", "llama2-7b"}, {"system", "dgx-h100"},
            {"parallelism", {{"tp", 2}, {"dp", 4}, {"zero", 1}}},
            {"training", {{"global_batch", 32}, {"micro_batch", 1}, {"recompute", "full"}}}};
  const json full = eval_ok(j)["training"];
  j["training"]["recompute_layers"] = 8;
  j["training"]["recompute_method"] = "block";
  const json block = eval_ok(j)["training"];
  j["training"]["recompute"] = "none";
  j["training"].erase("recompute_layers");
  j["training"].erase("recompute_method");
  const json none = eval_ok(j)["training"];
  auto rec = [](const json& t) { return t["time_breakdown_s"]["recompute"].get<double>(); };
  EXPECT_NEAR(rec(block), rec(full) * 8.0 / 32.0, 1e-9 * rec(full));
  auto act = [](const json& t) { return t["memory_bytes"]["activations"].get<double>(); };
  EXPECT_GT(act(block), act(full));
  EXPECT_LT(act(block), act(none));
  // Hardware FLOPs: a quarter of full recompute's extra forward.
  auto hw = [](const json& t) { return t["flops"]["hardware_per_iteration"].get<double>(); };
  EXPECT_NEAR(hw(block) - hw(none), (hw(full) - hw(none)) * 8.0 / 32.0, 1e-9 * hw(full));
}

TEST(Recompute, UniformChunksKeepFewerInputs) {
  json j = {{"mode", "training"}, {"model", "llama2-7b"}, {"system", "dgx-h100"},
            {"parallelism", {{"tp", 2}, {"dp", 4}}},
            {"training", {{"global_batch", 32}, {"micro_batch", 1}, {"recompute", "full"}}}};
  const json one = eval_ok(j)["training"];
  j["training"]["recompute_layers"] = 4;
  const json four = eval_ok(j)["training"];
  // Same recompute time, less memory for inputs but one 4-layer chunk whole.
  EXPECT_DOUBLE_EQ(four["time_breakdown_s"]["recompute"].get<double>(), one["time_breakdown_s"]["recompute"].get<double>());
  EXPECT_NE(four["memory_bytes"]["activations"].get<double>(), one["memory_bytes"]["activations"].get<double>());
}

// Hybrid sharding (HSDP; Zhao et al. 2023, PyTorch FSDP §3.2.2): states shard
// over a node's 8 GPUs and the 8 nodes replicate. Each GPU holds 8x the
// states of full sharding over 64 (the gathered units' buffers are the same
// in both); a unit's weights are gathered over NVLink, its gradients
// reduce-scattered there and their 1/8 shards all-reduced across the nodes.
json hybrid(int dp, int shard, int mb, int seq) {
  json j = fsdp(dp, mb, seq);
  j["parallelism"]["zero_shard"] = shard;
  return j;
}

TEST(Fsdp, HybridShardingKeepsStatesPerShardGroup) {
  const json full = eval_ok(fsdp(64, 1, 4096))["training"]["memory_bytes"];
  const json hsdp = eval_ok(hybrid(64, 8, 1, 4096))["training"]["memory_bytes"];
  const double params = training_memory(scenario_of(fsdp(64, 1, 4096))).params_on_gpu;
  const std::pair<const char*, double> bytes[] = {{"weights", 2}, {"gradients", 4}, {"optimizer", 12}};
  for (const auto& [k, per_param] : bytes)  // 1/8 instead of 1/64 of the states
    EXPECT_NEAR(hsdp[k].get<double>() - full[k].get<double>(), params * per_param * (1.0 / 8 - 1.0 / 64),
                1e-9 * hsdp[k].get<double>())
        << k;
}

TEST(Fsdp, HybridShardingGathersInsideTheShardGroup) {
  const Scenario s = scenario_of(hybrid(64, 8, 1, 4096));
  const double params = training_memory(s).params_on_gpu;
  const DpParts d = dp_parts(s, params);
  const double per_layer = count_params(s.model).layers / s.model.layers;
  const Group node{8, 1, 64}, across{8, 8, 64};
  EXPECT_DOUBLE_EQ(d.unit_gather, collective_time(s.system, Collective::all_gather, node, per_layer * 2));
  const double reduce = collective_time(s.system, Collective::reduce_scatter, node, per_layer * 4) +
                        collective_time(s.system, Collective::all_reduce, across, per_layer / 8 * 4);
  EXPECT_NEAR(d.unit_reduce, reduce, 1e-12 * reduce);
  // Across 8 nodes the flat gather is slower than the one inside a node.
  const Scenario flat = scenario_of(fsdp(64, 1, 4096));
  EXPECT_GT(dp_parts(flat, training_memory(flat).params_on_gpu).unit_gather, d.unit_gather);
}

TEST(Fsdp, HybridShardingNeedsZeroAndADivisor) {
  json j = hybrid(64, 3, 1, 4096);
  json out = eval(j);
  ASSERT_TRUE(out.contains("error"));
  EXPECT_EQ(out["error"]["path"], "parallelism.zero_shard");
  j = hybrid(64, 8, 1, 4096);
  j["parallelism"]["zero"] = 0;
  out = eval(j);
  ASSERT_TRUE(out.contains("error"));
  EXPECT_EQ(out["error"]["path"], "parallelism.zero_shard");
}

// ZeRO-3 prefetches the next unit beside all of a layer's time, the
// all-to-all it waits on included. Counted beside its compute alone, the
// gathers and an overlapped all-to-all both hid behind the same compute, and
// twice the compute exposed both at once: the step grew (Mixtral on TPU v5p,
// 1.146 s against 1.169 s).
TEST(Fsdp, GathersHideBehindTheLayersWallTime) {
  json s = {{"mode", "training"}, {"model", "mixtral-8x7b"},
            {"system", json::parse(presets_json())["systems"]["tpu-v5p"]["system"]},
            {"parallelism", {{"tp", 8}, {"pp", 2}, {"dp", 16}, {"ep", 4}, {"sp", true}, {"zero", 3}, {"pp_schedule", "gpipe"}}},
            {"training", {{"global_batch", 128}, {"seq_len", 4096}, {"recompute", "selective"}, {"precision", "fp8"},
                          {"overlap", {{"ep", true}}}}}};
  const double base = eval_ok(s)["training"]["iteration_time_s"].get<double>();
  for (auto& [_, v] : s["system"]["device"]["matmul_tflops"].items()) v = 2 * v.get<double>();
  for (auto& [_, v] : s["system"]["device"]["vector_tflops"].items()) v = 2 * v.get<double>();
  const json fast = eval_ok(s)["training"];
  EXPECT_LT(fast["iteration_time_s"].get<double>(), base);
  EXPECT_GT(fast["time_breakdown_s"]["ep_comm"].get<double>(), 0) << "the all-to-all shows once compute is short";
}


// ZeRO-2 shards the gradients, so under gradient accumulation it
// reduce-scatters every micro-batch's gradients (ZeRO §5.2): without overlap
// the step waits for one reduction per micro-batch, where ZeRO-1 waits for
// one per step; with a single micro-batch the two are the same plan.
TEST(Fsdp, ZeroTwoReducesEveryMicrobatch) {
  json j = {{"mode", "training"}, {"model", "llama2-7b"}, {"system", "dgx-h100"},
            {"parallelism", {{"dp", 16}, {"zero", 1}}},
            {"training", {{"global_batch", 64}, {"micro_batch", 1}, {"seq_len", 4096}, {"overlap", {{"dp", false}}}}}};
  auto dp_comm = [&](int zero) {
    j["parallelism"]["zero"] = zero;
    const json r = eval_ok(j);
    const auto ops = r["ops"];
    const auto rs = std::find_if(ops.begin(), ops.end(), [](const json& o) { return o["name"] == "dp.grad_reduce_scatter"; });
    EXPECT_NE(rs, ops.end());
    return std::make_pair(r["training"]["time_breakdown_s"]["dp_comm"].get<double>(), (*rs)["count"].get<double>());
  };
  const Scenario s = scenario_of(j);
  const DpParts d = dp_parts(s, training_memory(s).params_on_gpu);
  const auto [one, one_count] = dp_comm(1);
  const auto [two, two_count] = dp_comm(2);
  EXPECT_DOUBLE_EQ(one_count, 1);
  EXPECT_DOUBLE_EQ(two_count, 4);  // 64 sequences / (1 x 16 ranks)
  EXPECT_NEAR(two - one, 3 * d.reduce, 1e-9 * two);
  // Overlapped, each reduction hides behind its micro-batch's backward but
  // for the last bucket and the SMs it holds: more than ZeRO-1's one.
  j["training"].erase("overlap");
  const double overlapped_one = dp_comm(1).first, overlapped_two = dp_comm(2).first;
  EXPECT_GT(overlapped_two, 2 * overlapped_one);
  j["training"]["global_batch"] = 16;  // one micro-batch
  EXPECT_DOUBLE_EQ(dp_comm(2).first, dp_comm(1).first);
}

// Under pipeline stages FSDP keeps the stage's weights gathered and its
// gradients whole from the first micro-batch to the last (torchtitan: no
// reshard after forward with pp > 1), so its data-parallel traffic is one
// iteration's, however many micro-batches, and the stage's weights and
// gradients are whole in memory; without pipeline stages every micro-batch
// gathers and reduces again.
TEST(Fsdp, UnderPipelineStagesTheWeightsAreGatheredOnce) {
  json j = {{"mode", "training"}, {"model", "llama2-7b"}, {"system", "dgx-h100"},
            {"parallelism", {{"pp", 2}, {"dp", 8}, {"zero", 3}}},
            {"training", {{"global_batch", 64}, {"micro_batch", 1}, {"seq_len", 4096}, {"recompute", "full"}, {"overlap", {{"dp", false}}}}}};
  auto dp_of = [&](int global_batch) {
    j["training"]["global_batch"] = global_batch;
    return eval_ok(j)["training"];
  };
  const json eight = dp_of(64), sixteen = dp_of(128);  // 8 and 16 micro-batches a step
  const double once = eight["time_breakdown_s"]["dp_comm"].get<double>();
  EXPECT_GT(once, 0);
  EXPECT_NEAR(sixteen["time_breakdown_s"]["dp_comm"].get<double>(), once, 1e-9 * once);
  const Scenario s = scenario_of(j);
  const DpParts d = dp_parts(s, training_memory(s).params_on_gpu);
  const double L = s.model.layers / 2.0;  // the stage's layers
  EXPECT_NEAR(once, d.root_gather + L * d.unit_gather + d.root_reduce + L * d.unit_reduce, 1e-6 * once);
  // The stage's 16-bit weights and gradients are held whole beside the shards.
  const double stage = training_memory(s).params_on_gpu;
  EXPECT_GT(eight["memory_bytes"]["weights"].get<double>(), 2 * stage);
  EXPECT_GT(eight["memory_bytes"]["gradients"].get<double>(), 2 * stage);
  const json ops = eval_ok(j)["ops"];
  for (const char* name : {"dp.param_all_gather", "dp.grad_reduce_scatter"}) {
    const auto op = std::find_if(ops.begin(), ops.end(), [&](const json& o) { return o["name"] == name; });
    ASSERT_NE(op, ops.end()) << name;
    EXPECT_DOUBLE_EQ((*op)["count"].get<double>(), 1) << name;
  }
  // Without pipeline stages, twice the micro-batches, twice the traffic.
  j["parallelism"] = {{"dp", 16}, {"zero", 3}};
  const double flat8 = dp_of(128)["time_breakdown_s"]["dp_comm"].get<double>();
  EXPECT_NEAR(dp_of(256)["time_breakdown_s"]["dp_comm"].get<double>(), 2 * flat8, 1e-6 * flat8);
}

}  // namespace
}  // namespace llmcalc::test
