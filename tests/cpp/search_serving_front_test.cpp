// A serving search's throughput-interactivity front (search output
// "serving_front"): output tokens/s per GPU against those each sequence sees,
// every point undominated, every listed plan on or under it.
#include <algorithm>

#include "search.h"
#include "test_util.h"

namespace llmcalc::test {
namespace {

json searched(const json& in) { return json::parse(search_json(in.dump())).at("search"); }

const json kServing = {{"mode", "inference"}, {"model", "llama3.1-70b"}, {"system", "dgx-h100"},
                       {"inference", {{"input_tokens", 2048}, {"output_tokens", 256}, {"weight_precision", "fp8"},
                                      {"compute_precision", "fp8"}, {"kv_precision", "fp8"}}},
                       {"search", {{"gpus", 8}, {"top", 20}}}};

TEST(SearchServingFront, TradesThroughputPerGpuForSpeedPerUser) {
  const json s = searched(kServing);
  const json& front = s.at("serving_front");
  ASSERT_GE(front.size(), 3u) << s.dump();
  for (size_t i = 0; i < front.size(); ++i) {
    const json& e = front[i];
    // the speed a sequence sees is a decode step's tokens over its time
    EXPECT_NEAR(e.at("output_tokens_per_s_per_user").get<double>(), 1 / e.at("tpot_s").get<double>(),
                1e-9 / e.at("tpot_s").get<double>());
    if (i == 0) continue;
    // along the front each point is slower per user and serves more per GPU
    EXPECT_LT(e.at("output_tokens_per_s_per_user").get<double>(), front[i - 1].at("output_tokens_per_s_per_user").get<double>());
    EXPECT_GT(e.at("output_tokens_per_s_per_gpu").get<double>(), front[i - 1].at("output_tokens_per_s_per_gpu").get<double>());
  }
  // The end of most throughput is the best plan's figure, and no listed plan
  // lies beyond the front.
  EXPECT_DOUBLE_EQ(front.back().at("output_tokens_per_s_per_gpu").get<double>(),
                   s.at("best").at(0).at("output_tokens_per_s_per_gpu").get<double>());
  for (const json& b : s.at("best")) {
    bool under = false;
    for (const json& f : front)
      under = under || (f.at("output_tokens_per_s_per_user").get<double>() >= b.at("output_tokens_per_s_per_user").get<double>() &&
                        f.at("output_tokens_per_s_per_gpu").get<double>() >= b.at("output_tokens_per_s_per_gpu").get<double>());
    EXPECT_TRUE(under) << b.dump();
  }
  // the fastest point per user serves one sequence at a time
  EXPECT_EQ(front.front().at("inference").at("batch").get<int>(), 1);
}

TEST(SearchServingFront, SpeculativeDecodingCountsItsTokensPerStep) {
  json in = kServing;
  in["inference"]["draft_tokens"] = 3;
  const json e = searched(in).at("serving_front").at(0);
  EXPECT_GT(e.at("output_tokens_per_s_per_user").get<double>(), 1.5 / e.at("tpot_s").get<double>()) << e.dump();
}

TEST(SearchServingFront, TextListsTheFrontFastestPerUserFirst) {
  const json out = json::parse(search_json(kServing.dump()));
  const std::string text = search_table(out);
  const size_t at = text.find("\nThroughput vs interactivity, the front: the most tokens/s per GPU at each speed per user");
  ASSERT_NE(at, std::string::npos) << text;
  // every point of the front is a row (it has at most twelve here), the first at batch 1 on tp 8
  const json& front = out.at("search").at("serving_front");
  ASSERT_LE(front.size(), 12u);
  const size_t head = text.find("#   TTFT", at);
  ASSERT_NE(head, std::string::npos) << text;
  const std::string rows = text.substr(head, text.find("\n\n", head) - head);  // up to the blank line after it
  size_t lines = 0;
  for (size_t p = rows.find("\n    "); p != std::string::npos; p = rows.find("\n    ", p + 1)) ++lines;
  EXPECT_EQ(lines, front.size()) << rows;
  EXPECT_NE(rows.find(" 8   1   1   1   1   1      "), std::string::npos) << rows;
}

// Beside a front whose plans prefill on instances of their own, the front of
// the colocated plans: none beyond the first, so the gap between them is what
// disaggregation buys; none where the placement is fixed.
TEST(SearchServingFront, ColocatedPlansHaveTheirOwnFrontUnderTheFirst) {
  const json s = searched(kServing);
  const json& front = s.at("serving_front");
  const json& colocated = s.at("serving_front_colocated");
  ASSERT_TRUE(std::any_of(front.begin(), front.end(), [](const json& e) { return e.contains("prefill_instances"); }))
      << front.dump();
  ASSERT_GE(colocated.size(), 3u) << s.dump();
  bool below = false;  // somewhere separate prefill instances serve more at the same speed per user
  for (size_t i = 0; i < colocated.size(); ++i) {
    const json& c = colocated[i];
    EXPECT_FALSE(c.contains("prefill_instances")) << c.dump();
    const double user = c.at("output_tokens_per_s_per_user").get<double>();
    const double gpu = c.at("output_tokens_per_s_per_gpu").get<double>();
    if (i > 0) {
      EXPECT_LT(user, colocated[i - 1].at("output_tokens_per_s_per_user").get<double>());
      EXPECT_GT(gpu, colocated[i - 1].at("output_tokens_per_s_per_gpu").get<double>());
    }
    double best_here = 0;  // the first front's most per GPU at this speed per user or faster
    for (const json& f : front)
      if (f.at("output_tokens_per_s_per_user").get<double>() >= user)
        best_here = std::max(best_here, f.at("output_tokens_per_s_per_gpu").get<double>());
    EXPECT_GE(best_here, gpu) << c.dump();
    below = below || best_here > 1.05 * gpu;
  }
  EXPECT_TRUE(below);
  // The text lists it under the first.
  const std::string text = search_table(json::parse(search_json(kServing.dump())));
  const size_t first = text.find("\nThroughput vs interactivity, the front:");
  const size_t second = text.find(
      "\nThe same front with prefill colocated on the decode GPUs (no prefill instances; static batching: each batch is "
      "prefilled, then decoded)");
  ASSERT_NE(second, std::string::npos) << text;
  EXPECT_LT(first, second);
  EXPECT_NE(text.find("colocated\n", second), std::string::npos) << text;
  // A scenario that fixes the placement (colocated) has one front, all colocated.
  json fixed = kServing;
  fixed["inference"]["prefill_tp"] = 0;
  const json one = searched(fixed);
  EXPECT_TRUE(one.at("serving_front_colocated").empty());
  ASSERT_FALSE(one.at("serving_front").empty());
  for (const json& e : one.at("serving_front")) EXPECT_FALSE(e.contains("prefill_instances")) << e.dump();
}

bool chunked(const json& e) {
  const json& in = e.at("inference");
  return in.value("batching", std::string()) == "inflight" && in.value("token_budget", 0) > 0;
}

// Where the scenario leaves the batching out, colocated plans are tried again
// under in-flight batching with chunked prefill: a budget that holds a step's
// tokens at the batch (b (P + O - 1) / O), the least power of two from 512,
// so that all b sequences are in flight. Under a 1 s TTFT bound static
// batching stops at a handful of prompts per batch (each batch is prefilled
// before its first token); chunked prefill keeps the first token quick at
// large batches, and its plans serve more per GPU than any static one.
TEST(SearchServingFront, ChunkedPrefillIsTriedWhereTheBatchingIsLeftOut) {
  json in = kServing;
  in["search"]["max_ttft_s"] = 1.0;
  const json s = searched(in);
  const json& colocated = s.at("serving_front_colocated");
  double static_best = 0, chunked_best = 0;
  int chunked_points = 0;
  for (const json& e : colocated) {
    const double gpu = e.at("output_tokens_per_s_per_gpu").get<double>();
    EXPECT_LE(e.at("ttft_s").get<double>(), 1.0);
    if (!chunked(e)) {
      static_best = std::max(static_best, gpu);
      continue;
    }
    ++chunked_points;
    chunked_best = std::max(chunked_best, gpu);
    const int b = e.at("inference").at("batch").get<int>(), budget = e.at("inference").at("token_budget").get<int>();
    const double per_step = b * (2048.0 + 256 - 1) / 256;
    EXPECT_GE(b, 2);
    EXPECT_GE(budget, per_step) << e.dump();
    EXPECT_TRUE(budget == 512 || budget < 2 * per_step) << e.dump();
    EXPECT_EQ(budget & (budget - 1), 0) << budget;
    EXPECT_EQ(e.at("inference").at("prefill_tp").get<int>(), 0);
    // the whole batch in flight: no warning that the budget or the cache holds fewer
    for (const json& w : e.at("warnings")) EXPECT_EQ(w.get<std::string>().find("fewer than the batch limit"), std::string::npos) << w;
  }
  EXPECT_GE(chunked_points, 2) << colocated.dump();
  EXPECT_GT(chunked_best, 1.5 * static_best) << colocated.dump();
  // The text names each plan's budget and both ways the front batches.
  const std::string text = search_table(json::parse(search_json(in.dump())));
  EXPECT_NE(text.find("or in-flight batching with chunked prefill inside the decode steps"), std::string::npos) << text;
  EXPECT_NE(text.find("chunked 512\n"), std::string::npos) << text;
}

// A scenario that names its batching keeps it in every plan; a model whose
// chunked prefill is not modelled (MLA) gets none.
TEST(SearchServingFront, ANamedBatchingOrMlaKeepsTheSearchToIt) {
  json fixed = kServing;
  fixed["inference"]["batching"] = "static";
  fixed["search"]["max_ttft_s"] = 1.0;
  const json s = searched(fixed);
  ASSERT_FALSE(s.at("best").empty());
  for (const char* key : {"best", "serving_front", "serving_front_colocated"})
    for (const json& e : s.at(key)) EXPECT_FALSE(chunked(e)) << key << " " << e.dump();
  json budget = kServing;
  budget["inference"]["batching"] = "inflight";
  budget["inference"]["token_budget"] = 2048;
  budget["inference"]["prefill_tp"] = 0;
  const json kept = searched(budget);
  for (const json& e : kept.at("serving_front")) {
    if (e.at("inference").at("batch").get<int>() < 2) continue;
    EXPECT_EQ(e.at("inference").at("token_budget").get<int>(), 2048) << e.dump();
  }
  json mla = kServing;
  mla["model"] = "deepseek-v2-lite";
  mla["inference"] = {{"input_tokens", 2048}, {"output_tokens", 256}};
  const json m = searched(mla);
  ASSERT_FALSE(m.at("best").empty()) << m.dump();
  for (const char* key : {"best", "serving_front", "serving_front_colocated"})
    for (const json& e : m.at(key)) EXPECT_FALSE(chunked(e)) << key << " " << e.dump();
}

TEST(SearchServingFront, TrainingHasNone) {
  const json in = {{"mode", "training"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"},
                   {"training", {{"global_batch", 64}, {"seq_len", 4096}}}, {"search", {{"gpus", 8}}}};
  EXPECT_TRUE(searched(in).at("serving_front").empty());
  EXPECT_TRUE(searched(in).at("serving_front_colocated").empty());
}

}  // namespace
}  // namespace llmcalc::test
