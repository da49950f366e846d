// Optimizer offload (ZeRO-Offload, Ren et al. 2021, USENIX ATC, §4): the
// fp32 gradients, master weights and Adam states move to host memory and the
// CPUs step; the GPUs keep 16-bit weights and gradients. Hand counts:
// 18 bytes per parameter become 2 (weights) + 2 (16-bit gradient) on the GPU
// and 4 + 12 on the host; the host step streams 34 bytes per parameter
// through the GPU's share of the node's CPU memory.
#include "memory.h"
#include "parse.h"
#include "search.h"
#include "test_util.h"

namespace llmcalc::test {
namespace {

// Llama 3.1 70B, fully sharded over one 8-GPU A100 80 GB node: without
// offload its 18 bytes per parameter (156 GiB per GPU) do not fit.
json seventy_b(const std::string& offload, const json& system = "dgx-a100-80gb") {
  return {{"mode", "training"},
          {"model", "llama3.1-70b"},
          {"system", system},
          {"parallelism", {{"tp", 1}, {"pp", 1}, {"dp", 8}, {"zero", 3}}},
          {"training",
           {{"global_batch", 32}, {"micro_batch", 1}, {"seq_len", 4096}, {"precision", "bf16"}, {"recompute", "full"},
            {"flash_attention", true}, {"offload", offload}}}};
}

// A dgx-a100-80gb whose host side is given here (per GPU).
json host_system(double link_GBps, double memory_GBps, double memory_GiB = 256) {
  return {{"preset", "dgx-a100-80gb"},
          {"host",
           {{"link_GBps", link_GBps}, {"memory_GBps", memory_GBps}, {"memory_efficiency", 0.75}, {"memory_GiB", memory_GiB}}}};
}

// Parameters whose optimizer states one rank holds (ZeRO-3 over 8).
double local_params(const json& j) { return training_memory(parse_scenario(j)).params_on_gpu / 8; }

TEST(Offload, MovesTheOptimizerStatesToTheHost) {
  const json on_gpu = eval_ok(seventy_b("none")).at("training");
  const json off = eval_ok(seventy_b("optimizer")).at("training");
  const json& a = on_gpu.at("memory_bytes");
  const json& b = off.at("memory_bytes");
  EXPECT_FALSE(on_gpu.at("fits").get<bool>());
  EXPECT_TRUE(off.at("fits").get<bool>()) << b.dump();
  EXPECT_EQ(b.at("optimizer").get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(b.at("weights").get<double>(), a.at("weights").get<double>());
  // Each rank's shard of the gradients: 16-bit for fp32 on the GPU, fp32 with
  // the optimizer states (12 bytes) on the host.
  const double local = local_params(seventy_b("none"));
  EXPECT_NEAR(a.at("gradients").get<double>() - b.at("gradients").get<double>(), local * (4 - 2), 1);
  EXPECT_NEAR(b.at("offloaded").get<double>(), local * (4 + 12), 1);
  EXPECT_NEAR(b.at("host_capacity").get<double>(), 256.0 * 1073741824, 1);  // 2 TB over 8 GPUs
  EXPECT_FALSE(a.contains("offloaded"));
  // 70.6e9 parameters over 8 ranks: 16 bytes each on the host, about 131 GiB.
  EXPECT_NEAR(b.at("offloaded").get<double>() / 1073741824, 70.6e9 / 8 * 16 / 1073741824, 1.5);
}

TEST(Offload, HostStepStreamsThroughTheGpusShareOfHostMemory) {
  const json out = eval_ok(seventy_b("optimizer", host_system(26, 40)));
  const json step = find_op(out, "optimizer.host_step", "optimizer");
  ASSERT_TRUE(step.is_object());
  EXPECT_EQ(step.at("bound"), "host");
  const double local = local_params(seventy_b("optimizer", host_system(26, 40)));
  EXPECT_NEAR(step.at("time_s").get<double>(), local * 34 / (40e9 * 0.75), 1e-6);
  const json up = find_op(out, "optimizer.weights_to_device", "optimizer");
  EXPECT_NEAR(up.at("time_s").get<double>(), local * 2 / 26e9, 1e-6);
  // The weights stream back while the CPUs step; the gradient copies hide
  // behind the last backward pass: the step is what shows.
  EXPECT_NEAR(out.at("training").at("time_breakdown_s").at("optimizer").get<double>(), step.at("time_s").get<double>(),
              1e-9);
  // Twice the host memory bandwidth halves it.
  const json fast = eval_ok(seventy_b("optimizer", host_system(26, 80)));
  EXPECT_NEAR(fast.at("training").at("time_breakdown_s").at("optimizer").get<double>(),
              step.at("time_s").get<double>() / 2, 1e-6);
}

TEST(Offload, ASlowLinkShowsInsteadOfTheStep) {
  const json out = eval_ok(seventy_b("optimizer", host_system(1, 400)));
  const double up = find_op(out, "optimizer.weights_to_device", "optimizer").at("time_s").get<double>();
  const double step = find_op(out, "optimizer.host_step", "optimizer").at("time_s").get<double>();
  ASSERT_GT(up, step);
  const json& t = out.at("training");
  EXPECT_GE(t.at("time_breakdown_s").at("optimizer").get<double>(), up);
}

// With ZeRO 1 the GPUs keep whole gradients (16-bit now), but each rank
// copies only its reduced shard to the host: host bytes shard with the states.
TEST(Offload, HostGradientsShardAsTheOptimizerStates) {
  json z1 = seventy_b("optimizer");
  z1["parallelism"]["zero"] = 1;
  z1["parallelism"]["tp"] = 8;
  z1["parallelism"]["dp"] = 1;
  json z1_dp = z1;
  z1_dp["parallelism"]["tp"] = 4;
  z1_dp["parallelism"]["dp"] = 2;
  z1_dp["training"]["global_batch"] = 32;
  const json one = eval_ok(z1).at("training").at("memory_bytes");
  const json two = eval_ok(z1_dp).at("training").at("memory_bytes");
  // 16 host bytes per parameter of the rank's shard; 2 GPU gradient bytes per parameter held
  const double params_one = one.at("weights").get<double>() / 2, params_two = two.at("weights").get<double>() / 2;
  EXPECT_NEAR(one.at("offloaded").get<double>(), params_one * 16, 1e3);
  EXPECT_NEAR(two.at("offloaded").get<double>(), params_two * 16 / 2, 1e3);
  EXPECT_NEAR(two.at("gradients").get<double>(), params_two * 2, 1e3);
}

// ZeRO 2 and 3 hold no whole gradient buffer to accumulate in, so every
// micro-batch's backward copies its reduced shard to the host, which
// accumulates it; ZeRO 1 copies once per step (4 micro-batches here).
TEST(Offload, ShardedGradientsLeaveEveryMicrobatch) {
  json j = seventy_b("optimizer");
  auto copies = [&](int zero) {
    j["parallelism"]["zero"] = zero;
    return find_op(eval_ok(j), "optimizer.grad_to_host", "bwd").at("count").get<double>();
  };
  EXPECT_EQ(copies(3), 4);
  EXPECT_EQ(copies(2), 4);
  j["parallelism"]["tp"] = 8;  // ZeRO 1 fits with the model split over tp
  j["parallelism"]["dp"] = 1;
  j["training"]["global_batch"] = 4;
  EXPECT_EQ(copies(1), 1);  // still 4 micro-batches
}

// Parameter offload (ZeRO-Infinity, Rajbhandari et al. 2021 §5): the rank's
// 16-bit weight shard moves to the host beside the optimizer; the GPU keeps
// only the gathered units, and each pass fetches every unit's shard (and the
// root's) over the host link before its all-gather.
TEST(Offload, ParametersLeaveTheGatheredUnitsOnTheGpu) {
  const json opt = eval_ok(seventy_b("optimizer", host_system(26, 40)));
  const json par = eval_ok(seventy_b("parameters", host_system(26, 40)));
  const json& a = opt.at("training").at("memory_bytes");
  const json& b = par.at("training").at("memory_bytes");
  const double local = local_params(seventy_b("none"));
  EXPECT_NEAR(a.at("weights").get<double>() - b.at("weights").get<double>(), local * 2, 1);
  EXPECT_NEAR(b.at("offloaded").get<double>() - a.at("offloaded").get<double>(), local * 2, 1);
  EXPECT_GT(b.at("weights").get<double>(), 0.0);  // the units being gathered
  // Four micro-batches (32 / 8 ranks): each forward and each backward fetch the shard.
  const json fetch = find_op(par, "dp.param_fetch_from_host", "fwd");
  ASSERT_TRUE(fetch.is_object()) << par.at("ops").dump().substr(0, 400);
  EXPECT_NEAR(fetch.at("time_s").get<double>(), local * 2 / 26e9, 1e-6);
  EXPECT_EQ(fetch.at("count").get<double>(), 8.0);
  EXPECT_TRUE(find_op(par, "optimizer.weights_to_device", "optimizer").is_null());  // they stay on the host
  EXPECT_GE(par.at("training").at("time_breakdown_s").at("dp_comm").get<double>(),
            opt.at("training").at("time_breakdown_s").at("dp_comm").get<double>());
  // A slower link shows: fetches no longer hide behind a layer's compute.
  const json slow = eval_ok(seventy_b("parameters", host_system(2, 40)));
  EXPECT_GT(slow.at("training").at("iteration_time_s").get<double>(),
            par.at("training").at("iteration_time_s").get<double>() + 8 * local * 2 / 2e9 * 0.5);
}

// One GPU: nothing is gathered, but the weights still come from the host a
// unit at a time.
TEST(Offload, ParametersOnOneGpuFetchUnitByUnit) {
  json one = seventy_b("parameters");
  one["parallelism"]["dp"] = 1;
  one["training"]["global_batch"] = 4;
  const json m = eval_ok(one).at("training").at("memory_bytes");
  const double weights = m.at("weights").get<double>();
  EXPECT_GT(weights, 0.0);
  EXPECT_LT(weights, 0.1 * 70.6e9 * 2);
  one["parallelism"]["zero"] = 1;
  const json bad = eval(one);
  ASSERT_TRUE(bad.contains("error")) << bad.dump();
  EXPECT_EQ(bad.at("error").at("path"), "training.offload");
}

// A run on fewer GPUs than share a host divides the host among those it
// runs on: one H100 of a DGX gets all eight shares (2 TiB, 8 x 76.8 GB/s),
// one GB200 the Grace of its superchip (two shares: host.gpus 2).
TEST(Offload, ARunOnFewerGpusThanShareTheHostGetsTheirShares) {
  json one = seventy_b("optimizer", "dgx-h100");
  one["model"] = "llama3.1-8b";
  one["parallelism"]["dp"] = 1;
  one["training"]["global_batch"] = 4;
  const json out = eval_ok(one);
  EXPECT_NEAR(out.at("training").at("memory_bytes").at("host_capacity").get<double>(), 8 * 256.0 * 1073741824, 1);
  const double local = training_memory(parse_scenario(one)).params_on_gpu;
  EXPECT_NEAR(find_op(out, "optimizer.host_step", "optimizer").at("time_s").get<double>(),
              local * 34 / (8 * 76.8e9 * 0.75), 1e-6);
  one["system"] = "gb200-nvl72";
  EXPECT_NEAR(eval_ok(one).at("training").at("memory_bytes").at("host_capacity").get<double>(), 2 * 220.0 * 1073741824, 1);
  one["parallelism"]["dp"] = 8;  // more GPUs than share a Grace: each its own share
  one["training"]["global_batch"] = 32;
  EXPECT_NEAR(eval_ok(one).at("training").at("memory_bytes").at("host_capacity").get<double>(), 220.0 * 1073741824, 1);
  const json bad = eval(seventy_b("optimizer", {{"preset", "dgx-h100"},
                                                {"host", {{"link_GBps", 51}, {"memory_GBps", 76.8}, {"memory_GiB", 256}, {"gpus", 9}}}}));
  ASSERT_TRUE(bad.contains("error")) << bad.dump();
  EXPECT_EQ(bad.at("error").at("path"), "system.host.gpus");
}

// Activation offload (Megatron-Core CPU offloading, cpu_offloading_num_layers):
// the saved activations of N layers wait in host memory between forward and
// backward; the copies hide behind a layer's compute unless the link is slow.
json eight_b_activations(int layers, const json& system = "dgx-h100") {
  return {{"mode", "training"},
          {"model", "llama3.1-8b"},
          {"system", system},
          {"parallelism", {{"tp", 1}, {"pp", 1}, {"dp", 8}, {"zero", 1}}},
          {"training",
           {{"global_batch", 32}, {"micro_batch", 1}, {"seq_len", 8192}, {"recompute", "none"},
            {"offload_activations", layers}}}};
}

TEST(Offload, ActivationsOfNLayersWaitInHostMemory) {
  const json none = eval_ok(eight_b_activations(0)).at("training");
  const json eight = eval_ok(eight_b_activations(8)).at("training");
  const json sixteen = eval_ok(eight_b_activations(16)).at("training");
  const auto mem = [](const json& t, const char* k) { return t.at("memory_bytes").at(k).get<double>(); };
  EXPECT_FALSE(none.at("memory_bytes").contains("offloaded"));
  // Twice the layers, twice the host bytes; the GPU holds that much less.
  EXPECT_NEAR(mem(sixteen, "offloaded"), 2 * mem(eight, "offloaded"), 1);
  EXPECT_NEAR(mem(eight, "activations") - mem(sixteen, "activations"), mem(sixteen, "offloaded") - mem(eight, "offloaded"), 1);
  EXPECT_LT(mem(sixteen, "activations"), mem(none, "activations"));
  EXPECT_EQ(mem(eight, "host_capacity"), 256.0 * 1073741824);
  // A layer's activations (about 2 GB at 8,192 tokens) outlast its compute
  // over PCIe (51 GB/s): the excess shows, more over a slower link; a link
  // of 2 TB/s would hide them.
  const auto exposed_at = [](double link_GBps) {
    return eval_ok(eight_b_activations(16, host_system(link_GBps, 40))).at("training").at("time_breakdown_s").at("offload").get<double>();
  };
  EXPECT_EQ(exposed_at(2000), 0.0);
  const double pcie = sixteen.at("time_breakdown_s").at("offload").get<double>();
  EXPECT_GT(pcie, 0.0);
  const json slow = eval_ok(eight_b_activations(16, host_system(0.5, 40)));
  const double exposed = slow.at("training").at("time_breakdown_s").at("offload").get<double>();
  EXPECT_GT(exposed, pcie);
  const json copy = find_op(slow, "offload.activations_to_host", "fwd");
  ASSERT_TRUE(copy.is_object());
  EXPECT_EQ(copy.at("count").get<double>(), 4.0 * 16);  // 4 micro-batches x 16 layers
  EXPECT_LT(exposed, 2 * copy.at("count").get<double>() * copy.at("time_s").get<double>());
}

TEST(Offload, ActivationOffloadIsRefusedWhereItCannotRun) {
  json pp = eight_b_activations(8);
  pp["parallelism"]["pp"] = 2;
  pp["parallelism"]["dp"] = 4;
  json all = eight_b_activations(32);
  for (const json& j : {pp, all, eight_b_activations(8, "amd-mi300x")}) {
    const json out = eval(j);
    ASSERT_TRUE(out.contains("error")) << j.dump();
    EXPECT_EQ(out.at("error").at("path"), "training.offload_activations");
  }
}

TEST(Offload, NeedsTheSystemsHostFigures) {
  const json out = eval(seventy_b("optimizer", "amd-mi300x"));
  ASSERT_TRUE(out.contains("error")) << out.dump();
  EXPECT_EQ(out.at("error").at("path"), "training.offload");
  const json bad = eval(seventy_b("optimizer", {{"preset", "amd-mi300x"}, {"host", {{"link_GBps", 55}}}}));
  ASSERT_TRUE(bad.contains("error"));
  EXPECT_EQ(bad.at("error").at("path"), "system.host.memory_GBps");
}

TEST(Offload, WarnsWhenTheHostMemoryIsShort) {
  const json out = eval_ok(seventy_b("optimizer", host_system(26, 40, 64)));
  bool warned = false, gpu = false;
  for (const auto& w : out.at("warnings")) {
    warned = warned || w.get<std::string>().find("host memory") != std::string::npos;
    gpu = gpu || w.get<std::string>().find("needed per GPU, 80") != std::string::npos;
  }
  EXPECT_TRUE(warned) << out.at("warnings").dump();
  EXPECT_FALSE(gpu) << out.at("warnings").dump();  // the GPUs' share fits
  EXPECT_FALSE(out.at("training").at("fits").get<bool>());  // the run cannot start
}

// The search skips a plan whose offload the host cannot hold and counts it:
// with 64 GiB of host memory per GPU every plan that fits the GPUs is short
// of host memory; with the A100 node's own 2 TiB none is.
TEST(Offload, TheSearchCountsPlansShortOfHostMemory) {
  json in = seventy_b("optimizer", host_system(26, 40, 64));
  in["search"] = {{"gpus", 8}};
  const json s = json::parse(search_json(in.dump())).at("search");
  EXPECT_EQ(s.at("feasible").get<long long>(), 0);
  EXPECT_GT(s.at("host_short").get<long long>(), 0);
  in["system"] = "dgx-a100-80gb";
  const json ok = json::parse(search_json(in.dump())).at("search");
  EXPECT_GT(ok.at("feasible").get<long long>(), 0);
  EXPECT_EQ(ok.at("host_short").get<long long>(), 0);
}

// The host figures are schema inputs: a sweep of the host memory bandwidth
// speeds the step in proportion, and a system without a host object gains
// one from the three figures (the streaming share defaults to 0.75).
TEST(Offload, HostFiguresAreSweepableInputs) {
  json sweep = seventy_b("optimizer", "dgx-h100");
  sweep["sweep"] = {{"input", "system.host_memory_GBps"}, {"from", 50}, {"to", 200}, {"steps", 3}, {"scale", "log"},
                    {"outputs", {"training.time_breakdown_s.optimizer"}}};
  const json out = json::parse(sweep_json(sweep.dump()));
  ASSERT_FALSE(out.contains("error")) << out.dump();
  const json v = out.at("sweep").at("series").at(0).at("values").at("training.time_breakdown_s.optimizer");
  ASSERT_EQ(v.size(), 3u);
  EXPECT_NEAR(v[0].get<double>() / v[2].get<double>(), 4.0, 1e-6);  // step-bound: 50 -> 200 GB/s
  json mi = seventy_b("optimizer", "amd-mi300x");
  mi["sweep"] = {{"input", "system.host_link_GBps"}, {"from", 55}, {"to", 55}, {"steps", 1},
                 {"outputs", {"training.iteration_time_s"}}};
  const json missing = json::parse(sweep_json(mi.dump()));
  const json none = missing.at("sweep").at("series").at(0).at("errors");
  EXPECT_FALSE(none.empty()) << missing.dump();  // memory_GBps and memory_GiB are still missing
  mi.erase("sweep");
  mi["system"] = {{"preset", "amd-mi300x"}, {"host", {{"link_GBps", 55}, {"memory_GBps", 115.2}, {"memory_GiB", 192}}}};
  const json ok = eval_ok(mi);
  EXPECT_GT(ok.at("training").at("memory_bytes").at("offloaded").get<double>(), 0);
}

}  // namespace
}  // namespace llmcalc::test
