// The schema table that drives the parser, the web form and the URL codec.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace llmcalc
