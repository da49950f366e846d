// One training iteration composed from its parts: the slowest stage's layer
// times per micro-batch, what the data-parallel collectives and the host
// leave exposed, the pipeline bubble and the optimizer step (Narayanan et al.
// 2021, arXiv 2104.04473, §3; Korthikanti et al. 2022, arXiv 2205.05198).
#include <algorithm>

#include "fsdp.h"
#include "offload.h"
#include "recompute.h"
#include "schedule.h"
#include "step_waits.h"
#include "training.h"

namespace llmcalc {

namespace {

// One micro-batch on the slowest pipeline stage, in seconds: its compute by
// pass, the tensor / context / expert-parallel communication left exposed,
// and the host's time to launch its kernels.
struct StageWork {
  double layers = 1;                // transformer layers on the stage
  double F = 0, B_layers = 0, R = 0;  // forward, the layers' backward, recompute
  double edge = 0, B = 0;           // end-stage excess; backward with it
  double W = 0;                     // of the backward: the weight-gradient GEMMs
  double TP_f = 0, TP = 0;          // exposed tp communication: forward, all
  double CP_f = 0, CP = 0;          // context-parallel communication: forward, all
  double EP_f = 0, EP_all = 0;      // all-to-all: forward, all passes
  double EP = 0;                    // all-to-all left exposed (after overlap)
  bool ep_overlap = false;
  double ep_share = 0;              // share of the SMs the overlapped all-to-all holds
  MicrobatchWork work;
};

}  // namespace

// The slowest stage's share of MoE layers: the kind whose layer takes longer.
double stage_moe_share(const Scenario& s, const IterationParts& parts) {
  if (!parts.moe) return 0.0;
  const auto layer_time = [](const LayerTimes& t) {
    return t.fwd.compute + t.fwd.tp + t.fwd.cp + t.fwd.ep + t.bwd.compute + t.bwd.tp + t.bwd.cp + t.bwd.ep;
  };
  return slowest_stage_moe_share(s.model, stage_layout(s.model, s.par), layer_time(*parts.moe) >= layer_time(*parts.dense));
}

namespace {

StageWork stage_work(const Scenario& s, const IterationParts& parts) {
  const Model& m = s.model;
  const Training& t = s.train;
  const StageLayout layout = stage_layout(m, s.par);
  StageWork w;
  const double layers = w.layers = layout.max_layers;
  const double moe_frac = stage_moe_share(s, parts);
  const double rec = recomputed_share(t, layers);
  // The slowest stage holds `layers` layers, moe_frac of them MoE layers.
  auto stage = [&](double PassTime::*field, PassTime LayerTimes::*pass) {
    return layers * ((1 - moe_frac) * (parts.dense->*pass).*field + (parts.moe ? moe_frac * (parts.moe->*pass).*field : 0.0));
  };
  const bool exposed_tp = !t.overlap.tp;
  w.F = stage(&PassTime::compute, &LayerTimes::fwd);
  w.B_layers = stage(&PassTime::compute, &LayerTimes::bwd);
  w.R = rec * stage(&PassTime::compute, &LayerTimes::rec);
  w.TP_f = exposed_tp ? stage(&PassTime::tp, &LayerTimes::fwd) : 0.0;
  w.TP = exposed_tp ? w.TP_f + stage(&PassTime::tp, &LayerTimes::bwd) + rec * stage(&PassTime::tp, &LayerTimes::rec) : 0.0;
  w.CP_f = stage(&PassTime::cp, &LayerTimes::fwd);
  w.CP = w.CP_f + stage(&PassTime::cp, &LayerTimes::bwd);
  w.EP_f = stage(&PassTime::ep, &LayerTimes::fwd);
  w.EP_all = w.EP_f + stage(&PassTime::ep, &LayerTimes::bwd) + rec * stage(&PassTime::ep, &LayerTimes::rec);
  w.W = stage(&PassTime::wgrad, &LayerTimes::bwd);
  // The end stages' extra work beyond the slowest stage's layers: a stage
  // with a layer fewer saves that layer's compute and exposed communication.
  w.edge = end_stage_excess(layout, parts.edge_first, parts.edge_last,
                            (w.F + w.B_layers + w.R + w.TP + w.CP + w.EP_all) / layers,
                            s.par.schedule == PipeSchedule::dualpipe);
  w.B = w.B_layers + w.edge;
  // Megatron-Core's EP overlap (--overlap-moe-expert-parallel-comm) and
  // DualPipe's forward-backward pairs run one micro-batch's forward beside
  // another's backward, so each one's all-to-all hides behind the other's
  // compute, which runs on the SMs the all-to-all leaves it (NCCL's channels;
  // DeepEP's 20 SMs, DeepSeek-V3 §3.2.2): the slowdown and the excess show.
  w.ep_overlap = t.overlap.ep || s.par.schedule == PipeSchedule::dualpipe;
  const Device& gpu = s.system.device;
  w.ep_share = t.moe_dispatcher == MoeDispatcher::deepep ? 20.0 / gpu.sm_count : gpu.efficiency.comm_sm_share;
  const double compute = w.F + w.B + w.R;
  w.EP = w.ep_overlap ? overlapped_unit(compute, w.EP_all, w.ep_share) - compute : w.EP_all;
  // The host launches every kernel; when it spends longer per kernel than
  // the GPU runs it (small models, fine-grained MoE, eager frameworks), the
  // GPU waits for the host (step_waits.h).
  w.work.gpu = w.F + w.B + w.R + w.TP + w.CP + w.EP;
  w.work.host_fwd = stage(&PassTime::kernels, &LayerTimes::fwd) * t.host_overhead_s;
  w.work.host_bwd = (stage(&PassTime::kernels, &LayerTimes::bwd) + rec * stage(&PassTime::kernels, &LayerTimes::rec)) *
                    t.host_overhead_s;
  return w;
}

// The windows the data-parallel collectives hide behind. ZeRO-3 prefetches
// the next unit beside a layer's wall time: its compute and the
// communication it waits on (no second collective hides there). An
// overlapped all-to-all shows across the paired passes as their compute does.
DpCompute dp_windows(const StageWork& w, double microbatches) {
  const double EP_shown_f = w.ep_overlap ? w.EP * w.F / std::max(w.F + w.B + w.R, 1e-30)
                            : w.EP_all > 0 ? w.EP * w.EP_f / w.EP_all
                                           : 0.0;
  const double fwd_wall = w.F + w.TP_f + w.CP_f + EP_shown_f;
  const double bwd_wall = w.B_layers + w.R + w.TP - w.TP_f + w.CP - w.CP_f + w.EP - EP_shown_f;
  DpCompute dc;
  dc.fwd = fwd_wall / w.layers;
  dc.bwd = bwd_wall / w.layers;
  dc.edge_bwd = w.edge;
  dc.fwd_total = fwd_wall;  // the data-parallel gather and reduction hide behind wall times too
  dc.last_bwd = bwd_wall + w.edge;
  dc.layers = w.layers;
  dc.microbatches = microbatches;
  return dc;
}

// The pipeline slots ZB-H1 and DualPipe move into the bubble: the forward,
// and the weight gradients.
struct MovableSlots {
  double fwd = 0, wgrad = 0;
};

// ZB-H1 and DualPipe move chunks of a slot (the forward, the weight
// gradients) into the bubble; what that saves is what the slot shrinks by
// without them: all of their time while compute binds the slot, less where
// the overlapped all-to-all, ZeRO-3's gathers or the host bind it (more
// work never shortens the step, nor less work lengthens it).
MovableSlots movable_slots(const Scenario& s, const DpParts& dp, const StageWork& w, const DpCompute& dc,
                           const StepWaits& waits) {
  const auto slot_without = [&](double compute, double exposed, double all_to_all, double waits_mb) {
    const double rest = w.F + w.B + w.R - compute, a2a = w.EP_all - all_to_all;
    const double ep = w.ep_overlap ? overlapped_unit(rest, a2a, w.ep_share) - rest : a2a;
    return std::max(w.work.host_fwd + w.work.host_bwd, rest + w.TP + w.CP + ep - exposed + waits_mb);
  };
  DpCompute no_w = dc;  // the backward windows ZeRO-3 hides its traffic behind, without W
  no_w.bwd = std::max(0.0, dc.bwd - w.W / w.layers);
  const DpExposure dpx = exposed_dp_time(s, dp, no_w);
  const double w_waits = dpx.per_microbatch ? (waits.offload + dpx.inside) / dc.microbatches : waits.waits_per_mb;
  MovableSlots m;
  m.fwd = std::max(0.0, waits.per_mb - slot_without(w.F, w.TP_f + w.CP_f, w.EP_f, waits.waits_per_mb));
  m.wgrad = std::max(0.0, waits.per_mb - slot_without(w.W, 0, 0, w_waits));
  return m;
}

}  // namespace

Iteration compose_iteration(const Scenario& s, const IterationParts& parts) {
  const Parallelism& par = s.par;
  const Training& t = s.train;
  const double mb = static_cast<double>(microbatches_per_replica(t, par));
  const StageWork w = stage_work(s, parts);
  const DpCompute dc = dp_windows(w, mb);
  const DpParts& d = *parts.dp;
  const StepWaits waits = step_waits(s, d, dc, w.work);
  const double per_mb = waits.per_mb;

  Iteration it;
  TimeBreakdown& bd = it.breakdown;
  bd.dp_comm = waits.dp_comm;
  bd.offload = waits.offload;
  bd.host = waits.host;
  bd.compute = mb * (w.F + w.B);
  bd.recompute = mb * w.R;
  bd.tp_comm = mb * w.TP;
  bd.cp_comm = mb * w.CP;
  bd.ep_comm = mb * w.EP;
  const MovableSlots slots = movable_slots(s, d, w, dc, waits);
  bd.pp_bubble = pipeline_bubble(par, mb, per_mb, slots.fwd, slots.wgrad);
  // Forward activation and backward gradient per chunk boundary; with
  // overlap only the pipeline fill and drain stay on the critical path.
  const double v = par.schedule == PipeSchedule::interleaved ? par.virtual_stages : 1;
  if (par.pp > 1) bd.pp_comm = t.overlap.pp ? 2.0 * (par.pp - 1) * parts.hop : mb * 2.0 * v * parts.hop;
  bd.optimizer = t.offload != Offload::none ? offloaded_optimizer_time(s, d, dc.last_bwd, mb) : d.optimizer.time_s;
  // The forward's part of a slot, for the pipeline chart, as the bubble counts
  // it (so the chart's idle time is the bubble's): the time moving the forward
  // would save. A slot the host's launches pace splits as they do: only
  // DualPipe's bubble depends on the split, and it keeps the movable part.
  const bool host_paced = w.work.host_fwd + w.work.host_bwd >= per_mb && per_mb > 0;
  it.t_fwd_s = host_paced && par.schedule != PipeSchedule::dualpipe ? w.work.host_fwd : slots.fwd;
  it.t_bwd_s = per_mb - it.t_fwd_s;
  it.t_wgrad_s = std::min(slots.wgrad, it.t_bwd_s);
  return it;
}

}  // namespace llmcalc
