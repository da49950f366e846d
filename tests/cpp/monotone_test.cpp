// Physics the whole model must keep, over plans drawn at random from every
// model and system preset: a faster device (matmul rate, HBM bandwidth), a
// faster network or a shorter network latency never makes a training step
// or a served request slower. The parts of a step (compute, exposed
// collectives, host launches, bubbles) are composed from separate
// mechanisms; a composition that counts a wait twice breaks this (a
// host-bound ZeRO-3 step took 2.9% longer on 1.5x the HBM bandwidth).
#include <random>
#include <string>
#include <vector>

#include "test_util.h"

namespace llmcalc::test {
namespace {

struct Draw {
  json scenario;
  std::string label;
};

template <typename T>
const T& pick(std::mt19937& rng, const std::vector<T>& v) {
  return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)];
}

Draw draw(std::mt19937& rng, const json& presets) {
  std::vector<std::string> models, systems;
  for (const auto& [id, _] : presets["models"].items()) models.push_back(id);
  for (const auto& [id, _] : presets["systems"].items()) systems.push_back(id);
  const std::string model = pick(rng, models), system = pick(rng, systems);
  const bool moe = presets["models"][model]["model"].contains("moe");
  const bool training = std::uniform_int_distribution<int>(0, 1)(rng) == 0;
  const int tp = pick(rng, std::vector<int>{1, 2, 4, 8}), ep = moe ? pick(rng, std::vector<int>{1, 2, 4, 8}) : 1;
  json s = {{"mode", training ? "training" : "inference"}, {"model", model},
            {"system", presets["systems"][system]["system"]}};
  if (training) {
    const int pp = pick(rng, std::vector<int>{1, 1, 2, 4}), dp = pick(rng, std::vector<int>{1, 2, 4, 8});
    const int mb = pick(rng, std::vector<int>{1, 2, 4}), ga = pick(rng, std::vector<int>{1, 2, 4, 8});
    s["parallelism"] = {{"tp", tp}, {"pp", pp}, {"dp", dp}, {"ep", ep}, {"sp", tp > 1},
                        {"zero", pick(rng, std::vector<int>{0, 1, 2, 3})}};
    s["training"] = {{"global_batch", mb * ga * dp}, {"micro_batch", mb},
                     {"seq_len", pick(rng, std::vector<int>{1024, 2048, 4096})},
                     {"precision", pick(rng, std::vector<std::string>{"bf16", "fp8"})},
                     {"recompute", pick(rng, std::vector<std::string>{"none", "selective", "full"})}};
  } else {
    s["parallelism"] = {{"tp", tp}, {"ep", std::min(ep, tp)}};
    s["inference"] = {{"batch", pick(rng, std::vector<int>{1, 8, 64, 256})},
                      {"input_tokens", pick(rng, std::vector<int>{128, 1024, 4096})},
                      {"output_tokens", pick(rng, std::vector<int>{16, 128, 512})},
                      {"weight_precision", pick(rng, std::vector<std::string>{"bf16", "fp8", "int4"})},
                      {"batching", pick(rng, std::vector<std::string>{"static", "inflight"})}};
  }
  return {s, model + " on " + system};
}

double time_of(const json& out) {
  return out.contains("training") ? out["training"]["iteration_time_s"].get<double>()
                                  : out["inference"]["e2e_latency_s"].get<double>();
}

TEST(Monotone, FasterHardwareIsNeverSlower) {
  const json presets = json::parse(presets_json());
  std::mt19937 rng(20261202);
  using Change = void (*)(json&);
  const std::vector<std::pair<const char*, Change>> changes = {
      {"matmul x1.5", [](json& sys) { for (auto& [_, v] : sys["device"]["matmul_tflops"].items()) v = v.get<double>() * 1.5; }},
      {"hbm x1.5", [](json& sys) { auto& hbm = sys["device"]["memory"].back(); hbm["bandwidth_GBps"] = hbm["bandwidth_GBps"].get<double>() * 1.5; }},
      {"network x1.5", [](json& sys) { for (auto& t : sys["network"]) t["bandwidth_GBps"] = t["bandwidth_GBps"].get<double>() * 1.5; }},
      {"latency / 2", [](json& sys) { for (auto& t : sys["network"]) t["latency_us"] = t["latency_us"].get<double>() / 2; }}};
  int checked = 0;
  for (int i = 0; i < 600; ++i) {
    const Draw d = draw(rng, presets);
    const json base = eval(d.scenario);
    if (base.contains("error")) continue;  // an invalid plan (heads, experts, layers)
    ++checked;
    const double t0 = time_of(base);
    for (const auto& [name, change] : changes) {
      json faster = d.scenario;
      change(faster["system"]);
      const json out = eval(faster);
      ASSERT_FALSE(out.contains("error")) << d.label << " " << name << ": " << out.dump();
      EXPECT_LE(time_of(out), t0 * (1 + 1e-9)) << d.label << ", " << name << "\n" << d.scenario.dump();
    }
  }
  EXPECT_GT(checked, 150);  // enough valid plans drawn to mean something
}

}  // namespace
}  // namespace llmcalc::test
