// The result's what_if: the headline times with one part of the system twice
// as fast, each checked against the scenario given with that part doubled in
// its system object.
#include <string>
#include <vector>

#include "test_util.h"

namespace llmcalc::test {
namespace {

json preset_system(const std::string& id) { return json::parse(presets_json())["systems"][id]["system"]; }

json part_named(const json& out, const std::string& part) {
  for (const json& p : out["what_if"]["parts"])
    if (p["part"] == part) return p;
  return nullptr;
}

std::vector<std::string> part_names(const json& out) {
  std::vector<std::string> names;
  for (const json& p : out["what_if"]["parts"]) names.push_back(p["part"].get<std::string>());
  return names;
}

// Every speed-up lies between 1 (the part does not limit the run) and 2 (the run is that part alone).
void expect_in_range(const json& out) {
  for (const json& p : out["what_if"]["parts"])
    for (const auto& [metric, v] : p["speedup"].items()) {
      EXPECT_GE(v.get<double>(), 1 - 1e-9) << p["part"] << " " << metric;
      EXPECT_LE(v.get<double>(), 2 + 1e-9) << p["part"] << " " << metric;
    }
}

TEST(WhatIf, EachPartIsTheScenarioWithThatPartDoubled) {
  // 16 GPUs of 8-GPU nodes: the plan reaches NVLink and InfiniBand.
  json s = {{"mode", "training"}, {"model", "llama3.1-8b"}, {"system", preset_system("dgx-h100")},
            {"parallelism", {{"tp", 2}, {"dp", 8}}}, {"training", {{"global_batch", 64}, {"seq_len", 4096}}}};
  const json out = eval_ok(s);
  EXPECT_EQ(part_names(out), (std::vector<std::string>{"compute", "memory", "network.0", "network.1", "latency", "host"}));
  EXPECT_EQ(part_named(out, "memory")["label"], "HBM3 bandwidth");
  EXPECT_EQ(part_named(out, "network.1")["label"], "scale-out link (infiniband)");
  const auto time_with = [&](auto change) {
    json x = s;
    change(x);
    return eval_ok(x)["training"]["iteration_time_s"].get<double>();
  };
  const auto doubled = [](json& v) { v = 2 * v.get<double>(); };
  const std::vector<std::pair<std::string, double>> expected = {
      {"compute", time_with([&](json& x) {
         for (auto& [_, v] : x["system"]["device"]["matmul_tflops"].items()) doubled(v);
         for (auto& [_, v] : x["system"]["device"]["vector_tflops"].items()) doubled(v);
         doubled(x["system"]["device"]["sfu_tops"]);
       })},
      {"memory", time_with([&](json& x) { doubled(x["system"]["device"]["memory"].back()["bandwidth_GBps"]); })},
      {"network.0", time_with([&](json& x) { doubled(x["system"]["network"][0]["bandwidth_GBps"]); })},
      {"network.1", time_with([&](json& x) { doubled(x["system"]["network"][1]["bandwidth_GBps"]); })},
      {"latency", time_with([&](json& x) {
         auto& e = x["system"]["device"]["efficiency"];
         e["launch_overhead_us"] = e.value("launch_overhead_us", 0.0) / 2;
         if (e.contains("decode_step_overhead_us")) e["decode_step_overhead_us"] = e["decode_step_overhead_us"].get<double>() / 2;
         for (auto& t : x["system"]["network"]) {
           t["latency_us"] = t["latency_us"].get<double>() / 2;
           if (t.contains("nvls")) t["nvls"]["latency_us"] = t["nvls"]["latency_us"].get<double>() / 2;
         }
       })},
      {"host", time_with([&](json& x) { x["training"]["host_overhead_us"] = 10; })}};
  const double base = out["training"]["iteration_time_s"].get<double>();
  EXPECT_DOUBLE_EQ(out["what_if"]["base"]["iteration_time_s"].get<double>(), base);
  for (const auto& [part, t] : expected) {
    const json p = part_named(out, part);
    ASSERT_TRUE(p.is_object()) << part;
    EXPECT_LE(rel_diff(p["times"]["iteration_time_s"].get<double>(), t), 1e-12) << part;
    EXPECT_LE(rel_diff(p["speedup"]["iteration_time_s"].get<double>(), base / t), 1e-12) << part;
  }
  expect_in_range(out);
}

// The part with the largest speed-up is the one that limits the run: HBM for
// a decode step of one sequence, compute for prefill and for GPT-3's step.
TEST(WhatIf, NamesWhatLimitsTheRun) {
  const json serve = eval_ok({{"mode", "inference"}, {"model", "llama3.1-70b"}, {"system", "dgx-h100"},
                              {"parallelism", {{"tp", 8}}},
                              {"inference", {{"batch", 1}, {"input_tokens", 8192}, {"output_tokens", 128}}}});
  const json mem = part_named(serve, "memory"), compute = part_named(serve, "compute");
  EXPECT_GT(mem["speedup"]["tpot_s"].get<double>(), 1.3);  // the tp all-reduces and launches keep the rest
  EXPECT_GT(mem["speedup"]["tpot_s"].get<double>(), part_named(serve, "network.0")["speedup"]["tpot_s"].get<double>());
  EXPECT_LT(compute["speedup"]["tpot_s"].get<double>(), 1.05);
  EXPECT_GT(compute["speedup"]["ttft_s"].get<double>(), mem["speedup"]["ttft_s"].get<double>());
  // One sequence's step is short enough for kernel launches and collective latencies to weigh.
  EXPECT_GT(part_named(serve, "latency")["speedup"]["tpot_s"].get<double>(), 1.1);
  expect_in_range(serve);
  const json train = eval_ok({{"mode", "training"}, {"model", "gpt3-175b"}, {"system", "dgx-a100-80gb"},
                              {"parallelism", {{"tp", 8}, {"pp", 16}, {"dp", 8}, {"sp", true}}},
                              {"training", {{"global_batch", 1536}, {"seq_len", 2048}, {"recompute", "selective"}}}});
  double top = 0;
  std::string limit;
  for (const json& p : train["what_if"]["parts"])
    if (p["speedup"]["iteration_time_s"].get<double>() > top) top = p["speedup"]["iteration_time_s"], limit = p["part"];
  EXPECT_EQ(limit, "compute");
  EXPECT_GT(top, 1.3);
  expect_in_range(train);
}

// A network tier is listed when the job's GPUs reach it; one GPU has none,
// and inference has no host row (its launches are not modelled).
TEST(WhatIf, ListsOnlyThePartsTheJobUses) {
  const json one = eval_ok({{"mode", "inference"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"}});
  EXPECT_EQ(part_names(one), (std::vector<std::string>{"compute", "memory", "latency"}));
  const json node = eval_ok({{"mode", "training"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"},
                             {"parallelism", {{"dp", 8}}}, {"training", {{"global_batch", 64}}}});
  EXPECT_EQ(part_names(node), (std::vector<std::string>{"compute", "memory", "network.0", "latency", "host"}));
  const json graphs = eval_ok({{"mode", "training"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"},
                               {"parallelism", {{"dp", 8}}}, {"training", {{"global_batch", 64}, {"host_overhead_us", 0}}}});
  EXPECT_EQ(part_names(graphs), (std::vector<std::string>{"compute", "memory", "network.0", "latency"}));
  // ZeRO-Offload: the states cross the host link and the CPUs step them.
  const json offload = eval_ok({{"mode", "training"}, {"model", "llama3.1-70b"}, {"system", "dgx-a100-80gb"},
                                {"parallelism", {{"dp", 8}, {"zero", 3}}},
                                {"training", {{"global_batch", 32}, {"seq_len", 4096}, {"recompute", "full"}, {"offload", "optimizer"}}}});
  EXPECT_EQ(part_names(offload), (std::vector<std::string>{"compute", "memory", "network.0", "latency", "host_link", "host"}));
  EXPECT_GT(part_named(offload, "host_link")["speedup"]["iteration_time_s"].get<double>(), 1.02);
  // Disaggregated: a prefill instance of 8 beside a decode replica of 8 sends the K/V between nodes.
  const json split = eval_ok({{"mode", "inference"}, {"model", "llama3.1-70b"}, {"system", "dgx-h100"},
                              {"parallelism", {{"tp", 8}}}, {"inference", {{"batch", 16}, {"prefill_tp", 8}}}});
  EXPECT_EQ(part_names(split), (std::vector<std::string>{"compute", "memory", "network.0", "network.1", "latency"}));
  EXPECT_GT(part_named(split, "network.1")["speedup"]["ttft_s"].get<double>(), 1.0);
}

// Plans where collectives hide behind compute in more than one way (ZeRO-3
// gathers beside an overlapped all-to-all, ZB-H1 and DualPipe moving chunks
// into the bubble): twice any part makes them slower by half a percent at
// most. Before the layer wall-time windows and the slot savings,
// twice the compute made these 0.6-2% slower.
TEST(WhatIf, OverlapHeavyPlansAreNotSlowedByFasterParts) {
  const std::vector<json> plans = {
      {{"mode", "training"}, {"model", "mixtral-8x7b"}, {"system", "tpu-v5p"},
       {"parallelism", {{"tp", 8}, {"pp", 2}, {"dp", 16}, {"ep", 4}, {"sp", true}, {"zero", 3}, {"pp_schedule", "gpipe"}}},
       {"training", {{"global_batch", 128}, {"seq_len", 4096}, {"recompute", "selective"}, {"precision", "fp8"}, {"overlap", {{"ep", true}}}}}},
      {{"mode", "training"}, {"model", "glm4.5"}, {"system", "hgx-h20"},
       {"parallelism", {{"tp", 8}, {"pp", 8}, {"dp", 4}, {"ep", 8}, {"sp", true}, {"zero", 3}, {"pp_schedule", "zb_h1"}}},
       {"training", {{"global_batch", 32}, {"seq_len", 1024}, {"recompute", "full"}, {"overlap", {{"tp", true}}}}}},
      {{"mode", "training"}, {"model", "gpt-oss-20b"}, {"system", "tpu7x"},
       {"parallelism", {{"tp", 4}, {"dp", 2}, {"ep", 4}, {"sp", true}, {"zero", 1}}},
       {"training", {{"global_batch", 16}, {"seq_len", 4096}, {"recompute", "selective"}, {"overlap", {{"ep", true}}}}}},
      {{"mode", "training"}, {"model", "qwen3-30b-a3b"}, {"system", "l40s"},
       {"parallelism", {{"tp", 2}, {"pp", 4}, {"dp", 16}, {"ep", 2}, {"sp", true}, {"zero", 2}, {"pp_schedule", "dualpipe"}}},
       {"training", {{"global_batch", 128}, {"seq_len", 4096}, {"recompute", "selective"}}}}};
  for (const json& plan : plans) {
    const json out = eval_ok(plan);
    for (const json& p : out["what_if"]["parts"])
      EXPECT_GE(p["speedup"]["iteration_time_s"].get<double>(), 0.995) << plan["model"] << " " << p["part"];
  }
}

}  // namespace
}  // namespace llmcalc::test
