#include "network.h"

#include <algorithm>
#include <cmath>

namespace llmcalc {

namespace {
double effective_bw(const NetworkTier& t) { return t.bandwidth_Bps * t.efficiency; }
bool spans(const NetworkTier& t, double extent) { return t.span_gpus == 0 || extent <= t.span_gpus; }
}  // namespace

LinkModel group_link(const System& sys, const Group& g) {
  const auto& tiers = sys.network;
  const double extent = static_cast<double>(g.size) * static_cast<double>(g.stride);
  size_t k = 0;
  while (k + 1 < tiers.size() && !spans(tiers[k], extent)) ++k;
  LinkModel l;
  l.tier = static_cast<int>(k);
  l.latency_s = tiers[k].latency_s;
  l.bandwidth_Bps = effective_bw(tiers[k]);
  if (k > 0) {
    // Members of the group inside one inner domain cross the outer tier
    // together, each through its own link (one NCCL ring per NIC).
    const double inner_span = static_cast<double>(tiers[k - 1].span_gpus);
    const double stride = static_cast<double>(g.stride);
    const double members = stride >= inner_span ? 1.0
                                                  : std::min(static_cast<double>(g.size), inner_span / stride);
    l.bandwidth_Bps = std::min(effective_bw(tiers[k - 1]), members * effective_bw(tiers[k]));
  }
  return l;
}

double collective_time(const System& sys, Collective c, const Group& g, double bytes) {
  const double n = static_cast<double>(g.size);
  if (g.size <= 1 || bytes <= 0) return 0;
  const LinkModel l = group_link(sys, g);
  const double a = l.latency_s, bw = l.bandwidth_Bps;
  const double frac = (n - 1) / n;
  switch (c) {
    case Collective::all_reduce: {
      // Ring: reduce-scatter then all-gather, 2(n-1) steps (Patarasuk & Yuan 2009).
      const double ring = 2 * (n - 1) * a + 2 * frac * bytes / bw;
      // Double binary tree (Sanders et al. 2009; NCCL >= 2.4): log-depth
      // latency, each rank sends and receives the whole buffer twice.
      const double tree = 2 * std::ceil(std::log2(n)) * a + 2 * bytes / bw;
      return std::min(ring, tree);
    }
    case Collective::reduce_scatter:
    case Collective::all_gather:
    case Collective::all_to_all:
      return (n - 1) * a + frac * bytes / bw;
    case Collective::p2p:
      return a + bytes / bw;
  }
  return 0;
}

}  // namespace llmcalc
