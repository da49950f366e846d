// Chunked prefill under in-flight batching (inference.token_budget;
// Sarathi-Serve's stall-free batching): the steady-state step, what its
// decode rows and prompt chunks share, and the inputs it refuses.
#include "test_util.h"

namespace llmcalc::test {
namespace {

json serving(const std::string& model, int tp, int batch, int input, int output, int budget) {
  return {{"mode", "inference"}, {"model", model}, {"system", "dgx-h100"}, {"parallelism", {{"tp", tp}}},
          {"inference", {{"batch", batch}, {"input_tokens", input}, {"output_tokens", output},
                         {"batching", "inflight"}, {"token_budget", budget}}}};
}

double num(const json& j, const char* key) { return j.at(key).get<double>(); }

// Flow balance and concurrency fix the step; latency and rate follow from its time.
TEST(ChunkedPrefill, SteadyStateStepFollowsFlowBalance) {
  // Concurrency-bound: 16 sequences, a budget larger than they can use.
  const json r = eval_ok(serving("llama3.1-70b", 4, 16, 1024, 256, 8192))["inference"];
  const json& step = r["chunked_prefill"];
  const double d = 15, c = d * 1024 / 255;  // d + max(1, d / 255) = 16; c / P = d / (O - 1)
  EXPECT_NEAR(num(step, "decode_rows_per_step"), d, 1e-9);
  EXPECT_NEAR(num(step, "prompt_tokens_per_step"), c, 1e-9);
  EXPECT_NEAR(num(step, "steps_per_prompt"), 1024 / c, 1e-9);
  const double T = num(r, "tpot_s");
  EXPECT_NEAR(num(r, "ttft_s"), 1024 / c * T, 1e-12);
  EXPECT_NEAR(num(r, "e2e_latency_s"), num(r, "ttft_s") + 255 * T, 1e-12);
  EXPECT_NEAR(num(r, "output_tokens_per_s"), c / 1024 * 256 / T, 1e-9);
  EXPECT_NEAR(num(r, "concurrency"), d + 1, 1e-9);

  // Budget-bound: the step fills the budget exactly.
  const json b = eval_ok(serving("llama3.1-8b", 1, 64, 2048, 256, 256))["inference"]["chunked_prefill"];
  EXPECT_NEAR(num(b, "decode_rows_per_step"), 256.0 * 255 / (2048 + 255), 1e-9);
  EXPECT_NEAR(num(b, "decode_rows_per_step") + num(b, "prompt_tokens_per_step"), 256, 1e-9);
}

// The decode rows and the chunk's rows go through every GEMM together (one
// weight read); attention is costed per kind of row.
TEST(ChunkedPrefill, DecodeRowsAndChunksShareTheWeightReads) {
  const json out = eval_ok(serving("llama3.1-70b", 4, 16, 1024, 256, 8192));
  const json& step = out["inference"]["chunked_prefill"];
  const double rows = num(step, "decode_rows_per_step") + num(step, "prompt_tokens_per_step");
  const json qkv = find_op(out, "attn.qkv", "decode");
  // Llama 3.1 70B: 64 query and 8 KV heads of 128 over tp 4, hidden 8192.
  EXPECT_NEAR(num(qkv, "flops"), 2 * rows * (64 + 2 * 8) * 128 / 4.0 * 8192, 1e-6 * num(qkv, "flops"));
  EXPECT_FALSE(find_op(out, "attn.flash", "decode").is_null());
  EXPECT_FALSE(find_op(out, "chunk.attn.flash", "decode").is_null());
  // Here decode is bound by the weight reads: the prompt rows ride along in
  // the GEMMs (their cost is the larger all-reduces, their attention and, as
  // the GEMMs near the ridge, some math beside the stream), so the step costs
  // less than a decode step plus the same rows prefilled on their own, and the
  // rate stays that of whole prompts between decode steps (within 5%), whose
  // time to first token is the whole batch's prefill.
  const json whole = eval_ok(serving("llama3.1-70b", 4, 16, 1024, 256, 0))["inference"];
  const double prefill_per_token = num(whole, "ttft_s") / (16 * 1024.0);
  EXPECT_GT(num(out["inference"], "tpot_s"), num(whole, "tpot_s"));
  EXPECT_LT(num(out["inference"], "tpot_s"),
            num(whole, "tpot_s") + num(step, "prompt_tokens_per_step") * prefill_per_token);
  // 75 rows against 16: +8% (an H100 GEMM at 128 rows takes 1-17% longer than at 8).
  EXPECT_LT(find_op(out, "mlp.up", "decode")["time_s"].get<double>(),
            1.15 * find_op(eval_ok(serving("llama3.1-70b", 4, 16, 1024, 256, 0)), "mlp.up", "decode")["time_s"].get<double>());
  EXPECT_GT(num(out["inference"], "output_tokens_per_s"), 0.95 * num(whole, "output_tokens_per_s"));
  EXPECT_LT(num(out["inference"], "ttft_s"), 0.5 * num(whole, "ttft_s"));
}

// A budget too small for the batch keeps fewer sequences in flight: the
// warning names the budget, not the KV cache (which holds them all here).
TEST(ChunkedPrefill, ABudgetThatBindsIsNamedAsTheLimit) {
  const json out = eval_ok(serving("llama3.1-8b", 1, 64, 2048, 256, 256));
  const double held = num(out["inference"], "concurrency");
  EXPECT_LT(held, 64);
  EXPECT_GE(num(out["inference"], "max_batch"), 64);
  const std::string w = "chunked prefill: a budget of 256 tokens per step keeps " +
                        std::to_string(static_cast<long long>(held)) + " sequences in flight, fewer than the batch limit";
  bool named = false;
  for (const json& x : out["warnings"]) {
    named = named || x.get<std::string>().rfind(w, 0) == 0;
    EXPECT_EQ(x.get<std::string>().find("KV cache holds"), std::string::npos) << x;
  }
  EXPECT_TRUE(named) << out["warnings"].dump();
  // A budget that holds the batch's step leaves no warning of either kind.
  const json holds = eval_ok(serving("llama3.1-8b", 1, 64, 2048, 256, 1024));
  for (const json& x : holds["warnings"])
    EXPECT_EQ(x.get<std::string>().find("fewer than the batch limit"), std::string::npos) << x;
}

TEST(ChunkedPrefill, OneSequenceHasNothingToRunBeside) {
  // With one sequence in flight no decode row shares a step with its prompt.
  const json one = eval_ok(serving("llama3.1-8b", 1, 1, 1024, 128, 512))["inference"];
  const json whole = eval_ok(serving("llama3.1-8b", 1, 1, 1024, 128, 0))["inference"];
  EXPECT_FALSE(one.contains("chunked_prefill"));
  EXPECT_EQ(one["tpot_s"], whole["tpot_s"]);
}

TEST(ChunkedPrefill, RefusedWhereItIsNotModelled) {
  json s = serving("llama3.1-8b", 1, 16, 1024, 128, 512);
  s["inference"]["batching"] = "static";
  EXPECT_EQ(eval(s)["error"]["path"], "inference.token_budget");
  s = serving("llama3.1-8b", 1, 16, 1024, 128, 512);
  s["inference"]["prefill_tp"] = 2;
  EXPECT_EQ(eval(s)["error"]["path"], "inference.token_budget");
  s = serving("llama3.1-8b", 1, 16, 1024, 128, 512);
  s["inference"]["draft_tokens"] = 2;
  EXPECT_EQ(eval(s)["error"]["path"], "inference.token_budget");
  EXPECT_EQ(eval(serving("deepseek-v2-lite", 1, 16, 1024, 128, 512))["error"]["path"], "inference.token_budget");
  s = serving("llama3.1-8b", 1, 16, 1024, 128, -1);
  EXPECT_EQ(eval(s)["error"]["path"], "inference.token_budget");
}

}  // namespace
}  // namespace llmcalc::test
