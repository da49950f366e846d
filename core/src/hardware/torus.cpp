#include "torus.h"

#include <algorithm>
#include <cmath>

namespace llmcalc {

// Mapping of ranks onto the torus (a modelling choice; XLA lets a mesh axis
// take any torus axes): the tier's span forms a near-cubic torus, axes
// smallest first, and ranks fill it in rank order (axis 0 varies fastest), so
// the innermost parallel groups (tp, then cp, ep, dp) fill axis 0 and spill
// into the next axes. A group's members are then the ranks 0, stride,
// 2 stride, ... of the first block, as in group_link().
std::vector<long long> torus_axes(long long chips, int dims) {
  std::vector<long long> axes;
  long long left = std::max(1LL, chips);
  for (int k = dims; k > 1; --k) {
    // The divisor of what is left closest to its k-th root.
    const double target = std::pow(static_cast<double>(left), 1.0 / k);
    long long best = 1;
    for (long long d = 1; d * d <= left; ++d) {
      if (left % d != 0) continue;
      for (long long cand : {d, left / d})
        if (std::fabs(static_cast<double>(cand) - target) < std::fabs(static_cast<double>(best) - target)) best = cand;
    }
    axes.push_back(best);
    left /= best;
  }
  axes.push_back(left);
  std::sort(axes.begin(), axes.end());
  return axes;
}

namespace {

// The members' coordinates along one axis (sorted, distinct) -> the use.
// Evenly spaced around the whole axis, they form a ring closed by the
// wraparound link; otherwise a line whose widest gap sets the spacing.
TorusAxisUse axis_use(const std::vector<char>& seen) {
  std::vector<long long> at;
  for (size_t i = 0; i < seen.size(); ++i)
    if (seen[i]) at.push_back(static_cast<long long>(i));
  TorusAxisUse u;
  u.coords = static_cast<long long>(at.size());
  if (u.coords <= 1) return u;
  const long long axis = static_cast<long long>(seen.size());
  long long widest = 0, narrowest = axis;
  for (size_t i = 0; i + 1 < at.size(); ++i) {
    widest = std::max(widest, at[i + 1] - at[i]);
    narrowest = std::min(narrowest, at[i + 1] - at[i]);
  }
  const long long around = axis - at.back() + at.front();  // the gap the wraparound link closes
  u.wraps = around == widest && widest == narrowest;
  u.spacing = static_cast<double>(widest);
  return u;
}

// Per-direction bandwidth a group's ring gets along one axis. Two links per
// chip per axis ([HF9]; [R147] scaling-book "TPUs"): a ring closed by the
// wraparound runs both ways, over both links; a ring on a line without it
// gets about half ([HF9] note iii, [R147]). The groups offset from this one
// (spacing > 1) run the same collective at the same time over the same
// links, sharing them.
double axis_bandwidth(const TorusAxisUse& u, double link_Bps) {
  if (u.coords <= 1) return 0;
  return (u.wraps ? 2.0 : 1.0) * link_Bps / u.spacing;
}

struct TorusLink {
  double bandwidth = 0;  // per chip per direction, summed over the axes spanned
  double hops = 0;       // steps of one pass: one ring per axis in turn
  double bisection = 0;  // all-to-all: bisection seconds per byte of a rank's buffer
  double latency = 0, half_bytes = 0;
};

TorusLink torus_link(const NetworkTier& t, long long span, const Group& g) {
  // The tier's bandwidth is per chip per direction over all its 2 x dims links.
  const double link = t.bandwidth_Bps * t.efficiency / (2.0 * t.torus_dims);
  TorusLink l;
  l.latency = t.latency_s;
  l.half_bytes = t.half_bandwidth_bytes;
  for (const TorusAxisUse& u : torus_group_axes(span, t.torus_dims, g)) {
    const double bw = axis_bandwidth(u, link);
    if (bw <= 0) continue;
    // A group over k axes runs k rings at once, the data split by their
    // rates ([R147]: multi-axis collectives see k x the one-axis bandwidth).
    l.bandwidth += bw;
    l.hops += static_cast<double>(u.coords - 1);
    // All-to-all across the cut that halves this axis: the n b / 4 bytes one
    // half sends the other (b / n to each of the n / 2 chips opposite) cross
    // n / c lines of capacity bw each: b c / (4 bw) (Dv: the bisection bound
    // of a torus, Dally & Towles 2004, Principles and Practices of
    // Interconnection Networks; one ring: b n / (8 L), a quarter of an
    // all-gather of the whole n b buffer at 2 L).
    l.bisection = std::max(l.bisection, static_cast<double>(u.coords) / (4 * bw));
  }
  return l;
}

// Latency plus the bandwidth term, with the same ramp to the tier's peak as
// the switched model's bandwidth protocol (half of it at half_bytes).
double timed(const TorusLink& l, double hops, double seconds_per_byte, double volume, double bytes) {
  return hops * l.latency + volume * seconds_per_byte * (1 + l.half_bytes / bytes);
}

}  // namespace

std::vector<TorusAxisUse> torus_group_axes(long long span, int dims, const Group& g) {
  const std::vector<long long> axes = torus_axes(span, dims);
  std::vector<TorusAxisUse> uses;
  long long below = 1;  // chips in the axes below this one
  for (long long a : axes) {
    std::vector<char> seen(static_cast<size_t>(a), 0);
    long long found = 0;
    for (long long i = 0; i < g.size && found < a; ++i) {
      const long long c = (i * g.stride / below) % a;
      if (!seen[static_cast<size_t>(c)]) ++found;
      seen[static_cast<size_t>(c)] = 1;
    }
    uses.push_back(axis_use(seen));
    below *= a;
  }
  return uses;
}

double torus_collective_time(const NetworkTier& t, long long span, Collective c, const Group& g, double bytes) {
  const TorusLink l = torus_link(t, span, g);
  if (l.bandwidth <= 0) return 0;  // every member on one chip's coordinates: nothing crosses a link
  const double n = static_cast<double>(g.size), frac = (n - 1) / n;
  switch (c) {
    case Collective::all_reduce:  // reduce-scatter then all-gather (bucket algorithm per axis)
      return timed(l, 2 * l.hops, 1 / l.bandwidth, 2 * frac * bytes, bytes);
    case Collective::reduce_scatter:
    case Collective::all_gather:
      return timed(l, l.hops, 1 / l.bandwidth, frac * bytes, bytes);
    case Collective::all_to_all:
      // The bisection binds, unless the chips' own links (injection) do.
      return timed(l, l.hops, std::max(l.bisection, frac / l.bandwidth), bytes, bytes);
    case Collective::p2p:  // one link to the neighbour
      return timed(l, 1, 2.0 * t.torus_dims / (t.bandwidth_Bps * t.efficiency), bytes, bytes);
  }
  return 0;
}

}  // namespace llmcalc
