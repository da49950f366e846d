// A resolved scenario -> its structured Result: the training schedule or the
// inference phases, the parameter count, and plain-language warnings.
#include "evaluate.h"

#include <cstdio>
#include <vector>

#include "energy_cost.h"
#include "inference.h"
#include "memory.h"
#include "reliability.h"
#include "training.h"

namespace llmcalc {

namespace {

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / 1073741824.0);
  return buf;
}

// The memory model counts weights, gradients, optimizer states, activations
// and the KV cache. The runtime's context (CUDA's on a GPU), the
// communication libraries' buffers
// and the allocator's fragmentation come on top; no source in docs/sources.md
// sizes them, so they are not added, but a plan that leaves less than this
// share of the memory free is flagged rather than called a comfortable fit.
constexpr double kTightMemoryShare = 0.95;

void warn_if_tight(std::vector<std::string>& w, double total, double capacity) {
  if (capacity <= 0 || total > capacity || total <= kTightMemoryShare * capacity) return;
  char spare[40];
  std::snprintf(spare, sizeof spare, "fits with under %.0f%% to spare (", 100 * (1 - kTightMemoryShare));
  w.push_back(spare + gib(total) + " of " + gib(capacity) +
              "): the runtime's context, communication buffers and allocator fragmentation, which the model does not count, "
              "may not fit");
}

// Plain-language notes on choices that are valid but probably not intended.
std::vector<std::string> warnings_for(const Scenario& s, const Result& r) {
  std::vector<std::string> w;
  const Parallelism& p = s.par;
  // The system's word for a device: a TPU's chip, a Gaudi's HPU.
  const std::string& unit = s.system.device.unit_name;
  const std::string per_unit = " needed per " + unit + ", ";
  if (p.tp > s.system.gpus_per_node)
    w.push_back("tp spans more " + unit + "s than a node: tensor-parallel traffic crosses the slower network tier");
  if (s.model.kv_heads < p.tp)
    w.push_back("tp exceeds kv_heads: K/V heads are replicated across tensor-parallel ranks");
  if (s.mode == Mode::training) {
    const TrainingResult& t = r.training;
    if (t.memory.total > t.memory.capacity)  // (a host that is short is said below)
      w.push_back("does not fit: " + gib(t.memory.total) + per_unit + gib(t.memory.capacity) + " available");
    else
      warn_if_tight(w, t.memory.total, t.memory.capacity);
    if (host_short(t.memory))
      w.push_back("what is offloaded does not fit in host memory: " + gib(t.memory.offloaded) + per_unit +
                  gib(t.memory.host_capacity) + " available (the host's CPU memory over the run's " + unit + "s that share it)");
    if (p.pp > 1 && t.pipeline.microbatches < p.pp && p.schedule != PipeSchedule::interleaved)
      w.push_back("fewer micro-batches than pipeline stages: the bubble dominates");
    // DeepSpeed's pipeline engine asserts ZeRO stage < 2 ("ZeRO-2 and ZeRO-3
    // are incompatible with pipeline parallelism", deepspeed/runtime/pipe).
    if (p.pp > 1 && p.zero >= 2)
      w.push_back("ZeRO " + std::to_string(p.zero) + " with pipeline parallelism: DeepSpeed's pipeline engine takes ZeRO 1 at most" +
                  (zero3_holds_stage(s) ? "; FSDP with pipeline stages (torchtitan) runs ZeRO 3 with them, keeping the "
                                          "stage's weights gathered and its gradients whole from the first micro-batch to "
                                          "the last, so they are gathered and reduce-scattered once an iteration"
                  : p.zero >= 3 ? "; with the weights offloaded to the host the model fetches and gathers them again "
                                  "in every micro-batch's forward and backward"
                                : ""));
    // Megatron's interleaved schedule takes the micro-batches through the
    // chunks in groups of pp (megatron/core/pipeline_parallel/schedules.py:
    // microbatch_group_size_per_vp_stage, at least pp and at most m, in the
    // releases that have it; a count pp does not divide was refused before).
    if (p.schedule == PipeSchedule::interleaved && t.pipeline.microbatches < p.pp)
      w.push_back("fewer micro-batches than pipeline stages: the bubble dominates, each chunk waiting for the one "
                  "before it to cross every stage; Megatron's interleaved schedule refuses this (it needs at least pp "
                  "micro-batches)");
    else if (p.schedule == PipeSchedule::interleaved && t.pipeline.microbatches % p.pp != 0)
      w.push_back("Megatron's interleaved schedule needs micro-batches divisible by pp");
    // Megatron-LM's argument checks (megatron/training/arguments.py): "When
    // using expert parallelism and tensor parallelism, sequence parallelism
    // must be used."
    if (p.ep > 1 && p.tp > 1 && !p.sp)
      w.push_back("expert and tensor parallelism without sequence parallelism: Megatron-Core requires sp when both "
                  "ep and tp exceed 1");
    if (p.schedule == PipeSchedule::dualpipe && t.pipeline.microbatches < 2 * p.pp)
      w.push_back("DualPipe's bubble is its steady-state figure, reached with at least pp micro-batches each way (2 x pp); fewer leave more idle time");
    // MX block scaling needs tensor cores that read per-block scales, which
    // came with the generation that brought fp4 (NVIDIA Blackwell, AMD CDNA4):
    // the device's fp4 peak marks it. Transformer Engine's MXFP8 recipe
    // requires Blackwell (TE 2.x, MXFP8BlockScaling).
    if (s.train.precision == Precision::fp8 && s.train.fp8_recipe == Fp8Recipe::mxfp8 &&
        s.system.device.matmul_flops[static_cast<int>(Precision::fp4)] <= 0)
      w.push_back("MXFP8 on a device without block-scaled (MX) tensor cores: frameworks run the recipe only where they "
                  "exist (Blackwell, CDNA4), so this run would take per-tensor fp8 (training.fp8_recipe delayed or "
                  "current); the figures cost MXFP8 as given");
    if (t.reliability.goodput < 0.5)
      w.push_back("interruptions leave " + std::to_string(static_cast<int>(100 * t.reliability.goodput)) +
                  "% of the wall-clock time training: restarts and lost work outweigh it (reliability.*)");
  } else {
    const InferenceResult& i = r.inference;
    if (i.memory.total > i.memory.capacity)
      w.push_back("does not fit: " + gib(i.memory.total) + per_unit + gib(i.memory.capacity) +
                  " available; largest batch that fits: " + std::to_string(i.memory.max_batch));
    else
      warn_if_tight(w, i.memory.total, i.memory.capacity);
    // A checkpoint released narrower than the run stores it (gpt-oss's MXFP4
    // experts served as bf16) is named where the run does not fit.
    const Model& m = s.model;
    const bool wider = m.released_weight_bytes > 0 && m.released_weight_bytes < bytes_per_element(s.infer.weight_precision);
    if (i.memory.total > i.memory.capacity && wider)
      w.push_back(m.name + " is released with " + m.released_weights + " weights, narrower than these figures store them: " +
                  "inference.weight_precision \"" + m.released_weights + "\" serves it as released");
    if (i.disaggregated && !i.prefill_pool.fits)
      w.push_back("the prefill instance does not fit: " + gib(i.prefill_pool.memory.total) + per_unit +
                  gib(i.prefill_pool.memory.capacity) + " available (inference.prefill_tp, prefill_batch)");
    // Fewer in flight than the batch limit: the KV cache holds no more, or
    // chunked prefill's token budget cannot feed more (evaluate_chunked).
    if (i.concurrency < s.infer.batch * (1 - 1e-9)) {
      const long long held = static_cast<long long>(i.concurrency);
      const std::string seqs = std::to_string(held) + (held == 1 ? " sequence" : " sequences");
      if (!i.chunked || i.concurrency >= static_cast<double>(i.memory.max_batch) * (1 - 1e-9))
        w.push_back("in-flight batching: the KV cache holds " + seqs + ", fewer than the batch limit");
      else
        w.push_back("chunked prefill: a budget of " + std::to_string(s.infer.token_budget) + " tokens per step keeps " + seqs +
                    " in flight, fewer than the batch limit (each step carries the decodes and the prompt tokens that "
                    "replace the sequences finishing; a larger inference.token_budget admits more)");
    }
    // Context parallelism is modelled for training (ring attention over cp
    // ranks); a serving replica is tp x pp GPUs, so cp is not counted.
    if (s.par.cp > 1)
      w.push_back("parallelism.cp " + std::to_string(s.par.cp) + " is a training input: serving is modelled without "
                  "context parallelism, so these figures ignore it and count tp x pp x dp GPUs");
    if (1.0 * s.infer.input_tokens + s.infer.output_tokens > static_cast<double>(s.model.context))
      w.push_back("input + output tokens exceed the model's context window (model.context, " +
                  std::to_string(s.model.context) + " tokens)");
  }
  return w;
}

// A measured run fitted in its GPUs' memory; a plan without recomputation,
// or with Megatron's selective one (only the attention core's activations,
// which fused attention does not keep anyway), whose activations do not fit
// must have recomputed more of them (Chen et al. 2016, arXiv 1604.06174:
// checkpointing trades a forward pass for the activations). The cheapest whole-layer policy is Megatron's block method
// (--recompute-method block --recompute-num-layers N): the fewest layers N per
// stage that make the plan fit. Fully sharded plans (Parallelism::
// fully_sharded) run on FSDP and JAX frameworks, which checkpoint every block
// alike: PyTorch FSDP wraps each transformer block (llm-foundry
// activation_checkpointing, torchtitan ac mode "full"), MaxText and PaxML
// apply one remat policy to the scanned layer stack; there every layer. 0
// when it fits as given or the scenario opts out.
int layers_to_fit(const Scenario& s) {
  const Training& t = s.train;
  if (!t.recompute_to_fit || (t.recompute != Recompute::none && t.recompute != Recompute::selective)) return 0;
  const TrainingMemory none = training_memory(s);
  if (none.total <= none.capacity) return 0;
  const int max_layers = stage_layout(s.model, s.par).max_layers;
  if (s.par.fully_sharded()) return max_layers;
  Scenario r = s;
  r.train.recompute = Recompute::full;
  r.train.recompute_block = true;
  // Memory falls monotonically in N: bisect for the smallest N that fits.
  int lo = 1, hi = max_layers;
  while (lo < hi) {
    r.train.recompute_layers = (lo + hi) / 2;
    const TrainingMemory m = training_memory(r);
    if (m.total <= m.capacity)
      hi = r.train.recompute_layers;
    else
      lo = r.train.recompute_layers + 1;
  }
  return lo;
}

}  // namespace

Result evaluate(const Scenario& given) {
  Result r;
  r.mode = given.mode;
  r.params = count_params(given.model);
  Scenario s = given;
  const int fit_layers = given.mode == Mode::training ? layers_to_fit(given) : 0;
  if (fit_layers > 0) {
    s.train.recompute = Recompute::full;
    s.train.recompute_block = true;
    s.train.recompute_layers = fit_layers;
  }
  if (s.mode == Mode::training)
    r.training = evaluate_training(s);
  else
    r.inference = evaluate_inference(s);
  if (fit_layers > 0) {
    // Memory is reported for the plan as given (it does not fit); the time
    // is the recomputing plan's, and its memory is reported beside.
    r.training.recompute_fit = {fit_layers, r.training.memory.total, r.training.fits};
    r.training.memory = training_memory(given);
    r.training.fits = false;
  }
  if (s.mode == Mode::training) {
    r.training.cost = training_costs(s, r.training.iteration_time_s);
    r.training.reliability = training_reliability(s, r.training.time_to_train_s);
  } else {
    r.inference.cost = inference_costs(s, r.inference.output_tokens_per_s, r.inference.replica_gpus);
  }
  r.warnings = warnings_for(given, r);
  if (fit_layers > 0) {
    const auto& fit = r.training.recompute_fit;
    const std::string given_policy = given.train.recompute == Recompute::none ? "none" : "selective";
    const std::string what = given.par.fully_sharded()
                                 ? "every layer is recomputed whole to fit, as fully sharded data-parallel frameworks "
                                   "checkpoint every block"
                                 : std::to_string(fit_layers) + " layers per stage are recomputed whole to fit";
    r.warnings.push_back("recompute " + given_policy + " does not fit: " + what + " (training.recompute_to_fit): " +
                         gib(fit.memory_total) + " per " + given.system.device.unit_name +
                         (fit.fits ? "" : ", which does not fit either"));
  }
  return r;
}

}  // namespace llmcalc
