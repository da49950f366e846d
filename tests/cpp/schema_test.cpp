// The schema table that drives the parser, the web form and the URL codec.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <set>

#include "llmcalc/api.h"
#include "schema.h"

namespace llmcalc {
namespace {

TEST(Schema, KeysAndUrlKeysAreUnique) {
  std::set<std::string> keys, urls;
  for (const auto& f : schema_fields()) {
    EXPECT_TRUE(keys.insert(f.key).second) << f.key;
    EXPECT_TRUE(urls.insert(f.url).second) << f.url << " (" << f.key << ")";
  }
}

TEST(Schema, DefaultsLieInTheirRanges) {
  for (const auto& f : schema_fields()) {
    if ((f.type == "int" || f.type == "number") && f.def.is_number()) {
      EXPECT_GE(f.def.get<double>(), f.lo) << f.key;
      EXPECT_LE(f.def.get<double>(), f.hi) << f.key;
    }
    if (f.type == "enum" && !f.def.is_null()) {
      bool found = false;
      for (const auto& v : f.values) found = found || v == f.def.get<std::string>();
      EXPECT_TRUE(found) << f.key;
    }
  }
}

TEST(Schema, ExamplesEvaluateAndFit) {
  const nlohmann::json schema = nlohmann::json::parse(schema_json());
  for (const char* mode : {"training", "inference"}) {
    const nlohmann::json out = nlohmann::json::parse(evaluate_json(schema.at("examples").at(mode).dump()));
    ASSERT_FALSE(out.contains("error")) << out.dump();
    EXPECT_TRUE(out.at(mode).at("fits").get<bool>()) << mode;
    EXPECT_TRUE(out.at("warnings").empty()) << out.at("warnings").dump();
  }
}

// The page folds advanced fields away until one is set, so none may be a
// model or system figure, a request field, or something the first screen's
// examples set; the fields that describe a run stay in view.
TEST(Schema, AdvancedFieldsAreOptionalRunSettings) {
  std::set<std::string> advanced;
  for (const auto& f : schema_fields()) {
    if (!f.advanced) continue;
    advanced.insert(f.key);
    EXPECT_TRUE(f.request.empty()) << f.key;
    EXPECT_TRUE(f.group == "parallelism" || f.group == "training" || f.group == "inference" || f.group == "cost" ||
                f.group == "reliability") << f.key;
  }
  EXPECT_GE(advanced.size(), 20u);
  for (const char* key : {"parallelism.tp", "parallelism.pp", "parallelism.dp", "parallelism.zero", "training.global_batch",
                          "training.micro_batch", "training.precision", "training.recompute", "inference.batch",
                          "inference.input_tokens", "inference.output_tokens", "inference.weight_precision"})
    EXPECT_EQ(advanced.count(key), 0u) << key;
  const nlohmann::json schema = nlohmann::json::parse(schema_json());
  for (const char* mode : {"training", "inference"}) {
    const nlohmann::json flat = schema.at("examples").at(mode).flatten();
    for (const auto& [pointer, value] : flat.items()) {
      std::string key = pointer.substr(1);
      std::replace(key.begin(), key.end(), '/', '.');
      EXPECT_EQ(advanced.count(key), 0u) << mode << " example sets " << key;
    }
  }
  for (const auto& f : schema.at("fields"))
    EXPECT_EQ(f.value("advanced", false), advanced.count(f.at("key").get<std::string>()) == 1) << f.at("key");
}

// A text that says GPU about any device is marked device_words, so that the
// page writes a TPU's "chip" there (and an L4's "GDDR6" for HBM); the
// unmarked ones that name GPUs are about GPUs as such (their attention
// kernels, their launch cost). A new "per GPU" help without the mark fails.
TEST(Schema, TextsThatSayGpuForAnyDeviceAreMarked) {
  const std::regex gpu("\\bGPUs?\\b"), hbm("\\bHBM\\b");
  const std::set<std::string> about_gpus = {"training.attention_kernel", "training.host_overhead_us"};
  int marked = 0;
  for (const auto& f : schema_fields()) {
    const std::string text = f.help + " " + f.unit + " " + f.label;
    const bool says = std::regex_search(text, gpu);
    if (f.device_words) {
      ++marked;
      EXPECT_TRUE(says || std::regex_search(text, hbm)) << f.key << " is marked but says no GPU or HBM";
    } else {
      EXPECT_TRUE(!says || about_gpus.count(f.key)) << f.key << " says GPU but is not marked device_words";
    }
  }
  EXPECT_GE(marked, 10);
  const nlohmann::json schema = nlohmann::json::parse(schema_json());  // named: the loop below reads into it
  for (const auto& f : schema.at("fields"))
    EXPECT_EQ(f.value("device_words", false), field_spec(f.at("key").get<std::string>()).device_words) << f.at("key");
}

// The table's defaults are the parser's: a scenario field set to its default
// evaluates as one left out, and as a mode section left out whole (the web
// form sends only what the user changed, the CLI takes files that leave
// sections out). A MoE model on a pp x ep plan exercises the most fields.
TEST(Schema, DefaultsAreWhatTheParserApplies) {
  using nlohmann::json;
  for (const char* mode : {"training", "inference"}) {
    const json bare = {{"mode", mode}, {"model", "mixtral-8x7b"}, {"system", "dgx-h100"},
                       {"parallelism", {{"tp", 2}, {"pp", 2}, {"dp", 2}, {"ep", 2}}}};
    const std::string left_out = evaluate_json(bare.dump());
    ASSERT_FALSE(json::parse(left_out).contains("error")) << left_out.substr(0, 300);
    json empty = bare;
    empty[mode] = json::object();
    EXPECT_TRUE(evaluate_json(empty.dump()) == left_out) << mode << ": an empty section";
    int checked = 0;
    for (const auto& f : schema_fields()) {
      const auto dot = f.key.find('.');
      if (f.def.is_null() || !f.request.empty() || dot == std::string::npos) continue;
      const std::string section = f.key.substr(0, dot);
      if (section != mode && section != "parallelism" && section != "cost" && section != "reliability") continue;
      if (section == "parallelism" && bare.at("parallelism").contains(f.key.substr(dot + 1))) continue;
      std::string pointer = "/" + f.key;
      std::replace(pointer.begin(), pointer.end(), '.', '/');
      json set = bare;
      set[json::json_pointer(pointer)] = f.def;
      const std::string out = evaluate_json(set.dump());
      EXPECT_TRUE(out == left_out) << mode << ": " << f.key << " = " << f.def.dump() << " -> " << out.substr(0, 160);
      ++checked;
    }
    EXPECT_GE(checked, 20) << mode;
  }
}

}  // namespace
}  // namespace llmcalc
