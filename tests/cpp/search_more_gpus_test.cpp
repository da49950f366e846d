// A search where no plan fits walks doubling GPU counts from the memory
// floor (search.more_gpus): the count it names holds a plan, the one before
// it does not, and its plan is the search's own at that count.
#include <string>

#include "search.h"
#include "test_util.h"

namespace llmcalc::test {
namespace {

json search_at(json in, long long gpus) {
  in["search"]["gpus"] = gpus;
  return json::parse(search_json(in.dump())).at("search");
}

const json kTraining70b = {{"mode", "training"}, {"model", "llama3.1-70b"}, {"system", "dgx-h100"},
                           {"training", {{"global_batch", 512}, {"seq_len", 8192}}}, {"search", {{"gpus", 2}}}};

TEST(SearchMoreGpus, NamesTheFirstDoublingThatHoldsAPlan) {
  const json s = search_at(kTraining70b, 2);
  ASSERT_EQ(s.at("feasible").get<long long>(), 0);
  ASSERT_TRUE(s.contains("more_gpus")) << s.dump();
  const json& m = s.at("more_gpus");
  const long long g = m.at("gpus").get<long long>();
  // 70B parameters with 16-bit weights and gradients and fp32 Adam states:
  // 1.16 TiB, more than 14 H100s hold.
  EXPECT_GE(m.at("memory_floor_gpus").get<double>(), 14);
  EXPECT_EQ(g % 2, 0);
  EXPECT_EQ(m.at("searched_gpus").back().get<long long>(), g);
  // The count holds a plan and half of it none (the floor or a search says so).
  const json at = search_at(kTraining70b, g);
  EXPECT_GT(at.at("feasible").get<long long>(), 0);
  EXPECT_EQ(search_at(kTraining70b, g / 2).at("feasible").get<long long>(), 0);
  // Its plan is the search's recommendation there.
  EXPECT_EQ(m.at("plan"), at.at("best").at(at.value("recommended", 0))) << m.at("plan").dump();
  // Where a plan fits, there is no walk.
  EXPECT_FALSE(at.contains("more_gpus"));
}

TEST(SearchMoreGpus, ServingWalksFromTheWeights) {
  const json in = {{"mode", "inference"}, {"model", "llama3.1-405b"}, {"system", "dgx-h100"},
                   {"inference", {{"batch", 16}, {"input_tokens", 4096}, {"output_tokens", 512}}}, {"search", {{"gpus", 1}}}};
  const json m = search_at(in, 1).at("more_gpus");
  // 405B 16-bit weights: 810 GB, more than 9 H100s hold; the first doubling past the floor.
  EXPECT_GE(m.at("memory_floor_gpus").get<double>(), 10);
  EXPECT_EQ(m.at("searched_gpus").front().get<long long>(), 16);
  EXPECT_EQ(m.at("gpus").get<long long>(), 16);
  EXPECT_LE(m.at("plan").at("memory_bytes_total").get<double>(), 80.0 * (1LL << 30));
}

TEST(SearchMoreGpus, OffOrPinnedIsNoWalk) {
  json off = kTraining70b;
  off["search"]["more_gpus"] = false;
  EXPECT_FALSE(search_at(off, 2).contains("more_gpus"));
  // tp, pp, dp and cp given: the scenario's GPUs are the only count.
  json pinned = kTraining70b;
  pinned["parallelism"] = {{"tp", 2}, {"pp", 1}, {"dp", 1}, {"cp", 1}};
  const json s = search_at(pinned, 2);
  EXPECT_EQ(s.at("feasible").get<long long>(), 0);
  EXPECT_FALSE(s.contains("more_gpus")) << s.dump();
}

// The walk ends where the inputs allow no plan: here 64 sequences and tp 1
// leave no split of 8,192 GPUs (pp at most the model's 126 layers).
TEST(SearchMoreGpus, SaysHowFarItSearched) {
  const json in = {{"mode", "training"}, {"model", "llama3.1-405b"}, {"system", "l4"},
                   {"parallelism", {{"cp", 1}, {"tp", 1}}},
                   {"training", {{"global_batch", 64}, {"seq_len", 131072}}}, {"search", {{"gpus", 1}}}};
  const json m = search_at(in, 1).at("more_gpus");
  EXPECT_FALSE(m.contains("gpus")) << m.dump();
  EXPECT_EQ(m.at("searched_gpus").back().get<long long>(), 4096);
  const std::string text = search_table(json::parse(search_json(in.dump())));
  EXPECT_NE(text.find("Doubling the GPUs, no plan fits on up to 4,096 (fewer than"), std::string::npos) << text;
}

TEST(SearchMoreGpus, TextGivesTheCountAndItsPlan) {
  const std::string text = search_table(json::parse(search_json(kTraining70b.dump())));
  EXPECT_NE(text.find("\nDoubling the GPUs, a plan fits on 16 (fewer than "), std::string::npos) << text;
  EXPECT_NE(text.find("gradients and optimizer states; searched 16). Its best plan:"), std::string::npos) << text;
}

}  // namespace
}  // namespace llmcalc::test
