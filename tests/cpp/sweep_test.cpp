// Sweeps: shape of the output, per-point errors, and monotone physics.
#include "sweep.h"
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

// A swept global batch lands on multiples of micro_batch x dp (here 2 x 8),
// so a log range from a quarter to four times the batch has no invalid point.
TEST(Sweep, GlobalBatchRoundsToWholeMicroBatchesPerReplica) {
  json in = training_base();
  in["training"]["micro_batch"] = 2;
  in["sweep"] = {{"input", "training.global_batch"}, {"from", 16}, {"to", 256}, {"steps", 9}, {"scale", "log"},
                 {"outputs", {"training.iteration_time_s"}}};
  const json s = sweep(in);
  EXPECT_EQ(s["x_multiple_of"], 16);
  EXPECT_EQ(numbers(s["x"]), (std::vector<double>{16, 32, 48, 64, 96, 128, 176, 256}));  // 22.6 -> 16 repeats, dropped
  EXPECT_TRUE(s["series"][0]["errors"].empty()) << s["series"][0]["errors"].dump();
  // Another input is not rounded beyond integers.
  in["sweep"]["input"] = "training.micro_batch";
  in["sweep"]["from"] = 1;
  in["sweep"]["to"] = 4;
  in["sweep"]["steps"] = 4;
  in["sweep"]["scale"] = "lin";
  EXPECT_FALSE(sweep(in).contains("x_multiple_of"));
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

// Steps the host partly limits (short kernels at 20 us of host time each)
// while the GPU also waits on data parallelism: a ZeRO-3 plan (gathers
// inside each micro-batch) and a Megatron DDP plan (reduction beside the
// last backward). A faster GPU shortens the GPU's share, which the host
// wait takes up; it must not lengthen the step. (Adding the host wait to the
// exposed collectives instead made these steps 1.7-2.9% slower.)
TEST(Sweep, HostBoundStepsNeverSlowerOnAFasterGpu) {
  const json zero3 = {{"mode", "training"}, {"model", "gpt-oss-120b"}, {"system", "dgx-h200"},
                      {"parallelism", {{"tp", 8}, {"ep", 2}, {"zero", 3}}},
                      {"training", {{"global_batch", 4}, {"seq_len", 2048}, {"recompute", "none"}}}};
  const json ddp = {{"mode", "training"}, {"model", "glm4.5"}, {"system", "dgx-a100-80gb"},
                    {"parallelism", {{"tp", 4}, {"pp", 2}, {"dp", 2}, {"pp_schedule", "interleaved"}, {"virtual_stages", 2}}},
                    {"training", {{"global_batch", 8}, {"micro_batch", 2}, {"seq_len", 1024}}}};
  const std::vector<std::pair<std::string, std::pair<double, double>>> inputs = {
      {"system.device.matmul_tflops.bf16", {200, 1500}}, {"system.device.memory.hbm.bandwidth_GBps", {1500, 6000}}};
  for (const json& base : {zero3, ddp}) {
    for (const auto& [path, range] : inputs) {
      json in = base;
      in["sweep"] = {{"input", path}, {"from", range.first}, {"to", range.second}, {"steps", 8},
                     {"outputs", {"training.iteration_time_s", "training.time_breakdown_s.host"}}};
      const json values = sweep(in)["series"][0]["values"];
      const auto t = numbers(values["training.iteration_time_s"]);
      ASSERT_EQ(t.size(), 8u) << base["model"] << " " << path;
      for (size_t i = 1; i < t.size(); ++i) EXPECT_LE(t[i], t[i - 1] * (1 + 1e-9)) << base["model"] << " " << path << " at " << i;
      EXPECT_GT(numbers(values["training.time_breakdown_s.host"]).back(), 0) << base["model"] << ": not host-bound";
    }
  }
  // Shorter tensor-parallel latency on a host-bound pipeline (the host's
  // wait takes up what the GPU saves): never slower either.
  json in = {{"mode", "training"}, {"model", "llama2-7b"}, {"system", "amd-mi325x"},
             {"parallelism", {{"tp", 8}, {"pp", 4}, {"dp", 4}, {"sp", true}, {"zero", 2}, {"pp_schedule", "interleaved"},
                              {"virtual_stages", 2}}},
             {"training", {{"global_batch", 8}, {"seq_len", 1024}, {"precision", "fp8"}, {"recompute", "full"}}}};
  in["sweep"] = {{"input", "system.network.xgmi.latency_us"}, {"from", 0.5}, {"to", 4}, {"steps", 8},
                 {"outputs", {"training.iteration_time_s"}}};
  const auto t = numbers(sweep(in)["series"][0]["values"]["training.iteration_time_s"]);
  ASSERT_EQ(t.size(), 8u);
  for (size_t i = 1; i < t.size(); ++i) EXPECT_GE(t[i], t[i - 1] * (1 - 1e-9)) << "latency at " << i;
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

// Each point says whether its plan fits in GPU memory: sequence length
// grows the activations until they overflow 80 GB, for training and serving.
TEST(Sweep, EachPointSaysWhetherItFits) {
  json in = training_base();
  in["training"]["recompute"] = "none";
  in["training"]["recompute_to_fit"] = false;
  in["sweep"] = {{"input", "training.seq_len"}, {"from", 2048}, {"to", 65536}, {"steps", 6}, {"scale", "log"},
                 {"outputs", {"training.iteration_time_s"}}};
  const json fits = sweep(in)["series"][0]["fits"];
  ASSERT_EQ(fits.size(), 6u);
  EXPECT_EQ(fits.front(), true);
  EXPECT_EQ(fits.back(), false);
  for (size_t i = 1; i < fits.size(); ++i) EXPECT_FALSE(fits[i] == true && fits[i - 1] == false) << i;
  json serve = {{"mode", "inference"}, {"model", "llama3.1-70b"}, {"system", "dgx-h100"},
                {"inference", {{"batch", 64}, {"input_tokens", 1024}, {"output_tokens", 128}}}};
  serve["sweep"] = {{"input", "parallelism.tp"}, {"from", 1}, {"to", 8}, {"steps", 4}, {"scale", "log"},
                    {"outputs", {"inference.tpot_s"}}};
  const json sf = sweep(serve)["series"][0];
  EXPECT_EQ(sf["fits"].front(), false);  // 140 GB of 16-bit weights on one 80 GB GPU
  EXPECT_EQ(sf["fits"].back(), true);
  // A point that cannot be evaluated has no fit either.
  json bad = training_base();
  bad["sweep"] = {{"input", "parallelism.tp"}, {"from", 1}, {"to", 4}, {"steps", 4}, {"outputs", {"training.mfu"}}};
  EXPECT_TRUE(sweep(bad)["series"][0]["fits"][2].is_null());  // tp 3 does not divide 32 heads
}

// Each series names its system's word for a device, and the text table
// labels its outputs in it: chips on a TPU, GPUs on a DGX, and "device"
// memory in the note when the series' systems differ.
TEST(Sweep, EachSeriesCountsInItsSystemsWord) {
  json in = training_base();
  in["sweep"] = {{"input", "training.global_batch"}, {"from", 64}, {"to", 128}, {"steps", 2},
                 {"outputs", {"training.memory_bytes.total", "training.tflops_per_gpu"}},
                 {"series", {{"system", {"tpu-v5p", "dgx-h100"}}}}};
  const json out = json::parse(sweep_json(in.dump()));
  ASSERT_FALSE(out.contains("error")) << out.dump().substr(0, 300);
  EXPECT_EQ(out["sweep"]["series"][0]["unit_name"], "chip");
  EXPECT_EQ(out["sweep"]["series"][1]["unit_name"], "GPU");
  const std::string text = sweep_table(out);
  EXPECT_NE(text.find("memory per chip  TFLOP/s per chip"), std::string::npos) << text;
  EXPECT_NE(text.find("memory per GPU  TFLOP/s per GPU"), std::string::npos) << text;
  EXPECT_NE(text.find("does not fit in device memory"), std::string::npos) << text;
  in["sweep"].erase("series");
  in["system"] = "tpu-v5p";
  const std::string tpu = sweep_table(json::parse(sweep_json(in.dump())));
  EXPECT_NE(tpu.find("does not fit in chip memory"), std::string::npos) << tpu;
  EXPECT_EQ(tpu.find("GPU"), std::string::npos) << tpu;
}

// The value at a dotted path of a resolved scenario (arrays by element
// name), or null. Mirrors set_input's addressing.
json value_at(const json& root, const std::string& path) {
  const json* node = &root;
  size_t start = 0;
  while (start <= path.size()) {
    const size_t dot = std::min(path.find('.', start), path.size());
    const std::string seg = path.substr(start, dot - start);
    start = dot + 1;
    const json* next = nullptr;
    if (node->is_array()) {
      for (const json& e : *node)
        if (e.is_object() && e.value("name", "") == seg) next = &e;
    } else if (node->is_object() && node->contains(seg)) {
      next = &node->at(seg);
    } else if (node->is_number() && seg == "bf16") {
      next = node;  // one efficiency for every precision
    }
    if (!next) return nullptr;
    node = next;
  }
  return *node;
}

// Every numeric input of the table, system figures included, can be swept
// on the example scenario of each mode it applies to: the sweep sets it
// where it lives and the point evaluates. At the input's current value the
// point must evaluate cleanly; where the example has no value (an MoE field
// of a dense model) the only acceptable errors are about the value, never
// about an unknown key or place.
TEST(Sweep, EveryNumericInputOfTheTableCanBeSwept) {
  const json schema = json::parse(schema_json());
  const json presets = json::parse(presets_json());
  int swept = 0;
  for (const json& f : schema.at("fields")) {
    const std::string type = f.at("type"), key = f.at("key");
    if ((type != "int" && type != "number") || f.contains("request")) continue;
    for (const json& mode : f.at("modes")) {
      json in = schema.at("examples").at(mode.get<std::string>());
      json resolved = in;
      resolved["model"] = presets["models"][in["model"].get<std::string>()]["model"];
      resolved["system"] = presets["systems"][in["system"].get<std::string>()]["system"];
      const std::string path = f.contains("at") ? "system." + f.at("at").get<std::string>() : key;
      const json current = value_at(resolved, path);
      const json fallback = f.at("default").is_number() ? f.at("default") : json(std::max(1.0, f.at("min").get<double>()));
      const double x = (current.is_number() ? current : fallback).get<double>();
      in["sweep"] = {{"input", key}, {"from", x}, {"to", x}, {"steps", 1}, {"outputs", {mode == "training" ? "training.iteration_time_s" : "inference.ttft_s"}}};
      const json out = json::parse(sweep_json(in.dump()));
      ASSERT_FALSE(out.contains("error")) << key << ": " << out.dump();
      for (const json& e : out["sweep"]["series"][0]["errors"]) {
        const std::string msg = e.at("message");
        EXPECT_EQ(msg.find("unknown key"), std::string::npos) << key << " (" << mode << "): " << e.dump();
        EXPECT_EQ(msg.find("no element"), std::string::npos) << key << " (" << mode << "): " << e.dump();
        EXPECT_EQ(msg.find("is not inside"), std::string::npos) << key << " (" << mode << "): " << e.dump();
        if (current.is_number())
          ADD_FAILURE() << key << " (" << mode << ") at its current value " << x << ": " << e.dump();
      }
      ++swept;
    }
  }
  EXPECT_GE(swept, 50);
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
