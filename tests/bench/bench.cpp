// Throughput of the public API on the scenarios the web page evaluates on
// every edit: a 1024-GPU GPT-3 training plan, a Llama 70B serving plan, and
// the parse-only cost (an input rejected at the consistency check).
#include <benchmark/benchmark.h>

#include <string>

#include "llmcalc/api.h"

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
  if ((first.find("\"error\"") != std::string::npos) != expect_error) {
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

BENCHMARK(BM_TrainingGpt3_175B_1024Gpus)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_InferenceLlama70B)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ParseOnly)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
