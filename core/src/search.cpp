// Parallelism search. FastTraining re-composes the training model of
// training.cpp (iteration time) and memory.cpp (footprint) from cached
// parts; every formula below is the one of those files, cited by function.
#include "search.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <queue>
#include <unordered_map>

#include "inference.h"
#include "model_math.h"
#include "output.h"
#include "parse.h"
#include "training.h"
#include "workload.h"

namespace llmcalc {

namespace {

// ---- Parts of training.cpp (same formulas; see the functions named) ----

bool is_fp32(Precision p) { return p == Precision::fp32 || p == Precision::tf32; }

// training.cpp PassTime: per micro-batch times of a group of ops.
struct PassTime {
  double compute = 0, attention = 0, tp = 0, cp = 0, ep = 0;
  void add(const Op& op) {
    const double t = op.cost.time_s * 1;
    if (op.kind != OpKind::comm) {
      compute += t;
      if (op.kind == OpKind::attention || op.name.rfind("attn.scores", 0) == 0 || op.name.rfind("attn.context", 0) == 0 ||
          op.name.rfind("attn.softmax", 0) == 0 || op.name.rfind("attn.dropout", 0) == 0)
        attention += t;
    } else if (op.comm_axis == "tp") {
      tp += t;
    } else if (op.comm_axis == "ep") {
      ep += t;
    } else if (op.comm_axis == "cp") {
      cp += t;
    }
  }
};

struct LayerParts {
  PassTime fwd, bwd, rec;
};

// training.cpp training_pass(): groups in Megatron-Core order tp, cp, ep, dp, pp.
LayerPass training_pass(const Scenario& s, bool moe_layer) {
  const Training& t = s.train;
  LayerPass p;
  p.batch = t.micro_batch;
  p.q_len = t.seq_len / static_cast<double>(s.par.cp);
  p.kv_len = t.seq_len;
  p.causal = true;
  p.tp = s.par.tp;
  p.sp = s.par.sp && s.par.tp > 1;
  p.flash = t.flash_attention;
  p.dropout = s.model.dropout;
  p.moe_layer = moe_layer;
  p.ep = s.par.ep;
  p.math = t.precision;
  p.attn_math = t.precision == Precision::fp8 ? Precision::bf16 : t.precision;
  p.act_bytes = is_fp32(t.precision) ? 4 : 2;
  p.weight_bytes = bytes_per_element(t.precision == Precision::tf32 ? Precision::fp32 : t.precision);
  p.gemm_act_bytes = p.weight_bytes;
  p.kv_bytes = p.act_bytes;
  p.tp_group = {s.par.tp, 1, s.par.gpus()};
  p.ep_group = {s.par.ep, s.par.tp, s.par.gpus()};
  return p;
}

bool is_attention_core(const std::string& name) {
  return name.rfind("attn.scores", 0) == 0 || name.rfind("attn.softmax", 0) == 0 ||
         name.rfind("attn.dropout", 0) == 0 || name.rfind("attn.context", 0) == 0 || name.rfind("attn.flash", 0) == 0;
}

// training.cpp cp_exchange(): ring attention moves K and V blocks.
OpSpec cp_exchange(const Scenario& s, double factor) {
  const double kvd = std::max(1.0, s.model.kv_heads / static_cast<double>(s.par.tp)) * s.model.head_dim;
  OpSpec c;
  c.name = "attn.cp_kv_exchange";
  c.kind = OpKind::comm;
  c.coll = Collective::p2p;
  c.group = {s.par.cp, s.par.tp, s.par.gpus()};
  c.comm_axis = "cp";
  c.bytes = factor * 2 * s.train.micro_batch * (s.train.seq_len / static_cast<double>(s.par.cp)) * kvd * 2;
  return c;
}

// training.cpp layer_times().
LayerParts layer_parts(const Scenario& s, bool moe_layer) {
  LayerParts lt;
  std::vector<OpSpec> fwd = layer_forward(s.model, training_pass(s, moe_layer));
  if (s.train.precision == Precision::fp8) add_input_casts(fwd, 4);
  const Recompute rc = s.train.recompute;
  for (const OpSpec& f : fwd) {
    lt.fwd.add(cost_op(s.system, f, "fwd", 1));
    if (rc == Recompute::full || (rc == Recompute::selective && !s.train.flash_attention && is_attention_core(f.name)))
      lt.rec.add(cost_op(s.system, f, "recompute", 1));
    for (const OpSpec& b : backward_of(f)) lt.bwd.add(cost_op(s.system, b, "bwd", 1));
  }
  if (s.par.cp > 1) {
    const Op f = cost_op(s.system, cp_exchange(s, s.par.cp - 1), "fwd", 1);
    const Op b = cost_op(s.system, cp_exchange(s, 2.0 * (s.par.cp - 1)), "bwd", 1);
    lt.fwd.cp += std::max(0.0, f.cost.time_s - lt.fwd.attention);
    lt.bwd.cp += std::max(0.0, b.cost.time_s - lt.bwd.attention);
  }
  return lt;
}

// training.cpp edge_ops(): embedding on the first stage; LM head and
// cross-entropy on the last; forward and backward folded together.
double edge_compute(const Scenario& s, bool first, bool last) {
  PassTime t;
  const Model& m = s.model;
  const double tokens = s.train.micro_batch * s.train.seq_len / static_cast<double>(s.par.cp);
  const LayerPass pass = training_pass(s, false);
  std::vector<OpSpec> list;
  if (first) {
    OpSpec e;
    e.name = "embedding";
    e.bytes = 2 * tokens * m.hidden * pass.act_bytes;
    list.push_back(e);
  }
  if (last) {
    OpSpec head;
    head.name = "lm_head";
    head.kind = OpKind::gemm;
    head.gemm = {tokens, m.vocab / static_cast<double>(s.par.tp), static_cast<double>(m.hidden), 1,
                 pass.gemm_act_bytes, pass.weight_bytes, pass.act_bytes, pass.math};
    list.push_back(head);
    OpSpec ce;
    ce.name = "cross_entropy";
    ce.bytes = tokens * m.vocab / static_cast<double>(s.par.tp) * (pass.act_bytes + 4);
    ce.flops = 5 * tokens * m.vocab / static_cast<double>(s.par.tp);
    list.push_back(ce);
  }
  for (const OpSpec& spec : list) {
    t.add(cost_op(s.system, spec, "fwd", 1));
    for (const OpSpec& b : backward_of(spec)) t.add(cost_op(s.system, b, "bwd", 1));
  }
  return t.compute;
}

// Data-parallel collectives and the optimizer step of one stage (training.cpp).
struct DpParts {
  double reduce = 0, bucket_reduce = 0, gather = 0, bucket_gather = 0, optimizer = 0;
};

// Cache keys: a handful of integers (and a double's bits).
using Key = std::array<long long, 7>;
struct KeyHash {
  size_t operator()(const Key& k) const {
    unsigned long long h = 1469598103934665603ULL;
    for (long long v : k) h = (h ^ static_cast<unsigned long long>(v)) * 1099511628211ULL;
    return static_cast<size_t>(h ^ (h >> 29));
  }
};
template <typename V>
struct Memo {
  std::unordered_map<Key, V, KeyHash> map;
  Key last_key{};
  const V* last = nullptr;
  template <typename F>
  const V& get(const Key& k, F&& make) {
    if (last && k == last_key) return *last;
    auto it = map.find(k);
    if (it == map.end()) it = map.emplace(k, make()).first;
    last_key = k;
    last = &it->second;
    return *last;
  }
};

long long bits_of(double d) {
  long long b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}

}  // namespace

struct FastTraining::Impl {
  Scenario s;  // scratch: par and train change per call
  Memo<LayerParts> dense, moe;
  Memo<double> edge, hop;
  Memo<StageParamsPair> stages;
  Memo<DpParts> dp;

  const LayerParts& layers(bool moe_layer) {
    const Parallelism& p = s.par;
    const Key k{p.tp, p.sp && p.tp > 1, p.cp, p.ep, s.train.micro_batch, static_cast<long long>(s.train.recompute),
                p.gpus()};
    return (moe_layer ? moe : dense).get(k, [&] { return layer_parts(s, moe_layer); });
  }
  double edge_time(bool first, bool last) {
    const Key k{s.par.tp, s.par.cp, s.train.micro_batch, first, last, s.par.gpus(), 0};
    return edge.get(k, [&] { return edge_compute(s, first, last); });
  }
  const StageParamsPair& cached_stage_params() {
    const Parallelism& p = s.par;
    return stages.get(Key{p.tp, p.ep, p.pp, 0, 0, 0, 0}, [&] { return stage_params(s.model, p); });
  }
  TrainingMemory memory(long long microbatches) { return most_loaded_stage(s, cached_stage_params(), microbatches); }
  const DpParts& dp_parts(double params);
};

// training.cpp: DP reduction (+ ZeRO gathers) and the optimizer step.
const DpParts& FastTraining::Impl::dp_parts(double params) {
  const Parallelism& p = s.par;
  const Group dpg{1LL * p.dp * p.cp, p.tp, p.gpus()};
  const long long zclass = p.zero >= 3 ? 3 : p.zero >= 1 ? 1 : 0;
  return dp.get(Key{dpg.size, dpg.stride, zclass, bits_of(params), dpg.ranks, 0, 0}, [&] {
    DpParts d;
    const double grad_bytes = params * 4, weight_bytes = params * 2;
    if (dpg.size > 1) {
      const double bucket = std::min(params, std::max(4e7, 1e6 * static_cast<double>(dpg.size)));
      const Collective rc = zclass >= 1 ? Collective::reduce_scatter : Collective::all_reduce;
      d.reduce = collective_time(s.system, rc, dpg, grad_bytes);
      d.bucket_reduce = collective_time(s.system, rc, dpg, bucket * 4);
      if (zclass >= 1) {
        d.gather = collective_time(s.system, Collective::all_gather, dpg, weight_bytes);
        d.bucket_gather = collective_time(s.system, Collective::all_gather, dpg, bucket * 2);
      }
    }
    const double local_params = zclass >= 1 ? params / static_cast<double>(dpg.size) : params;
    const double opt_bytes = local_params * (s.train.optimizer == Optimizer::adam ? 46 : 38);
    d.optimizer = elementwise_cost(s.system.device, opt_bytes, local_params * 12, Precision::fp32).time_s;
    return d;
  });
}

FastTraining::FastTraining(const Scenario& base) : impl_(std::make_unique<Impl>()) {
  impl_->s = base;
  impl_->s.mode = Mode::training;
}
FastTraining::~FastTraining() = default;
const Scenario& FastTraining::base() const { return impl_->s; }

// training.cpp evaluate_training(), the iteration-time composition.
FastTrainingResult FastTraining::evaluate(const Parallelism& par, int micro_batch, Recompute rc) {
  Impl& I = *impl_;
  I.s.par = par;
  I.s.train.micro_batch = micro_batch;
  I.s.train.recompute = rc;
  const Scenario& s = I.s;
  const Model& m = s.model;
  const Training& t = s.train;
  FastTrainingResult out;
  const long long mb = t.global_batch / (1LL * t.micro_batch * par.dp);
  const double layers = stage_layout(m, par).max_layers;
  const LayerParts& dense = I.layers(false);
  const bool has_moe = m.is_moe();
  const LayerParts& moe = has_moe ? I.layers(true) : dense;
  const double moe_frac = has_moe ? (m.layers - m.moe.dense_layers) / static_cast<double>(m.layers) : 0.0;
  auto per_stage = [&](double PassTime::*field, PassTime LayerParts::*pass) {
    return layers * ((1 - moe_frac) * (dense.*pass).*field + moe_frac * (has_moe ? (moe.*pass).*field : 0.0));
  };
  const double first_edge = I.edge_time(true, par.pp == 1);
  const double last_edge = par.pp > 1 ? I.edge_time(false, true) : 0.0;
  const double edge = std::max(first_edge, last_edge);
  const bool exposed_tp = !t.overlap.tp;
  const double F = per_stage(&PassTime::compute, &LayerParts::fwd);
  const double B = per_stage(&PassTime::compute, &LayerParts::bwd) + edge;
  const double R = per_stage(&PassTime::compute, &LayerParts::rec);
  const double TP = exposed_tp ? per_stage(&PassTime::tp, &LayerParts::fwd) + per_stage(&PassTime::tp, &LayerParts::bwd) +
                                     per_stage(&PassTime::tp, &LayerParts::rec)
                               : 0.0;
  const double CP = per_stage(&PassTime::cp, &LayerParts::fwd) + per_stage(&PassTime::cp, &LayerParts::bwd);
  const double EP = per_stage(&PassTime::ep, &LayerParts::fwd) + per_stage(&PassTime::ep, &LayerParts::bwd) +
                    per_stage(&PassTime::ep, &LayerParts::rec);
  const double per_mb = F + B + R + TP + CP + EP;
  TimeBreakdown& bd = out.breakdown;
  const double dmb = static_cast<double>(mb);
  bd.compute = dmb * (F + B);
  bd.recompute = dmb * R;
  bd.tp_comm = dmb * TP;
  bd.cp_comm = dmb * CP;
  bd.ep_comm = dmb * EP;
  // Bubble (p-1)/v micro-batch slots (Narayanan et al. 2021 §2.2).
  const double v = par.schedule == PipeSchedule::interleaved ? par.virtual_stages : 1;
  bd.pp_bubble = (par.pp - 1) / v * per_mb;
  if (par.pp > 1) {
    const double act = t.micro_batch * (t.seq_len / static_cast<double>(par.cp)) * m.hidden * 2.0 /
                       (par.sp && par.tp > 1 ? par.tp : 1);
    const Group g{par.pp, 1LL * par.tp * par.cp * par.dp, par.gpus()};
    const double hop = I.hop.get(Key{g.size, g.stride, bits_of(act), g.ranks, 0, 0, 0},
                                 [&] { return collective_time(s.system, Collective::p2p, g, act); });
    bd.pp_comm = t.overlap.pp ? 2.0 * (par.pp - 1) * hop : dmb * 2.0 * v * hop;
  }
  out.memory = I.memory(mb);
  const DpParts& d = I.dp_parts(out.memory.params_on_gpu);
  const double last_bwd = B + R + TP;
  if (par.zero >= 3 && 1LL * par.dp * par.cp > 1) {
    // ZeRO-3 / FSDP: per micro-batch gathers (fwd, bwd) and reduce-scatter,
    // prefetched layer by layer; the first layer's share shows.
    const double first = d.gather / std::max(1.0, layers);
    const double fwd_exposed = std::max(first, d.gather - F);
    const double bwd_exposed = std::max(first + d.reduce / std::max(1.0, layers), d.gather + d.reduce - last_bwd);
    bd.dp_comm = t.overlap.dp ? dmb * (fwd_exposed + bwd_exposed) : dmb * (2 * d.gather + d.reduce);
  } else {
    bd.dp_comm = t.overlap.dp ? std::max(d.bucket_reduce, d.reduce - last_bwd) + std::max(d.bucket_gather, d.gather - F)
                              : d.reduce + d.gather;
  }
  bd.optimizer = d.optimizer;
  out.iteration_time_s = bd.total();
  return out;
}

// ---- The search ----

namespace {

json parallelism_json_impl(const Parallelism& p) {
  const char* sched = p.schedule == PipeSchedule::gpipe ? "gpipe" : p.schedule == PipeSchedule::interleaved ? "interleaved" : "1f1b";
  return {{"tp", p.tp}, {"pp", p.pp}, {"dp", p.dp}, {"cp", p.cp}, {"ep", p.ep}, {"sp", p.sp},
          {"pp_schedule", sched}, {"virtual_stages", p.virtual_stages}, {"zero", p.zero}};
}

const char* recompute_name(Recompute r) {
  return r == Recompute::none ? "none" : r == Recompute::selective ? "selective" : "full";
}

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

// Which parallelism / training fields the input gives (and so stay fixed).
struct Fixed {
  bool tp = false, pp = false, dp = false, cp = false, ep = false, sp = false, sched = false, v = false, zero = false;
  bool mb = false, rc = false, batch = false;
};
Fixed fixed_fields(const json& in) {
  Fixed f;
  auto has = [&](const char* sec, const char* key) {
    return in.contains(sec) && in.at(sec).is_object() && in.at(sec).contains(key);
  };
  f.tp = has("parallelism", "tp");
  f.pp = has("parallelism", "pp");
  f.dp = has("parallelism", "dp");
  f.cp = has("parallelism", "cp");
  f.ep = has("parallelism", "ep");
  f.sp = has("parallelism", "sp");
  f.sched = has("parallelism", "pp_schedule");
  f.v = has("parallelism", "virtual_stages");
  f.zero = has("parallelism", "zero");
  f.mb = has("training", "micro_batch");
  f.rc = has("training", "recompute");
  f.batch = has("inference", "batch");
  return f;
}

struct Candidate {
  Parallelism par;
  int micro_batch = 1;
  Recompute rc = Recompute::none;
  int batch = 1;       // inference
  double time = 0;     // iteration time (training) or e2e latency (inference)
  double memory = 0;   // bytes per GPU, the most loaded one
  double score = 0;    // ranking key, lower is better
};
bool better(const Candidate& a, const Candidate& b) {
  return a.score < b.score || (a.score == b.score && a.memory < b.memory);
}

// The best `top` candidates and the time-memory Pareto front, both bounded.
class Collector {
 public:
  explicit Collector(size_t top) : top_(top) {}
  void offer(const Candidate& c) {
    if (heap_.size() < top_) {
      heap_.push_back(c);
      std::push_heap(heap_.begin(), heap_.end(), better);
    } else if (better(c, heap_.front())) {
      std::pop_heap(heap_.begin(), heap_.end(), better);
      heap_.back() = c;
      std::push_heap(heap_.begin(), heap_.end(), better);
    }
    pareto(c);
  }
  std::vector<Candidate> best() const {
    std::vector<Candidate> v = heap_;
    std::sort(v.begin(), v.end(), better);
    return v;
  }
  // At most `cap` points of the front, evenly spread, ends kept.
  std::vector<Candidate> front(size_t cap) const {
    std::vector<Candidate> all;
    for (const auto& kv : front_) all.push_back(kv.second);
    if (all.size() <= cap) return all;
    std::vector<Candidate> out;
    for (size_t i = 0; i < cap; ++i) out.push_back(all[i * (all.size() - 1) / (cap - 1)]);
    return out;
  }

 private:
  // Front sorted by time, memory strictly decreasing along it.
  void pareto(const Candidate& c) {
    auto it = front_.upper_bound(c.time);
    if (it != front_.begin()) {
      auto prev = std::prev(it);
      if (prev->second.memory <= c.memory) return;  // dominated
      if (prev->first == c.time) front_.erase(prev);
    }
    while (it != front_.end() && it->second.memory >= c.memory) it = front_.erase(it);
    front_.emplace(c.time, c);
  }
  size_t top_;
  std::vector<Candidate> heap_;  // max-heap: the worst kept at the front
  std::map<double, Candidate> front_;
};

struct Counters {
  long long evaluated = 0, feasible = 0, limit = 0;
  bool truncated = false;
};

bool consistent(const Scenario& s) {
  try {
    check_consistency(s);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

// (schedule, virtual stages) choices for a pipeline of pp stages.
std::vector<std::pair<PipeSchedule, int>> schedules(const Scenario& s, const Fixed& f, int pp) {
  std::vector<std::pair<PipeSchedule, int>> out;
  const Parallelism& b = s.par;
  auto want = [&](PipeSchedule k) { return f.sched ? b.schedule == k : (pp > 1 || k == PipeSchedule::one_f_one_b); };
  if (want(PipeSchedule::one_f_one_b) && (!f.v || b.virtual_stages == 1)) out.push_back({PipeSchedule::one_f_one_b, 1});
  if (want(PipeSchedule::gpipe) && (!f.v || b.virtual_stages == 1)) out.push_back({PipeSchedule::gpipe, 1});
  if (want(PipeSchedule::interleaved)) {
    // Megatron interleaving: v > 1 chunks, layers divisible by pp x v.
    for (int v = 2; 1LL * pp * v <= s.model.layers; ++v)
      if (s.model.layers % (pp * v) == 0 && (!f.v || b.virtual_stages == v)) out.push_back({PipeSchedule::interleaved, v});
    if (f.sched && f.v && b.virtual_stages == 1) out.push_back({PipeSchedule::interleaved, 1});
  }
  return out;
}

template <typename T>
std::vector<T> one_or(bool fixed, T value, std::vector<T> all) {
  return fixed ? std::vector<T>{value} : all;
}

// Training: every valid (tp, cp, pp, dp, ep, schedule, micro-batch, sp,
// recompute, zero) with tp x cp x pp x dp = gpus; ranked by iteration time.
void search_training(const Scenario& base, const Fixed& f, long long gpus, Collector& col, Counters& n) {
  FastTraining fast(base);
  Scenario chk = base;
  const double capacity = base.system.device.dram().capacity_bytes;
  std::vector<int> mbs;
  for (int mb = 1; mb <= 16; mb *= 2) mbs.push_back(mb);
  mbs = one_or(f.mb, base.train.micro_batch, mbs);
  const auto rcs = one_or(f.rc, base.train.recompute, {Recompute::none, Recompute::selective, Recompute::full});
  const auto zeros = one_or(f.zero, base.par.zero, {0, 1, 2, 3});
  for (long long tp : divisors(gpus)) {
    if (f.tp && tp != base.par.tp) continue;
    for (long long cp : divisors(gpus / tp)) {
      if (f.cp && cp != base.par.cp) continue;
      for (long long pp : divisors(gpus / tp / cp)) {
        const long long dp = gpus / tp / cp / pp;
        if ((f.pp && pp != base.par.pp) || (f.dp && dp != base.par.dp) || pp > base.model.layers) continue;
        std::vector<long long> eps{1};
        if (base.model.is_moe()) eps = divisors(std::min(dp * cp, static_cast<long long>(base.model.moe.experts)));
        for (long long ep : one_or(f.ep, static_cast<long long>(base.par.ep), eps)) {
          for (const auto& [sched, v] : schedules(base, f, static_cast<int>(pp))) {
            Parallelism p = base.par;
            p.tp = static_cast<int>(tp), p.cp = static_cast<int>(cp), p.pp = static_cast<int>(pp);
            p.dp = static_cast<int>(dp), p.ep = static_cast<int>(ep), p.schedule = sched, p.virtual_stages = v;
            for (int mb : mbs) {
              chk.par = p;
              chk.train.micro_batch = mb;
              if (!consistent(chk)) continue;
              for (bool sp : one_or(f.sp, base.par.sp, tp > 1 ? std::vector<bool>{false, true} : std::vector<bool>{false})) {
                p.sp = sp;
                for (Recompute rc : rcs)
                  for (int z : zeros) {
                    if (n.evaluated >= n.limit) {
                      n.truncated = true;
                      return;
                    }
                    p.zero = z;
                    const FastTrainingResult r = fast.evaluate(p, mb, rc);
                    ++n.evaluated;
                    if (!(r.memory.total <= capacity)) continue;
                    ++n.feasible;
                    Candidate c;
                    c.par = p, c.micro_batch = mb, c.rc = rc, c.time = r.iteration_time_s;
                    c.memory = r.memory.total, c.score = r.iteration_time_s;
                    col.offer(c);
                  }
              }
            }
          }
        }
      }
    }
  }
}

// Inference: tp, pp (dp = the rest of the GPUs) and batch (powers of two up
// to the largest that fits) under the latency bounds; ranked by output
// tokens/s per GPU.
void search_inference(const Scenario& base, const Fixed& f, long long gpus, Collector& col, Counters& n) {
  Scenario s = base;
  for (long long tp : divisors(gpus)) {
    if (f.tp && tp != base.par.tp) continue;
    for (long long pp : divisors(gpus / tp)) {
      const long long dp = gpus / tp / pp;
      if ((f.pp && pp != base.par.pp) || (f.dp && dp != base.par.dp) || pp > base.model.layers) continue;
      s.par = base.par;
      s.par.tp = static_cast<int>(tp), s.par.pp = static_cast<int>(pp), s.par.dp = static_cast<int>(dp);
      s.par.cp = 1, s.par.ep = 1;
      if (!consistent(s)) continue;
      const long long max_batch = inference_memory_at(s, 1).max_batch;
      std::vector<int> batches;
      if (f.batch) batches.push_back(base.infer.batch);
      else
        for (long long b = 1; b <= std::min<long long>(max_batch, 1 << 16); b *= 2) batches.push_back(static_cast<int>(b));
      for (int b : batches) {
        if (n.evaluated >= n.limit) {
          n.truncated = true;
          return;
        }
        s.infer.batch = b;
        if (!consistent(s)) continue;
        const InferenceResult r = evaluate_inference(s);
        ++n.evaluated;
        const bool ok = r.fits && (base.search.max_ttft_s <= 0 || r.ttft_s <= base.search.max_ttft_s) &&
                        (base.search.max_tpot_s <= 0 || r.tpot_s <= base.search.max_tpot_s);
        if (!ok) continue;
        ++n.feasible;
        Candidate c;
        c.par = s.par, c.batch = b, c.time = r.e2e_latency_s, c.memory = r.memory.total;
        c.score = -r.output_tokens_per_s / static_cast<double>(tp * pp);
        col.offer(c);
      }
    }
  }
}

// One returned configuration, re-evaluated by the reference model.
json entry_json(const Scenario& base, const Candidate& c) {
  Scenario s = base;
  s.par = c.par;
  json j;
  j["parallelism"] = parallelism_json_impl(c.par);
  if (s.mode == Mode::training) {
    s.train.micro_batch = c.micro_batch;
    s.train.recompute = c.rc;
    const TrainingResult r = evaluate_training(s);
    j["training"] = training_to_json(s.train);
    j["iteration_time_s"] = r.iteration_time_s;
    j["memory_bytes_total"] = r.memory.total;
    j["tokens_per_s"] = r.tokens_per_s;
    j["mfu"] = r.mfu;
    j["bound"] = r.bound;
  } else {
    s.infer.batch = c.batch;
    const InferenceResult r = evaluate_inference(s);
    const Inference& in = s.infer;
    j["inference"] = {{"batch", in.batch}, {"input_tokens", in.input_tokens}, {"output_tokens", in.output_tokens},
                      {"weight_precision", to_string(in.weight_precision)}, {"kv_precision", to_string(in.kv_precision)},
                      {"compute_precision", to_string(in.compute_precision)}, {"flash_attention", in.flash_attention}};
    j["output_tokens_per_s"] = r.output_tokens_per_s;
    j["output_tokens_per_s_per_gpu"] = r.output_tokens_per_s / (1.0 * c.par.tp * c.par.pp);
    j["ttft_s"] = r.ttft_s;
    j["tpot_s"] = r.tpot_s;
    j["e2e_latency_s"] = r.e2e_latency_s;
    j["memory_bytes_total"] = r.memory.total;
  }
  return j;
}

}  // namespace

json parallelism_to_json(const Parallelism& p) { return parallelism_json_impl(p); }

json training_to_json(const Training& t) {
  json j = {{"global_batch", t.global_batch}, {"micro_batch", t.micro_batch}, {"seq_len", t.seq_len},
            {"precision", to_string(t.precision)}, {"recompute", recompute_name(t.recompute)},
            {"optimizer", t.optimizer == Optimizer::adam ? "adam" : "sgd"}, {"flash_attention", t.flash_attention},
            {"overlap", {{"dp", t.overlap.dp}, {"tp", t.overlap.tp}, {"pp", t.overlap.pp}}}};
  if (t.tokens > 0) j["tokens"] = t.tokens;
  return j;
}

json search_scenario(const json& input, long long max_configs) {
  const auto start = std::chrono::steady_clock::now();
  const Scenario base = parse_scenario(input);
  if (!base.search.present) throw InputError("search", "a search needs a \"search\" section");
  const Fixed f = fixed_fields(input);
  const long long gpus = base.search.gpus > 0 ? base.search.gpus : base.par.gpus();
  Collector col(static_cast<size_t>(base.search.top));
  Counters n;
  n.limit = max_configs;
  if (base.mode == Mode::training)
    search_training(base, f, gpus, col, n);
  else
    search_inference(base, f, gpus, col, n);
  json best = json::array(), front = json::array();
  for (const Candidate& c : col.best()) best.push_back(entry_json(base, c));
  for (const Candidate& c : col.front(100)) front.push_back(entry_json(base, c));
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  json out = {{"evaluated", n.evaluated}, {"feasible", n.feasible}, {"elapsed_s", elapsed}, {"gpus", gpus},
              {"best", best}, {"pareto", front}, {"truncated", n.truncated}};
  if (n.truncated) out["limit"] = n.limit;
  if (n.feasible == 0)
    out["warnings"] = json::array({"no configuration fits (or meets the latency bounds) on " + std::to_string(gpus) + " GPUs"});
  return {{"search", out}};
}

}  // namespace llmcalc
