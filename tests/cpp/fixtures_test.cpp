// The shared fixtures of tests/fixtures, read here and by the Node tests of
// the wasm build: bad inputs with the error each must give, and the golden
// outputs of the spec examples.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace llmcalc
