// The search's candidates and what keeps the best of them: the top plans in
// a total order and the time-memory Pareto front (search.cpp).
#pragma once

#include <algorithm>
#include <iterator>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "llmcalc/scenario.h"

namespace llmcalc::search_detail {

struct Candidate {
  Parallelism par;
  int micro_batch = 1;
  Recompute rc = Recompute::none;
  int batch = 1;       // inference
  int prefill_tp = 0;  // inference: disaggregated prefill instances' tp (0: colocated)
  int token_budget = -1;  // inference: chunked prefill's tokens per step under in-flight batching
                          // (-1: the scenario's own batching)
  double time = 0;     // iteration time (training) or e2e latency (inference)
  double memory = 0;   // bytes per GPU, the most loaded one
  double score = 0;    // ranking key, lower is better
  double user_rate = 0;  // inference: output tokens/s each sequence sees (0: training)
  const char* kind = "";  // the plan's regime id (accuracy.h), static storage
};
// A total order, so that equal plans rank the same in every build (the
// standard libraries of g++ and Emscripten order ties differently): score,
// then memory, then the simpler plan.
inline auto plan_key(const Candidate& c) {
  const Parallelism& p = c.par;
  return std::make_tuple(c.score, c.memory, static_cast<int>(c.rc), p.tp, p.pp, p.dp, p.cp, p.ep, p.etp, p.zero, p.sp,
                         static_cast<int>(p.schedule), p.virtual_stages, c.micro_batch, c.batch, c.prefill_tp,
                         c.token_budget);
}
inline bool better(const Candidate& a, const Candidate& b) { return plan_key(a) < plan_key(b); }

// The best `top` candidates in the total order.
class BestOf {
 public:
  explicit BestOf(size_t top) : top_(top) {}
  void offer(const Candidate& c) {
    if (heap_.size() < top_) {
      heap_.push_back(c);
      std::push_heap(heap_.begin(), heap_.end(), better);
    } else if (better(c, heap_.front())) {
      std::pop_heap(heap_.begin(), heap_.end(), better);
      heap_.back() = c;
      std::push_heap(heap_.begin(), heap_.end(), better);
    }
  }
  std::vector<Candidate> sorted() const {
    std::vector<Candidate> v = heap_;
    std::sort(v.begin(), v.end(), better);
    return v;
  }

 private:
  size_t top_;
  std::vector<Candidate> heap_;  // max-heap: the worst kept at the front
};

// A Pareto front of two objectives, both lower is better: sorted by the
// first, the second strictly decreasing along it.
class Front {
 public:
  void offer(double a, double b, const Candidate& c) {
    auto it = front_.upper_bound(a);
    if (it != front_.begin()) {
      auto prev = std::prev(it);
      if (prev->second.first <= b) return;  // dominated
      if (prev->first == a) front_.erase(prev);
    }
    while (it != front_.end() && it->second.first >= b) it = front_.erase(it);
    front_.emplace(a, std::make_pair(b, c));
  }
  // At most `cap` points, evenly spread, ends kept.
  std::vector<Candidate> spread(size_t cap) const {
    std::vector<Candidate> all;
    for (const auto& kv : front_) all.push_back(kv.second.second);
    if (all.size() <= cap) return all;
    std::vector<Candidate> out;
    for (size_t i = 0; i < cap; ++i) out.push_back(all[i * (all.size() - 1) / (cap - 1)]);
    return out;
  }

 private:
  std::map<double, std::pair<double, Candidate>> front_;
};

// The best `top` candidates, the best `top` of each kind of run, the
// time-memory Pareto front and, serving, the throughput-interactivity one
// (output tokens/s per GPU against those each sequence sees), that of the
// colocated plans alone beside it (prefill on the decode GPUs: what a
// fleet without disaggregation can reach), all bounded.
// The kinds' lists let the search recommend a plan of a kind the model is
// trusted on when every listed plan is of a kind it has been optimistic
// about (search.cpp).
class Collector {
 public:
  // Each kind keeps at least kKindDepth plans, so that a short list (top 1)
  // still finds the fastest plan without a warning beyond it.
  static constexpr size_t kKindDepth = 10;
  explicit Collector(size_t top) : kind_top_(std::max(top, kKindDepth)), best_(top) {}
  void offer(const Candidate& c) {
    best_.offer(c);
    kind(c.kind).offer(c);
    time_memory_.offer(c.time, c.memory, c);
    if (c.user_rate > 0) serving_.offer(-c.user_rate, c.score, c);
    if (c.user_rate > 0 && c.prefill_tp == 0) colocated_.offer(-c.user_rate, c.score, c);
  }
  std::vector<Candidate> best() const { return best_.sorted(); }
  // Each kind's best, fastest first.
  std::map<std::string, std::vector<Candidate>> best_by_kind() const {
    std::map<std::string, std::vector<Candidate>> out;
    for (const auto& [name, list] : kinds_) out[name] = list.sorted();
    return out;
  }
  // At most `cap` points of each front, evenly spread, ends kept.
  std::vector<Candidate> front(size_t cap) const { return time_memory_.spread(cap); }
  std::vector<Candidate> serving_front(size_t cap) const { return serving_.spread(cap); }
  std::vector<Candidate> colocated_front(size_t cap) const { return colocated_.spread(cap); }

 private:
  // A kind's list; the ids are static strings, so the pointer names the kind
  // (a handful of kinds: a linear scan beats a map here).
  BestOf& kind(const char* id) {
    for (auto& [name, list] : kinds_)
      if (name == id) return list;
    kinds_.emplace_back(id, BestOf(kind_top_));
    return kinds_.back().second;
  }
  size_t kind_top_;
  BestOf best_;
  std::vector<std::pair<const char*, BestOf>> kinds_;
  Front time_memory_, serving_, colocated_;
};

}  // namespace llmcalc::search_detail
