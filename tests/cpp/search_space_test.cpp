// Which plans the search explores: what the scenario writes stays fixed
// (search.vary "plan" frees it), schedules and ZeRO stages it tries only when
// named, serving's prefill on separate instances.
#include <set>
#include <string>

#include "search.h"
#include "test_util.h"

namespace llmcalc::test {
namespace {

TEST(Search, FixedFieldsStayFixed) {
  json in = small_search();
  in["parallelism"] = {{"tp", 2}, {"sp", true}};
  in["training"]["recompute"] = "full";
  const json out = json::parse(search_json(in.dump()));
  ASSERT_FALSE(out.contains("error")) << out.dump();
  for (const json& b : out["search"]["best"]) {
    EXPECT_EQ(b["parallelism"]["tp"], 2);
    EXPECT_EQ(b["parallelism"]["sp"], true);
    EXPECT_EQ(b["training"]["recompute"], "full");
  }
}

// search.vary "plan" searches the whole plan whatever the scenario gives
// (the page's form always gives one): the same plans as a scenario that
// gives none, while the inference batch stays as given.
TEST(Search, VaryPlanFreesTheGivenPlan) {
  json in = small_search();
  in["parallelism"] = {{"tp", 2}, {"dp", 4}, {"sp", true}, {"zero", 1}};
  in["training"]["micro_batch"] = 2;
  in["training"]["recompute"] = "full";
  const json fixed = json::parse(search_json(in.dump()))["search"];
  in["search"]["vary"] = "plan";
  const json free = json::parse(search_json(in.dump()))["search"];
  const json bare = json::parse(search_json(small_search().dump()))["search"];
  EXPECT_GT(free["evaluated"].get<long long>(), 10 * fixed["evaluated"].get<long long>());
  EXPECT_EQ(free["evaluated"], bare["evaluated"]);
  EXPECT_EQ(free["best"][0]["parallelism"], bare["best"][0]["parallelism"]);
  EXPECT_EQ(free["best"][0]["iteration_time_s"], bare["best"][0]["iteration_time_s"]);
  json serve = {{"mode", "inference"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"},
                {"parallelism", {{"tp", 8}}}, {"inference", {{"batch", 16}}}, {"search", {{"gpus", 8}, {"vary", "plan"}}}};
  const json served = json::parse(search_json(serve.dump()))["search"]["best"];
  ASSERT_FALSE(served.empty());
  bool other_tp = false;
  for (const json& b : served) {
    EXPECT_EQ(b["inference"]["batch"], 16);
    other_tp = other_tp || b["parallelism"]["tp"] != 8;
  }
  EXPECT_TRUE(other_tp);
  serve["search"]["vary"] = "everything";
  EXPECT_NE(search_json(serve.dump()).find("search.vary"), std::string::npos);
}

// A scenario that fixes its whole plan is searched as itself: Qwen3-8B's 36
// layers on pp 4 x 2 interleaved chunks are uneven, which the calculator
// evaluates, so the search finds that plan (it found none, and said none
// "fits in memory"). Fixed inputs that leave no plan say so.
TEST(Search, TheScenariosOwnPlanIsSearched) {
  json in = {{"mode", "training"}, {"model", "qwen3-8b"}, {"system", "dgx-h100"},
             {"parallelism",
              {{"tp", 2}, {"pp", 4}, {"dp", 4}, {"sp", false}, {"zero", 1}, {"pp_schedule", "interleaved"}, {"virtual_stages", 2}}},
             {"training", {{"global_batch", 64}, {"micro_batch", 4}, {"seq_len", 1024}, {"recompute", "none"}}}};
  const double own = eval_ok(in)["training"]["iteration_time_s"].get<double>();
  in["search"] = {{"top", 3}};
  const json found = json::parse(search_json(in.dump()))["search"];
  ASSERT_EQ(found["best"].size(), 1u) << found.dump();
  EXPECT_DOUBLE_EQ(found["best"][0]["iteration_time_s"].get<double>(), own);
  EXPECT_EQ(found["best"][0]["parallelism"]["virtual_stages"], 2);
  // virtual_stages 1 without a schedule: 1f1b's plans, not interleaved copies of them.
  json one = small_search();
  one["parallelism"] = {{"virtual_stages", 1}};
  one["search"]["top"] = 200;
  const json plans = json::parse(search_json(one.dump()))["search"]["best"];
  EXPECT_GT(plans.size(), 20u);
  for (const json& b : plans) EXPECT_NE(b["parallelism"]["pp_schedule"], "interleaved") << b.dump();
  in["parallelism"] = {{"tp", 2}, {"pp", 1}, {"dp", 2}, {"cp", 1}};  // 4 GPUs of the 8 searched
  in["search"]["gpus"] = 8;
  const json none = json::parse(search_json(in.dump()))["search"];
  EXPECT_EQ(none["evaluated"], 0);
  ASSERT_EQ(none["warnings"].size(), 1u);
  EXPECT_NE(none["warnings"][0].get<std::string>().find("keeps the parallelism and batch inputs the scenario gives"),
            std::string::npos);
}

TEST(Search, ZeroBubbleAndDualPipeOnlyWhenTheScenarioNamesThem) {
  json in = small_search(16);
  in["parallelism"] = {{"pp", 2}};
  in["search"]["top"] = 50;
  const json free = search_scenario(in, 1000000);
  for (const json& b : free["search"]["best"]) {
    EXPECT_NE(b["parallelism"]["pp_schedule"], "zb_h1");
    EXPECT_NE(b["parallelism"]["pp_schedule"], "dualpipe");
  }
  for (const char* schedule : {"zb_h1", "dualpipe"}) {
    in["parallelism"]["pp_schedule"] = schedule;
    const json named = search_scenario(in, 1000000);
    const json& best = named["search"]["best"];
    ASSERT_FALSE(best.empty()) << schedule;
    for (const json& b : best) EXPECT_EQ(b["parallelism"]["pp_schedule"], schedule);
  }
}

// Interleaving splits the layers, or the layers with the embedding and the
// loss as two more units (Megatron-Core account_for_*_in_pipeline_split), into
// pp x v chunks: llama3.1-8b's 32 layers give 34 = 2 x 17 units on 2 stages.
TEST(Search, InterleavingMayCountTheEmbeddingAndTheLoss) {
  json in = small_search(16);
  in["parallelism"] = {{"pp", 2}, {"tp", 1}, {"cp", 1}, {"pp_schedule", "interleaved"}};
  in["search"]["top"] = 1000;
  const json out = search_scenario(in, 1000000);
  std::set<int> chunks;
  for (const json& b : out["search"]["best"])
    chunks.insert(b["parallelism"]["virtual_stages"].get<int>());
  EXPECT_TRUE(chunks.count(16)) << "32 layers = 2 x 16";
  EXPECT_TRUE(chunks.count(17)) << "32 layers + embedding + loss = 2 x 17";
  EXPECT_FALSE(chunks.count(3)) << "neither 32 nor 34 splits into 2 x 3";
}

// Expert parallelism may span the tensor-parallel ranks (Megatron-Core MoE
// parallel folding): on 32 GPUs at tp 8 and dp 4, ep 8 runs each of
// Mixtral's 8 experts whole (etp 1) on one rank of 8; the search offered ep
// up to dp x cp = 4 only.
TEST(Search, ExpertParallelismMayFoldOverTheTensorParallelRanks) {
  json in = small_search(32);
  in["model"] = "mixtral-8x7b";
  in["parallelism"] = {{"tp", 8}, {"pp", 1}, {"cp", 1}};
  in["search"]["top"] = 1000;
  const json out = search_scenario(in, 1000000);
  std::set<int> eps;
  for (const json& b : out["search"]["best"]) {
    eps.insert(b["parallelism"]["ep"].get<int>());
    // Megatron-Core runs expert with tensor parallelism only under sequence parallelism.
    if (b["parallelism"]["ep"].get<int>() > 1) EXPECT_TRUE(b["parallelism"]["sp"].get<bool>()) << b.dump();
  }
  EXPECT_TRUE(eps.count(4)) << "ep inside dp";
  EXPECT_TRUE(eps.count(8)) << "ep folded over tp x dp";
}

// Expert tensor parallelism apart from the attention's (Megatron-Core MoE
// parallel folding): where ep divides dp x cp the default splits every
// expert tp ways; the search also tries etp 1, named in the plan, and a
// scenario's etp stays fixed. The search offered the default only.
TEST(Search, ExpertTensorParallelismOneIsTriedBesideTheDefault) {
  json in = small_search(16);
  in["model"] = "mixtral-8x7b";
  in["parallelism"] = {{"tp", 2}, {"pp", 1}, {"cp", 1}, {"dp", 8}, {"ep", 4}};
  in["search"]["top"] = 1000;
  std::set<int> etps;
  const json out = search_scenario(in, 1000000);
  for (const json& b : out["search"]["best"]) {
    const json& p = b["parallelism"];
    etps.insert(p.value("etp", 0));
    json plan = in;
    plan.erase("search");
    plan["parallelism"] = p;
    plan["training"].update(b["training"]);
    EXPECT_LE(rel_diff(eval_ok(plan)["training"]["iteration_time_s"].get<double>(), b["iteration_time_s"].get<double>()), 1e-9)
        << "the plan as listed evaluates to its time: " << p.dump();
  }
  EXPECT_TRUE(etps.count(0)) << "the default (etp = tp = 2)";
  EXPECT_TRUE(etps.count(1)) << "etp 1, named";
  EXPECT_EQ(etps.size(), 2u);
  in["parallelism"]["etp"] = 2;
  const json named = search_scenario(in, 1000000);
  ASSERT_FALSE(named["search"]["best"].empty());
  for (const json& b : named["search"]["best"]) EXPECT_EQ(b["parallelism"].value("etp", 0), 2);
}

// Megatron-LM refuses expert and tensor parallelism without sequence
// parallelism (megatron/training/arguments.py): the calculator costs the
// plan and says so.
TEST(Search, ExpertAndTensorParallelismWithoutSequenceParallelismIsWarned) {
  json s = {{"mode", "training"}, {"model", "mixtral-8x7b"}, {"system", "dgx-h100"},
            {"parallelism", {{"tp", 2}, {"dp", 4}, {"ep", 4}, {"sp", false}}},
            {"training", {{"global_batch", 64}, {"seq_len", 4096}}}};
  const auto warned = [](const json& out) {
    for (const json& w : out["warnings"])
      if (w.get<std::string>().rfind("expert and tensor parallelism without sequence parallelism", 0) == 0) return true;
    return false;
  };
  EXPECT_TRUE(warned(eval_ok(s)));
  s["parallelism"]["sp"] = true;
  EXPECT_FALSE(warned(eval_ok(s)));
  s["parallelism"] = {{"tp", 2}, {"dp", 4}, {"ep", 1}, {"sp", false}};
  EXPECT_FALSE(warned(eval_ok(s))) << "no expert parallelism";
}

// A plan's ZeRO stage is checked as the rest of it is: parameter offload
// fetches the weights unit by unit as ZeRO-3 gathers them, so with the stage
// free (search.vary "plan") every plan offered is ZeRO-3 and evaluates. The
// search offered ZeRO 1 and 2 plans that the calculator rejects.
TEST(Search, EveryPlanPassesTheChecksOfItsZeroStage) {
  json in = small_search(8);
  in["parallelism"] = {{"tp", 2}, {"dp", 4}, {"zero", 3}};
  in["training"]["offload"] = "parameters";
  in["search"]["vary"] = "plan";
  in["search"]["top"] = 20;
  const json best = search_scenario(in, 1000000)["search"]["best"];
  ASSERT_FALSE(best.empty());
  for (const json& b : best) {
    EXPECT_EQ(b["parallelism"]["zero"], 3) << b.dump();
    json plan = in;
    plan.erase("search");
    plan["parallelism"] = b["parallelism"];
    plan["training"].update(b["training"]);
    EXPECT_FALSE(eval(plan).contains("error")) << plan.dump();
  }
}

// Pipelines run with ZeRO 1 at most (DeepSpeed's pipeline engine refuses
// ZeRO 2 and 3): the search tries ZeRO 2 and 3 only without pipeline
// stages, unless the scenario names the stage; a plan that combines them
// carries a warning.
TEST(Search, ZeroTwoAndThreeWithPipelinesOnlyWhenNamed) {
  json in = small_search(16);
  in["parallelism"] = {{"pp", 2}};
  in["search"]["top"] = 50;
  const json free = search_scenario(in, 1000000);
  ASSERT_FALSE(free["search"]["best"].empty());
  for (const json& b : free["search"]["best"]) EXPECT_LE(b["parallelism"]["zero"].get<int>(), 1) << b.dump();
  in["parallelism"]["zero"] = 3;
  const json named = search_scenario(in, 1000000);
  const json& best = named["search"]["best"];
  ASSERT_FALSE(best.empty());
  for (const json& b : best) {
    EXPECT_EQ(b["parallelism"]["zero"], 3);
    const bool said = std::any_of(b["warnings"].begin(), b["warnings"].end(),
                                  [](const json& w) { return w.get<std::string>().rfind("ZeRO 3 with pipeline parallelism", 0) == 0; });
    EXPECT_TRUE(said) << b.dump();
  }
  // Without pipeline stages ZeRO 3 is searched and says nothing of pipelines.
  in["parallelism"] = {{"pp", 1}};
  const json flat = search_scenario(in, 1000000);
  const json& fb = flat["search"]["best"];
  EXPECT_TRUE(std::any_of(fb.begin(), fb.end(), [](const json& b) { return b["parallelism"]["zero"].get<int>() >= 2; }));
  for (const json& b : fb)
    for (const json& w : b["warnings"]) EXPECT_EQ(w.get<std::string>().find("pipeline parallelism"), std::string::npos);
}

TEST(Search, ServingTriesPrefillOnSeparateInstances) {
  json in = {{"mode", "inference"}, {"model", "llama3.1-70b"}, {"system", "dgx-h100"},
             {"inference", {{"input_tokens", 2048}, {"output_tokens", 256}, {"weight_precision", "fp8"},
                            {"compute_precision", "fp8"}, {"kv_precision", "fp8"}}},
             {"search", {{"gpus", 8}, {"top", 5}, {"max_ttft_s", 0.5}}}};
  const json out = json::parse(search_json(in.dump()));
  ASSERT_FALSE(out.contains("error")) << out.dump();
  const json& best = out["search"]["best"];
  ASSERT_FALSE(best.empty());
  // A 0.5 s first token at a useful batch: prefill apart from decode. The
  // per-GPU rate counts the prefill instances.
  const json& top = best[0];
  EXPECT_GT(top["inference"]["prefill_tp"].get<int>(), 0);
  EXPECT_NEAR(top["replica_gpus"].get<double>(),
              top["parallelism"]["tp"].get<int>() * top["parallelism"]["pp"].get<int>() +
                  top["prefill_instances"].get<double>() * top["inference"]["prefill_tp"].get<int>(),
              1e-9);
  EXPECT_NEAR(top["output_tokens_per_s_per_gpu"].get<double>(),
              top["output_tokens_per_s"].get<double>() / top["replica_gpus"].get<double>(), 1e-9);
  // The same plan evaluated alone gives the same figures.
  json alone = in;
  alone.erase("search");
  alone["parallelism"] = top["parallelism"];
  alone["inference"]["batch"] = top["inference"]["batch"];
  alone["inference"]["prefill_tp"] = top["inference"]["prefill_tp"];
  EXPECT_DOUBLE_EQ(eval_ok(alone)["inference"]["ttft_s"].get<double>(), top["ttft_s"].get<double>());
  // Prefill fixed in the scenario: every plan keeps it.
  in["inference"]["prefill_tp"] = 0;
  const json colocated = json::parse(search_json(in.dump()));
  for (const json& b : colocated["search"]["best"]) EXPECT_EQ(b["inference"]["prefill_tp"].get<int>(), 0);
  EXPECT_LT(colocated["search"]["best"][0]["output_tokens_per_s_per_gpu"].get<double>(),
            top["output_tokens_per_s_per_gpu"].get<double>());
}

}  // namespace
}  // namespace llmcalc::test
