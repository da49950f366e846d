// Every input the fuzzer ever crashed on (tests/fuzz/regressions) now comes
// back as valid JSON: a result or an error object.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "llmcalc/api.h"

TEST(FuzzRegressions, EachInputReturnsJson) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(LLMCALC_TEST_DATA) + "/fuzz/regressions")) {
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const auto out = nlohmann::json::parse(llmcalc::evaluate_json(ss.str()), nullptr, false);
    ASSERT_FALSE(out.is_discarded()) << e.path();
    EXPECT_TRUE(out.contains("error") || out.contains("training") || out.contains("inference")) << e.path();
    ++n;
  }
  EXPECT_GE(n, 1);
}
