// Absurd but valid inputs evaluate to finite outputs or fail with a clear
// error naming a path; nothing hangs (the suite's timeout would catch it).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "boundary.h"
#include "llmcalc/api.h"

namespace llmcalc {
namespace {

// Either an error with a path and message, or a result whose every number is finite.
void expect_finite_or_error(const nlohmann::json& scenario) {
  const auto out = nlohmann::json::parse(evaluate_json(scenario.dump()));
  if (out.contains("error")) {
    EXPECT_FALSE(out["error"]["path"].get<std::string>().empty());
    EXPECT_FALSE(out["error"]["message"].get<std::string>().empty());
    return;
  }
  EXPECT_EQ(find_non_finite(out), "") << scenario.dump();
}

const nlohmann::json kHugeModel = {{"name", "100T"}, {"layers", 2000},   {"hidden", 65536}, {"heads", 512},
                                   {"kv_heads", 64}, {"vocab", 1000000}, {"seq_len", 8192}, {"ffn_type", "swiglu"},
                                   {"norm", "rmsnorm"}};

TEST(Bounds, HundredTrillionParameterModel) {
  expect_finite_or_error({{"mode", "training"}, {"model", kHugeModel}, {"system", "gb200-nvl72"},
                          {"parallelism", {{"tp", 64}, {"pp", 500}, {"dp", 32}, {"zero", 3}}},
                          {"training", {{"global_batch", 4096}, {"micro_batch", 1}}}});
  expect_finite_or_error({{"mode", "inference"}, {"model", kHugeModel}, {"system", "dgx-b200"},
                          {"parallelism", {{"tp", 8}, {"pp", 1000}}}, {"inference", {{"batch", 1}}}});
}

TEST(Bounds, MillionGpus) {
  expect_finite_or_error({{"mode", "training"}, {"model", "llama3.1-405b"}, {"system", "dgx-h100"},
                          {"parallelism", {{"tp", 8}, {"pp", 16}, {"dp", 8192}, {"sp", true}, {"zero", 1}}},
                          {"training", {{"global_batch", 65536}, {"micro_batch", 1}}}});
}

TEST(Bounds, MillionTokenContext) {
  expect_finite_or_error({{"mode", "training"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"},
                          {"parallelism", {{"tp", 8}, {"cp", 64}, {"sp", true}}},
                          {"training", {{"global_batch", 8}, {"micro_batch", 1}, {"seq_len", 1048576}}}});
  expect_finite_or_error({{"mode", "inference"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"},
                          {"inference", {{"batch", 1}, {"input_tokens", 1048576}, {"output_tokens", 1048576}}}});
}

TEST(Bounds, MillionSequenceBatch) {
  expect_finite_or_error({{"mode", "inference"}, {"model", "llama2-7b"}, {"system", "dgx-a100-80gb"},
                          {"inference", {{"batch", 1000000}, {"input_tokens", 128}, {"output_tokens", 128}}}});
  expect_finite_or_error({{"mode", "training"}, {"model", "llama2-7b"}, {"system", "dgx-a100-80gb"},
                          {"parallelism", {{"dp", 1024}}},
                          {"training", {{"global_batch", 1048576}, {"micro_batch", 1024}}}});
}

TEST(Bounds, TinyEverything) {
  const nlohmann::json tiny = {{"layers", 1}, {"hidden", 1}, {"heads", 1}, {"vocab", 1}, {"seq_len", 1}};
  expect_finite_or_error({{"mode", "training"}, {"model", tiny}, {"system", "dgx-h100"},
                          {"training", {{"global_batch", 1}, {"micro_batch", 1}, {"seq_len", 1}}}});
  expect_finite_or_error({{"mode", "inference"}, {"model", tiny}, {"system", "dgx-h100"},
                          {"inference", {{"batch", 1}, {"input_tokens", 1}, {"output_tokens", 1}}}});
}

TEST(Bounds, ExtremeHardwareOverrides) {
  const nlohmann::json sys = {{"preset", "dgx-h100"},
                              {"network", {{{"name", "slow"}, {"bandwidth_GBps", 0.001}, {"latency_us", 1e7}}}}};
  expect_finite_or_error({{"mode", "training"}, {"model", "llama3.1-70b"}, {"system", sys},
                          {"parallelism", {{"tp", 8}, {"pp", 4}, {"dp", 4}}},
                          {"training", {{"global_batch", 64}, {"micro_batch", 1}}}});
}

}  // namespace
}  // namespace llmcalc
