// `llmcalc run --text`: the summary says what the JSON result says, in the
// output table's words, and a bad input is one error line.
#include <algorithm>
#include <fstream>
#include <sstream>

#include "presets.h"
#include "summary_text.h"
#include "test_util.h"

namespace llmcalc::test {
namespace {

json spec(const std::string& name) {
  std::ifstream in(std::string(LLMCALC_TEST_DATA) + "/spec/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return json::parse(ss.str());
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(SummaryText, UnitsReadAsAPersonWritesThem) {
  EXPECT_EQ(seconds_text(18.861), "18.9 s");
  EXPECT_EQ(seconds_text(0.70007), "700 ms");
  EXPECT_EQ(seconds_text(0.0005), "500 µs");
  EXPECT_EQ(seconds_text(2465), "41.1 min");
  EXPECT_EQ(seconds_text(7200), "2.00 h");
  EXPECT_EQ(seconds_text(1798795.5), "20.8 days");
  EXPECT_EQ(seconds_text(std::nan("")), "n/a");
  EXPECT_EQ(bytes_text(26068041216.0), "24.3 GiB");
  EXPECT_EQ(bytes_text(8294400.0), "7.91 MiB");
}

TEST(SummaryText, TrainingLinesCarryTheResultsNumbers) {
  const json scenario = spec("training-gpt3-175b-a100.json");
  const json out = eval_ok(scenario);
  const std::string text = evaluate_text(scenario.dump());
  const json& t = out.at("training");
  EXPECT_TRUE(has(text, "Training GPT-3 175B on 1,024 × A100 SXM4 80GB")) << text;
  EXPECT_TRUE(has(text, "iteration time          " + seconds_text(t.at("iteration_time_s")) + ", bound by compute")) << text;
  EXPECT_TRUE(has(text, "tp 8 · pp 16 · dp 8 · sp · ZeRO 1 · interleaved")) << text;
  // Every part of the step that takes time is named, with its share.
  for (const auto& [part, label] : std::vector<std::pair<std::string, std::string>>{
           {"compute", "compute time"}, {"tp_comm", "tensor-parallel comm."}, {"pp_bubble", "pipeline bubble"}}) {
    const double v = t.at("time_breakdown_s").at(part);
    ASSERT_GT(v, 0) << part;
    EXPECT_TRUE(has(text, label + " " + seconds_text(v) + " (")) << part << "\n" << text;
  }
  EXPECT_TRUE(has(text, bytes_text(t.at("memory_bytes").at("total")) + " of 80.0 GiB, fits")) << text;
  EXPECT_FALSE(has(text, "recompute time")) << "a zero part is left out\n" << text;
  EXPECT_TRUE(has(text, "weights + gradients + optimizer states per GPU off by")) << text;
}

// A plan without a pipeline names no pipeline schedule: "1f1b" over pp 1
// would say something that does not run.
TEST(SummaryText, APlanWithoutAPipelineNamesNoSchedule) {
  json scenario = spec("training-gpt3-175b-a100.json");
  scenario["parallelism"]["pp"] = 1;
  scenario["parallelism"]["dp"] = 128;
  scenario["parallelism"]["pp_schedule"] = "1f1b";
  scenario["parallelism"]["virtual_stages"] = 1;
  const std::string text = evaluate_text(scenario.dump());
  EXPECT_TRUE(has(text, "tp 8 · pp 1 · dp 128 · sp · ZeRO 1 · micro-batch ")) << text;
  EXPECT_FALSE(has(text, "1f1b")) << text;
}

// With one output token no decode step runs: the line says so beside the
// step the figure stands for.
TEST(SummaryText, OneOutputTokenRunsNoDecodeStep) {
  json scenario = {{"mode", "inference"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"},
                   {"inference", {{"batch", 4}, {"input_tokens", 2048}, {"output_tokens", 1}}}};
  EXPECT_TRUE(has(evaluate_text(scenario.dump()), "(no decode step runs: the one output token comes with the prefill)"));
  scenario["inference"]["output_tokens"] = 2;
  EXPECT_FALSE(has(evaluate_text(scenario.dump()), "no decode step runs"));
}

// With offload the device line judges the device memory alone and a line of
// its own the host's: Llama 3.1 70B with its weights offloaded holds 21 GiB
// of a GH200's 96 GiB, while its 1.2 TB of offloaded state overflows the
// Grace's 447 GiB.
TEST(SummaryText, OffloadSaysWhichMemoryDoesNotFit) {
  auto run = [](const char* model, const char* offload) {
    const json scenario = {{"mode", "training"}, {"model", model}, {"system", "gh200"},
                           {"parallelism", {{"tp", 1}, {"dp", 1}, {"zero", 3}}},
                           {"training", {{"global_batch", 16}, {"seq_len", 4096}, {"offload", offload}, {"recompute", "full"}}}};
    return std::make_pair(eval_ok(scenario), evaluate_text(scenario.dump()));
  };
  const auto [big, big_text] = run("llama3.1-70b", "parameters");
  const json& m = big.at("training").at("memory_bytes");
  ASSERT_LT(m.at("total").get<double>(), m.at("capacity").get<double>());
  ASSERT_GT(m.at("offloaded").get<double>(), m.at("host_capacity").get<double>());
  EXPECT_FALSE(big.at("training").at("fits").get<bool>());
  EXPECT_TRUE(has(big_text, bytes_text(m.at("total")) + " of 96.0 GiB, fits")) << big_text;
  EXPECT_TRUE(has(big_text, "host memory per GPU     " + bytes_text(m.at("offloaded")) + " offloaded of " +
                                bytes_text(m.at("host_capacity")) + ", does not fit")) << big_text;
  const auto [small, small_text] = run("llama3.1-8b", "optimizer");
  EXPECT_TRUE(small.at("training").at("fits").get<bool>());
  EXPECT_TRUE(has(small_text, " of 447 GiB, fits\n")) << small_text;
}

// Where attention is a tenth of the step, the step under each kernel
// generation (training.attention_kernel_sensitivity) is a line of its own.
TEST(SummaryText, AttentionKernelsLineGivesEachKernelsStep) {
  const json scenario = {{"mode", "training"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"},
                         {"parallelism", {{"dp", 8}}}, {"training", {{"seq_len", 8192}, {"global_batch", 64}}}};
  const json out = eval_ok(scenario);
  const std::string text = evaluate_text(scenario.dump());
  const json& k = out.at("training").at("attention_kernel_sensitivity").at("iteration_time_s");
  ASSERT_EQ(k.size(), 3u);
  EXPECT_TRUE(has(text, "fa2 " + seconds_text(k.at("fa2")) + " (+")) << text;
  EXPECT_TRUE(has(text, "fa1 " + seconds_text(k.at("fa1")) + " (+")) << text;
  EXPECT_TRUE(has(text, "fa3 " + seconds_text(k.at("fa3")) + " (this run)")) << text;
}

TEST(SummaryText, ServingNamesTheMemoryLevelThatBoundsDecode) {
  const json scenario = spec("inference-llama3.1-70b-h100.json");
  const json out = eval_ok(scenario);
  const std::string text = evaluate_text(scenario.dump());
  const json& i = out.at("inference");
  EXPECT_EQ(i.at("bound").at("decode"), "hbm");
  EXPECT_TRUE(has(text, "time per output token   " + seconds_text(i.at("tpot_s")) + ", decode bound by HBM3")) << text;
  EXPECT_TRUE(has(text, "time to first token     " + seconds_text(i.at("ttft_s")))) << text;
  EXPECT_TRUE(has(text, "largest batch that fits " + std::to_string(i.at("max_batch").get<int>()))) << text;
  EXPECT_TRUE(has(text, "per token: HBM3 bandwidth")) << text;
}

// Each data-parallel replica serves its own batch: the throughput line gives
// one replica's rate and, with several, what all of them serve.
TEST(SummaryText, ThroughputLineSaysWhatOneReplicaAndAllServe) {
  json scenario = {{"mode", "inference"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"},
                   {"parallelism", {{"tp", 2}, {"dp", 4}}},
                   {"inference", {{"batch", 16}, {"input_tokens", 512}, {"output_tokens", 128}}}};
  const json i = eval_ok(scenario).at("inference");
  const double per_replica = i.at("output_tokens_per_s").get<double>();
  const std::string text = evaluate_text(scenario.dump());
  EXPECT_TRUE(has(text, count_text(per_replica) + " per replica of 2 GPUs, " + count_text(4 * per_replica) +
                            " on all 8 GPUs · " + count_text(i.at("concurrency").get<double>()) +
                            " sequences in flight per replica")) << text;
  scenario["parallelism"] = {{"tp", 1}};
  EXPECT_TRUE(has(evaluate_text(scenario.dump()), " per replica of 1 GPU · ")) << evaluate_text(scenario.dump());
  // one sequence is one, in the line and in the in-flight warning
  scenario["inference"]["batch"] = 1;
  EXPECT_TRUE(has(evaluate_text(scenario.dump()), " · 1 sequence in flight")) << evaluate_text(scenario.dump());
  json held = {{"mode", "inference"}, {"model", "deepseek-v3"}, {"system", "dgx-h100"},
               {"inference", {{"batch", 2}, {"input_tokens", 1}, {"output_tokens", 64}, {"batching", "inflight"}}}};
  EXPECT_TRUE(has(evaluate_text(held.dump()), "the KV cache holds 1 sequence, fewer than the batch limit")) << evaluate_text(held.dump());
}

// Disaggregated serving: the plan line names the prefill instances, the
// replica's GPUs are a fractional count (its share of the prefill pool), and
// a line says how many prefill instances keep a decode instance fed.
TEST(SummaryText, DisaggregatedServingSaysItsPrefillInstances) {
  const json scenario = {{"mode", "inference"}, {"model", "llama3.1-70b"}, {"system", "dgx-h100"},
                         {"parallelism", {{"tp", 2}}},
                         {"inference", {{"batch", 128}, {"input_tokens", 2048}, {"output_tokens", 512}, {"prefill_tp", 1}}}};
  const json i = eval_ok(scenario).at("inference");
  const double instances = i.at("disaggregation").at("prefill_instances").get<double>();
  ASSERT_GT(instances, 1.0);
  const std::string text = evaluate_text(scenario.dump());
  EXPECT_TRUE(has(text, "static batching · prefill on instances of tp 1, 1 prompt at a time")) << text;
  EXPECT_TRUE(has(text, " per replica of " + number_text("%.2f", i.at("replica_gpus").get<double>()) + " GPUs · ")) << text;
  EXPECT_TRUE(has(text, "prefill instances       " + number_text("%.2f", instances) + " of 1 GPU per decode instance")) << text;
}

// Chunked prefill: the plan line names the token budget and a line gives the
// steady engine step (the page's "Step (token budget)" card).
TEST(SummaryText, ChunkedPrefillSaysItsEngineStep) {
  const json scenario = {{"mode", "inference"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"},
                         {"inference", {{"batch", 64}, {"input_tokens", 2048}, {"output_tokens", 256},
                                        {"batching", "inflight"}, {"token_budget", 2048}}}};
  const json c = eval_ok(scenario).at("inference").at("chunked_prefill");
  const std::string text = evaluate_text(scenario.dump());
  EXPECT_TRUE(has(text, "inflight batching, chunked prefill under 2,048 tokens a step")) << text;
  EXPECT_TRUE(has(text, "engine step             " + count_text(c.at("decode_rows_per_step").get<double>()) + " decode rows + ")) << text;
  EXPECT_TRUE(has(text, " steps to a prompt's first token")) << text;
  // A cached shared prefix and speculative decoding are named on the plan line too.
  const json spec_decode = {{"mode", "inference"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"},
                            {"inference", {{"batch", 8}, {"shared_prefix_tokens", 1024}, {"draft_tokens", 4}}}};
  EXPECT_TRUE(has(evaluate_text(spec_decode.dump()), " · 1,024-token shared prefix cached · speculative decoding, 4 draft tokens a step\n"))
      << evaluate_text(spec_decode.dump());
}

// A device that is no GPU is counted in its vendor's word (system.device.
// unit_name: a Cloud TPU's chips), and a compiled step has no PyTorch-eager
// what-if (the compiler fuses element-wise work on a scratchpad device).
TEST(SummaryText, ADeviceIsCountedInItsOwnWord) {
  json serving = {{"mode", "inference"}, {"model", "llama3.1-8b"}, {"system", "tpu-v6e"},
                  {"parallelism", {{"tp", 2}, {"dp", 4}}},
                  {"inference", {{"batch", 16}, {"input_tokens", 512}, {"output_tokens", 128}}}};
  EXPECT_EQ(eval_ok(serving).at("device").at("unit_name"), "chip");
  const std::string text = evaluate_text(serving.dump());
  EXPECT_TRUE(has(text, " per replica of 2 chips, ")) << text;
  EXPECT_TRUE(has(text, " on all 8 chips · ")) << text;
  EXPECT_TRUE(has(text, "\nmemory per chip ")) << text;
  EXPECT_FALSE(has(text, "GPU")) << text;
  json training = {{"mode", "training"}, {"model", "llama3.1-8b"}, {"system", "intel-gaudi3"}, {"parallelism", {{"tp", 8}}}};
  const std::string gaudi = evaluate_text(training.dump());
  EXPECT_TRUE(has(gaudi, " TFLOP/s per HPU · ")) << gaudi;
  EXPECT_TRUE(has(gaudi, " HPU-h")) << gaudi;
  EXPECT_FALSE(has(gaudi, "element-wise kernels")) << gaudi;
  EXPECT_FALSE(eval_ok(training).at("training").contains("fusion_sensitivity"));
  // The same plan on a GPU keeps the word and the eager-modules line.
  training["system"] = "dgx-h100";
  const std::string h100 = evaluate_text(training.dump());
  EXPECT_TRUE(has(h100, " TFLOP/s per GPU · ")) << h100;
  EXPECT_TRUE(has(h100, "element-wise kernels")) << h100;
  // The word is checked at its path.
  training["system"] = {{"preset", "dgx-h100"}, {"device", {{"unit_name", ""}}}};
  const json bad = eval(training);
  ASSERT_TRUE(bad.contains("error")) << bad.dump();
  EXPECT_EQ(bad.at("error").at("path"), "system.device.unit_name");
}

// Dollars only where a GPU-hour price is given; GPU-hours and energy always.
TEST(SummaryText, CostLinesFollowTheCostSection) {
  json scenario = spec("training-gpt3-175b-a100.json");
  const std::string unpriced = evaluate_text(scenario.dump());
  EXPECT_TRUE(has(unpriced, "\nper million tokens      ")) << unpriced;
  EXPECT_FALSE(has(unpriced, "$")) << unpriced;
  scenario["cost"] = {{"gpu_hour_usd", 2.0}};
  const json out = eval_ok(scenario);
  const double usd = out.at("training").at("cost").at("per_million_tokens").at("usd");
  const std::string priced = evaluate_text(scenario.dump());
  ASSERT_TRUE(usd >= 1 && usd < 10) << usd;  // printed with two decimals
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", usd);
  EXPECT_TRUE(has(priced, std::string("GPU-h · $") + buf)) << buf << "\n" << priced;
}

// What the published runs of the kind lacked is said, as the page says it:
// a device none ran on, layer kinds none had.
TEST(SummaryText, SaysWhatThePublishedRunsDidNotHave) {
  const json mla = {{"mode", "inference"}, {"model", "deepseek-v3"}, {"system", "dgx-h200"}, {"parallelism", {{"tp", 8}, {"ep", 8}}}};
  const json out = eval_ok(mla);
  ASSERT_FALSE(out.at("accuracy").at("architecture_unvalidated").empty());
  const std::string text = evaluate_text(mla.dump());
  EXPECT_TRUE(has(text, "none of them had " + out.at("accuracy").at("architecture_unvalidated")[0].get<std::string>())) << text;
  const json tpu = {{"mode", "training"}, {"model", "llama3.1-8b"}, {"system", "tpu-v5p"}, {"parallelism", {{"dp", 8}, {"zero", 3}}}};
  ASSERT_FALSE(eval_ok(tpu).at("accuracy").at("device_validated").get<bool>());
  EXPECT_TRUE(has(evaluate_text(tpu.dump()), "none of them ran on the TPU v5p")) << evaluate_text(tpu.dump());
}

TEST(SummaryText, APlanThatDoesNotFitSaysSoAndWarns) {
  const json scenario = {{"mode", "training"}, {"model", "llama3.1-405b"}, {"system", "dgx-h100"}, {"parallelism", {{"tp", 8}}}};
  const std::string text = evaluate_text(scenario.dump());
  EXPECT_TRUE(has(text, "of 80.0 GiB, does not fit")) << text;
  EXPECT_TRUE(has(text, "\nwarning                 does not fit")) << text;
}

TEST(SummaryText, BadInputIsOneErrorLine) {
  EXPECT_EQ(evaluate_text(R"({"mode":"training","model":"llama3.1-8b","system":"dgx-h100","training":{"bogus":1}})"),
            "error: training.bogus: unknown key; known here: attention_kernel, flash_attention, fp8_recipe, frozen_weights, "
            "fusion, global_batch, host_overhead_us, lora_rank, lora_targets, micro_batch, moe_balance, moe_capacity_factor, "
            "moe_dispatch_precision, moe_dispatcher, offload, offload_activations, optimizer, overlap, precision, recompute, "
            "recompute_layers, recompute_method, recompute_to_fit, seq_len, tokens\n");
  const std::string malformed = evaluate_text("{\"mode\":");
  EXPECT_EQ(malformed.rfind("error: $: ", 0), 0u) << malformed;
  EXPECT_EQ(std::count(malformed.begin(), malformed.end(), '\n'), 1) << malformed;
}

// Every model preset in both modes on one system: no "nan" or "inf" reaches
// the text (a number the model could not give reads "n/a").
TEST(SummaryText, NoNonFiniteNumberInAnyPresetsSummary) {
  const json presets = json::parse(presets_json());
  for (const auto& [model, _] : presets.at("models").items())
    for (const char* mode : {"training", "inference"}) {
      const json scenario = {{"mode", mode}, {"model", model}, {"system", "dgx-h100"}};
      const std::string text = evaluate_text(scenario.dump());
      EXPECT_FALSE(has(text, "nan") || has(text, "inf ") || has(text, "inf\n")) << model << " " << mode << "\n" << text;
      EXPECT_EQ(text.rfind("error:", 0), std::string::npos) << model << " " << mode << "\n" << text;
    }
}

}  // namespace
}  // namespace llmcalc::test

namespace llmcalc::test {
namespace {

json search_of(const json& request) { return json::parse(search_json(request.dump())); }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string l; std::getline(ss, l);) out.push_back(l);
  return out;
}

// search --text: one row per plan of the JSON's best list, in its order,
// the recommended one marked ">", a plan with a warning "!".
TEST(SearchText, RowsAreTheBestPlansInOrder) {
  const json request = {{"mode", "training"}, {"model", "llama3.1-70b"}, {"system", "dgx-h100"},
                        {"training", {{"global_batch", 512}, {"seq_len", 8192}}}, {"search", {{"gpus", 64}, {"top", 5}}}};
  const json s = search_of(request).at("search");
  const std::vector<std::string> lines = lines_of(search_text(request.dump()));
  const auto head = std::find_if(lines.begin(), lines.end(), [](const std::string& l) { return l.rfind("#   iteration", 0) == 0; });
  ASSERT_NE(head, lines.end());
  const size_t recommended = s.at("recommended");
  for (size_t i = 0; i < s.at("best").size(); ++i) {
    const json& e = s.at("best")[i];
    const std::string& l = *(head + 1 + static_cast<long>(i));
    const char mark = i == recommended ? '>' : e.at("warnings").empty() ? ' ' : '!';
    EXPECT_EQ(l.substr(0, 2), std::to_string(i + 1) + mark) << l;
    EXPECT_TRUE(has(l, seconds_text(e.at("iteration_time_s")))) << l;
    const json& p = e.at("parallelism");
    EXPECT_TRUE(has(l, std::to_string(p.at("tp").get<int>()) + "   " + std::to_string(p.at("pp").get<int>()) + "   " +
                           std::to_string(p.at("dp").get<int>())))
        << l;
  }
  // A search with one plan to cost says "1 plan".
  const json one = {{"mode", "training"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"},
                    {"parallelism", {{"tp", 1}, {"pp", 1}, {"dp", 1}, {"cp", 1}, {"zero", 1}, {"sp", false}}},
                    {"training", {{"global_batch", 8}, {"micro_batch", 1}, {"recompute", "full"}}},
                    {"search", {{"top", 1}}}};
  EXPECT_EQ(search_of(one).at("search").at("evaluated"), 1);
  EXPECT_EQ(lines_of(search_text(one.dump())).at(0).rfind("Searched 1 plan on 1 GPU in ", 0), 0u) << search_text(one.dump());
}

TEST(SearchText, NoPlanNamesTheClosestAndWhatItMisses) {
  const json request = {{"mode", "training"}, {"model", "llama3.1-405b"}, {"system", "dgx-h100"}, {"search", {{"gpus", 8}}}};
  const std::string text = search_text(request.dump());
  EXPECT_TRUE(has(text, "; 0 fit.")) << text;
  EXPECT_TRUE(has(text, "No plan fits. The closest, which misses on memory:")) << text;
  EXPECT_FALSE(has(text, "note: ")) << "Llama 3.1 405B is released in bf16: no note\n" << text;
}

TEST(SearchText, NoPlanNamesTheNarrowerReleasedWeights) {
  // gpt-oss-120b stored in bf16 needs 218 GiB on one H100; its release is MXFP4.
  const json request = {{"mode", "inference"}, {"model", "gpt-oss-120b"}, {"system", "dgx-h100"}, {"search", {{"gpus", 1}}}};
  const std::string text = search_text(request.dump());
  EXPECT_TRUE(has(text, "No plan fits. The closest, which misses on memory:")) << text;
  EXPECT_TRUE(has(text, "\nnote: gpt-oss-120b is released with mxfp4 weights, narrower than these figures store them: "
                        "inference.weight_precision \"mxfp4\" serves it as released\n")) << text;
  EXPECT_FALSE(has(text, "note: does not fit")) << "the miss is said once\n" << text;
}

TEST(SearchText, BadInputIsOneErrorLine) {
  const std::string text = search_text(R"({"mode":"training","model":"llama3.1-8b","system":"dgx-h100","search":{"gpus":8,"bogus":1}})");
  EXPECT_EQ(text, "error: search.bogus: unknown key; known here: gpus, max_tpot_s, max_ttft_s, memory_share, more_gpus, top, vary\n");
}

}  // namespace
}  // namespace llmcalc::test

namespace llmcalc::test {
namespace {

// sweep --text: a row per swept value with each output in its unit, "*"
// where the plan does not fit, one table per series.
TEST(SweepText, RowsCarryTheSweepsValuesAndFit) {
  const json request = {{"mode", "training"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"}, {"parallelism", {{"dp", 8}}},
                        {"training", {{"seq_len", 4096}, {"micro_batch", 1}}},
                        {"sweep", {{"input", "parallelism.zero"}, {"from", 0}, {"to", 3}, {"steps", 2}, {"scale", "lin"},
                                   {"outputs", {"training.iteration_time_s", "training.mfu"}},
                                   {"series", {{"system", {"dgx-h100", "dgx-a100-40gb"}}}}}}};
  const json s = json::parse(sweep_json(request.dump())).at("sweep");
  ASSERT_EQ(s.at("series").size(), 2u);
  const std::string text = sweep_text(request.dump());
  for (const auto& series : s.at("series")) {
    ASSERT_TRUE(has(text, "\n" + series.at("name").get<std::string>() + "\nparallelism.zero  iteration time  MFU")) << text;
    for (size_t i = 0; i < 2; ++i) {
      const bool fits = series.at("fits")[i];
      const std::string time = seconds_text(series.at("values").at("training.iteration_time_s")[i]) + (fits ? "" : "*");
      EXPECT_TRUE(has(text, "\n" + s.at("x")[i].dump() + "                 " + time)) << time << "\n" << text;
    }
  }
  // ZeRO-3 shards the 8B model's states over 8 H100; without it they do not
  // fit, so both marks are exercised.
  EXPECT_FALSE(s.at("series")[0].at("fits")[0].get<bool>());
  EXPECT_TRUE(s.at("series")[0].at("fits")[1].get<bool>());
}

TEST(SweepText, BadInputIsOneErrorLine) {
  const std::string text = sweep_text(R"({"mode":"training","model":"llama3.1-8b","system":"dgx-h100","sweep":{"input":"training.global_batch","from":1,"to":2,"outputs":["training.mfu"],"bogus":1}})");
  EXPECT_EQ(text, "error: sweep.bogus: unknown key; known here: from, input, outputs, scale, series, steps, to\n");
}

}  // namespace
}  // namespace llmcalc::test
