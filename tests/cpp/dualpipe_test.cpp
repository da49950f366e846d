// DualPipe (DeepSeek-V3, arXiv 2412.19437, §3.2.1 and Table 2): micro-batches
// from both ends of the pipeline, rank i holding stage i and stage pp-1-i.
// Bubble (PP/2 - 1)(F&B + B - 3W), parameters 2x, activations PP + 1; the
// all-to-all of a forward-backward pair hides behind the pair's compute,
// which runs on the SMs the all-to-all leaves.
#include "memory.h"
#include "parse.h"
#include "test_util.h"

namespace llmcalc::test {
namespace {

json dense_plan(const char* schedule) {
  return {{"mode", "training"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"},
          {"parallelism", {{"tp", 2}, {"pp", 4}, {"dp", 1}, {"zero", 0}, {"pp_schedule", schedule}}},
          {"training", {{"global_batch", 32}, {"micro_batch", 1}, {"seq_len", 4096}, {"recompute", "none"}}}};
}

TEST(DualPipe, BubbleFollowsTable2) {
  const json one = eval_ok(dense_plan("1f1b"));
  const json dual = eval_ok(dense_plan("dualpipe"));
  const json& pipe = dual["training"]["pipeline"];
  EXPECT_EQ(pipe["schedule"], "dualpipe");
  const double f = pipe["t_fwd_s"].get<double>(), b = pipe["t_bwd_s"].get<double>(), w = pipe["t_wgrad_s"].get<double>();
  EXPECT_GT(w, 0.2 * b);
  // F&B = one micro-batch slot (f + b); B the full backward chunk: (4/2 - 1)(f + b + b - 3w).
  EXPECT_NEAR(dual["training"]["time_breakdown_s"]["pp_bubble"].get<double>(), 1 * (f + 2 * b - 3 * w), 1e-9 * (f + b));
  EXPECT_LT(dual["training"]["time_breakdown_s"]["pp_bubble"].get<double>(),
            one["training"]["time_breakdown_s"]["pp_bubble"].get<double>());
}

TEST(DualPipe, EndRanksHoldBothEndStagesAndPpPlusOneMicroBatches) {
  const json one = eval_ok(dense_plan("1f1b"));
  const json dual = eval_ok(dense_plan("dualpipe"));
  // Rank 0 holds stage 0 (embedding, layers 0-7) and stage 3 (layers 24-31, final norm, LM head), in 16 bits.
  const Model m = parse_model("llama3.1-8b", "model");
  Parallelism p;
  p.tp = 2;
  p.pp = 4;
  const StageParams first = params_of_stage(m, p, 0, 8, true, false), last = params_of_stage(m, p, 24, 8, false, true);
  EXPECT_DOUBLE_EQ(dual["training"]["memory_bytes"]["weights"].get<double>(), 2 * (first.dense + last.dense));
  EXPECT_GT(dual["training"]["memory_bytes"]["weights"].get<double>(),
            1.9 * one["training"]["memory_bytes"]["weights"].get<double>());
  // Activations: pp + 1 = 5 micro-batches of a stage's 8 layers on every rank (1F1B's rank 0: 4).
  p.schedule = PipeSchedule::dualpipe;
  EXPECT_DOUBLE_EQ(inflight_layer_microbatches(m, p, 32), 8 * 5);
  EXPECT_DOUBLE_EQ(inflight_layer_microbatches(m, p, 4), 8 * 4);  // no more than there are
  // and the weights' gradients reduce over dp as twice the parameters
  EXPECT_DOUBLE_EQ(dual["training"]["memory_bytes"]["gradients"].get<double>(), 4 * (first.dense + last.dense));
}

TEST(DualPipe, EndRanksSplitTheHeadsWorkWithTheEmbedding) {
  // Per micro-batch an end rank runs the embedding for one direction and the
  // LM head for the other: on average half the head, where 1F1B's last stage
  // runs it every time; the layers' compute is the same.
  const json one = eval_ok(dense_plan("1f1b"));
  const json dual = eval_ok(dense_plan("dualpipe"));
  const double c1 = one["training"]["time_breakdown_s"]["compute"].get<double>();
  const double c2 = dual["training"]["time_breakdown_s"]["compute"].get<double>();
  EXPECT_LT(c2, c1);
  double head = 0;
  for (const auto& op : one["ops"])
    if (op["name"] == "lm_head" || op["name"] == "lm_head.dgrad" || op["name"] == "lm_head.wgrad" ||
        op["name"] == "cross_entropy" || op["name"] == "cross_entropy.bwd")
      head += op["time_s"].get<double>() * op["count"].get<double>();
  double embedding = 0;
  for (const auto& op : one["ops"])
    if (op["name"] == "embedding" || op["name"] == "embedding.bwd") embedding += op["time_s"].get<double>() * 32;
  EXPECT_NEAR(c1 - c2, (head - embedding) / 2, 1e-6 * c1);
}

TEST(DualPipe, RefusesWhatItCannotRun) {
  auto path = [](json s) { return eval(s).value("error", json::object()).value("path", std::string()); };
  json s = dense_plan("dualpipe");
  s["parallelism"]["pp"] = 1;
  s["parallelism"]["tp"] = 8;
  EXPECT_EQ(path(s), "parallelism.pp");
  s = dense_plan("dualpipe");
  s["training"]["global_batch"] = 33;
  EXPECT_EQ(path(s), "training.global_batch");  // 33 micro-batches cannot go half each way
  s = dense_plan("dualpipe");
  s["parallelism"]["zero"] = 3;
  EXPECT_EQ(path(s), "parallelism.zero");
  s = dense_plan("dualpipe");
  s["training"]["global_batch"] = 4;  // fewer than 2 pp micro-batches: no steady state
  bool warned = false;
  const json out = eval_ok(s);
  for (const auto& w : out["warnings"]) warned = warned || w.get<std::string>().find("DualPipe") != std::string::npos;
  EXPECT_TRUE(warned) << out["warnings"].dump();
}

// An all-to-all overlapped with another micro-batch's compute holds SMs while
// it runs: NCCL's channels (the device's comm_sm_share) for Megatron's
// dispatcher, 20 SMs for DeepEP (DeepSeek-V3 §3.2.2). With the all-to-all
// shorter than the compute, that share of it shows.
TEST(DualPipe, OverlappedAllToAllCostsItsSmShare) {
  json s = {{"mode", "training"}, {"model", "mixtral-8x7b"}, {"system", "dgx-h100"},
            {"parallelism", {{"tp", 1}, {"pp", 2}, {"dp", 8}, {"ep", 8}, {"zero", 1}}},
            {"training", {{"global_batch", 128}, {"micro_batch", 1}, {"seq_len", 4096}, {"recompute", "none"},
                          {"moe_balance", "forced"}, {"recompute_to_fit", false}}}};
  const double exposed = eval_ok(s)["training"]["time_breakdown_s"]["ep_comm"].get<double>();
  ASSERT_GT(exposed, 0);
  s["training"]["overlap"] = {{"ep", true}};
  const double nccl = eval_ok(s)["training"]["time_breakdown_s"]["ep_comm"].get<double>();
  EXPECT_NEAR(nccl, exposed * 0.076, 1e-9 * exposed);  // dgx-h100 comm_sm_share
  s["training"]["moe_dispatcher"] = "deepep";
  s["training"]["overlap"] = {{"ep", false}};
  const double deepep = eval_ok(s)["training"]["time_breakdown_s"]["ep_comm"].get<double>();
  s["training"]["overlap"] = {{"ep", true}};
  EXPECT_NEAR(eval_ok(s)["training"]["time_breakdown_s"]["ep_comm"].get<double>(), deepep * 20 / 132, 1e-9 * deepep);
  // DualPipe pairs overlap the all-to-all whatever overlap.ep says.
  s["training"]["overlap"] = {{"ep", false}};
  s["parallelism"]["pp_schedule"] = "dualpipe";
  EXPECT_NEAR(eval_ok(s)["training"]["time_breakdown_s"]["ep_comm"].get<double>(), deepep * 20 / 132, 1e-9 * deepep);
}

// DualPipe bound by its all-to-all (DeepSeek-V3 on 2,048 H800 without the
// fp8 dispatch): twice the compute leaves each micro-batch slot as long (the
// all-to-all binds it) and must not lengthen the bubble. The chunks the
// bubble formula moves (a forward, the weight gradients) count for what the
// slot saves without them, which the all-to-all leaves near zero; counted
// at their compute time they grew the bubble as the compute shrank.
TEST(DualPipe, FasterComputeNeverGrowsTheBubble) {
  json s = {{"mode", "training"}, {"model", "deepseek-v3"},
            {"system", json::parse(presets_json())["systems"]["dgx-h800"]["system"]},
            {"parallelism", {{"tp", 1}, {"pp", 16}, {"dp", 128}, {"ep", 64}, {"pp_schedule", "dualpipe"}}},
            {"training", {{"global_batch", 15360}, {"seq_len", 4096}, {"precision", "fp8"}, {"recompute", "none"}}}};
  const json base = eval_ok(s)["training"];
  ASSERT_GT(base["time_breakdown_s"]["ep_comm"].get<double>(), base["time_breakdown_s"]["compute"].get<double>() * 0.5)
      << "the all-to-all binds the slot";
  for (auto& [_, v] : s["system"]["device"]["matmul_tflops"].items()) v = 2 * v.get<double>();
  for (auto& [_, v] : s["system"]["device"]["vector_tflops"].items()) v = 2 * v.get<double>();
  const json fast = eval_ok(s)["training"];
  EXPECT_LE(fast["time_breakdown_s"]["pp_bubble"].get<double>(), base["time_breakdown_s"]["pp_bubble"].get<double>() * (1 + 1e-9));
  EXPECT_LE(fast["iteration_time_s"].get<double>(), base["iteration_time_s"].get<double>() * 1.002);
}

}  // namespace
}  // namespace llmcalc::test
