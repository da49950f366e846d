// Parallelism search: enumerate the plans a scenario does not fix, evaluate
// them (training through FastTraining, fast_training.cpp), keep the best.
#include "search.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <tuple>

#include "compute.h"
#include "inference.h"
#include "more_gpus.h"
#include "parse.h"
#include "plan_collector.h"
#include "requests.h"
#include "accuracy.h"
#include "search_entries.h"
#include "summary_text.h"

namespace llmcalc {

namespace {

using search_detail::better;
using search_detail::Candidate;
using search_detail::Collector;
using search_detail::entry_json;
using search_detail::recommend_trusted_kind;
using search_detail::regimes_of;

std::vector<long long> divisors(long long n) {
  std::vector<long long> d;
  for (long long i = 1; i * i <= n; ++i)
    if (n % i == 0) {
      d.push_back(i);
      if (i != n / i) d.push_back(n / i);
    }
  std::sort(d.begin(), d.end());
  return d;
}

// Which plan fields the input gives, and so stay fixed (search.vary "plan": only the inference batch).
struct Fixed {
  bool tp = false, pp = false, dp = false, cp = false, ep = false, etp = false, sp = false, sched = false, v = false,
       zero = false;
  bool mb = false, rc = false, batch = false, prefill = false, batching = false;
};
Fixed fixed_fields(const json& in, bool whole_plan) {
  Fixed f;
  auto has = [&](const char* sec, const char* key) {
    return in.contains(sec) && in.at(sec).is_object() && in.at(sec).contains(key);
  };
  f.batch = has("inference", "batch");
  if (whole_plan) return f;
  f.tp = has("parallelism", "tp");
  f.pp = has("parallelism", "pp");
  f.dp = has("parallelism", "dp");
  f.cp = has("parallelism", "cp");
  f.ep = has("parallelism", "ep");
  f.etp = has("parallelism", "etp");
  f.sp = has("parallelism", "sp");
  f.sched = has("parallelism", "pp_schedule");
  f.v = has("parallelism", "virtual_stages");
  f.zero = has("parallelism", "zero");
  f.mb = has("training", "micro_batch");
  f.rc = has("training", "recompute");
  f.prefill = has("inference", "prefill_tp");
  f.batching = has("inference", "batching") || has("inference", "token_budget");
  return f;
}

// What a plan misses by: the largest of memory / capacity and, for serving,
// TTFT and TPOT over their bounds (1 or less: feasible).
struct Miss {
  double memory = 0, ttft = 0, tpot = 0;
  double worst() const { return std::max({memory, ttft, tpot}); }
};

struct Counters {
  long long evaluated = 0, feasible = 0, limit = 0;
  long long host_short = 0;  // plans that fit the GPUs but offload more than the host holds
  bool truncated = false;
  // The infeasible plan that misses by the least, shown when none is feasible.
  std::optional<Candidate> closest;
  Miss closest_miss;
  // A plan without prefill instances first (the simpler plan to show; it is
  // always tried unless the scenario fixes prefill_tp), then the least miss,
  // then the better plan.
  void near_miss(const Candidate& c, const Miss& m) {
    auto key = [](const Candidate& x, const Miss& mx) { return std::make_tuple(x.prefill_tp != 0, mx.worst()); };
    if (!closest || key(c, m) < key(*closest, closest_miss) ||
        (key(c, m) == key(*closest, closest_miss) && better(c, *closest))) {
      closest = c;
      closest_miss = m;
    }
  }
};

bool consistent(const Scenario& s) { return !find_inconsistency(s).has_value(); }

// (schedule, virtual stages) choices for a pipeline of pp stages.
std::vector<std::pair<PipeSchedule, int>> schedules(const Scenario& s, const Fixed& f, int pp) {
  std::vector<std::pair<PipeSchedule, int>> out;
  const Parallelism& b = s.par;
  auto want = [&](PipeSchedule k) { return f.sched ? b.schedule == k : (pp > 1 || k == PipeSchedule::one_f_one_b); };
  if (want(PipeSchedule::one_f_one_b) && (!f.v || b.virtual_stages == 1)) out.push_back({PipeSchedule::one_f_one_b, 1});
  if (want(PipeSchedule::gpipe) && (!f.v || b.virtual_stages == 1)) out.push_back({PipeSchedule::gpipe, 1});
  // Zero-bubble schedules and DualPipe only when the scenario names one: the search
  // explores the schedules Megatron-Core runs.
  for (PipeSchedule named : {PipeSchedule::zb_h1, PipeSchedule::dualpipe})
    if (f.sched && b.schedule == named && (!f.v || b.virtual_stages == 1)) out.push_back({named, 1});
  if (want(PipeSchedule::interleaved)) {
    // Megatron interleaving: v > 1 chunks, the layers (or the layers with the
    // embedding and the loss as two more units) divisible by pp x v. The
    // scenario's own v is kept even where the chunks are uneven (the
    // calculator evaluates it), so that its own plan is among those searched.
    if (f.v) {
      // (v 1 is 1f1b's plan unless the scenario names interleaved)
      if (b.virtual_stages > 1 || f.sched) out.push_back({PipeSchedule::interleaved, b.virtual_stages});
    }
    else
      for (int v = 2; 1LL * pp * v <= s.model.layers + 2LL; ++v)
        if (s.model.layers % (pp * v) == 0 || (s.model.layers + 2) % (pp * v) == 0)
          out.push_back({PipeSchedule::interleaved, v});
  }
  return out;
}

template <typename T>
std::vector<T> one_or(bool fixed, T value, std::vector<T> all) {
  return fixed ? std::vector<T>{value} : all;
}

// Costs one training plan and files it: feasible, a near miss on memory, or
// short of host memory; false once the evaluation limit is reached.
bool try_training_plan(FastTraining& fast, const Parallelism& p, int mb, Recompute rc, double capacity, Collector& col,
                       Counters& n) {
  if (n.evaluated >= n.limit) {
    n.truncated = true;
    return false;
  }
  const FastTrainingResult r = fast.evaluate(p, mb, rc);
  ++n.evaluated;
  Candidate c;
  c.par = p, c.micro_batch = mb, c.rc = rc, c.time = r.iteration_time_s;
  c.memory = r.memory.total, c.score = r.iteration_time_s;
  // Kept apart by the kind whose caution is the plan's own: a ZeRO-3 plan of
  // another kind is kept with the fully sharded ones (plan_regimes).
  const Regime* also = p.zero >= 3 ? also_regime_of_plan(fast.base(), p) : nullptr;
  c.kind = (also ? *also : regime_of_plan(fast.base(), p)).id;
  if (!(r.memory.total <= capacity)) {
    n.near_miss(c, {r.memory.total / capacity});
  } else if (host_short(r.memory)) {  // offloads more than the host holds
    ++n.host_short;
  } else {
    ++n.feasible;
    col.offer(c);
  }
  return true;
}

// Per layout the search tries micro-batches, recompute and ZeRO stages
// (and sequence parallelism): one value each where the scenario fixes it.
struct PlanChoices {
  std::vector<int> micro_batches;
  std::vector<Recompute> recomputes;
  std::vector<int> zeros;
};

PlanChoices plan_choices(const Scenario& base, const Fixed& f) {
  PlanChoices c;
  for (int mb = 1; mb <= 16; mb *= 2) c.micro_batches.push_back(mb);
  c.micro_batches = one_or(f.mb, base.train.micro_batch, c.micro_batches);
  // With FlashAttention, Megatron's selective recompute (the attention core)
  // is what the fused kernel already does: the same plan as none, listed once.
  c.recomputes = one_or(f.rc, base.train.recompute,
                        base.train.flash_attention ? std::vector<Recompute>{Recompute::none, Recompute::full}
                                                   : std::vector<Recompute>{Recompute::none, Recompute::selective, Recompute::full});
  c.zeros = one_or(f.zero, base.par.zero, {0, 1, 2, 3});
  return c;
}

// Every plan of one layout (degrees, schedule); false at the limit.
bool search_layout(const Scenario& base, const Fixed& f, Parallelism p, const PlanChoices& choices, double capacity,
                   FastTraining& fast, Collector& col, Counters& n) {
  Scenario chk = base;
  chk.par = p;
  for (int mb : choices.micro_batches) {
    chk.train.micro_batch = mb;
    // Megatron's interleaved schedule runs whole groups of pp micro-batches
    // (evaluate.cpp warns otherwise, and fewer than pp leave most of the
    // pipeline idle): the search offers no other, unless the scenario names
    // both the schedule and the micro-batch.
    if (p.schedule == PipeSchedule::interleaved && !(f.sched && f.mb) && microbatches_per_replica(chk.train, p) % p.pp != 0)
      continue;
    std::vector<int> zeros;  // the stages this plan allows (parameter offload needs 3, dualpipe at most 2)
    for (int z : choices.zeros) {
      chk.par.zero = z;
      if (consistent(chk)) zeros.push_back(z);
    }
    // With expert and tensor parallelism both, Megatron-Core runs sequence
    // parallelism only (evaluate.cpp warns otherwise).
    const std::vector<bool> sps = p.tp == 1 ? std::vector<bool>{false}
                                  : p.ep > 1 ? std::vector<bool>{true}
                                             : std::vector<bool>{false, true};
    for (bool sp : one_or(f.sp, base.par.sp, sps)) {
      p.sp = sp;
      for (Recompute rc : choices.recomputes)
        for (int z : zeros) {
          // Pipelines run ZeRO 1 at most (DeepSpeed's pipeline engine refuses 2-3;
          // Megatron-Core's run its distributed optimizer), unless the scenario names it.
          if (!f.zero && p.pp > 1 && z >= 2) continue;
          p.zero = z;
          if (!try_training_plan(fast, p, mb, rc, capacity, col, n)) return false;
        }
    }
  }
  return true;
}

// Expert tensor parallelism of an expert-parallel plan: the scenario's, or
// the default (0: the attention's tp where ep divides dp x cp, else 1) and,
// where that default splits the experts tp ways, etp 1 beside it, each rank
// running whole experts on its sequence-parallel tokens. Megatron-Core's MoE
// parallel folding sets the experts' tp apart from the attention's (Liu et
// al. 2025, arXiv 2504.14960); the published Qwen3-235B-A22B run (tp 2,
// ep 32 over 32 tp x dp ranks, tests/validation/public) runs etp 1.
std::vector<int> expert_tp_options(const Scenario& base, const Fixed& f, long long tp, long long dp_cp, long long ep) {
  if (f.etp) return {base.par.etp};
  if (!base.model.is_moe() || tp == 1 || ep == 1 || dp_cp % ep != 0) return {0};
  return {0, 1};
}

// Training: every valid (tp, cp, pp, dp, ep, schedule, micro-batch, sp,
// recompute, zero) with tp x cp x pp x dp = gpus; ranked by iteration time.
void search_training(const Scenario& base, const SearchSpec& spec, const Fixed& f, long long gpus, Collector& col,
                     Counters& n) {
  FastTraining fast(base);
  const double capacity = spec.memory_share * base.system.device.dram().capacity_bytes;
  const PlanChoices choices = plan_choices(base, f);
  for (long long tp : divisors(gpus)) {
    if (f.tp && tp != base.par.tp) continue;
    for (long long cp : divisors(gpus / tp)) {
      if (f.cp && cp != base.par.cp) continue;
      for (long long pp : divisors(gpus / tp / cp)) {
        const long long dp = gpus / tp / cp / pp;
        if ((f.pp && pp != base.par.pp) || (f.dp && dp != base.par.dp) || pp > base.model.layers) continue;
        std::vector<long long> eps{1};
        // Expert parallelism may span the tp ranks too (Megatron-Core MoE
        // parallel folding, expert tp 1 where ep does not divide dp x cp).
        if (base.model.is_moe()) eps = divisors(std::min(tp * dp * cp, static_cast<long long>(base.model.moe.experts)));
        for (long long ep : one_or(f.ep, static_cast<long long>(base.par.ep), eps))
          for (int etp : expert_tp_options(base, f, tp, cp * dp, ep))
            for (const auto& [sched, v] : schedules(base, f, static_cast<int>(pp))) {
              Parallelism p = base.par;
              p.zero_shard = 0;  // the search explores fully sharded plans
              p.tp = static_cast<int>(tp), p.cp = static_cast<int>(cp), p.pp = static_cast<int>(pp);
              p.dp = static_cast<int>(dp), p.ep = static_cast<int>(ep), p.etp = etp;
              p.schedule = sched, p.virtual_stages = v;
              if (!search_layout(base, f, p, choices, capacity, fast, col, n)) return;
            }
      }
    }
  }
}

// By how much a serving plan misses: its memory (and its prefill
// instance's, when disaggregated) against the share of the device's the
// search allows, its latencies against the bounds (at a share of 1, memory
// <= 1 is the model's fits, inference.cpp).
Miss serving_miss(const InferenceResult& r, const SearchSpec& spec) {
  auto share = [&](const InferenceMemory& mem) { return mem.capacity > 0 ? mem.total / (spec.memory_share * mem.capacity) : 0.0; };
  Miss m;
  m.memory = share(r.memory);
  if (r.disaggregated) m.memory = std::max(m.memory, share(r.prefill_pool.memory));
  if (spec.max_ttft_s > 0) m.ttft = r.ttft_s / spec.max_ttft_s;
  if (spec.max_tpot_s > 0) m.tpot = r.tpot_s / spec.max_tpot_s;
  return m;
}

// Costs one serving plan at batch b and files it: feasible (within the
// bounds), or a near miss; false once the evaluation budget is spent.
// `budget`: the chunked prefill the search set (-1: the scenario's batching).
bool try_serving_plan(Scenario& s, const SearchSpec& spec, int b, int budget, Collector& col, Counters& n) {
  if (n.evaluated >= n.limit) {
    n.truncated = true;
    return false;
  }
  s.infer.batch = b;
  if (!consistent(s)) return true;
  pick_moe_gemm(s);
  const InferenceResult r = evaluate_inference(s);
  ++n.evaluated;
  Candidate c;
  c.par = s.par, c.batch = b, c.time = r.e2e_latency_s, c.memory = r.memory.total;
  c.prefill_tp = s.infer.prefill_tp;
  c.token_budget = budget;
  c.score = -r.output_tokens_per_s / r.replica_gpus;  // with disaggregation, prefill instances included
  c.user_rate = r.tpot_s > 0 ? r.tokens_per_step / r.tpot_s : 0;
  c.kind = regime_of(s).id;
  const Miss miss = serving_miss(r, spec);
  if (!(miss.worst() <= 1)) {
    n.near_miss(c, miss);
    return true;
  }
  ++n.feasible;
  col.offer(c);
  return true;
}

// The token budget of a colocated plan that runs in-flight batching with
// chunked prefill at concurrency b: in the steady state (evaluate_chunked,
// inference.cpp) a step carries b (P + O - 1) / O tokens, and a budget
// that holds them leaves all b sequences in flight; a smaller one only
// lowers the concurrency, which a smaller batch limit searches already.
// Budgets are set in powers of two (vLLM's max_num_batched_tokens 2048 or
// 8192, TensorRT-LLM's max_num_tokens 8192 by default); the smallest that
// holds the step, at least 512, names the plan (a larger one gives the same).
// 0 past 2^22 tokens, the most inference.token_budget takes (schema.cpp):
// the plan would not read back.
int chunk_budget(const Inference& in, int b) {
  const double P = in.input_tokens - in.shared_prefix_tokens, O = std::max(1, in.output_tokens);
  const double per_step = b * (P + O - 1) / O;
  constexpr double kMost = 1 << 22;
  double budget = 512;
  while (budget < per_step && budget < kMost) budget *= 2;
  return budget < per_step ? 0 : static_cast<int>(budget);
}

// Every batch of one serving plan (powers of two up to the largest that
// fits, or the one given) under the latency bounds, ranked by output tokens/s
// per GPU; with `chunked_too` (colocated, the scenario leaving the batching
// out) each batch of two or more again under in-flight batching with
// chunked prefill (Sarathi-Serve, Agrawal et al. 2024), the way a colocated
// fleet keeps its first tokens quick. False once the evaluation budget is spent.
bool offer_batches(Scenario& s, const SearchSpec& spec, const Fixed& f, int given_batch, bool chunked_too, Collector& col,
                   Counters& n) {
  const long long max_batch = largest_batch(s);
  std::vector<int> batches;
  if (f.batch) batches.push_back(given_batch);
  else
    for (long long b = 1; b <= std::min<long long>(max_batch, 1 << 16); b *= 2) batches.push_back(static_cast<int>(b));
  if (batches.empty()) batches.push_back(1);  // costed to say by how much it misses
  const Inference own = s.infer;
  for (int b : batches) {
    if (!try_serving_plan(s, spec, b, -1, col, n)) return false;
    const int budget = chunked_too && b >= 2 ? chunk_budget(s.infer, b) : 0;
    if (budget == 0) continue;
    s.infer.inflight = true;
    s.infer.token_budget = budget;
    const bool more = try_serving_plan(s, spec, b, budget, col, n);
    s.infer.inflight = own.inflight, s.infer.token_budget = own.token_budget;
    if (!more) return false;
  }
  return true;
}

// Prefill placements: the one given, or colocated and disaggregated onto
// instances of each tensor-parallel width a node holds (the searched GPUs are
// the decode instances'; prefill instances come on top, counted per GPU).
std::vector<int> prefill_options(const Scenario& base, const Fixed& f) {
  if (f.prefill) return {base.infer.prefill_tp};
  std::vector<int> out{0};
  for (long long d : divisors(base.system.gpus_per_node)) out.push_back(static_cast<int>(d));
  return out;
}

// Inference: tp, pp (dp = the rest of the GPUs), for MoE models ep (the
// divisors of the experts that fold into tp x dp: inside the tp group or
// across replicas), the prefill placement, then the batches (colocated, also
// with chunked prefill where the scenario leaves the batching out).
void search_inference(const Scenario& base, const SearchSpec& spec, const Fixed& f, long long gpus, Collector& col,
                      Counters& n) {
  Scenario s = base;
  GemmMemo gemms;  // the plans' GEMM shapes recur (batches, ep, prefill placements)
  const GemmMemoScope gemm_scope(gemms, s.system.device);
  const std::vector<int> prefills = prefill_options(base, f);
  for (long long tp : divisors(gpus)) {
    if (f.tp && tp != base.par.tp) continue;
    for (long long pp : divisors(gpus / tp)) {
      const long long dp = gpus / tp / pp;
      if ((f.pp && pp != base.par.pp) || (f.dp && dp != base.par.dp) || pp > base.model.layers) continue;
      const long long eps = base.model.is_moe() ? std::gcd(tp * dp, 1LL * base.model.moe.experts) : 1;
      for (long long ep : divisors(eps)) {
        if (f.ep && ep != base.par.ep) continue;
        s.par = base.par;
        s.par.tp = static_cast<int>(tp), s.par.pp = static_cast<int>(pp), s.par.dp = static_cast<int>(dp);
        s.par.cp = 1, s.par.ep = static_cast<int>(ep);
        for (int prefill_tp : prefills) {
          s.infer.prefill_tp = prefill_tp;
          if (!consistent(s)) continue;
          const bool chunked_too = prefill_tp == 0 && !f.batching;
          if (!offer_batches(s, spec, f, base.infer.batch, chunked_too, col, n)) return;
        }
      }
    }
  }
}

// The plan that misses by the least, with what it misses: "memory"
// (memory_bytes_total over memory_share x capacity_bytes), "ttft", "tpot"
// (over the bounds).
json closest_json(const Scenario& base, const SearchSpec& spec, const Candidate& c, const Miss& m) {
  json j = entry_json(base, c);
  j["capacity_bytes"] = base.system.device.dram().capacity_bytes;
  j["memory_share"] = spec.memory_share;
  json misses = json::array();
  if (m.memory > 1) misses.push_back("memory");
  if (m.ttft > 1) misses.push_back("ttft");
  if (m.tpot > 1) misses.push_back("tpot");
  j["misses"] = misses;
  if (spec.max_ttft_s > 0) j["max_ttft_s"] = spec.max_ttft_s;
  if (spec.max_tpot_s > 0) j["max_tpot_s"] = spec.max_tpot_s;
  return j;
}

}  // namespace

const char* ranked_metric(Mode mode) {
  return mode == Mode::training ? "training.iteration_time_s" : "inference.output_tokens_per_s";
}

json search_scenario(const json& input, long long max_configs) {
  const auto start = std::chrono::steady_clock::now();
  const SearchSpec spec = parse_search_request(input);
  const Scenario base = parse_scenario(input);
  const Fixed f = fixed_fields(input, spec.whole_plan);
  const long long gpus = spec.gpus > 0 ? spec.gpus : base.par.gpus();
  Collector col(static_cast<size_t>(spec.top));
  Counters n;
  n.limit = max_configs;
  if (base.mode == Mode::training)
    search_training(base, spec, f, gpus, col, n);
  else
    search_inference(base, spec, f, gpus, col, n);
  json best = json::array(), front = json::array();
  for (const Candidate& c : col.best()) best.push_back(entry_json(base, c));
  for (const Candidate& c : col.front(100)) front.push_back(entry_json(base, c));
  json serving = json::array();  // empty for training
  for (const Candidate& c : col.serving_front(100)) serving.push_back(entry_json(base, c));
  // The colocated plans' front, where the whole front is not already theirs:
  // the gap between the two is what disaggregated prefill buys.
  json colocated = json::array();
  if (std::any_of(serving.begin(), serving.end(), [](const json& e) { return e.contains("prefill_instances"); }))
    for (const Candidate& c : col.colocated_front(100)) colocated.push_back(entry_json(base, c));
  const long long recommended = best.empty() ? -1 : recommend_trusted_kind(base, col, ranked_metric(base.mode), best);
  // unit_name: the word the system counts its devices in ("GPU", a TPU's "chip"), for the tables and charts.
  json out = {{"evaluated", n.evaluated}, {"feasible", n.feasible}, {"gpus", gpus},
              {"unit_name", base.system.device.unit_name},
              {"best", best}, {"pareto", front}, {"serving_front", serving}, {"serving_front_colocated", colocated},
              {"truncated", n.truncated}, {"host_short", n.host_short},
              {"accuracy", regimes_of(best, base)}};
  if (n.truncated) out["limit"] = n.limit;
  if (recommended >= 0) out["recommended"] = recommended;
  if (n.feasible == 0) {
    const bool bounded = base.mode == Mode::inference && (spec.max_ttft_s > 0 || spec.max_tpot_s > 0);
    char fits[48] = "fits in memory";  // or in the share search.memory_share allows
    if (spec.memory_share < 1) std::snprintf(fits, sizeof fits, "fits in %.0f%% of the memory", 100 * spec.memory_share);
    const std::string what = bounded ? std::string(spec.memory_share < 1 ? fits : "fits") + " and meets the latency bounds" : fits;
    const std::string on = " on " + units_text(base.system.device.unit_name, static_cast<double>(gpus));
    // Nothing evaluated: the inputs the scenario fixes leave no valid plan.
    out["warnings"] = json::array({n.evaluated == 0 ? "no valid configuration" + on +
                                                          " keeps the parallelism and batch inputs the scenario gives; leave "
                                                          "out those the search should choose (search.vary \"plan\": all)"
                                                    : "no configuration " + what + on});
    if (n.closest) out["closest"] = closest_json(base, spec, *n.closest, n.closest_miss);
    if (spec.more_gpus && n.evaluated > 0) {
      json more = more_gpus_walk(input, base, spec, gpus, n.limit);
      if (!more.is_null()) out["more_gpus"] = std::move(more);
    }
  }
  // the walk up to more GPUs included
  out["elapsed_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return {{"search", out}};
}

}  // namespace llmcalc
