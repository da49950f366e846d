// The search's candidates and what keeps the best of them: the top plans in
// a total order and the time-memory Pareto front (search.cpp).
#pragma once

#include <algorithm>
#include <iterator>
#include <map>
#include <tuple>
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
};
// A total order, so that equal plans rank the same in every build (the
// standard libraries of g++ and Emscripten order ties differently): score,
// then memory, then the simpler plan.
inline auto plan_key(const Candidate& c) {
  const Parallelism& p = c.par;
  return std::make_tuple(c.score, c.memory, static_cast<int>(c.rc), p.tp, p.pp, p.dp, p.cp, p.ep, p.zero, p.sp,
                         static_cast<int>(p.schedule), p.virtual_stages, c.micro_batch, c.batch, c.prefill_tp);
}
inline bool better(const Candidate& a, const Candidate& b) { return plan_key(a) < plan_key(b); }

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

}  // namespace llmcalc::search_detail
