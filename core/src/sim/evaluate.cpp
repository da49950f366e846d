// A resolved scenario -> its structured Result: the training schedule or the
// inference phases, the parameter count, and plain-language warnings.
#include "evaluate.h"

#include <cstdio>
#include <vector>

#include "inference.h"
#include "training.h"

namespace llmcalc {

namespace {

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / 1073741824.0);
  return buf;
}

// Plain-language notes on choices that are valid but probably not intended.
std::vector<std::string> warnings_for(const Scenario& s, const Result& r) {
  std::vector<std::string> w;
  const Parallelism& p = s.par;
  if (p.tp > s.system.gpus_per_node)
    w.push_back("tp spans more GPUs than a node: tensor-parallel traffic crosses the slower network tier");
  if (s.model.kv_heads < p.tp)
    w.push_back("tp exceeds kv_heads: K/V heads are replicated across tensor-parallel ranks");
  if (s.mode == Mode::training) {
    const TrainingResult& t = r.training;
    if (!t.fits)
      w.push_back("does not fit: " + gib(t.memory.total) + " needed per GPU, " + gib(t.memory.capacity) + " available");
    if (p.pp > 1 && t.pipeline.microbatches < p.pp)
      w.push_back("fewer micro-batches than pipeline stages: the bubble dominates");
    if (p.schedule == PipeSchedule::interleaved && t.pipeline.microbatches % p.pp != 0)
      w.push_back("Megatron's interleaved schedule needs micro-batches divisible by pp");
  } else {
    const InferenceResult& i = r.inference;
    if (!i.fits)
      w.push_back("does not fit: " + gib(i.memory.total) + " needed per GPU, " + gib(i.memory.capacity) +
                  " available; largest batch that fits: " + std::to_string(i.memory.max_batch));
    if (i.concurrency < s.infer.batch)
      w.push_back("in-flight batching: the KV cache holds " + std::to_string(static_cast<long long>(i.concurrency)) +
                  " sequences, fewer than the batch limit");
    if (1.0 * s.infer.input_tokens + s.infer.output_tokens > s.model.seq_len)
      w.push_back("input + output tokens exceed the model's seq_len");
  }
  return w;
}

}  // namespace

Result evaluate(const Scenario& s) {
  Result r;
  r.mode = s.mode;
  r.params = count_params(s.model);
  if (s.mode == Mode::training)
    r.training = evaluate_training(s);
  else
    r.inference = evaluate_inference(s);
  r.warnings = warnings_for(s, r);
  return r;
}

}  // namespace llmcalc
