// Parallelism search: the fast path equals evaluate(), every returned plan
// is valid and fits, and the best equals a brute-force evaluate() loop.
#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "accuracy.h"
#include "output.h"
#include "parse.h"
#include "search.h"
#include "test_util.h"

namespace llmcalc::test {
namespace {

Scenario parsed(const json& j) { return parse_scenario(j); }

// Random valid plans of several scenarios: fast path vs evaluate().
TEST(Search, FastPathEqualsEvaluate) {
  const std::vector<json> bases = {
      {{"mode", "training"}, {"model", "gpt3-175b"}, {"system", "dgx-a100-80gb"},
       {"training", {{"global_batch", 1536}}}},
      {{"mode", "training"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"},
       {"training", {{"global_batch", 64}, {"seq_len", 8192}, {"precision", "fp8"}, {"flash_attention", true}}}},
      {{"mode", "training"}, {"model", "mixtral-8x7b"}, {"system", "dgx-h200"},
       {"training", {{"global_batch", 128}, {"seq_len", 4096}, {"overlap", {{"dp", false}, {"tp", true}, {"pp", false}}}}}},
      {{"mode", "training"}, {"model", "megatron-22b"}, {"system", "gb200-nvl72"},
       {"training", {{"global_batch", 256}, {"optimizer", "sgd"}, {"precision", "fp32"}}}},
      // LoRA: adapters follow tp and pp, ZeRO-3 gathers NF4 frozen weights.
      {{"mode", "training"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"},
       {"training", {{"global_batch", 64}, {"seq_len", 4096}, {"lora_rank", 16}, {"frozen_weights", "nf4"}}}},
      {{"mode", "training"}, {"model", "mixtral-8x7b"}, {"system", "dgx-h200"},
       {"training", {{"global_batch", 64}, {"seq_len", 4096}, {"lora_rank", 8}, {"lora_targets", "attention"}}}},
      {{"mode", "training"}, {"model", "mixtral-8x7b"}, {"system", "dgx-h100"},
       {"training", {{"global_batch", 64}, {"seq_len", 4096}, {"lora_rank", 16}, {"lora_targets", "all_experts"}}}},
      // MTP: a MoE layer on the last stage's edge, so ep and recompute change it.
      {{"mode", "training"}, {"model", "deepseek-v3"}, {"system", "gb200-nvl72"},
       {"training", {{"global_batch", 512}, {"seq_len", 4096}, {"precision", "fp8"}}}},
  };
  std::mt19937 rng(7);
  auto pick = [&](std::vector<int> v) { return v[rng() % v.size()]; };
  int checked = 0;
  for (const json& bj : bases) {
    Scenario base = parsed(bj);
    FastTraining fast(base);
    for (int i = 0; i < 400; ++i) {
      Scenario s = base;
      s.par.tp = pick({1, 2, 4, 8});
      s.par.pp = pick({1, 2, 3, 4, 8});
      s.par.dp = pick({1, 2, 4, 8, 16});
      s.par.cp = pick({1, 2, 4});
      s.par.ep = base.model.is_moe() ? pick({1, 2, 4, 8}) : 1;
      s.par.etp = base.model.is_moe() ? pick({0, 0, 1}) : 0;  // the default, or whole experts per rank
      s.par.sp = rng() % 2;
      s.par.zero = pick({0, 1, 2, 3});
      const int sched = pick({0, 1, 2, 3, 4});  // 1f1b, interleaved, gpipe, zb_h1, dualpipe
      s.par.schedule = static_cast<PipeSchedule>(sched);
      s.par.virtual_stages = sched == 1 ? pick({1, 2, 3, 4}) : 1;
      s.train.micro_batch = pick({1, 2, 4});
      s.train.recompute = static_cast<Recompute>(pick({0, 1, 2, 3}));
      // The search enumerates recompute itself and keeps plans that fit, so
      // the fallback for plans given without it (recompute_to_fit) is off.
      s.train.recompute_to_fit = false;
      try {
        check_consistency(s);
      } catch (const InputError&) {
        continue;
      }
      const TrainingResult ref = evaluate(s).training;
      const FastTrainingResult got = fast.evaluate(s.par, s.train.micro_batch, s.train.recompute);
      ASSERT_LE(rel_diff(got.iteration_time_s, ref.iteration_time_s), 1e-9) << bj.dump() << " plan " << i;
      ASSERT_LE(rel_diff(got.memory.total, ref.memory.total), 1e-9);
      EXPECT_LE(rel_diff(got.breakdown.dp_comm + 1, ref.breakdown.dp_comm + 1), 1e-9);
      EXPECT_LE(rel_diff(got.breakdown.pp_comm + 1, ref.breakdown.pp_comm + 1), 1e-9);
      ++checked;
    }
  }
  EXPECT_GT(checked, 480);
}

TEST(Search, ReturnedPlansAreValidAndFit) {
  const json out = json::parse(search_json(small_search().dump()));
  ASSERT_FALSE(out.contains("error")) << out.dump();
  const json& s = out["search"];
  EXPECT_GT(s["evaluated"].get<long long>(), 1000);
  EXPECT_GT(s["feasible"].get<long long>(), 0);
  ASSERT_EQ(s["best"].size(), 5u);
  for (const char* list : {"best", "pareto"})
    for (const json& b : s[list]) {
      json scen = small_search();
      scen.erase("search");
      scen["parallelism"] = b["parallelism"];
      scen["training"] = b["training"];
      const json r = eval_ok(scen);
      EXPECT_TRUE(r["training"]["fits"].get<bool>());
      const auto& p = b["parallelism"];
      EXPECT_EQ(p["tp"].get<int>() * p["pp"].get<int>() * p["dp"].get<int>() * p["cp"].get<int>(), 16);
      EXPECT_LE(rel_diff(r["training"]["iteration_time_s"].get<double>(), b["iteration_time_s"].get<double>()), 1e-9);
      // The calculator's warnings for the plan, then the caution for its
      // kind of run when published runs of that kind were missed widely.
      json expected = r.at("warnings");
      const std::string caution = regime_caution(*find_regime(b.at("regime")), "training.iteration_time_s");
      if (!caution.empty()) expected.push_back(caution);
      EXPECT_EQ(b.at("warnings"), expected) << "a plan carries the calculator's warnings for it";
    }
  // Ranked by iteration time; the Pareto front trades time for memory.
  for (size_t i = 1; i < s["best"].size(); ++i)
    EXPECT_LE(s["best"][i - 1]["iteration_time_s"].get<double>(), s["best"][i]["iteration_time_s"].get<double>());
  for (size_t i = 1; i < s["pareto"].size(); ++i) {
    EXPECT_LT(s["pareto"][i - 1]["iteration_time_s"].get<double>(), s["pareto"][i]["iteration_time_s"].get<double>());
    EXPECT_GT(s["pareto"][i - 1]["memory_bytes_total"].get<double>(), s["pareto"][i]["memory_bytes_total"].get<double>());
  }
}

// search.recommended: the fastest plan without a warning, else the fastest;
// absent when no plan is feasible.
TEST(Search, RecommendsTheFastestPlanWithoutAWarning) {
  auto run = [](const std::string& model, int gpus) {
    const json in = {{"mode", "training"}, {"model", model}, {"system", "dgx-h100"},
                     {"training", {{"global_batch", 128}, {"seq_len", 8192}}}, {"search", {{"gpus", gpus}, {"top", 10}}}};
    return json::parse(search_json(in.dump()))["search"];
  };
  int passed_over = 0;
  for (const auto& [model, gpus] : std::vector<std::pair<std::string, int>>{{"llama3.1-8b", 8}, {"llama3.1-70b", 16}, {"llama3.1-405b", 128}}) {
    const json s = run(model, gpus);
    ASSERT_FALSE(s["best"].empty()) << model << " on " << gpus;
    const size_t pick = s.at("recommended").get<size_t>();
    ASSERT_LT(pick, s["best"].size());
    const bool any_clean = std::any_of(s["best"].begin(), s["best"].end(), [](const json& b) { return b["warnings"].empty(); });
    EXPECT_EQ(s["best"][pick]["warnings"].empty(), any_clean) << model << " on " << gpus;
    for (size_t i = 0; i < pick; ++i) EXPECT_FALSE(s["best"][i]["warnings"].empty()) << "plan " << i << " is faster and clean";
    passed_over += pick > 0;
  }
  // 405B on 128 GPUs: the fastest plans fit with under 5% to spare.
  EXPECT_GT(passed_over, 0);
  EXPECT_FALSE(run("llama3.1-70b", 8).contains("recommended"));
}

// The next two cases need the FSDP kind to be one the model flatters (the
// public set's ZeRO-3 runs were predicted 24.5% fast on balance); once the
// model has caught up with them, there is nothing to pass over.
bool fsdp_is_cautioned() {
  return !regime_caution(*find_regime("sharded_data_parallel_training"), "training.iteration_time_s").empty();
}

// The search ranks by the model, so a kind of run the model has been widely
// optimistic about can top the list: Llama 3.1 70B on 64 H100 ranked ZeRO-3
// plans first (the FSDP runs were predicted 24.5% fast on balance) above the
// Megatron-style plans NVIDIA's recipe runs. Those plans carry the caution
// and the recommendation passes them over for a kind validated closely.
TEST(Search, KindsMissedWidelyAreNotRecommended) {
  if (!fsdp_is_cautioned()) GTEST_SKIP() << "the ZeRO-3 / FSDP kind carries no caution";
  json in = {{"mode", "training"}, {"model", "llama3.1-70b"}, {"system", "dgx-h100"},
             {"parallelism", {{"tp", 4}, {"pp", 4}, {"dp", 2}, {"cp", 2}, {"sp", true}, {"pp_schedule", "interleaved"}, {"virtual_stages", 5}}},
             {"training", {{"global_batch", 128}, {"micro_batch", 1}, {"seq_len", 8192}}},
             {"search", {{"top", 12}, {"vary", "plan"}}}};
  const json s = json::parse(search_json(in.dump()))["search"];
  ASSERT_FALSE(s["best"].empty());
  int cautioned = 0;
  for (const json& b : s["best"]) {
    const std::string caution = regime_caution(*find_regime(b["regime"]), "training.iteration_time_s");
    const bool has = !caution.empty() && std::find(b["warnings"].begin(), b["warnings"].end(), caution) != b["warnings"].end();
    EXPECT_EQ(has, !caution.empty()) << b.dump();
    cautioned += has;
  }
  ASSERT_GT(cautioned, 0) << "the fastest plans here are ZeRO-3 ones";
  const json& pick = s["best"][s.at("recommended").get<size_t>()];
  EXPECT_TRUE(pick["warnings"].empty()) << pick.dump();
  EXPECT_EQ(pick["regime"], "dense_model_parallel_training");
}

// When every listed plan is of a kind the model has been optimistic about,
// the search appends the fastest plan of another kind and recommends it:
// Llama 3.1 405B on 128 H100 lists four ZeRO-3 plans.
TEST(Search, BeyondTheListAPlanOfATrustedKind) {
  if (!fsdp_is_cautioned()) GTEST_SKIP() << "the ZeRO-3 / FSDP kind carries no caution";
  const json in = {{"mode", "training"}, {"model", "llama3.1-405b"}, {"system", "dgx-h100"},
                   {"training", {{"global_batch", 128}, {"seq_len", 8192}}}, {"search", {{"gpus", 128}, {"top", 4}}}};
  const json s = json::parse(search_json(in.dump()))["search"];
  const json& best = s["best"];
  ASSERT_EQ(best.size(), 5u);
  const size_t pick = s.at("recommended").get<size_t>();
  ASSERT_EQ(pick, 4u);
  const json& extra = best[pick];
  EXPECT_TRUE(extra.value("beyond_top", false));
  EXPECT_NE(extra["regime"], "sharded_data_parallel_training");
  EXPECT_TRUE(regime_caution(*find_regime(extra["regime"]), "training.iteration_time_s").empty());
  EXPECT_TRUE(extra["warnings"].empty()) << extra.dump();
  EXPECT_TRUE(s["accuracy"].contains(extra["regime"].get<std::string>())) << "its kind's validation is quoted";
  for (size_t i = 0; i < pick; ++i) {
    EXPECT_FALSE(best[i].value("beyond_top", false));
    EXPECT_EQ(best[i]["regime"], "sharded_data_parallel_training");
    EXPECT_LE(best[i]["iteration_time_s"].get<double>(), extra["iteration_time_s"].get<double>());
  }
  // It is the fastest plan without a warning outside ZeRO-3: the same search
  // kept to ZeRO 0-1 (vary unset, zero 1 fixed) finds nothing faster and clean.
  json kept = in;
  kept["parallelism"] = {{"zero", 1}};
  kept["search"]["top"] = 50;
  const json k = json::parse(search_json(kept.dump()))["search"];
  bool clean = false;
  for (const json& b : k["best"])
    if (b["warnings"].empty()) {
      EXPECT_GE(b["iteration_time_s"].get<double>(), extra["iteration_time_s"].get<double>() * (1 - 1e-9)) << b.dump();
      clean = true;
      break;
    }
  EXPECT_TRUE(clean);
}

// When every listed plan carries a warning of its own, the search appends
// the fastest plan without one and recommends it, so that the recommendation
// does not hang on how many plans are asked for: Llama 3.1 70B on 1,024 H100
// lists two plans at the memory ceiling and three ZeRO-3 plans at top 5, and
// one at the ceiling at top 1.
TEST(Search, BeyondTheListWhenEveryListedPlanIsWarned) {
  json in = {{"mode", "training"}, {"model", "llama3.1-70b"}, {"system", "dgx-h100"},
             {"parallelism", {{"tp", 1}}},
             {"training", {{"global_batch", 2048}, {"seq_len", 8192}}}, {"search", {{"gpus", 1024}, {"top", 5}}}};
  const json few = json::parse(search_json(in.dump()))["search"];
  const json& best = few["best"];
  const size_t pick = few.at("recommended").get<size_t>();
  ASSERT_EQ(best.size(), 6u) << few.dump();
  ASSERT_EQ(pick, 5u);
  for (size_t i = 0; i < pick; ++i) {
    EXPECT_TRUE(warned_alone(best[i], best)) << i;
    EXPECT_LE(best[i]["iteration_time_s"].get<double>(), best[pick]["iteration_time_s"].get<double>());
  }
  EXPECT_TRUE(best[pick].value("beyond_top", false));
  EXPECT_EQ(best[pick].value("beyond_top_why", ""), "warnings");
  EXPECT_TRUE(best[pick]["warnings"].empty()) << best[pick].dump();
  // A list of one recommends the same plan: its warning is its own, since
  // the fastest plans of the other kinds do not carry it.
  in["search"]["top"] = 1;
  const json one = json::parse(search_json(in.dump()))["search"];
  ASSERT_EQ(one["best"].size(), 2u) << one.dump();
  EXPECT_EQ(one.at("recommended").get<size_t>(), 1u);
  EXPECT_EQ(one["best"][1]["parallelism"], best[pick]["parallelism"]);
  // A longer list holds that plan and recommends it in place.
  in["search"]["top"] = 20;
  const json many = json::parse(search_json(in.dump()))["search"];
  const json& chosen = many["best"][many.at("recommended").get<size_t>()];
  EXPECT_FALSE(chosen.value("beyond_top", false));
  EXPECT_EQ(chosen["parallelism"], best[pick]["parallelism"]);
  EXPECT_DOUBLE_EQ(chosen["iteration_time_s"].get<double>(), best[pick]["iteration_time_s"].get<double>());
}

// Two listed serving plans at the same memory ceiling carry the same
// warning word for word; it is still theirs, not the run's, since plans the
// search kept beyond them fit with room: Llama 3.1 70B on 2 H100, top 2.
TEST(Search, AWarningTheListedPlansShareIsStillTheirOwn) {
  const json in = {{"mode", "inference"}, {"model", "llama3.1-70b"}, {"system", "dgx-h100"},
                   {"inference", {{"input_tokens", 1024}, {"output_tokens", 256}}}, {"search", {{"gpus", 2}, {"top", 2}}}};
  const json s = json::parse(search_json(in.dump()))["search"];
  const json& best = s["best"];
  ASSERT_EQ(best.size(), 3u) << s.dump();
  EXPECT_EQ(best[0]["warnings"], best[1]["warnings"]);
  EXPECT_FALSE(best[0]["warnings"].empty());
  EXPECT_EQ(s.at("recommended").get<size_t>(), 2u);
  EXPECT_EQ(best[2].value("beyond_top_why", ""), "warnings");
  EXPECT_TRUE(best[2]["warnings"].empty()) << best[2].dump();
}

// A warning every listed plan carries says nothing of a plan: interruptions
// that leave a fifth of the time training (the same for every plan of a GPU
// count) do not turn the recommendation back to the fastest plan, which
// fits with under 5% to spare.
TEST(Search, RecommendationIgnoresWarningsEveryPlanCarries) {
  json in = {{"mode", "training"}, {"model", "llama3.1-405b"}, {"system", "dgx-h100"},
             {"training", {{"global_batch", 128}, {"seq_len", 8192}}}, {"search", {{"gpus", 128}, {"top", 10}}}};
  const json plain = json::parse(search_json(in.dump()))["search"];
  in["reliability"] = {{"gpu_hours_per_interruption", 50}, {"storage_GBps_per_gpu", 0.01}};
  const json flaky = json::parse(search_json(in.dump()))["search"];
  ASSERT_EQ(plain["best"].size(), flaky["best"].size());
  const size_t pick = plain.at("recommended").get<size_t>();
  ASSERT_GT(pick, 0u) << "the fastest plan has a warning of its own";
  for (const json& b : flaky["best"]) {
    const bool shared = std::any_of(b["warnings"].begin(), b["warnings"].end(),
                                    [](const json& w) { return w.get<std::string>().rfind("interruptions leave", 0) == 0; });
    EXPECT_TRUE(shared) << "every plan carries the goodput warning";
  }
  EXPECT_EQ(flaky.at("recommended").get<size_t>(), pick);
  for (const json& w : flaky["best"][pick]["warnings"])
    for (const json& b : flaky["best"])
      EXPECT_NE(std::find(b["warnings"].begin(), b["warnings"].end(), w), b["warnings"].end())
          << "the recommended plan carries only warnings every plan carries: " << w;
}

// A ZeRO-3 plan of another kind carries the fully sharded kind's caution
// beside its own, since its per-layer gathers are what those runs measure:
// Qwen3-30B-A3B's fastest plan on 32 H100 without tp, pp or cp is ZeRO-3
// without expert parallelism. The MoE caution, which every plan carries,
// tells no plan from another; the search recommends the fastest plan without
// the sharded one, from beyond the list.
TEST(Search, AZeroThreePlanOfAnotherKindCarriesTheShardedCaution) {
  if (!fsdp_is_cautioned()) GTEST_SKIP() << "the ZeRO-3 / FSDP kind carries no caution";
  const char* metric = "training.iteration_time_s";
  const std::string sharded = regime_caution(*find_regime("sharded_data_parallel_training"), metric);
  const std::string moe = regime_caution(*find_regime("moe_training"), metric);
  const json in = {{"mode", "training"}, {"model", "qwen3-30b-a3b"}, {"system", "dgx-h100"},
                   {"parallelism", {{"tp", 1}, {"pp", 1}, {"cp", 1}}},
                   {"training", {{"global_batch", 256}, {"seq_len", 4096}, {"precision", "bf16"}}},
                   {"search", {{"gpus", 32}, {"top", 1}}}};
  const json s = json::parse(search_json(in.dump()))["search"];
  const json& best = s["best"];
  const auto carries = [](const json& plan, const std::string& w) {
    return std::find(plan["warnings"].begin(), plan["warnings"].end(), w) != plan["warnings"].end();
  };
  ASSERT_EQ(best.size(), 2u) << s.dump();
  EXPECT_EQ(best[0]["parallelism"]["zero"], 3);
  EXPECT_EQ(best[0]["regime"], "moe_training");
  EXPECT_TRUE(carries(best[0], sharded));
  EXPECT_EQ(s.at("recommended").get<size_t>(), 1u);
  EXPECT_TRUE(best[1].value("beyond_top", false));
  EXPECT_LT(best[1]["parallelism"]["zero"].get<int>(), 3);
  EXPECT_FALSE(carries(best[1], sharded));
  if (!moe.empty()) EXPECT_TRUE(carries(best[0], moe) && carries(best[1], moe)) << "every MoE plan carries it";
  // The validation quoted for the kinds listed holds the plan's second kind too.
  EXPECT_EQ(best[0].value("also_regime", ""), "sharded_data_parallel_training");
  EXPECT_FALSE(best[1].contains("also_regime"));
  EXPECT_TRUE(s["accuracy"].contains("moe_training"));
  EXPECT_TRUE(s["accuracy"].contains("sharded_data_parallel_training")) << s["accuracy"].dump();
}

// Brute force: every plan of the same space through the reference evaluate().
TEST(Search, BestEqualsBruteForce) {
  const json in = small_search();
  const Scenario base = parsed(in);
  double best = 1e300;
  long long valid = 0;
  const std::vector<int> divs{1, 2, 4, 8, 16};
  for (int tp : divs)
    for (int pp : divs)
      for (int cp : divs)
        for (int dp : divs) {
          if (tp * pp * cp * dp != 16) continue;
          for (int sched = 0; sched < 3; ++sched)
            for (int v = 1; v <= base.model.layers + 2; ++v) {
              // Chunks split the layers, or the layers with the embedding and the loss.
              const bool splits = base.model.layers % (pp * v) == 0 || (base.model.layers + 2) % (pp * v) == 0;
              if ((sched == 1) != (v > 1) || (sched == 1 && !splits) || (sched != 0 && pp == 1)) continue;
              for (int mb : {1, 2, 4, 8, 16}) {
                // Interleaving runs whole groups of pp micro-batches.
                if (sched == 1 && (base.train.global_batch / (1LL * mb * dp)) % pp != 0) continue;
                for (int sp = 0; sp < (tp > 1 ? 2 : 1); ++sp)
                  for (int rc = 0; rc < 3; ++rc)
                    for (int z = 0; z < 4; ++z) {
                      if (pp > 1 && z >= 2) continue;  // pipelines run with ZeRO 1 at most
                      Scenario s = base;
                      s.par = {tp, pp, dp, cp, 1, sp == 1, static_cast<PipeSchedule>(sched), v, z};
                      s.train.micro_batch = mb;
                      s.train.recompute = static_cast<Recompute>(rc);
                      try {
                        check_consistency(s);
                      } catch (const InputError&) {
                        continue;
                      }
                      const TrainingResult r = evaluate(s).training;
                      if (s.train.recompute == Recompute::selective && s.train.flash_attention) {
                        // The search lists this plan once, as none: with FlashAttention
                        // selective recompute changes nothing where it fits (where it
                        // does not, none recomputes layers to fit instead).
                        Scenario none = s;
                        none.train.recompute = Recompute::none;
                        const TrainingResult rn = evaluate(none).training;
                        if (r.fits) {
                          EXPECT_EQ(r.iteration_time_s, rn.iteration_time_s);
                          EXPECT_EQ(r.memory.total, rn.memory.total);
                        }
                        continue;
                      }
                      ++valid;
                      if (r.fits) best = std::min(best, r.iteration_time_s);
                    }
              }
            }
        }
  const json out = json::parse(search_json(in.dump()));
  ASSERT_FALSE(out.contains("error")) << out.dump();
  EXPECT_EQ(out["search"]["evaluated"].get<long long>(), valid);
  EXPECT_LE(rel_diff(out["search"]["best"][0]["iteration_time_s"].get<double>(), best), 1e-9);
}

// When no plan is feasible the search names the one that misses by the
// least (what a planner asks next: how far off, and with which plan).
TEST(Search, NoFeasiblePlanNamesTheClosest) {
  json in = {{"mode", "training"}, {"model", "llama3.1-70b"}, {"system", "dgx-h100"},
             {"training", {{"global_batch", 512}, {"seq_len", 8192}}}, {"search", {{"gpus", 8}}}};
  const json s = json::parse(search_json(in.dump()))["search"];
  ASSERT_EQ(s["feasible"].get<long long>(), 0) << s.dump();
  EXPECT_TRUE(s["best"].empty());
  ASSERT_TRUE(s.contains("closest")) << s.dump();
  const json& c = s["closest"];
  EXPECT_EQ(c["misses"], json::array({"memory"}));
  const double capacity = c["capacity_bytes"].get<double>();
  EXPECT_GT(c["memory_bytes_total"].get<double>(), capacity);
  // The memory is the full model's, and no leaner plan was passed over.
  json scen = in;
  scen.erase("search");
  scen["parallelism"] = c["parallelism"];
  scen["training"] = c["training"];
  EXPECT_LE(rel_diff(eval_ok(scen)["training"]["memory_bytes"]["total"].get<double>(), c["memory_bytes_total"].get<double>()), 1e-9);
  for (const json& par : {json{{"tp", 8}, {"zero", 3}}, json{{"pp", 8}, {"zero", 1}}, json{{"dp", 8}, {"zero", 3}}}) {
    json other = in;
    other.erase("search");
    other["parallelism"] = par;
    other["training"]["recompute"] = "full";
    other["training"]["micro_batch"] = 1;
    EXPECT_LE(c["memory_bytes_total"].get<double>(), eval_ok(other)["training"]["memory_bytes"]["total"].get<double>()) << par.dump();
  }

  // Serving under a TTFT bound no plan meets: the closest says so.
  const json serve = {{"mode", "inference"}, {"model", "llama3.1-70b"}, {"system", "dgx-h100"},
                      {"inference", {{"input_tokens", 2048}, {"output_tokens", 256}}},
                      {"search", {{"gpus", 8}, {"max_ttft_s", 0.01}}}};
  const json si = json::parse(search_json(serve.dump()))["search"];
  ASSERT_EQ(si["feasible"].get<long long>(), 0) << si.dump();
  const json& ci = si["closest"];
  EXPECT_EQ(ci["misses"], json::array({"ttft"}));
  EXPECT_EQ(ci["max_ttft_s"].get<double>(), 0.01);
  EXPECT_LE(ci["memory_bytes_total"].get<double>(), ci["capacity_bytes"].get<double>());
  EXPECT_EQ(ci["inference"]["batch"].get<int>(), 1);  // a larger batch only waits longer for its first token
  EXPECT_EQ(ci["parallelism"]["tp"].get<int>(), 8);

  // A search with a feasible plan names no closest.
  EXPECT_FALSE(json::parse(search_json(small_search().dump()))["search"].contains("closest"));
}

// A search on a TPU counts chips (system.device.unit_name): its output names
// the word for the tables, and the warning and the text table use it.
TEST(Search, CountsTheDevicesInTheSystemsWord) {
  const json in = {{"mode", "training"}, {"model", "llama3.1-70b"}, {"system", "tpu-v5p"},
                   {"training", {{"global_batch", 64}, {"seq_len", 8192}}}, {"search", {{"gpus", 8}, {"top", 3}}}};
  const json out = json::parse(search_json(in.dump()));
  const json& s = out.at("search");
  EXPECT_EQ(s.at("unit_name"), "chip");
  ASSERT_EQ(s.at("feasible").get<long long>(), 0) << s.dump();
  EXPECT_EQ(s.at("warnings"), json::array({"no configuration fits in memory on 8 chips"}));
  const std::string none = search_table(out);
  EXPECT_NE(none.find("plans on 8 chips in "), std::string::npos) << none;
  EXPECT_NE(none.find(" GiB/chip "), std::string::npos) << none;
  EXPECT_EQ(none.find("GPU"), std::string::npos) << none;
  // One chip, and a GPU system in its own word.
  json one = in;
  one["model"] = "llama3.1-8b";
  one["search"]["gpus"] = 1;
  EXPECT_NE(search_table(json::parse(search_json(one.dump()))).find("plans on 1 chip in "), std::string::npos);
  one["system"] = "dgx-h100";
  const json gpu = json::parse(search_json(one.dump()));
  EXPECT_EQ(gpu.at("search").at("unit_name"), "GPU");
  EXPECT_NE(search_table(gpu).find(" GiB/GPU "), std::string::npos);
}

// A run's own warnings count in the system's word too: Llama 3.1 70B with
// tp 16 does not fit on TPU v5p chips, and spans more than a node of Gaudi 3
// HPUs (8), and no warning says GPU; the same run on H100s says GPU.
TEST(Search, ARunsWarningsCountTheDevicesInTheSystemsWord) {
  json in = {{"mode", "training"}, {"model", "llama3.1-70b"}, {"system", "tpu-v5p"},
             {"parallelism", {{"tp", 16}}}, {"training", {{"global_batch", 64}, {"seq_len", 8192}, {"recompute", "none"}}}};
  const auto words = [](const json& scenario) {
    const json out = eval_ok(scenario);
    std::string all;
    for (const json& w : out.at("warnings")) all += w.get<std::string>() + "\n";
    return all;
  };
  const std::string tpu = words(in);
  EXPECT_NE(tpu.find("does not fit: "), std::string::npos) << tpu;
  EXPECT_NE(tpu.find(" needed per chip, "), std::string::npos) << tpu;
  EXPECT_NE(tpu.find(" GiB per chip"), std::string::npos) << tpu;  // the recompute-to-fit warning
  EXPECT_EQ(tpu.find("GPU"), std::string::npos) << tpu;
  in["system"] = "intel-gaudi3";
  const std::string hpu = words(in);
  EXPECT_NE(hpu.find("tp spans more HPUs than a node"), std::string::npos) << hpu;
  EXPECT_EQ(hpu.find("GPU"), std::string::npos) << hpu;
  in["system"] = "dgx-h100";
  const std::string gpu = words(in);
  EXPECT_NE(gpu.find(" needed per GPU, "), std::string::npos) << gpu;
  EXPECT_NE(gpu.find("tp spans more GPUs than a node"), std::string::npos) << gpu;
}

TEST(Search, LimitTruncates) {
  const json out = search_scenario(small_search(), 100);
  EXPECT_EQ(out["search"]["evaluated"].get<long long>(), 100);
  EXPECT_TRUE(out["search"]["truncated"].get<bool>());
}

TEST(Search, Inference) {
  const json in = {{"mode", "inference"}, {"model", "llama3.1-70b"}, {"system", "dgx-h100"},
                   {"inference", {{"input_tokens", 2048}, {"output_tokens", 256}}},
                   {"search", {{"gpus", 8}, {"top", 3}, {"max_ttft_s", 2.0}, {"max_tpot_s", 0.05}}}};
  const json out = json::parse(search_json(in.dump()));
  ASSERT_FALSE(out.contains("error")) << out.dump();
  const json& best = out["search"]["best"];
  ASSERT_FALSE(best.empty());
  for (const json& b : best) {
    EXPECT_LE(b["ttft_s"].get<double>(), 2.0);
    EXPECT_LE(b["tpot_s"].get<double>(), 0.05);
    EXPECT_GT(b["output_tokens_per_s"].get<double>(), 0);
  }
  for (size_t i = 1; i < best.size(); ++i)
    EXPECT_GE(best[i - 1]["output_tokens_per_s_per_gpu"].get<double>(), best[i]["output_tokens_per_s_per_gpu"].get<double>());
}

// Every plan the serving search returns, evaluated on its own, gives the
// figures the search ranked it by. moe_gemm "auto" is picked per plan: Mixtral
// fp8 on one H100 holds only fp8 experts (native), while tp 1 x dp 8 x ep 8
// holds 16-bit ones, so auto runs TensorRT-LLM's slower legacy kernel there.
// The search once kept the base plan's pick for every plan (11 of 11 differed).
TEST(Search, ServingPlansGiveTheFiguresTheyWereRankedBy) {
  const json scenario = {{"mode", "inference"}, {"model", "mixtral-8x7b"}, {"system", "dgx-h100"},
                         {"inference", {{"batch", 64}, {"input_tokens", 1024}, {"output_tokens", 512},
                                        {"weight_precision", "fp8"}, {"batching", "static"}}}};
  json in = scenario;
  in["search"] = {{"gpus", 8}, {"top", 10}};
  const json out = json::parse(search_json(in.dump()));
  ASSERT_FALSE(out.contains("error")) << out.dump();
  const json best = out["search"]["best"];
  ASSERT_GE(best.size(), 5u);
  int legacy = 0;
  for (const json& b : best) {
    json plan = scenario;
    plan["parallelism"] = b["parallelism"];
    plan["inference"].update(b["inference"]);
    const json r = eval_ok(plan)["inference"];
    legacy += r["moe_gemm"] == "legacy16";
    EXPECT_DOUBLE_EQ(r["ttft_s"].get<double>(), b["ttft_s"].get<double>()) << b.dump();
    EXPECT_DOUBLE_EQ(r["tpot_s"].get<double>(), b["tpot_s"].get<double>()) << b.dump();
  }
  EXPECT_GT(legacy, 0);  // the case this guards: a plan whose pick differs from one H100's
}

// Whatever the search resolves per plan (the serving expert kernel, the
// expert tp, ...), a returned plan evaluated on its own gives the figures it
// was ranked by: random models and systems from the presets, training and
// serving, the search choosing every plan input.
TEST(Search, EveryReturnedPlanReproduces) {
  const json presets = json::parse(presets_json());
  std::vector<std::string> models, systems;
  for (const auto& [id, _] : presets["models"].items()) models.push_back(id);
  for (const auto& [id, _] : presets["systems"].items()) systems.push_back(id);
  std::mt19937 rng(20261203);
  auto pick = [&](const std::vector<std::string>& v) { return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)]; };
  int compared = 0;
  for (int i = 0; i < 40; ++i) {
    const bool training = i % 2 == 0;
    json base = {{"mode", training ? "training" : "inference"}, {"model", pick(models)}, {"system", pick(systems)}};
    // Every eighth draw serves an MoE model in fp8 on Hopper, where the expert
    // kernel "auto" picks depends on the plan (the bug this test first missed).
    if (i % 8 == 1) base["model"] = "mixtral-8x7b", base["system"] = "dgx-h100";
    if (training)
      base["training"] = {{"global_batch", 128}, {"seq_len", 4096}, {"precision", i % 4 == 0 ? "fp8" : "bf16"}};
    else
      base["inference"] = {{"batch", 64}, {"input_tokens", 1024}, {"output_tokens", 256},
                           {"weight_precision", i % 4 == 1 ? "fp8" : "bf16"}};
    json in = base;
    in["search"] = {{"gpus", 8}, {"top", 3}};
    const json out = json::parse(search_json(in.dump()));
    if (out.contains("error")) continue;  // e.g. fp8 on a device without an fp8 peak
    const json best = out["search"]["best"];
    for (const json& b : best) {
      json plan = base;
      plan["parallelism"] = b["parallelism"];
      const char* mode = training ? "training" : "inference";
      plan[mode].update(b[mode]);
      if (training) plan["training"]["recompute_to_fit"] = false;
      const json r = eval_ok(plan)[mode];
      ++compared;
      for (const char* k : training ? std::vector<const char*>{"iteration_time_s"} : std::vector<const char*>{"ttft_s", "tpot_s"})
        EXPECT_DOUBLE_EQ(r[k].get<double>(), b[k].get<double>()) << k << " " << plan.dump();
    }
  }
  EXPECT_GT(compared, 40);
}

// A returned plan's sections stand alone: read back in place of the
// scenario's own (not merged into them), they carry every setting the plan
// was costed with, the defaults left out. Settings chosen so that each moves
// the figures: without them echoed the plan would evaluate differently.
TEST(Search, ReturnedSectionsReadBackAlone) {
  const json training = {{"mode", "training"}, {"model", "mixtral-8x7b"}, {"system", "dgx-h100"},
                         {"parallelism", {{"zero", 3}, {"gather_precision", "fp32"}, {"reduce_precision", "bf16"}}},
                         {"training", {{"global_batch", 64}, {"seq_len", 2048}, {"precision", "fp8"},
                                       {"fp8_recipe", "current"}, {"attention_kernel", "fa2"}, {"fusion", "eager"},
                                       {"host_overhead_us", 30}, {"overlap", {{"ep", true}}},
                                       {"moe_balance", "forced"}, {"moe_dispatch_precision", "fp8"}}}};
  const json serving = {{"mode", "inference"}, {"model", "llama3.1-8b"}, {"system", "dgx-a100-80gb"},
                        {"inference", {{"batch", 32}, {"input_tokens", 2048}, {"output_tokens", 256},
                                       {"weight_precision", "int4"}, {"weight_group_size", 32},
                                       {"decode_attention", "per_head"}, {"batching", "inflight"},
                                       {"shared_prefix_tokens", 1024}}}};
  for (const json& base : {training, serving}) {
    const std::string mode = base["mode"];
    json in = base;
    in["search"] = {{"gpus", 16}, {"top", 4}};
    const json out = json::parse(search_json(in.dump()));
    ASSERT_FALSE(out.contains("error")) << out.dump();
    ASSERT_FALSE(out["search"]["best"].empty()) << mode;
    for (const json& b : out["search"]["best"]) {
      const json plan = {{"mode", mode}, {"model", base["model"]}, {"system", base["system"]},
                         {"parallelism", b["parallelism"]}, {mode, b[mode]}};
      const json r = eval_ok(plan)[mode];
      for (const char* k : mode == "training" ? std::vector<const char*>{"iteration_time_s"}
                                              : std::vector<const char*>{"ttft_s", "tpot_s"})
        EXPECT_DOUBLE_EQ(r[k].get<double>(), b[k].get<double>()) << k << " " << plan.dump();
    }
  }
  json one = training;
  one["search"] = {{"gpus", 16}, {"top", 1}};
  const json first = json::parse(search_json(one.dump()));
  EXPECT_EQ(first["search"]["best"][0]["training"]["host_overhead_us"].dump(), "30.0");  // as given, not 29.999999999999996
  // Defaults are left out: a plan of a scenario that sets nothing extra
  // carries only the plan's own training fields.
  json plain = {{"mode", "training"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"},
                {"training", {{"global_batch", 64}, {"seq_len", 4096}}}, {"search", {{"gpus", 8}, {"top", 1}}}};
  const json t = json::parse(search_json(plain.dump()))["search"]["best"][0]["training"];
  for (const char* k : {"attention_kernel", "fusion", "fp8_recipe", "host_overhead_us", "recompute_to_fit", "moe_balance"})
    EXPECT_FALSE(t.contains(k)) << k << " " << t.dump();
}

// search.memory_share: a plan fits only under that share of the device
// memory, for training and serving alike; the share leaves the ranking of
// the plans it keeps unchanged, and it is range-checked.
TEST(Search, MemoryShareBoundsThePlans) {
  const double capacity = 80.0 * 1073741824.0;  // dgx-h100
  const json train = small_search();
  json tight = train;
  tight["search"]["memory_share"] = 0.6;
  const json all = json::parse(search_json(train.dump()))["search"];
  const json some = json::parse(search_json(tight.dump()))["search"];
  EXPECT_GT(some["feasible"].get<long long>(), 0);
  EXPECT_LT(some["feasible"].get<long long>(), all["feasible"].get<long long>());
  for (const char* list : {"best", "pareto"})
    for (const json& b : some[list]) EXPECT_LE(b["memory_bytes_total"].get<double>(), 0.6 * capacity) << b.dump();
  // The best plan under the share is the best of the unrestricted front that
  // fits it (the front is whole: it is thinned only past 100 points).
  ASSERT_LT(all["pareto"].size(), 100u);
  double best_under = 1e300;
  for (const json& b : all["pareto"])
    if (b["memory_bytes_total"].get<double>() <= 0.6 * capacity) best_under = std::min(best_under, b["iteration_time_s"].get<double>());
  EXPECT_LE(rel_diff(some["best"][0]["iteration_time_s"].get<double>(), best_under), 1e-12);

  json serve = {{"mode", "inference"}, {"model", "llama3.1-70b"}, {"system", "dgx-h100"},
                {"inference", {{"input_tokens", 2048}, {"output_tokens", 256}}},
                {"search", {{"gpus", 8}, {"top", 3}, {"memory_share", 0.7}}}};
  const json served = json::parse(search_json(serve.dump()));
  ASSERT_FALSE(served.contains("error")) << served.dump();
  ASSERT_FALSE(served["search"]["best"].empty());
  for (const json& b : served["search"]["best"]) EXPECT_LE(b["memory_bytes_total"].get<double>(), 0.7 * capacity);

  // None fits: the warning and the closest plan say against what.
  json big = {{"mode", "training"}, {"model", "llama3.1-70b"}, {"system", "dgx-h100"},
              {"training", {{"global_batch", 512}, {"seq_len", 8192}}}, {"search", {{"gpus", 8}, {"memory_share", 0.9}}}};
  const json none = json::parse(search_json(big.dump()))["search"];
  EXPECT_EQ(none["warnings"], json::array({"no configuration fits in 90% of the memory on 8 GPUs"}));
  EXPECT_EQ(none["closest"]["memory_share"].get<double>(), 0.9);

  serve["search"]["memory_share"] = 0.4;
  const json bad = json::parse(search_json(serve.dump()));
  ASSERT_TRUE(bad.contains("error"));
  EXPECT_NE(bad.dump().find("search.memory_share"), std::string::npos) << bad.dump();
}

// Each plan names its kind of run; the search quotes the validation of every
// kind among the best plans (the ranking is the model's).
TEST(Search, PlansCarryTheirRegimeAndItsValidation) {
  const json out = json::parse(search_json(small_search().dump()));
  ASSERT_FALSE(out.contains("error")) << out.dump();
  const json& s = out["search"];
  ASSERT_FALSE(s["best"].empty());
  for (const json& b : s["best"]) {
    const std::string id = b["regime"].get<std::string>();
    ASSERT_TRUE(s["accuracy"].contains(id)) << id;
    EXPECT_TRUE(s["accuracy"][id]["metrics"].is_array());
    EXPECT_FALSE(s["accuracy"][id]["label"].get<std::string>().empty());
    const bool model_parallel = b["parallelism"]["tp"].get<int>() > 1 || b["parallelism"]["pp"].get<int>() > 1;
    if (b["parallelism"]["zero"].get<int>() >= 3) EXPECT_EQ(id, "sharded_data_parallel_training");
    else if (model_parallel) EXPECT_EQ(id, "dense_model_parallel_training");
  }
  // The quoted runs ran on H100s; on a Gaudi 3 the search says none did.
  for (const auto& [id, a] : s["accuracy"].items()) EXPECT_TRUE(a["device_validated"].get<bool>()) << id;
  json gaudi = small_search();
  gaudi["system"] = "intel-gaudi3";
  const json g = json::parse(search_json(gaudi.dump()))["search"];
  ASSERT_FALSE(g["accuracy"].empty());
  for (const auto& [id, a] : g["accuracy"].items()) EXPECT_FALSE(a["device_validated"].get<bool>()) << id;
  // A model with layers none of the runs had: each kind says which.
  for (const auto& [id, a] : s["accuracy"].items()) EXPECT_EQ(a["architecture_unvalidated"], json::array()) << id;
  json hybrid = small_search();
  hybrid["model"] = "bamba-9b";
  const json hs = json::parse(search_json(hybrid.dump()))["search"];
  ASSERT_FALSE(hs["accuracy"].empty());
  for (const auto& [id, a] : hs["accuracy"].items()) EXPECT_EQ(a["architecture_unvalidated"], json{"Mamba-2 layers"}) << id;
}

TEST(Search, Errors) {
  json in = small_search();
  in.erase("search");
  EXPECT_TRUE(json::parse(search_json(in.dump())).contains("error"));
  EXPECT_TRUE(json::parse(search_json("{")).contains("error"));
  json bad = small_search();
  bad["search"]["gpus"] = -3;
  EXPECT_EQ(json::parse(search_json(bad.dump()))["error"]["path"], "search.gpus");
}

}  // namespace
}  // namespace llmcalc::test
