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
  double time = 0;     // iteration time (training) or e2e latency (inference)
  double memory = 0;   // bytes per GPU, the most loaded one
  double score = 0;    // ranking key, lower is better
  const char* kind = "";  // the plan's regime id (accuracy.h), static storage
};
// A total order, so that equal plans rank the same in every build (the
// standard libraries of g++ and Emscripten order ties differently): score,
// then memory, then the simpler plan.
inline auto plan_key(const Candidate& c) {
  const Parallelism& p = c.par;
  return std::make_tuple(c.score, c.memory, static_cast<int>(c.rc), p.tp, p.pp, p.dp, p.cp, p.ep, p.etp, p.zero, p.sp,
                         static_cast<int>(p.schedule), p.virtual_stages, c.micro_batch, c.batch, c.prefill_tp);
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

// The best `top` candidates, the best `top` of each kind of run, and the
// time-memory Pareto front, all bounded. The kinds' lists let the search
// recommend a plan of a kind the model is trusted on when every listed plan
// is of a kind it has been optimistic about (search.cpp).
class Collector {
 public:
  // Each kind keeps at least kKindDepth plans, so that a short list (top 1)
  // still finds the fastest plan without a warning beyond it.
  static constexpr size_t kKindDepth = 10;
  explicit Collector(size_t top) : kind_top_(std::max(top, kKindDepth)), best_(top) {}
  void offer(const Candidate& c) {
    best_.offer(c);
    kind(c.kind).offer(c);
    pareto(c);
  }
  std::vector<Candidate> best() const { return best_.sorted(); }
  // Each kind's best, fastest first.
  std::map<std::string, std::vector<Candidate>> best_by_kind() const {
    std::map<std::string, std::vector<Candidate>> out;
    for (const auto& [name, list] : kinds_) out[name] = list.sorted();
    return out;
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
  // A kind's list; the ids are static strings, so the pointer names the kind
  // (a handful of kinds: a linear scan beats a map here).
  BestOf& kind(const char* id) {
    for (auto& [name, list] : kinds_)
      if (name == id) return list;
    kinds_.emplace_back(id, BestOf(kind_top_));
    return kinds_.back().second;
  }
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
  size_t kind_top_;
  BestOf best_;
  std::vector<std::pair<const char*, BestOf>> kinds_;
  std::map<double, Candidate> front_;
};

}  // namespace llmcalc::search_detail
