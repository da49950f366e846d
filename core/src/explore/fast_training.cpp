// FastTraining (search.h): evaluates many plans of one scenario by caching
// the parts of training.cpp (per-layer, edge, pipeline hop and data-parallel
// times) and memory.cpp (stage parameters) and calling the same composition,
// compose_iteration() and most_loaded_stage().
#include <algorithm>
#include <array>
#include <cstring>
#include <unordered_map>

#include "compute.h"
#include "schedule.h"
#include "search.h"
#include "training.h"

namespace llmcalc {

namespace {

// Cache keys: a handful of integers (and a double's bits).
using Key = std::array<long long, 8>;
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
  Memo<LayerTimes> dense, moe;
  Memo<double> edge, hop;
  Memo<EdgeStageParams> stages;
  Memo<DpParts> dp;
  GemmMemo gemms;  // GEMM shapes recur across the layer keys (recompute, ep, etp)

  // Per-layer times depend on (tp, sp, cp, ep, micro-batch, recompute) and
  // the rank count (node crossings); edges, hops and dp parts likewise.
  const LayerTimes& layers(bool moe_layer) {
    const Parallelism& p = s.par;
    // ep and the expert tp (which follows dp by default) share one slot.
    const long long experts = (1LL * p.ep << 21) + p.expert_tp();
    const Key k{p.tp, p.sp && p.tp > 1, p.cp, experts, s.train.micro_batch, static_cast<long long>(s.train.recompute),
                p.gpus()};
    return (moe_layer ? moe : dense).get(k, [&] { return layer_times(s, moe_layer, false); });
  }
  // The edges hold the MTP layers too (MoE in DeepSeek-V3): ep and
  // recompute change them.
  double edge_time(bool first, bool last) {
    const Parallelism& p = s.par;
    const long long where = first + 2LL * last + 4LL * (p.sp && p.tp > 1) + 8LL * static_cast<long long>(s.train.recompute);
    const long long experts = (1LL * p.ep << 21) + p.expert_tp();
    const Key k{p.tp, p.cp, s.train.micro_batch, where, experts, p.gpus(), 0};
    return edge.get(k, [&] { return edge_times(s, first, last, nullptr).compute; });
  }
  double hop_time() {
    const Parallelism& p = s.par;
    const Key k{p.pp, p.tp, p.cp, p.dp, p.sp && p.tp > 1, s.train.micro_batch, 0};
    return hop.get(k, [&] { return pipeline_hop_time(s); });
  }
  const EdgeStageParams& cached_stage_params() {
    const Parallelism& p = s.par;
    return stages.get(Key{p.tp, p.ep, p.pp, p.expert_tp(), 0, 0, 0}, [&] { return stage_params(s.model, p, s.train); });
  }
  // (Expert adapters follow from the key: tp, ep, etp, the stage's params.)
  const DpParts& dp_time(double params, double expert, double adapters, double expert_adapters) {
    const Parallelism& p = s.par;
    const long long zclass = (p.zero >= 3 ? 3 : p.zero >= 1 ? 1 : 0) + 4LL * p.zero_shard;
    // Expert weights are reduced over the expert-dp group: (ep, etp) shape it.
    const long long experts = p.ep * 65536LL + p.expert_tp();
    return dp.get(Key{p.dp * p.cp, p.tp, zclass, bits_of(params), p.gpus(), bits_of(expert), experts, bits_of(adapters)},
                  [&] { return dp_parts(s, params, expert, adapters, expert_adapters); });
  }
};

FastTraining::FastTraining(const Scenario& base) : impl_(std::make_unique<Impl>()) {
  impl_->s = base;
  impl_->s.mode = Mode::training;
}
FastTraining::~FastTraining() = default;
const Scenario& FastTraining::base() const { return impl_->s; }

FastTrainingResult FastTraining::evaluate(const Parallelism& par, int micro_batch, Recompute rc) {
  Impl& I = *impl_;
  const GemmMemoScope gemm_scope(I.gemms, I.s.system.device);
  I.s.par = par;
  I.s.train.micro_batch = micro_batch;
  I.s.train.recompute = rc;
  const Scenario& s = I.s;
  FastTrainingResult out;
  const long long mb = microbatches_per_replica(s.train, s.par);
  out.memory = most_loaded_stage(s, I.cached_stage_params(), mb);
  IterationParts parts;
  parts.dense = &I.layers(false);
  parts.moe = s.model.is_moe() ? &I.layers(true) : nullptr;
  parts.edge_first = I.edge_time(true, par.pp == 1);
  parts.edge_last = par.pp > 1 ? I.edge_time(false, true) : 0.0;
  parts.hop = I.hop_time();
  parts.dp = &I.dp_time(out.memory.params_on_gpu, out.memory.expert_params_on_gpu, out.memory.adapter_params_on_gpu,
                        out.memory.expert_adapter_params_on_gpu);
  out.breakdown = compose_iteration(s, parts).breakdown;
  out.iteration_time_s = out.breakdown.total();
  return out;
}

}  // namespace llmcalc
