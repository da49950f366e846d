#include "disaggregated.h"

#include <algorithm>

#include "attention_pattern.h"
#include "cost.h"
#include "memory.h"

namespace llmcalc {

Scenario prefill_instance(const Scenario& s) {
  Scenario p = s;
  p.par = Parallelism{};
  p.par.tp = s.infer.prefill_tp;
  p.infer.batch = s.infer.prefill_batch;
  p.infer.output_tokens = 0;
  p.infer.draft_tokens = 0;
  p.infer.prefill_tp = 0;
  p.infer.inflight = false;
  return p;
}

namespace {

// The K/V of one prefill batch to the decode instance (Zhong et al. 2024,
// DistServe section 4: the transfer is the prompt's KV cache), each prefill
// GPU sending its share point to point: over NVLink when both instances fit
// in one NVLink domain (the decode replica's tp x pp GPUs, then the prefill
// instance's), else over the scale-out network.
Op kv_transfer(const Scenario& s, double* bytes) {
  const Inference& in = s.infer;
  const double fresh = in.input_tokens - in.shared_prefix_tokens;  // the decode side holds the shared prefix
  *bytes = in.prefill_batch * kv_bytes_per_sequence(s.model, 1, in.kv_precision, fresh, 0, s.model.layers);
  const long long decode_gpus = 1LL * s.par.tp * s.par.pp;
  const double links = std::min(static_cast<double>(in.prefill_tp), static_cast<double>(decode_gpus));
  OpSpec t = make_comm("kv_transfer", Collective::p2p, {2, decode_gpus, decode_gpus + in.prefill_tp}, *bytes / links, "kv");
  return cost_op(s.system, t, "prefill", 1);
}

}  // namespace

// Disaggregated prefill: the time to first token is a prefill instance's
// batch (r's prefill, costed on that instance) and its transfer; the decode
// instance admits a request as one leaves (continuous batching, no prefill
// between its steps), so it finishes batch / ((output - 1) x tpot) requests
// per second (the first token comes from prefill), and the prefill instances
// that keep it fed are that rate over one instance's prefill_batch / prefill time.
void add_prefill_pool(const Scenario& s, const Scenario& instance, double prefill_time, double tpot_cycle,
                      InferenceResult& r) {
  const Inference& in = s.infer;
  PrefillPool& pool = r.prefill_pool;
  pool.prefill_time_s = prefill_time;
  const Op transfer = kv_transfer(s, &pool.kv_transfer_bytes);
  pool.kv_transfer_s = transfer.cost.time_s;
  const double decode_rps = in.batch / (std::max(1, in.output_tokens - 1) * r.tpot_s);
  pool.instances = decode_rps * prefill_time / in.prefill_batch;
  pool.memory = inference_memory(instance);
  pool.fits = pool.memory.total <= pool.memory.capacity;
  r.disaggregated = true;
  r.ttft_s += pool.kv_transfer_s;
  r.e2e_latency_s = r.ttft_s + (in.output_tokens - 1) * r.tpot_s;
  r.output_tokens_per_s = decode_rps * in.output_tokens;
  r.pipelined_output_tokens_per_s = decode_rps * in.output_tokens * s.par.pp * r.tpot_s / tpot_cycle;
  r.replica_gpus = 1.0 * s.par.tp * s.par.pp + pool.instances * in.prefill_tp;
  r.fits = r.fits && pool.fits;
  // The op table: the prefill instance's ops, the transfer, then decode's.
  const auto first_decode = std::find_if(r.ops.begin(), r.ops.end(), [](const Op& op) { return op.phase != "prefill"; });
  r.ops.insert(first_decode, transfer);
}

}  // namespace llmcalc
