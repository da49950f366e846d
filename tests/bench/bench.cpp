// Throughput of the public API on the scenarios the web page evaluates on
// every edit: a 1024-GPU GPT-3 training plan, a Llama 70B serving plan, and
// the parse-only cost (an input rejected at the consistency check).
#include <benchmark/benchmark.h>

#include <string>

#include "llmcalc/api.h"
#include "output.h"
#include "parse.h"
#include "search.h"

namespace {

const std::string kGpt3Training = R"({
  "mode": "training", "model": "gpt3-175b", "system": "dgx-a100-80gb",
  "parallelism": {"tp": 8, "pp": 16, "dp": 8, "sp": true, "pp_schedule": "interleaved", "virtual_stages": 2, "zero": 1},
  "training": {"global_batch": 1536, "micro_batch": 1, "precision": "bf16", "recompute": "selective"}
})";

const std::string kLlama70BInference = R"({
  "mode": "inference", "model": "llama3.1-70b", "system": "dgx-h100",
  "parallelism": {"tp": 4},
  "inference": {"batch": 32, "input_tokens": 2048, "output_tokens": 256,
                "weight_precision": "fp8", "kv_precision": "fp8", "compute_precision": "fp8"}
})";

// Same size as the training scenario but fails in check_consistency (tp=7
// does not divide 96 heads): parsing, preset resolution and validation only.
const std::string kParseOnly = R"({
  "mode": "training", "model": "gpt3-175b", "system": "dgx-a100-80gb",
  "parallelism": {"tp": 7, "pp": 16, "dp": 8, "sp": true, "pp_schedule": "interleaved", "virtual_stages": 2, "zero": 1},
  "training": {"global_batch": 1536, "micro_batch": 1, "precision": "bf16", "recompute": "selective"}
})";

void run(benchmark::State& state, const std::string& scenario, bool expect_error) {
  // Check once that the benchmark measures what its name says.
  const std::string first = llmcalc::evaluate_json(scenario);
  const bool is_error = nlohmann::json::parse(first).contains("error");  // the top-level error object only
  if (is_error != expect_error) {
    const std::string msg = "unexpected result: " + first.substr(0, 200);
    state.SkipWithError(msg.c_str());
    return;
  }
  for (auto _ : state) {
    std::string out = llmcalc::evaluate_json(scenario);
    benchmark::DoNotOptimize(out);
  }
}

void BM_TrainingGpt3_175B_1024Gpus(benchmark::State& state) { run(state, kGpt3Training, false); }
void BM_InferenceLlama70B(benchmark::State& state) { run(state, kLlama70BInference, false); }
void BM_ParseOnly(benchmark::State& state) { run(state, kParseOnly, true); }

// A parallelism search: every plan of the space; reports the plans
// evaluated per second.
void search_bench(benchmark::State& state, const nlohmann::json& in) {
  double configs = 0;
  for (auto _ : state) {
    const nlohmann::json out = llmcalc::search_scenario(in);
    configs += out["search"]["evaluated"].get<double>();
    benchmark::DoNotOptimize(out);
  }
  state.counters["configs_per_s"] = benchmark::Counter(configs, benchmark::Counter::kIsRate);
  state.counters["configs"] = benchmark::Counter(configs / static_cast<double>(state.iterations()));
}

// GPT-3 175B on 1,024 A100s (global batch 1536).
void BM_Search_GPT3_175B_1024(benchmark::State& state) {
  search_bench(state, {{"mode", "training"}, {"model", "gpt3-175b"}, {"system", "dgx-a100-80gb"},
                       {"training", {{"global_batch", 1536}, {"precision", "bf16"}}},
                       {"search", {{"gpus", 1024}, {"top", 10}}}});
}

// A mixture-of-experts search (ep, and etp 1 beside the default, on top of
// the dense space): Qwen3-235B-A22B on 256 H100s, fp8, global batch 2048.
void BM_Search_Qwen3_235B_256(benchmark::State& state) {
  search_bench(state, {{"mode", "training"}, {"model", "qwen3-235b-a22b"}, {"system", "dgx-h100"},
                       {"training", {{"global_batch", 2048}, {"seq_len", 4096}, {"precision", "fp8"}}},
                       {"search", {{"gpus", 256}, {"top", 10}}}});
}

// A serving search (batches, and prefill colocated or on instances of each
// width, with the throughput-interactivity fronts): Llama 3.1 70B in fp8 on
// 8 H100s, 2,048 + 256 tokens.
void BM_Search_Serving_Llama70B_8(benchmark::State& state) {
  search_bench(state, {{"mode", "inference"}, {"model", "llama3.1-70b"}, {"system", "dgx-h100"},
                       {"inference", {{"input_tokens", 2048}, {"output_tokens", 256}, {"weight_precision", "fp8"},
                                      {"compute_precision", "fp8"}, {"kv_precision", "fp8"}}},
                       {"search", {{"gpus", 8}, {"top", 10}}}});
}

// A study request, timed: it must run without an error first.
void study_bench(benchmark::State& state, const std::string& request) {
  if (nlohmann::json::parse(llmcalc::study_request_json(request)).contains("error")) {
    state.SkipWithError("the study failed");
    return;
  }
  for (auto _ : state) {
    std::string out = llmcalc::study_request_json(request);
    benchmark::DoNotOptimize(out);
  }
}

// Llama 3.1 70B training on 64 GPUs, as the page sends it.
const char* kLlama70B64 = R"("params": {"mode": "training", "model": "llama3.1-70b", "system": "dgx-h100",
    "parallelism": {"tp": 8, "dp": 8}, "training": {"global_batch": 512}})";

// The systems study: a search and a full evaluation on each system preset (what "Every system" runs).
void BM_SystemsStudy_Llama70B_64(benchmark::State& state) {
  study_bench(state, std::string(R"({"name": "systems", )") + kLlama70B64 + "}");
}

// The models study: a search and a full evaluation for each model preset (what "Every model" runs).
void BM_ModelsStudy_Llama70B_64(benchmark::State& state) {
  study_bench(state, std::string(R"({"name": "models", )") + kLlama70B64 + "}");
}

// The published-runs study: every published validation case evaluated and
// summarised (what the page's "Published runs" runs).
void BM_PublishedRunsStudy(benchmark::State& state) { study_bench(state, R"({"name": "published-runs"})"); }

// The model alone: a parsed Scenario to a Result, without JSON in or out
// (what a search evaluates per configuration when nothing is cached).
void model_only(benchmark::State& state, const std::string& scenario) {
  const llmcalc::Scenario s = llmcalc::parse_scenario(nlohmann::json::parse(scenario));
  for (auto _ : state) {
    llmcalc::Result r = llmcalc::evaluate(s);
    benchmark::DoNotOptimize(r);
  }
}
void BM_TrainingModelOnly_GPT3_175B_1024Gpus(benchmark::State& state) { model_only(state, kGpt3Training); }
void BM_InferenceModelOnly_Llama70B(benchmark::State& state) { model_only(state, kLlama70BInference); }
BENCHMARK(BM_TrainingModelOnly_GPT3_175B_1024Gpus)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_InferenceModelOnly_Llama70B)->Unit(benchmark::kMicrosecond);

BENCHMARK(BM_TrainingGpt3_175B_1024Gpus)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_InferenceLlama70B)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ParseOnly)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Search_GPT3_175B_1024)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Search_Qwen3_235B_256)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Search_Serving_Llama70B_8)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SystemsStudy_Llama70B_64)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ModelsStudy_Llama70B_64)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PublishedRunsStudy)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
