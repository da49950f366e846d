// Collectives on a torus tier (TPU ICI): a chip has two links per torus axis,
// and a group uses the links of the axes its members spread over.
#pragma once
#include <vector>

#include "llmcalc/scenario.h"
#include "network.h"

namespace llmcalc {

// Axis lengths of the near-cubic torus that `chips` chips form in `dims`
// axes, smallest first (6144 chips in 3 axes: 16 x 16 x 24, the largest v5p
// slice; 256 in 2: 16 x 16, a v6e pod). Their product is `chips`.
std::vector<long long> torus_axes(long long chips, int dims);

// How a group sits on one axis: the distinct coordinates its members take,
// whether they close a ring through the axis's wraparound link, and the
// coordinate distance between neighbouring members.
struct TorusAxisUse {
  long long coords = 1;
  bool wraps = false;
  double spacing = 1;
};

// The group's use of every axis of a torus of `span` chips with the tier's
// torus_dims axes (members at rank offsets 0, stride, 2 stride, ...).
std::vector<TorusAxisUse> torus_group_axes(long long span, int dims, const Group& g);

// Time of one collective over `bytes` (as collective_time) for a group whose
// slowest tier is the torus tier `t` spanning `span` chips.
double torus_collective_time(const NetworkTier& t, long long span, Collective c, const Group& g, double bytes);

}  // namespace llmcalc
