// Collectives on a tiered network (latency-bandwidth model per tier; ring and
// double-binary-tree algorithms, the faster chosen as NCCL's tuner does).
#pragma once
#include "llmcalc/scenario.h"

namespace llmcalc {

enum class Collective { all_reduce, reduce_scatter, all_gather, all_to_all, p2p };

// A communication group of `size` ranks whose members are `stride` ranks
// apart in the global rank order (Megatron-Core order tp, cp, ep, dp, pp).
struct Group {
  long long size = 1;
  long long stride = 1;
  long long ranks = 0;  // ranks in the job (0: unknown, assume the rank space repeats)
};

struct LinkModel {
  double bandwidth_Bps = 0;  // effective per-rank bandwidth of the binding tier
  double latency_s = 0;      // per-step latency of that tier
  int tier = 0;              // index of the slowest tier crossed
  double half_bandwidth_bytes = 0;
  // Hierarchy of a group that crosses tier > 0: its ranks sit in `domains`
  // inner domains, `members` in each, whose hops cost `inner_latency_s`.
  double domains = 1, members = 1, inner_latency_s = 0;
};

// The slowest tier the group crosses, and the bandwidth its ranks get there:
// a tier's per-GPU bandwidth times the group members that share one inner
// domain and cross the tier together (NCCL runs one ring per NIC), capped by
// the inner tier.
LinkModel group_link(const System& sys, const Group& g);

// Time of one collective over `bytes` (the full buffer of one rank: the
// all-reduce input, the all-gather output, the reduce-scatter input).
double collective_time(const System& sys, Collective c, const Group& g, double bytes);

// Token copies of an expert-parallel all-to-all: `copies` per token (top-k)
// over `experts` spread evenly across the group; with group-limited routing
// the experts form `groups` contiguous groups and a token's copies go to
// experts of `top_groups` of them.
struct Routing {
  double copies = 0, experts = 0, groups = 1, top_groups = 1;
};

// Remote domains (nodes) of `domains` that one token's copies reach.
double remote_domains_per_token(const Routing& r, double domains);

// All-to-all where a token crosses the outer tier once per remote domain that
// holds any of its experts and is forwarded inside it (DeepEP normal kernels;
// DeepSeek-V3, arXiv 2412.19437, section 3.2.2). copies 0: a plain all-to-all.
double routed_all_to_all_time(const System& sys, const Group& g, double bytes, const Routing& route);

}  // namespace llmcalc
