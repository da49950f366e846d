// The shared fixtures of tests/fixtures, read here and by the Node tests of
// the wasm build: bad inputs with the error each must give, and the golden
// outputs of the spec examples.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "llmcalc/api.h"

namespace llmcalc {
namespace {

using json = nlohmann::json;

json read_json(const std::string& rel) {
  std::ifstream in(std::string(LLMCALC_TEST_DATA) + "/" + rel);
  EXPECT_TRUE(in.good()) << rel;
  return json::parse(in);
}

TEST(Fixtures, BadInputsGiveTheirPathAndMessage) {
  const json doc = read_json("fixtures/bad-inputs.json");
  ASSERT_GE(doc.at("cases").size(), 30u);
  for (const json& c : doc.at("cases")) {
    const std::string text = c.contains("text") ? c.at("text").get<std::string>() : c.at("input").dump();
    const json out = json::parse(evaluate_json(text));
    ASSERT_TRUE(out.contains("error")) << c.at("name") << ": " << out.dump().substr(0, 200);
    EXPECT_EQ(out["error"].at("path"), c.at("path")) << c.at("name") << ": " << out["error"].dump();
    const std::string message = out["error"].at("message").get<std::string>();
    EXPECT_NE(message.find(c.at("message").get<std::string>()), std::string::npos)
        << c.at("name") << ": message \"" << message << "\" lacks \"" << c.at("message").get<std::string>() << "\"";
  }
}

// Differences between two JSON values, numbers within `rel` relative.
void diff(const json& a, const json& b, const std::string& path, std::vector<std::string>& out, double rel = 1e-9) {
  if (out.size() > 20) return;
  if (a.is_number() && b.is_number()) {
    const double x = a.get<double>(), y = b.get<double>();
    if (!(x == y || std::fabs(x - y) <= rel * std::max(std::fabs(x), std::fabs(y))))
      out.push_back(path + ": " + a.dump() + " != " + b.dump());
  } else if (a.is_object() && b.is_object()) {
    for (auto it = a.begin(); it != a.end(); ++it)
      if (!b.contains(it.key())) out.push_back(path + "." + it.key() + ": missing in the golden file");
      else diff(it.value(), b.at(it.key()), path + "." + it.key(), out, rel);
    for (auto it = b.begin(); it != b.end(); ++it)
      if (!a.contains(it.key())) out.push_back(path + "." + it.key() + ": missing in the output");
  } else if (a.is_array() && b.is_array() && a.size() == b.size()) {
    for (size_t i = 0; i < a.size(); ++i) diff(a[i], b[i], path + "[" + std::to_string(i) + "]", out, rel);
  } else if (a != b) {
    out.push_back(path + ": " + a.dump().substr(0, 80) + " != " + b.dump().substr(0, 80));
  }
}

// The spec examples give their golden outputs (tests/fixtures/golden, made by
// scripts/update-golden.sh); the wasm tests hold the browser build to the
// same files.
TEST(Fixtures, SpecExamplesMatchTheirGoldenOutputs) {
  int seen = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(LLMCALC_TEST_DATA) + "/spec")) {
    if (e.path().extension() != ".json") continue;
    const json out = json::parse(evaluate_json(read_json("spec/" + e.path().filename().string()).dump()));
    const json golden = read_json("fixtures/golden/" + e.path().filename().string());
    std::vector<std::string> diffs;
    diff(out, golden, "$", diffs);
    EXPECT_TRUE(diffs.empty()) << e.path().filename() << " (rerun scripts/update-golden.sh after a deliberate model change):\n"
                               << [&] { std::string s; for (const auto& d : diffs) s += "  " + d + "\n"; return s; }();
    ++seen;
  }
  EXPECT_GE(seen, 3);
}

}  // namespace
}  // namespace llmcalc
