// Every preset parses, carries a source for every number, and every model
// preset's parameter count matches the count its card or paper publishes.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <set>

#include "enum_names.h"
#include "model_math.h"
#include "parse.h"
#include "presets.h"

namespace llmcalc {
namespace {

// True when `path` or one of its dotted prefixes is a key of `sources`.
bool covered(const json& sources, std::string path) {
  while (true) {
    if (sources.contains(path)) return true;
    const auto dot = path.rfind('.');
    if (dot == std::string::npos) return false;
    path = path.substr(0, dot);
  }
}

void each_number(const json& j, const std::string& path, const std::function<void(const std::string&)>& f) {
  if (j.is_number()) f(path);
  if (j.is_object())
    for (auto it = j.begin(); it != j.end(); ++it) each_number(it.value(), path + "." + it.key(), f);
  if (j.is_array())
    for (const auto& v : j) each_number(v, path, f);
}

TEST(Presets, RequiredIdsExist) {
  for (const char* id : {"dgx-a100-40gb", "dgx-a100-80gb", "dgx-h100", "dgx-h200", "dgx-b200", "gb200-nvl72",
                         "amd-mi300x", "amd-mi325x", "amd-mi350x", "amd-mi355x", "tpu-v5p", "tpu-v6e", "intel-gaudi2", "intel-gaudi3"})
    EXPECT_NE(find_preset("systems", id), nullptr) << id;
  for (const char* id : {"dgx-b300", "gb300-nvl72", "hgx-h20", "dgx-h800", "h100-pcie", "l4", "tpu-v5e", "tpu7x"})  // docs/sources.md [HF7.1], [HF9]
    EXPECT_NE(find_preset("systems", id), nullptr) << id;
  for (const char* id : {"l40s", "dgx-2"})  // docs/sources.md [HF1.1]
    EXPECT_NE(find_preset("systems", id), nullptr) << id;
  for (const char* id : {"gpt3-175b", "megatron-22b", "mt-nlg-530b", "megatron-1t", "llama2-7b", "llama2-13b",
                         "llama2-70b", "llama3.1-8b", "llama3.1-70b", "llama3.1-405b", "gpt-j-6b", "falcon-180b",
                         "nemotron4-15b", "nemotron4-340b", "mixtral-8x7b", "mixtral-8x22b"})
    EXPECT_NE(find_preset("models", id), nullptr) << id;
}

// The scenario contract's example names "llama3-70b"; an alias resolves to
// the same model object as its preset (a GPU's bare name to its 8-GPU
// board), and ids and aliases stay unique.
TEST(Presets, AliasesResolveToTheirPreset) {
  EXPECT_EQ(find_preset("models", "llama3-70b"), find_preset("models", "llama3.1-70b"));
  EXPECT_EQ(find_preset("models", "llama3-8b"), find_preset("models", "llama3.1-8b"));
  EXPECT_EQ(find_preset("models", "llama3-7b"), nullptr);
  EXPECT_EQ(find_preset("systems", "h100"), find_preset("systems", "dgx-h100"));
  EXPECT_EQ(find_preset("systems", "gb200"), find_preset("systems", "gb200-nvl72"));
  EXPECT_EQ(find_preset("systems", "mi300x"), find_preset("systems", "amd-mi300x"));
  EXPECT_NE(find_preset("systems", "h100"), find_preset("systems", "h100-pcie"));
  EXPECT_EQ(find_preset("systems", "a100"), nullptr);  // 40 or 80 GB: not guessed
  for (const char* kind : {"models", "systems"}) {
    std::set<std::string> seen;
    for (const auto& [id, file] : all_presets().at(kind).items())
      for (const auto& alias : file.value("aliases", json::array())) {
        EXPECT_FALSE(all_presets().at(kind).contains(alias.get<std::string>())) << id << " alias " << alias;
        EXPECT_TRUE(seen.insert(alias.get<std::string>()).second) << id << " alias " << alias << " is another's";
      }
  }
}

TEST(Presets, EveryNumberHasASource) {
  for (const char* kind : {"models", "systems"}) {
    const json& group = all_presets().at(kind);
    for (auto it = group.begin(); it != group.end(); ++it) {
      const json& file = it.value();
      ASSERT_TRUE(file.contains("sources")) << it.key();
      for (auto f = file.begin(); f != file.end(); ++f) {
        if (f.key() == "sources") continue;
        each_number(f.value(), f.key(), [&](const std::string& path) {
          EXPECT_TRUE(covered(file["sources"], path)) << it.key() << ": no source for " << path;
        });
      }
    }
  }
}

// release_weight_precision names a weight format narrower than 16 bits,
// with its source, and reaches the parsed model.
TEST(Presets, ReleasedWeightsAreWeightFormats) {
  int named = 0;
  for (const auto& [id, file] : all_presets().at("models").items()) {
    if (!file.contains("release_weight_precision")) continue;
    ++named;
    const std::string name = file["release_weight_precision"];
    NumberFormat f;
    EXPECT_TRUE(value_named(weight_precision_names(), name, &f)) << id << ": " << name;
    EXPECT_LT(bytes_per_element(f.precision), 2.0) << id;
    EXPECT_TRUE(file["sources"].contains("release_weight_precision")) << id;
    const Model m = parse_model(json(id), "model");
    EXPECT_EQ(m.released_weights, name) << id;
    EXPECT_DOUBLE_EQ(m.released_weight_bytes, bytes_per_element(f.precision)) << id;
  }
  EXPECT_GE(named, 3);  // gpt-oss-120b, gpt-oss-20b, deepseek-v3
  EXPECT_EQ(parse_model(json("llama3.1-8b"), "model").released_weights, "");
}

TEST(Presets, SystemsParse) {
  const json& group = all_presets().at("systems");
  for (auto it = group.begin(); it != group.end(); ++it)
    EXPECT_NO_THROW(parse_system(it.key(), "system")) << it.key();
}

// MI350X is MI355X's silicon (256 CUs, 288 GB at 8 TB/s, the same links) at
// 2.2 GHz instead of 2.4 ([HF8.1]): every clock-bound peak scales by 2.2 / 2.4
// and nothing else differs but the name and the 1000 W TDP.
TEST(Presets, Mi350xIsMi355xAtItsClock) {
  const Device a = parse_system("amd-mi350x", "system").device, b = parse_system("amd-mi355x", "system").device;
  const double clock = 2.2 / 2.4;
  for (Precision x : {Precision::bf16, Precision::fp16, Precision::fp8, Precision::fp4, Precision::fp32})
    EXPECT_NEAR(a.matmul_flops[static_cast<int>(x)] / b.matmul_flops[static_cast<int>(x)], clock, 2e-3) << to_string(x);
  EXPECT_NEAR(a.memory.front().bandwidth_Bps / b.memory.front().bandwidth_Bps, clock, 2e-4);  // LDS: bytes per clock
  EXPECT_EQ(a.sm_count, b.sm_count);
  EXPECT_EQ(a.dram().capacity_bytes, b.dram().capacity_bytes);
  EXPECT_EQ(a.dram().bandwidth_Bps, b.dram().bandwidth_Bps);
  EXPECT_EQ(a.efficiency.matmul, b.efficiency.matmul);
  EXPECT_EQ(a.tdp_W, 1000);
  EXPECT_EQ(find_preset("systems", "mi350x"), find_preset("systems", "amd-mi350x"));
}

TEST(Presets, ParameterCountsMatchPublishedSizes) {
  const json& group = all_presets().at("models");
  for (auto it = group.begin(); it != group.end(); ++it) {
    const Model m = parse_model(it.key(), "model");
    const double published = it.value().at("published_params").get<double>();
    // Parts the published figure counts that the preset does not model (a vision tower).
    const double ours = count_params(m).total + it.value().value("published_params_unmodelled", 0.0);
    // Published sizes are often rounded to two or three digits ("175B"); a
    // preset may name a wider tolerance, with its reason in its sources.
    const double tol = it.value().value("published_params_tolerance", 0.01);
    EXPECT_NEAR(ours / published, 1.0, tol) << it.key() << ": " << ours << " vs " << published;
  }
}

TEST(Presets, MixtralActiveParametersFollowTopK) {
  const ParamCount pc = count_params(parse_model("mixtral-8x7b", "model"));
  // Mistral AI: 46.7B total, 12.9B active per token.
  EXPECT_NEAR(pc.total / 46.7e9, 1.0, 0.01);
  EXPECT_NEAR(pc.active / 12.9e9, 1.0, 0.02);
}

}  // namespace
}  // namespace llmcalc
