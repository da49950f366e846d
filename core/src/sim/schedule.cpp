#include "schedule.h"

#include <algorithm>

#include "network.h"
#include "training.h"

namespace llmcalc {

double pipeline_bubble(const Parallelism& par, double microbatches, double per_mb, double fwd, double wgrad) {
  const double p = par.pp;
  switch (par.schedule) {
    case PipeSchedule::interleaved: {
      // (p-1) micro-batch slots, divided by the model chunks per stage
      // (Narayanan et al. 2021 §2.2). Megatron runs the micro-batches through
      // each chunk in groups of p; with m < p a group's next chunk waits for
      // its first micro-batch to cross all p stages, so every chunk round
      // takes p slots of which m work: the iteration is (p + (m-1)/v) slots,
      // m = 1 running the chunks in sequence (the page's schedule simulator,
      // web/src/charts/pipeline.js, runs Megatron's order to the same end).
      const double v = par.virtual_stages, m = std::max(1.0, microbatches);
      if (m < p) return (p - m + (m - 1) / v) * per_mb;
      return (p - 1) / v * per_mb;
    }
    case PipeSchedule::zb_h1: {
      // ZB-H1 (Qi et al. 2024 §3.1, Table 1): the weight gradients W leave
      // the stage-to-stage backward chain and fill the bubble,
      // (p-1)(T_F + T_B - T_W) instead of (p-1)(T_F + T_B + T_W).
      const double steady = (p - 1) * std::max(0.0, per_mb - 2 * wgrad);
      // With fewer micro-batches than stages too few W are left to fill it:
      // stage 0 runs its m forwards, waits for the first micro-batch to
      // cross every stage forward (p F) and back (p B', B' = B - W), then
      // the other m-1 B' and its m W: (p - m) F + (p - 1) B' idle (the same
      // wait bounds any m when W > F). The page's schedule simulator, which
      // runs ZB-H1's order, comes out at most 9% longer (tests/node/pipeline).
      const double m = std::max(1.0, microbatches), b_chain = std::max(0.0, per_mb - fwd - wgrad);
      return std::max(steady, std::max(0.0, p - m) * fwd + (p - 1) * b_chain);
    }
    case PipeSchedule::dualpipe:
      // DualPipe (DeepSeek-V3, arXiv 2412.19437, §3.2.1 Table 2): micro-batches
      // enter from both ends, (PP/2 - 1)(F&B + B - 3W) with F&B a forward and
      // a backward chunk run overlapped (one micro-batch slot here) and B a
      // full backward chunk.
      return (p / 2 - 1) * std::max(0.0, 2 * per_mb - fwd - 3 * wgrad);
    case PipeSchedule::one_f_one_b:
    case PipeSchedule::gpipe:
      break;
  }
  return (p - 1) * per_mb;  // 1F1B and GPipe: p-1 micro-batch slots
}

// One pipeline hop: a micro-batch's activations (or their gradients) to the next stage.
double pipeline_hop_time(const Scenario& s) {
  const Parallelism& par = s.par;
  if (par.pp <= 1) return 0;
  // Megatron sends [s/cp, b, h] split across the tp ranks (scatter-gather) with sp.
  const double act = s.train.micro_batch * (s.train.seq_len / static_cast<double>(par.cp)) * s.model.hidden * 2.0 /
                     (par.sp && par.tp > 1 ? par.tp : 1);
  return collective_time(s.system, Collective::p2p, make_groups(par).pp, act);
}

}  // namespace llmcalc
