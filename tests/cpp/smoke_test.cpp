// Every model preset on every system preset, in both modes: evaluates, every
// number is finite, memory totals are the sum of their parts, and every op has
// a non-negative time and a known bound (docs/scenario.md "Output").
#include <functional>
#include <set>

#include "test_util.h"

namespace llmcalc::test {
namespace {

// Largest power of two <= 8 that divides the heads and ffn_hidden and is
// compatible with the KV heads (one divides the other), as the parser demands.
int pick_tp(const json& m) {
  const int heads = m["heads"], kv = m.value("kv_heads", heads), ffn = m.value("ffn_hidden", 4 * m["hidden"].get<int>());
  for (int tp = 8; tp > 1; tp /= 2)
    if (heads % tp == 0 && ffn % tp == 0 && (kv % tp == 0 || tp % kv == 0)) return tp;
  return 1;
}

void walk_numbers(const json& j, const std::string& path, const std::function<void(double, const std::string&)>& f) {
  if (j.is_number()) f(j.get<double>(), path);
  if (j.is_object())
    for (auto it = j.begin(); it != j.end(); ++it) walk_numbers(it.value(), path + "." + it.key(), f);
  if (j.is_array())
    for (size_t i = 0; i < j.size(); ++i) walk_numbers(j[i], path + "[" + std::to_string(i) + "]", f);
}

void check(const json& scenario, const json& system) {
  const std::string where = scenario["model"].get<std::string>() + " on " + scenario["system"].get<std::string>() +
                            " (" + scenario["mode"].get<std::string>() + ")";
  const json out = eval(scenario);
  ASSERT_FALSE(out.contains("error")) << where << ": " << out.dump();
  walk_numbers(out, "", [&](double v, const std::string& p) { EXPECT_TRUE(std::isfinite(v)) << where << p; });

  const bool training = scenario["mode"] == "training";
  const json& mem = out[training ? "training" : "inference"]["memory_bytes"];
  double parts = 0;
  for (const char* k : training ? std::vector<const char*>{"weights", "gradients", "optimizer", "activations"}
                                : std::vector<const char*>{"weights", "kv_cache", "activations"})
    parts += mem.at(k).get<double>();
  EXPECT_NEAR(mem["total"].get<double>(), parts, 1e-9 * parts) << where;
  EXPECT_DOUBLE_EQ(mem["capacity"].get<double>(), system["device"]["memory"].back().value("capacity_GiB", 0.0) * 1073741824.0)
      << where;

  std::set<std::string> bounds = {"compute", "network", "latency"};
  for (const auto& level : system["device"]["memory"]) bounds.insert(level["name"].get<std::string>());
  ASSERT_FALSE(out["ops"].empty()) << where;
  for (const auto& op : out["ops"]) {
    EXPECT_GE(op["time_s"].get<double>(), 0.0) << where << " " << op["name"];
    EXPECT_GE(op["count"].get<double>(), 0.0) << where << " " << op["name"];
    EXPECT_TRUE(bounds.count(op["bound"].get<std::string>())) << where << " " << op["name"] << ": " << op["bound"];
  }
}

TEST(Smoke, EveryModelOnEverySystem) {
  const json presets = json::parse(presets_json());
  int evaluated = 0;
  for (auto m = presets["models"].begin(); m != presets["models"].end(); ++m) {
    const json& model = m.value()["model"];
    const int tp = pick_tp(model);
    for (auto s = presets["systems"].begin(); s != presets["systems"].end(); ++s) {
      const json& system = s.value()["system"];
      // A device without bf16 (V100) runs the 16-bit formats in fp16.
      const char* half = system["device"]["matmul_tflops"].value("bf16", 0.0) > 0 ? "bf16" : "fp16";
      check({{"mode", "training"}, {"model", m.key()}, {"system", s.key()},
             {"parallelism", {{"tp", tp}, {"pp", 1}, {"dp", 1}}},
             {"training", {{"global_batch", 1}, {"micro_batch", 1}, {"precision", half}}}},
            system);
      check({{"mode", "inference"}, {"model", m.key()}, {"system", s.key()}, {"parallelism", {{"tp", tp}}},
             {"inference", {{"batch", 8}, {"input_tokens", 2048}, {"output_tokens", 256}, {"weight_precision", half},
                            {"kv_precision", half}, {"compute_precision", half}}}},
            system);
      evaluated += 2;
    }
  }
  EXPECT_GE(evaluated, 2 * 30 * 6);  // the 30 model and 6 system presets
}

// The current architectures (issue 13) train and serve on a system that holds
// them: a plan per preset that fits, in both modes.
TEST(Smoke, NewArchitecturesFitOnASystem) {
  // [model, system, training parallelism, training, serving parallelism, serving]
  // as JSON text: parsed at run time, the table compiles to a few lines (as
  // C++ initializer lists it outgrew gcc's variable tracking under the sanitizers).
  const json plans = json::parse(R"([
    ["deepseek-v3", "gb200-nvl72", {"pp": 16, "dp": 64, "ep": 64, "zero": 1}, {"recompute": "full"}, {"tp": 8}, {}],
    ["kimi-k2", "gb200-nvl72", {"pp": 16, "dp": 128, "ep": 128, "zero": 1}, {"recompute": "full"}, {"tp": 8}, {"weight_precision": "fp8"}],
    ["deepseek-v2", "dgx-h100", {"tp": 2, "pp": 8, "dp": 4, "ep": 4, "sp": true, "zero": 1}, {"recompute": "full"}, {"tp": 8}, {"weight_precision": "fp8"}],
    ["deepseek-v2-lite", "dgx-h100", {"dp": 8, "ep": 8, "zero": 1}, {}, {"tp": 1}, {}],
    ["qwen3-8b", "dgx-h100", {"dp": 8, "zero": 1}, {}, {"tp": 1}, {}],
    ["qwen3-32b", "dgx-b200", {"tp": 4, "dp": 2, "sp": true, "zero": 1}, {"recompute": "full"}, {"tp": 2}, {}],
    ["qwen3-30b-a3b", "dgx-h100", {"dp": 8, "ep": 8, "zero": 1}, {"recompute": "full"}, {"tp": 1}, {}],
    ["qwen3-235b-a22b", "dgx-h100", {"pp": 8, "dp": 8, "ep": 8, "zero": 1}, {"recompute": "full"}, {"tp": 8}, {"weight_precision": "fp8"}],
    ["gpt-oss-20b", "dgx-h100", {"dp": 8, "ep": 8, "zero": 1}, {}, {"tp": 1}, {"weight_precision": "mxfp4"}],
    ["gpt-oss-120b", "dgx-h100", {"pp": 4, "dp": 8, "ep": 8, "zero": 1}, {"recompute": "full"}, {"tp": 1}, {"weight_precision": "mxfp4"}],
    ["llama4-scout", "dgx-h100", {"pp": 8, "dp": 8, "ep": 8, "zero": 1}, {"recompute": "full"}, {"tp": 4}, {}],
    ["llama4-maverick", "dgx-h100", {"tp": 8, "pp": 8, "dp": 8, "ep": 8, "sp": true, "zero": 1}, {"recompute": "full"}, {"tp": 8}, {"weight_precision": "fp8"}],
    ["gemma3-27b", "dgx-h100", {"tp": 4, "dp": 2, "sp": true, "zero": 1}, {"recompute": "full"}, {"tp": 1}, {}],
    ["mistral-large-2", "dgx-h100", {"tp": 8, "pp": 4, "sp": true, "zero": 1}, {"recompute": "full"}, {"tp": 4}, {}],
    ["llama3.3-70b", "dgx-h100", {"tp": 8, "pp": 2, "sp": true, "zero": 1}, {"recompute": "full"}, {"tp": 4}, {}],
    ["glm4.5", "gb200-nvl72", {"pp": 8, "dp": 16, "ep": 16, "zero": 1}, {"recompute": "full"}, {"tp": 8}, {"weight_precision": "fp8"}],
    ["qwen3-next-80b-a3b", "dgx-h100", {"pp": 4, "dp": 8, "ep": 8, "zero": 1}, {"recompute": "full"}, {"tp": 4}, {}],
    ["glm4.5-air", "dgx-h100", {"tp": 2, "pp": 4, "dp": 4, "ep": 4, "sp": true, "zero": 1}, {"recompute": "full"}, {"tp": 2}, {"weight_precision": "fp8"}]
  ])");
  const json presets = json::parse(presets_json());
  ASSERT_EQ(plans.size(), 18u);
  for (const json& p : plans) {
    const std::string model = p[0], system_id = p[1];
    const json& system = presets["systems"][system_id]["system"];
    json train = {{"global_batch", 512}, {"micro_batch", 1}};
    train.update(p[3]);
    const json t = {{"mode", "training"}, {"model", model}, {"system", system_id}, {"parallelism", p[2]}, {"training", train}};
    check(t, system);
    EXPECT_TRUE(eval(t)["training"]["fits"].get<bool>()) << model << " training";
    json infer = {{"batch", 8}, {"input_tokens", 8192}, {"output_tokens", 512}};
    infer.update(p[5]);
    const json i = {{"mode", "inference"}, {"model", model}, {"system", system_id}, {"parallelism", p[4]}, {"inference", infer}};
    check(i, system);
    EXPECT_TRUE(eval(i)["inference"]["fits"].get<bool>()) << model << " inference";
  }
}

}  // namespace
}  // namespace llmcalc::test
