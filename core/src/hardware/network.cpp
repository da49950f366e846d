#include "network.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "torus.h"

namespace llmcalc {

namespace {
double effective_bw(const NetworkTier& t) { return t.bandwidth_Bps * t.efficiency; }

// GPUs one domain of tier k holds: the innermost tier never extends past a
// node (gpus_per_node); 0 means the whole cluster.
long long span_of(const System& sys, size_t k) {
  const long long span = sys.network[k].span_gpus;
  return k == 0 && span > 0 ? std::min<long long>(span, sys.gpus_per_node) : span;
}

// The groups of one kind tile the rank space in aligned blocks of
// size x stride ranks. A block [kE, (k+1)E) crosses a domain boundary unless
// it ends before the next multiple of the span (tp=3 on 8-GPU nodes puts
// ranks 6,7,8 across two nodes). The pattern repeats every span blocks.
bool fits_in(long long span, long long extent, long long ranks) {
  if (span == 0 || (extent <= span && span % extent == 0)) return true;
  if (extent > span) return false;
  const long long blocks = ranks > 0 ? std::min(ranks / extent, span) : span;
  for (long long k = 0; k < blocks; ++k)
    if ((k * extent) / span != ((k + 1) * extent - 1) / span) return false;
  return true;
}

// Share of tier k's bandwidth that `peers` other devices reach. A switch
// gives every group each member's full link. A full mesh of `span` devices
// splits a device's bandwidth over span-1 point-to-point links, one per
// peer, so a group reaches only the links to its own members: 8x MI300X
// all-reduce bus bandwidth is 47.7 GB/s on 2 GPUs and 312.9 on 8
// (docs/sources.md [HF8.3]; [HF11.2], measured, [R101n]).
double mesh_share(const System& sys, size_t k, double peers) {
  if (sys.network[k].topology != Topology::mesh) return 1.0;
  // Links per device by the mesh as wired, even where gpus_per_node holds fewer.
  const double links = static_cast<double>(sys.network[k].span_gpus) - 1;
  if (links < 1) return 1.0;  // a lone device: no mesh link is used
  return std::min(std::max(peers, 1.0), links) / links;
}
}  // namespace

LinkModel group_link(const System& sys, const Group& g) {
  const auto& tiers = sys.network;
  const long long extent = g.size * g.stride;
  size_t k = 0;
  while (k + 1 < tiers.size() && !fits_in(span_of(sys, k), extent, g.ranks)) ++k;
  LinkModel l;
  l.tier = static_cast<int>(k);
  l.latency_s = tiers[k].latency_s;
  l.bandwidth_Bps = effective_bw(tiers[k]) * mesh_share(sys, k, static_cast<double>(g.size) - 1);
  l.half_bandwidth_bytes = tiers[k].half_bandwidth_bytes;
  if (k > 0) {
    // Members of the group inside one inner domain cross the outer tier
    // together, each through its own link (one NCCL ring per NIC).
    const double inner_span = static_cast<double>(span_of(sys, k - 1));
    const double stride = static_cast<double>(g.stride);
    const double members = stride >= inner_span ? 1.0
                                                  : std::min(static_cast<double>(g.size), inner_span / stride);
    // On an inner mesh the members' ring hops use the links among
    // themselves; a lone member goes straight to its NIC, crossing no link.
    const double inner = effective_bw(tiers[k - 1]) * (members > 1 ? mesh_share(sys, k - 1, members - 1) : 1.0);
    l.bandwidth_Bps = std::min(inner, members * effective_bw(tiers[k]));
    l.members = members;
    l.domains = std::ceil(static_cast<double>(g.size) / members);
    l.inner_latency_s = tiers[k - 1].latency_s;
  }
  return l;
}

namespace {

// Time of one algorithm: `steps` latency hops and `volume` bytes through
// each rank's link. NCCL picks a protocol per size (NCCL tuning.cc): LL for
// small messages (latency-bound, half the link rate) and Simple/LL128 for
// large ones, whose bus bandwidth ramps up with size and reaches half its
// peak at the tier's half_bandwidth size (docs/sources.md [HF2.6]). Both are
// modelled and the faster taken: t = latency + volume (1 + S_half / S) / B.
double protocol_time(const LinkModel& l, double latency, double volume, double bytes) {
  const double ll = latency + volume / (0.5 * l.bandwidth_Bps);
  const double simple = latency + volume * (1 + l.half_bandwidth_bytes / bytes) / l.bandwidth_Bps;
  return std::min(ll, simple);
}

// Latency of a ring of `steps` steps of which `inter` cross an inner-domain
// boundary: NCCL's tuner charges the network latency only on the crossing
// hops and the intra-node latency on the others (NVIDIA/nccl
// src/graph/tuning.cc: (nsteps - nInterSteps) intraLat + nInterSteps interLat).
double ring_latency(const LinkModel& l, double steps, double inter) {
  if (l.domains <= 1) return steps * l.latency_s;
  return (steps - inter) * l.inner_latency_s + inter * l.latency_s;
}

// Double binary tree: log-depth inside each domain and across domains.
double tree_latency(const LinkModel& l, double n) {
  if (l.domains <= 1) return 2 * std::ceil(std::log2(n)) * l.latency_s;
  return 2 * (std::ceil(std::log2(l.members)) * l.inner_latency_s + std::ceil(std::log2(l.domains)) * l.latency_s);
}

LinkModel tier_link(const System& sys, size_t k) {
  LinkModel l;
  l.tier = static_cast<int>(k);
  l.latency_s = sys.network[k].latency_s;
  l.bandwidth_Bps = effective_bw(sys.network[k]);
  l.half_bandwidth_bytes = sys.network[k].half_bandwidth_bytes;
  return l;
}

// All-to-all (NCCL: n-1 concurrent send/receive pairs of bytes/n each). The
// peers inside this rank's inner domain are reached over the inner tier; the
// rest leave through the rank's own link of the outer tier. Unlike a ring,
// every rank of the domain drives its own link with its own traffic at the
// same time, so the outer link is not multiplied by the members that share
// the domain; the slower of the two parts binds (they run concurrently).
// `route`: the token copies per token and the experts they spread over, when
// a token crosses the outer tier once per remote domain that holds any of its
// experts and is forwarded inside it (DeepEP); null: every copy is sent.
double all_to_all_time(const System& sys, const Group& g, double bytes, const Routing* route = nullptr) {
  const double n = static_cast<double>(g.size);
  const LinkModel l = group_link(sys, g);
  if (l.tier == 0) return protocol_time(l, (n - 1) * l.latency_s, (n - 1) / n * bytes, bytes);
  const size_t k = static_cast<size_t>(l.tier);
  const double inner_span = static_cast<double>(span_of(sys, k - 1));
  const double stride = static_cast<double>(g.stride);
  const double near = stride >= inner_span ? 1.0 : std::min(n, std::floor(inner_span / stride));
  double far_share = (n - near) / n, in_share = (near - 1) / n;
  if (route) {
    far_share = remote_domains_per_token(*route, n / near) / route->copies;
    in_share += (n - near) / n * (near - 1) / near;  // copies forwarded from the receiving rank
  }
  LinkModel outer = tier_link(sys, k);
  outer.bandwidth_Bps = std::min(outer.bandwidth_Bps, effective_bw(sys.network[k - 1]));
  const double far = protocol_time(outer, (n - 1) * outer.latency_s, far_share * bytes, bytes);
  LinkModel in = tier_link(sys, k - 1);
  in.bandwidth_Bps *= mesh_share(sys, k - 1, near - 1);  // the near peers' direct links on a mesh
  const double inside = near > 1 ? protocol_time(in, (near - 1) * in.latency_s, in_share * bytes, bytes) : 0.0;
  return std::max(far, inside);
}

// C(n - m, k) / C(n, k): the chance that k distinct draws from n items all
// miss a given m of them.
double all_miss(double n, double m, double k) {
  double p = 1;
  for (int i = 0; i < static_cast<int>(k) && p > 0; ++i) p *= std::max(0.0, n - m - i) / (n - i);
  return p;
}

double log_choose(double n, double k) { return std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1); }

// Group-limited routing (DeepSeek-V2 §2.1.3 device-limited, DeepSeek-V3
// §2.1.2 node-limited; HF config n_group / topk_group): a token first picks
// M of G groups, then its k experts among those groups' M E/G experts. With
// balanced routing every group is picked alike, so the M groups are a uniform
// draw, and so are the experts inside them. Groups and domains are both
// contiguous blocks of experts; returns -1 when neither divides the other.
double grouped_miss(const Routing& r, double E, double k, double D) {
  const double G = r.groups, M = r.top_groups, e = E / G, pool = M * e;
  if (std::fmod(G, D) == 0) {  // each domain holds G/D whole groups
    const double g = G / D;
    double miss = 0;  // sum over j, the domain's groups among the M picked (hypergeometric)
    for (int j = 0; j <= static_cast<int>(std::min(g, M)); ++j) {
      if (M - j > G - g) continue;
      const double pj = std::exp(log_choose(g, j) + log_choose(G - g, M - j) - log_choose(G, M));
      miss += pj * all_miss(pool, j * e, k);
    }
    return miss;
  }
  if (std::fmod(D, G) == 0) {  // each group spans D/G domains of E/D experts
    const double picked = M / G;
    return (1 - picked) + picked * all_miss(pool, E / D, k);
  }
  return -1;
}

}  // namespace

// Experts spread evenly over `domains`; a token's k distinct experts are a
// uniform draw, so a given domain holds none of them with probability
// C(E - E/D, k) / C(E, k) (under group-limited routing, grouped_miss), and
// the token reaches each of the D - 1 remote domains with the complement.
double remote_domains_per_token(const Routing& r, double domains) {
  if (domains <= 1) return 0;
  const double E = std::max(r.experts, r.copies), k = std::max(1.0, r.copies);
  double miss = r.groups > 1 && r.top_groups < r.groups ? grouped_miss(r, E, k, domains) : -1;
  if (miss < 0) miss = all_miss(E, E / domains, k);
  return (domains - 1) * (1 - miss);
}

double routed_all_to_all_time(const System& sys, const Group& g, double bytes, const Routing& route) {
  if (g.size <= 1 || bytes <= 0) return 0;
  if (route.copies <= 0 || sys.network[static_cast<size_t>(group_link(sys, g).tier)].topology == Topology::torus)
    return collective_time(sys, Collective::all_to_all, g, bytes);
  return all_to_all_time(sys, g, bytes, &route);
}

namespace {

// NVLink SHARP all-reduce (NCCL's NVLS algorithm) inside one switched domain:
// each GPU pushes its buffer into the switch, which reduces and multicasts
// the sum back, so the time is the buffer at the algorithm bandwidth, whatever
// the group size (measured: ~275 GB/s algbw on 8 H100, busbw 420-480 at 5-8
// GPUs, docs/sources.md [HF2.6]); the bandwidth ramps with size as the
// tier's other protocols do, and NCCL's tuner charges 25 us of latency
// ([HF2.8]). Infinite (not used) below the tier's NVLS group size.
double nvls_all_reduce_time(const NetworkTier& t, const LinkModel& l, const Group& g, double bytes) {
  if (t.nvls_efficiency <= 0 || l.domains > 1 || g.size < t.nvls_min_gpus) return std::numeric_limits<double>::infinity();
  const double bw = t.bandwidth_Bps * t.nvls_efficiency;
  return t.nvls_latency_s + bytes * (1 + l.half_bandwidth_bytes / bytes) / bw;
}

}  // namespace

double collective_time(const System& sys, Collective c, const Group& g, double bytes) {
  const double n = static_cast<double>(g.size);
  if (g.size <= 1 || bytes <= 0) return 0;
  const LinkModel l = group_link(sys, g);
  // A group bound by a torus tier (TPU ICI) uses the links of the axes it spans.
  const size_t k = static_cast<size_t>(l.tier);
  if (sys.network[k].topology == Topology::torus) return torus_collective_time(sys.network[k], span_of(sys, k), c, g, bytes);
  const double frac = (n - 1) / n;
  switch (c) {
    case Collective::all_reduce: {
      // Ring: reduce-scatter then all-gather, 2(n-1) steps (Patarasuk & Yuan 2009).
      const double ring = protocol_time(l, ring_latency(l, 2 * (n - 1), 2 * (l.domains - 1)), 2 * frac * bytes, bytes);
      // Double binary tree (Sanders et al. 2009; NCCL >= 2.4): log-depth
      // latency, each rank sends and receives the whole buffer twice.
      const double tree = protocol_time(l, tree_latency(l, n), 2 * bytes, bytes);
      return std::min({ring, tree, nvls_all_reduce_time(sys.network[k], l, g, bytes)});
    }
    case Collective::reduce_scatter:
    case Collective::all_gather:
      return protocol_time(l, ring_latency(l, n - 1, l.domains - 1), frac * bytes, bytes);
    case Collective::all_to_all:
      return all_to_all_time(sys, g, bytes);
    case Collective::p2p: {
      // One peer: inside a mesh, a single point-to-point link carries it.
      LinkModel one = l;
      if (l.tier == 0) one.bandwidth_Bps = effective_bw(sys.network[0]) * mesh_share(sys, 0, 1);
      return protocol_time(one, one.latency_s, bytes, bytes);
    }
  }
  return 0;
}

}  // namespace llmcalc
