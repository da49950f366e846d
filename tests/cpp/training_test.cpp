// Training iteration: accounting identities, the pipeline bubble of
// Narayanan et al. 2021 (arXiv 2104.04473 §2.2), FLOP counts of its eq. 3,
// and monotonicity in the hardware.
#include "test_util.h"

namespace llmcalc::test {
namespace {

json gpt3_1024() {  // tests/spec/training-gpt3-175b-a100.json
  return {{"mode", "training"}, {"model", "gpt3-175b"}, {"system", "dgx-a100-80gb"},
          {"parallelism", {{"tp", 8}, {"pp", 16}, {"dp", 8}, {"sp", true}, {"pp_schedule", "interleaved"},
                           {"virtual_stages", 2}, {"zero", 1}}},
          {"training", {{"global_batch", 1536}, {"micro_batch", 1}, {"precision", "bf16"}, {"recompute", "selective"},
                        {"tokens", 300e9}}}};
}

// A spread of plans: interleaved pipeline, ZeRO, MoE with ep, cp, GPipe,
// every overlap off, full recompute, fp8.
std::vector<json> scenarios() {
  std::vector<json> v{gpt3_1024()};
  v.push_back({{"mode", "training"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"},
               {"parallelism", {{"tp", 2}, {"dp", 32}, {"sp", true}, {"zero", 1}}},
               {"training", {{"global_batch", 512}, {"micro_batch", 2}, {"recompute", "none"}}}});
  v.push_back({{"mode", "training"}, {"model", "mixtral-8x7b"}, {"system", "dgx-h100"},
               {"parallelism", {{"tp", 2}, {"pp", 2}, {"dp", 4}, {"ep", 4}, {"zero", 2}}},
               {"training", {{"global_batch", 64}, {"seq_len", 4096}}}});
  v.push_back({{"mode", "training"}, {"model", "llama3.1-8b"}, {"system", "dgx-h200"},
               {"parallelism", {{"tp", 2}, {"cp", 2}, {"pp", 2}, {"dp", 2}, {"pp_schedule", "gpipe"}}},
               {"training", {{"global_batch", 16}, {"seq_len", 16384}, {"precision", "fp8"}}}});
  v.push_back({{"mode", "training"}, {"model", "megatron-22b"}, {"system", "dgx-a100-40gb"},
               {"parallelism", {{"tp", 8}, {"pp", 2}, {"dp", 4}, {"zero", 3}}},
               {"training", {{"global_batch", 64}, {"recompute", "full"}, {"flash_attention", false},
                             {"overlap", {{"dp", false}, {"tp", false}, {"pp", false}}}}}});
  return v;
}

TEST(Training, BreakdownSumsToIterationTime) {
  for (const json& s : scenarios()) {
    const json out = eval_ok(s);
    const json& t = out["training"];
    double sum = 0;
    for (const char* k : {"compute", "recompute", "tp_comm", "cp_comm", "ep_comm", "pp_comm", "pp_bubble", "dp_comm",
                          "optimizer"}) {
      ASSERT_TRUE(t["time_breakdown_s"].contains(k)) << k;
      EXPECT_GE(t["time_breakdown_s"][k].get<double>(), 0.0) << k;
      sum += t["time_breakdown_s"][k].get<double>();
    }
    EXPECT_NEAR(sum, t["iteration_time_s"].get<double>(), 1e-9 * sum) << s.dump();
  }
}

// Bubble = (p-1)/v micro-batch slots of t_fwd + t_bwd, i.e. a fraction
// (p-1)/(v m) of the ideal m (t_fwd + t_bwd) (Narayanan et al. 2021 §2.2.1-2).
void expect_bubble(json s, const std::string& schedule, int v) {
  s["parallelism"]["pp_schedule"] = schedule;
  s["parallelism"]["virtual_stages"] = v;
  const json t = eval_ok(s)["training"];
  const json& pipe = t["pipeline"];
  const double p = pipe["stages"].get<double>(), m = pipe["microbatches"].get<double>();
  ASSERT_EQ(p, s["parallelism"]["pp"].get<double>());
  ASSERT_EQ(m, s["training"]["global_batch"].get<double>() /
                   (s["training"]["micro_batch"].get<double>() * s["parallelism"]["dp"].get<double>()));
  const double per_mb = pipe["t_fwd_s"].get<double>() + pipe["t_bwd_s"].get<double>();
  const double bubble = t["time_breakdown_s"]["pp_bubble"].get<double>();
  EXPECT_NEAR(bubble / (m * per_mb), (p - 1) / (v * m), 1e-9) << schedule << " v=" << v;
}

TEST(Training, PipelineBubble) {
  expect_bubble(gpt3_1024(), "1f1b", 1);         // p=16, m=192: 15/192
  expect_bubble(gpt3_1024(), "interleaved", 2);  // 15/384
  expect_bubble(gpt3_1024(), "interleaved", 3);  // 96 layers = 16 x 3 x 2
  expect_bubble(gpt3_1024(), "gpipe", 1);
  json one = gpt3_1024();
  one["parallelism"] = {{"tp", 8}, {"pp", 1}, {"dp", 8}};
  EXPECT_EQ(eval_ok(one)["training"]["time_breakdown_s"]["pp_bubble"].get<double>(), 0.0);
}

double bubble_slots(const json& t) {  // the bubble in micro-batch slots
  return t["time_breakdown_s"]["pp_bubble"].get<double>() /
         (t["pipeline"]["t_fwd_s"].get<double>() + t["pipeline"]["t_bwd_s"].get<double>());
}

// Fewer micro-batches than stages: Megatron's interleaved order takes them
// through each chunk in one group, whose next chunk waits for its first
// micro-batch to cross all p stages, so the iteration is (p + (m-1)/v)
// slots, not (m + (p-1)/v): m = 4 on 16 stages of 2 chunks idles 13.5
// slots, not 7.5 (the page's schedule simulator agrees, tests/node/pipeline).
// 1F1B's (p-1) slots hold for any m. Megatron refuses such a run: a warning.
TEST(Training, InterleavedBubbleWithFewerMicroBatchesThanStages) {
  json s = gpt3_1024();
  s["training"]["global_batch"] = 32;  // dp 8 x micro-batch 1: m = 4 of p = 16
  const json out = eval_ok(s);
  EXPECT_NEAR(bubble_slots(out["training"]), 16 - 4 + 3.0 / 2, 1e-9);
  bool warned = false;
  for (const json& w : out["warnings"]) warned = warned || w.get<std::string>().find("interleaved schedule refuses") != std::string::npos;
  EXPECT_TRUE(warned) << out["warnings"].dump();
  s["parallelism"]["pp_schedule"] = "1f1b";
  s["parallelism"]["virtual_stages"] = 1;
  EXPECT_NEAR(bubble_slots(eval_ok(s)["training"]), 15, 1e-9);
  // m = p is the textbook (p-1)/v, and the two formulas meet there
  s = gpt3_1024();
  s["training"]["global_batch"] = 128;
  EXPECT_NEAR(bubble_slots(eval_ok(s)["training"]), 15.0 / 2, 1e-9);
}

// Layers that pp does not divide: the end stages take the shorter layer
// counts (Megatron-Bridge's account_for_embedding/loss_in_pipeline_split),
// so the LM head takes the place of a layer on the last stage. Llama 3.1 70B
// on pp 4: 78 layers put 20 on the middle stages and 19 + the head on the
// last, which runs as fast as 20 layers with a negligible head (vocab 256);
// 80 layers put the head on top of 20 layers; 79 (one short stage) give it
// to the head, and the embedding rides on a full stage.
TEST(Training, UnevenLayersGiveTheEndStagesTheShortCounts) {
  auto per_microbatch = [](int layers, int vocab) {
    json model = json::parse(presets_json())["models"]["llama3.1-70b"]["model"];
    model["layers"] = layers;
    model["vocab"] = vocab;
    const json in = {{"mode", "training"}, {"model", model}, {"system", "dgx-h100"},
                     {"parallelism", {{"tp", 8}, {"pp", 4}, {"dp", 1}, {"sp", true}}},
                     {"training", {{"global_batch", 32}, {"micro_batch", 1}, {"seq_len", 4096}, {"recompute_to_fit", false}}}};
    const json p = eval_ok(in)["training"]["pipeline"];
    return p["t_fwd_s"].get<double>() + p["t_bwd_s"].get<double>();
  };
  const double t78 = per_microbatch(78, 128256), t79 = per_microbatch(79, 128256), t80 = per_microbatch(80, 128256);
  const double headless = per_microbatch(80, 256);
  EXPECT_NEAR(t78, headless, 0.002 * headless);  // 20 layers; the head hides in the short stage
  EXPECT_GT(t80, t78 * 1.01);                    // 20 layers and the head
  EXPECT_LE(t78, t79);
  EXPECT_LT(t79, t80);
}

TEST(Training, ZeroBubbleH1MovesWeightGradientsIntoTheBubble) {
  json plan = gpt3_1024();
  plan["parallelism"]["pp_schedule"] = "1f1b";
  plan["parallelism"]["virtual_stages"] = 1;
  const json one = eval_ok(plan);
  plan["parallelism"]["pp_schedule"] = "zb_h1";
  const json zb = eval_ok(plan);
  const json& pipe = zb["training"]["pipeline"];
  const double per_mb = pipe["t_fwd_s"].get<double>() + pipe["t_bwd_s"].get<double>();
  const double w = pipe["t_wgrad_s"].get<double>();
  // Qi et al. 2024, Table 1: (p - 1)(T_F + T_B - T_W) against 1F1B's (p - 1)(T_F + T_B + T_W).
  EXPECT_GT(w, 0.2 * pipe["t_bwd_s"].get<double>());  // the weight-gradient GEMMs: about half the backward
  EXPECT_NEAR(zb["training"]["time_breakdown_s"]["pp_bubble"].get<double>(), 15 * (per_mb - 2 * w), 1e-9 * per_mb);
  EXPECT_NEAR(one["training"]["time_breakdown_s"]["pp_bubble"].get<double>(), 15 * per_mb, 1e-9 * per_mb);
  // Nothing else changes, activation memory included (in flight as 1F1B).
  EXPECT_DOUBLE_EQ(zb["training"]["memory_bytes"]["total"].get<double>(), one["training"]["memory_bytes"]["total"].get<double>());
  EXPECT_DOUBLE_EQ(zb["training"]["time_breakdown_s"]["compute"].get<double>(),
                   one["training"]["time_breakdown_s"]["compute"].get<double>());
  EXPECT_EQ(pipe["schedule"], "zb_h1");
  // One micro-batch on 16 stages leaves no W to fill the wait for its
  // backward: stage 0 idles 15 (F + B - W), 1F1B's bubble less only the 15 W
  // that leave the chain, not 30 (tests/node/pipeline lays it out).
  plan["training"]["global_batch"] = 8;  // dp 8 x micro-batch 1
  const json few = eval_ok(plan)["training"];
  const double f1 = few["pipeline"]["t_fwd_s"].get<double>(), b1 = few["pipeline"]["t_bwd_s"].get<double>(),
               w1 = few["pipeline"]["t_wgrad_s"].get<double>();
  EXPECT_NEAR(few["time_breakdown_s"]["pp_bubble"].get<double>(), 15 * (f1 + b1 - w1), 1e-9 * (f1 + b1));
}

// The preset system as a full object, to scale its figures.
json system_object(const std::string& id) {
  return json::parse(presets_json())["systems"][id]["system"];
}

TEST(Training, FasterHardwareIsNeverSlower) {
  for (json s : scenarios()) {
    const std::string id = s["system"];
    const double base = eval_ok(s)["training"]["iteration_time_s"].get<double>();
    json net = system_object(id), hbm = net, mm = net;
    for (auto& tier : net["network"]) tier["bandwidth_GBps"] = tier["bandwidth_GBps"].get<double>() * 2;
    auto& dram = hbm["device"]["memory"].back();
    dram["bandwidth_GBps"] = dram["bandwidth_GBps"].get<double>() * 2;
    for (auto& peak : mm["device"]["matmul_tflops"]) peak = peak.get<double>() * 2;
    for (const auto& [what, sys] : {std::pair{"network", net}, {"hbm", hbm}, {"matmul", mm}}) {
      s["system"] = sys;
      const double t = eval_ok(s)["training"]["iteration_time_s"].get<double>();
      EXPECT_LE(t, base) << what << " x2 on " << id;
    }
  }
}

TEST(Training, NormAndActivationKernelsRunAtTheirStreamRate) {
  // Llama 3.1 8B on one H200 node: the norms and SwiGLU slow by the preset's
  // stream fractions; a copy (the residual add) keeps the copy rate.
  json s = {{"mode", "training"}, {"model", "llama3.1-8b"}, {"system", "dgx-h200"},
            {"parallelism", {{"tp", 1}, {"dp", 8}, {"zero", 1}}},
            {"training", {{"global_batch", 64}, {"micro_batch", 1}, {"seq_len", 8192}}}};
  json copy_rate = system_object("dgx-h200");
  copy_rate["device"]["efficiency"]["elementwise"] = {{"norm", 1.0}, {"activation", 1.0}};
  json fast = s;
  fast["system"] = copy_rate;
  const json a = eval_ok(s), b = eval_ok(fast);
  const double launch = 3e-6;
  auto ratio = [&](const char* name, const char* phase) {
    return (find_op(a, name, phase)["time_s"].get<double>() - launch) / (find_op(b, name, phase)["time_s"].get<double>() - launch);
  };
  EXPECT_NEAR(ratio("attn.norm", "fwd"), 1 / 0.63, 1e-9);
  EXPECT_NEAR(ratio("mlp.norm.bwd", "bwd"), 1 / 0.63, 1e-9);
  EXPECT_NEAR(ratio("mlp.act", "fwd"), 1 / 0.85, 1e-9);
  EXPECT_NEAR(ratio("attn.residual", "fwd"), 1.0, 1e-12);
  EXPECT_GT(a["training"]["iteration_time_s"].get<double>(), b["training"]["iteration_time_s"].get<double>());
  // Serving engines run fused norm kernels: inference keeps the copy rate.
  json serve = {{"mode", "inference"}, {"model", "llama3.1-8b"}, {"system", "dgx-h200"},
                {"inference", {{"batch", 8}, {"input_tokens", 2048}, {"output_tokens", 128}}}};
  json serve_copy = serve;
  serve_copy["system"] = copy_rate;
  EXPECT_DOUBLE_EQ(find_op(eval_ok(serve), "mlp.norm", "prefill")["time_s"].get<double>(),
                   find_op(eval_ok(serve_copy), "mlp.norm", "prefill")["time_s"].get<double>());
  // Out of range or unknown keys are refused at their path.
  copy_rate["device"]["efficiency"]["elementwise"] = {{"norm", 0.0}};
  fast["system"] = copy_rate;
  EXPECT_EQ(eval(fast)["error"]["path"], "system.device.efficiency.elementwise.norm");
  copy_rate["device"]["efficiency"]["elementwise"] = {{"softmax", 0.5}};
  fast["system"] = copy_rate;
  EXPECT_EQ(eval(fast)["error"]["path"], "system.device.efficiency.elementwise.softmax");
}

TEST(Training, RecomputeCostsTime) {
  for (bool flash : {false, true}) {
    json s = {{"mode", "training"}, {"model", "gpt3-175b"}, {"system", "dgx-a100-80gb"},
              {"parallelism", {{"tp", 8}, {"pp", 8}, {"sp", true}}},
              {"training", {{"global_batch", 64}, {"flash_attention", flash}}}};
    auto time = [&](const char* rc) {
      s["training"]["recompute"] = rc;
      return eval_ok(s)["training"]["iteration_time_s"].get<double>();  // computed even when it does not fit
    };
    const double none = time("none"), sel = time("selective"), full = time("full");
    EXPECT_GT(full, sel) << "flash " << flash;
    EXPECT_GE(sel, none) << "flash " << flash;
    if (!flash) EXPECT_GT(sel, none);  // unfused attention: the score block is recomputed
  }
}

TEST(Training, UtilisationAndThroughput) {
  for (const json& s : scenarios()) {
    const json t = eval_ok(s)["training"];
    const double mfu = t["mfu"], hfu = t["hfu"];
    EXPECT_GT(mfu, 0.0);
    EXPECT_LE(mfu, hfu);
    EXPECT_LE(hfu, 1.0);
    const double seq = s["training"].contains("seq_len") ? s["training"]["seq_len"].get<double>()
                       : s["model"] == "gpt3-175b" || s["model"] == "megatron-22b" ? 2048.0 : 8192.0;
    const double tokens = s["training"]["global_batch"].get<double>() * seq;
    EXPECT_NEAR(t["tokens_per_s"].get<double>(), tokens / t["iteration_time_s"].get<double>(),
                1e-9 * t["tokens_per_s"].get<double>());
  }
}

// Narayanan et al. 2021 eq. 3 for GPT (MHA, MLP 4h): model FLOPs per
// iteration 72 B s l h^2 (1 + s/(6h) + V/(12 l h)); full recomputation adds
// one more forward of the layers: hardware/model = (4 Fl + 3 Fh)/(3 Fl + 3 Fh)
// with Fl = l (24 B s h^2 + 4 B s^2 h) and Fh = 2 B s h V.
TEST(Training, FlopsFollowNarayananEq3) {
  json s = gpt3_1024();
  s["training"]["recompute"] = "full";
  const json out = eval_ok(s);
  const json& t = out["training"];
  const double B = 1536, sq = 2048, l = 96, h = 12288, V = 51200;
  const double model = 72 * B * sq * l * h * h * (1 + sq / (6 * h) + V / (12 * l * h));
  // Biases (9h per layer against 12h^2 weights) make the code count ~1e-4 more.
  EXPECT_NEAR(t["flops"]["model_per_iteration"].get<double>() / model, 1.0, 1e-3);
  const double Fl = l * (24 * B * sq * h * h + 4 * B * sq * sq * h), Fh = 2 * B * sq * h * V;
  EXPECT_NEAR(t["hfu"].get<double>() / t["mfu"].get<double>(), (4 * Fl + 3 * Fh) / (3 * Fl + 3 * Fh), 1e-3);
  // mfu = model FLOPs / (time x GPUs x peak); 312 TFLOP/s bf16 on A100.
  EXPECT_NEAR(t["mfu"].get<double>(),
              t["flops"]["model_per_iteration"].get<double>() / (t["iteration_time_s"].get<double>() * 1024 * 312e12),
              1e-9);
}

TEST(Training, TimeToTrainOnlyWithTokens) {
  json s = gpt3_1024();
  const json with = eval_ok(s)["training"];
  ASSERT_TRUE(with.contains("time_to_train_s"));
  EXPECT_NEAR(with["time_to_train_s"].get<double>(), 300e9 / with["tokens_per_s"].get<double>(),
              1e-9 * with["time_to_train_s"].get<double>());
  s["training"].erase("tokens");
  EXPECT_FALSE(eval_ok(s)["training"].contains("time_to_train_s"));
}

}  // namespace
}  // namespace llmcalc::test

namespace llmcalc::test {
namespace {

// Context parallelism splits the causal attention FLOPs evenly over the ring
// (load-balanced chunks), but each ring step is its own kernel over a 1/cp
// KV chunk, so the kernels run shorter key ranges at lower efficiency.
TEST(Training, ContextParallelAttentionRunsPerChunk) {
  json s = {{"mode", "training"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"},
            {"parallelism", {{"dp", 8}}}, {"training", {{"global_batch", 64}, {"seq_len", 8192}}}};
  const json one = eval_ok(s);
  s["parallelism"] = {{"dp", 4}, {"cp", 2}};
  const json two = eval_ok(s);
  for (const char* phase : {"fwd", "bwd"}) {
    const std::string name = std::string("attn.flash") + (std::string(phase) == "bwd" ? ".bwd" : "");
    const json a = find_op(one, name, phase), b = find_op(two, name, phase);
    ASSERT_FALSE(a.is_null());
    ASSERT_FALSE(b.is_null());
    // (1e-3: the causal diagonal term 1/q_len differs with the chunk length)
    EXPECT_NEAR(b["flops"].get<double>() * 2, a["flops"].get<double>(), 1e-3 * a["flops"].get<double>());
    EXPECT_GT(b["time_s"].get<double>() * 2, a["time_s"].get<double>() * 1.01) << phase;
  }
}

// The ring's merges (Transformer Engine's P2P context parallelism): each of
// the cp steps' outputs is rescaled and added into the 16-bit output (6 bytes
// per output element a step), and backward adds each step's dQ and dK/dV into
// their accumulators (6 bytes per element a step); none without a ring.
TEST(Training, ContextParallelRingMergesEachStepsOutput) {
  json s = {{"mode", "training"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"},
            {"parallelism", {{"dp", 8}}}, {"training", {{"global_batch", 64}, {"seq_len", 8192}}}};
  EXPECT_TRUE(find_op(eval_ok(s), "attn.cp_correction", "fwd").is_null());
  for (int cp : {2, 4}) {
    s["parallelism"] = {{"dp", 8 / cp}, {"cp", cp}};
    const json out = eval_ok(s);
    const json f = find_op(out, "attn.cp_correction", "fwd"), b = find_op(out, "attn.cp_correction.bwd", "bwd");
    ASSERT_FALSE(f.is_null()) << cp;
    ASSERT_FALSE(b.is_null()) << cp;
    const double q = 8192.0 / cp * 32 * 128, kv = 2 * 8192.0 / cp * 8 * 128;  // this rank's output and K/V elements
    EXPECT_DOUBLE_EQ(f["bytes"]["hbm"].get<double>(), cp * 6 * q);
    EXPECT_DOUBLE_EQ(b["bytes"]["hbm"].get<double>(), cp * 6 * (q + kv));
    EXPECT_GT(f["time_s"].get<double>(), 0);
  }
  // Multi-head latent attention runs the same ring (its K/V decompressed per head).
  s["model"] = "deepseek-v2-lite";
  s["parallelism"] = {{"dp", 4}, {"cp", 2}};
  EXPECT_FALSE(find_op(eval_ok(s), "attn.cp_correction", "fwd").is_null());
}

// Two small layers on one H100, one short sequence: kernels of a few
// microseconds, shorter than an eager framework's launches.
json tiny_training() {
  return {{"mode", "training"}, {"model", {{"preset", "llama3.1-8b"}, {"layers", 2}, {"hidden", 512}, {"heads", 8},
                                            {"kv_heads", 8}, {"ffn_hidden", 1536}, {"vocab", 1024}}},
          {"system", "dgx-h100"}, {"parallelism", {{"dp", 1}}},
          {"training", {{"global_batch", 1}, {"micro_batch", 1}, {"seq_len", 128}, {"recompute", "none"}}}};
}

// A small model with short kernels: with an eager framework's host cost per
// kernel above the kernels' own time the step is CPU-bound and takes
// kernels x host time; large kernels hide the host entirely.
TEST(Training, HostOverheadMakesShortStepsCpuBound) {
  json j = tiny_training();
  j["training"]["host_overhead_us"] = 0;
  const json gpu = eval_ok(j)["training"];
  j["training"]["host_overhead_us"] = 200;
  const json host = eval_ok(j)["training"];
  const double per_mb = host["pipeline"]["t_fwd_s"].get<double>() + host["pipeline"]["t_bwd_s"].get<double>();
  EXPECT_GT(per_mb, 2 * (gpu["pipeline"]["t_fwd_s"].get<double>() + gpu["pipeline"]["t_bwd_s"].get<double>()));
  // Every kernel of the two layers (forward and backward) costs 200 us.
  const double kernels = per_mb / 200e-6;
  EXPECT_GT(kernels, 2 * 20.0);
  EXPECT_LT(kernels, 2 * 80.0);
  EXPECT_NEAR(kernels, std::round(kernels), 1e-6);
  // The pipeline chart splits the host-paced slot as the host's launches do:
  // a forward of whole kernels, shorter than the backward (which has more).
  const double fwd = host["pipeline"]["t_fwd_s"].get<double>();
  EXPECT_GT(fwd, 0);
  EXPECT_LT(fwd, host["pipeline"]["t_bwd_s"].get<double>());
  EXPECT_NEAR(fwd / 200e-6, std::round(fwd / 200e-6), 1e-6);
  // The wait is its own part of the breakdown, and it is what limits the step.
  EXPECT_GT(host["time_breakdown_s"]["host"].get<double>(), host["time_breakdown_s"]["compute"].get<double>());
  EXPECT_EQ(gpu["time_breakdown_s"]["host"].get<double>(), 0.0);
  EXPECT_EQ(host["bound"], "host");
  // A large model's kernels are longer than 20 us: no change.
  json big = gpt3_1024();
  big["training"]["host_overhead_us"] = 0;
  const double t0 = eval_ok(big)["training"]["iteration_time_s"].get<double>();
  big["training"]["host_overhead_us"] = 20;
  EXPECT_DOUBLE_EQ(eval_ok(big)["training"]["iteration_time_s"].get<double>(), t0);
}

// A step whose host waits less than the GPU computes is still bound by the
// host: the GPU's work runs under the host's launch chain, so a faster GPU
// would not shorten it. The largest part (compute) is not what bounds it.
TEST(Training, HostPacedStepIsBoundByTheHostEvenWhenItsWaitIsSmall) {
  json j = tiny_training();
  j["training"]["host_overhead_us"] = 0;
  EXPECT_EQ(eval_ok(j)["training"]["bound"], "compute");
  bool seen = false;
  for (double us = 0.5; us < 200 && !seen; us *= 1.25) {
    j["training"]["host_overhead_us"] = us;
    const json t = eval_ok(j)["training"];
    const double host = t["time_breakdown_s"]["host"].get<double>();
    if (host <= 0) {
      EXPECT_NE(t["bound"], "host") << us;
      continue;
    }
    EXPECT_EQ(t["bound"], "host") << us;
    seen = host < t["time_breakdown_s"]["compute"].get<double>();
  }
  EXPECT_TRUE(seen) << "no overhead gave a host wait shorter than the compute";
}

// Without a scenario value the host cost per kernel is the system's: eager
// PyTorch on GPU presets (20 us), none on TPUs (XLA runs the whole step).
TEST(Training, HostOverheadDefaultsToTheSystems) {
  json j = tiny_training();
  auto time = [&](const char* system, json host) {
    json s = j;
    s["system"] = system;
    if (!host.is_null()) s["training"]["host_overhead_us"] = host;
    return eval_ok(s)["training"]["iteration_time_s"].get<double>();
  };
  EXPECT_DOUBLE_EQ(time("dgx-h100", nullptr), time("dgx-h100", 20));
  EXPECT_GT(time("dgx-h100", nullptr), 1.5 * time("dgx-h100", 0));  // these kernels are shorter than 20 us
  EXPECT_DOUBLE_EQ(time("tpu-v5p", nullptr), time("tpu-v5p", 0));
  EXPECT_LT(time("tpu-v5p", nullptr), time("tpu-v5p", 20));
}

// FP8 with sequence parallelism: the column-parallel GEMM inputs are cast on
// the local shard and all-gathered in FP8 (Transformer Engine 2.x), so the
// forward gather moves half the bytes and the cast covers 1/tp of the
// tokens; the gradient's reduce-scatter stays 16-bit.
TEST(Training, Fp8SequenceParallelGathersQuantisedInputs) {
  json s = {{"mode", "training"}, {"model", "llama3.1-70b"}, {"system", "dgx-h100"},
            {"parallelism", {{"tp", 8}, {"dp", 1}, {"sp", true}}},
            {"training", {{"global_batch", 8}, {"seq_len", 8192}, {"precision", "fp8"}, {"recompute", "full"}}}};
  const json sp = eval_ok(s);
  s["parallelism"]["sp"] = false;
  const json no_sp = eval_ok(s);
  s["parallelism"]["sp"] = true;
  s["training"]["precision"] = "bf16";
  const json bf16 = eval_ok(s);
  auto t = [](const json& out, const char* name, const char* phase) {
    const json op = find_op(out, name, phase);
    EXPECT_FALSE(op.is_null()) << name << " " << phase;
    return op.is_null() ? 0.0 : op["time_s"].get<double>();
  };
  EXPECT_LT(t(sp, "attn.tp_all_gather", "fwd"), 0.75 * t(bf16, "attn.tp_all_gather", "fwd"));
  EXPECT_LT(t(sp, "mlp.tp_all_gather", "recompute"), 0.75 * t(bf16, "mlp.tp_all_gather", "recompute"));
  EXPECT_DOUBLE_EQ(t(sp, "attn.tp_all_gather.bwd", "bwd"), t(bf16, "attn.tp_all_gather.bwd", "bwd"));
  const auto hbm = [](const json& out, const char* name) { return find_op(out, name, "fwd")["bytes"]["hbm"].get<double>(); };
  EXPECT_NEAR(hbm(sp, "mlp.up.cast") * 8, hbm(no_sp, "mlp.up.cast"), 1e-9 * hbm(no_sp, "mlp.up.cast"));
  EXPECT_DOUBLE_EQ(t(sp, "mlp.up.cast.bwd", "bwd"), t(no_sp, "mlp.up.cast.bwd", "bwd"));
  // The row-parallel GEMMs' inputs are not gathered: their casts are unchanged.
  EXPECT_DOUBLE_EQ(t(sp, "mlp.down.cast", "fwd"), t(no_sp, "mlp.down.cast", "fwd"));
}

}  // namespace
}  // namespace llmcalc::test

namespace llmcalc::test {
namespace {

// The model's 16-bit work (attention, MoE router, the unfused score GEMMs)
// runs in bf16; a device without a bf16 peak (Volta) runs it in fp16. An A100
// stripped of its bf16 peaks gives the fp16 A100's figures, in training and
// serving, where before the attention came out at an infinite time.
TEST(Training, ADeviceWithoutBf16RunsSixteenBitWorkInFp16) {
  const json no_bf16 = {{"preset", "dgx-a100-80gb"},
                        {"device", {{"matmul_tflops", {{"bf16", 0}}}, {"vector_tflops", {{"bf16", 0}}}}}};
  json t = {{"mode", "training"}, {"model", "mixtral-8x7b"}, {"system", "dgx-a100-80gb"},
            {"parallelism", {{"tp", 2}, {"dp", 4}, {"ep", 4}}},
            {"training", {{"global_batch", 32}, {"micro_batch", 1}, {"seq_len", 4096}, {"precision", "fp16"}}}};
  const double a100 = eval_ok(t)["training"]["iteration_time_s"].get<double>();
  t["system"] = no_bf16;
  EXPECT_DOUBLE_EQ(eval_ok(t)["training"]["iteration_time_s"].get<double>(), a100);
  t["training"]["flash_attention"] = false;
  EXPECT_TRUE(std::isfinite(eval_ok(t)["training"]["iteration_time_s"].get<double>()));
  t["training"]["precision"] = "bf16";
  EXPECT_EQ(eval(t)["error"]["path"], "training.precision");  // bf16 itself is refused there
  json i = {{"mode", "inference"}, {"model", "llama3.1-8b"}, {"system", "dgx-a100-80gb"},
            {"inference", {{"batch", 8}, {"input_tokens", 1024}, {"output_tokens", 64}, {"weight_precision", "fp16"},
                           {"kv_precision", "fp16"}, {"compute_precision", "fp16"}}}};
  const json served = eval_ok(i)["inference"];
  i["system"] = no_bf16;
  const json stripped = eval_ok(i)["inference"];
  EXPECT_DOUBLE_EQ(stripped["ttft_s"].get<double>(), served["ttft_s"].get<double>());
  EXPECT_DOUBLE_EQ(stripped["tpot_s"].get<double>(), served["tpot_s"].get<double>());
}

// Where fused attention is a large share of the step, the output gives the
// iteration time under each kernel the device runs, each equal to the
// scenario evaluated with that kernel named; short sequences have none.
TEST(Training, AttentionKernelSensitivityOnLongSequences) {
  json s = {{"mode", "training"}, {"model", "llama3.1-8b"}, {"system", "dgx-a100-80gb"},
            {"parallelism", {{"tp", 2}, {"dp", 4}, {"sp", true}}},
            {"training", {{"global_batch", 32}, {"seq_len", 32768}, {"recompute", "full"}}}};
  const json out = eval_ok(s);
  const json& k = out["training"]["attention_kernel_sensitivity"];
  ASSERT_TRUE(k.is_object()) << out["training"].dump().substr(0, 300);
  EXPECT_GT(k["attention_share"].get<double>(), 0.3);
  const json& times = k["iteration_time_s"];
  EXPECT_FALSE(times.contains("fa3"));  // Hopper and later only
  for (const char* name : {"fa1", "fa2"}) {
    json named = s;
    named["training"]["attention_kernel"] = name;
    EXPECT_DOUBLE_EQ(times[name].get<double>(), eval_ok(named)["training"]["iteration_time_s"].get<double>()) << name;
  }
  EXPECT_GT(times["fa1"].get<double>(), 1.2 * times["fa2"].get<double>());
  s["training"]["seq_len"] = 1024;
  EXPECT_FALSE(eval_ok(s)["training"].contains("attention_kernel_sensitivity"));
  s["training"]["seq_len"] = 32768;
  s["training"]["flash_attention"] = false;
  EXPECT_FALSE(eval_ok(s)["training"].contains("attention_kernel_sensitivity"));
  // fp32 and tf32 runs take no FlashAttention kernel: there is no choice to show
  s["training"]["flash_attention"] = true;
  for (const char* wide : {"fp32", "tf32"}) {
    s["training"]["precision"] = wide;
    EXPECT_FALSE(eval_ok(s)["training"].contains("attention_kernel_sensitivity")) << wide;
  }
}

}  // namespace
}  // namespace llmcalc::test
