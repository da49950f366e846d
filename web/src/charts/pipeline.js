// One training iteration's pipeline schedule, simulated from the core's
// result.training.pipeline {stages, microbatches, virtual_stages, schedule,
// t_fwd_s, t_bwd_s} (times per micro-batch and stage, all its chunks).
// Each stage runs its own op order (GPipe, 1F1B, or Megatron's interleaved
// 1F1B); an op starts when its stage is free and its inputs are ready.
// ZB-H1 (zb_h1) splits each backward into B (input gradient, t_bwd_s -
// t_wgrad_s) and W (weight gradient, t_wgrad_s), and a stage runs a pending W
// whenever its next F or B is not ready (Qi et al. 2024, zero bubble).
// Pure: no DOM. Point-to-point transfer time is not drawn.

export const MAX_DRAWN_MICROBATCHES = 32;

// Megatron-style order of virtual micro-batches for one direction: groups of
// `p` micro-batches, each group through chunk 0, 1, ... (backward: reversed).
function virtualOrder(m, v, p, forward) {
  const out = [];
  for (let g = 0; g < m; g += p) {
    const size = Math.min(p, m - g);
    for (let i = 0; i < v; i++) {
      const chunk = forward ? i : v - 1 - i;
      for (let k = 0; k < size; k++) out.push({ mb: g + k, chunk });
    }
  }
  return out;
}

// Op order of stage s: [{kind: 'F'|'B', mb, chunk}].
export function stageOrder(schedule, p, m, v, s) {
  const fwd = virtualOrder(m, v, p, true);
  const bwd = virtualOrder(m, v, p, false);
  const F = (x) => ({ kind: 'F', ...x });
  const B = (x) => ({ kind: 'B', ...x });
  if (schedule === 'gpipe') return [...fwd.map(F), ...bwd.map(B)];
  const n = fwd.length;
  const warmup = Math.min(n, v > 1 ? (p - s - 1) * 2 + (v - 1) * p : p - s - 1);
  const order = fwd.slice(0, warmup).map(F);
  let f = warmup;
  let b = 0;
  while (f < n) {
    order.push(F(fwd[f++]));
    order.push(B(bwd[b++]));
  }
  while (b < n) order.push(B(bwd[b++]));
  return order;
}

const key = (kind, s, chunk, mb) => `${kind}${s}.${chunk}.${mb}`;

function deps(op, s, p, v) {
  const d = [];
  if (op.kind === 'F') {
    if (s > 0) d.push(key('F', s - 1, op.chunk, op.mb));
    else if (op.chunk > 0) d.push(key('F', p - 1, op.chunk - 1, op.mb));
  } else {
    d.push(key('F', s, op.chunk, op.mb));
    if (s < p - 1) d.push(key('B', s + 1, op.chunk, op.mb));
    else if (op.chunk < v - 1) d.push(key('B', 0, op.chunk + 1, op.mb));
  }
  return d;
}

const posInt = (x, dflt) => (Number.isFinite(x) && x >= 1 ? Math.floor(x) : dflt);

// ZB-H1: the 1F1B order of F and B on every stage; the W of each finished B
// waits in the stage's queue and runs when the stage would otherwise idle
// (or at the end). Events are taken in time order: the stage that is free
// earliest moves first, so an input not yet computed cannot be ready before
// that stage's free time, and a pending W may take the slot.
function simulateZeroBubble(p, m, tf, tb, tw, result) {
  const dur = { F: tf, B: Math.max(0, tb - tw), W: Math.min(tw, tb) };
  const orders = Array.from({ length: p }, (_, s) => stageOrder('1f1b', p, m, 1, s));
  const done = new Map();
  const next = new Array(p).fill(0);
  const free = new Array(p).fill(0);
  const pending = Array.from({ length: p }, () => []);
  const run = (s, kind, mb, start) => {
    const end = start + dur[kind];
    done.set(key(kind, s, 0, mb), end);
    free[s] = end;
    if (kind === 'B') pending[s].push(mb);
    result.ops.push({ stage: s, kind, mb, chunk: 0, start, end });
  };
  for (;;) {
    const live = [];
    for (let s = 0; s < p; s++) if (next[s] < orders[s].length || pending[s].length) live.push(s);
    if (!live.length) return;
    live.sort((a, b) => free[a] - free[b] || a - b);
    let moved = false;
    for (const s of live) {
      const op = orders[s][next[s]];
      const ds = op ? deps(op, s, p, 1) : [];
      const ready = op && ds.every((k) => done.has(k)) ? Math.max(free[s], ...ds.map((k) => done.get(k))) : Infinity;
      if (op && ready <= free[s]) {
        run(s, op.kind, op.mb, ready);
        next[s] += 1;
      } else if (pending[s].length) {
        run(s, 'W', pending[s].shift(), free[s]);
      } else if (op && ready < Infinity) {
        run(s, op.kind, op.mb, ready);
        next[s] += 1;
      } else continue;
      moved = true;
      break;
    }
    if (!moved) {
      result.deadlock = true;
      return;
    }
  }
}

// Returns { stages, microbatches, shown, truncated, virtual_stages, schedule,
//   ops: [{stage, kind, mb, chunk, start, end}], makespan, busy, deadlock }.
export function simulatePipeline(pipe, { maxMicrobatches = MAX_DRAWN_MICROBATCHES, maxOps = 200000 } = {}) {
  const p = posInt(pipe?.stages, 1);
  const m = posInt(pipe?.microbatches, 1);
  const schedule = ['1f1b', 'interleaved', 'gpipe', 'zb_h1'].includes(pipe?.schedule) ? pipe.schedule : '1f1b';
  const v = schedule === 'interleaved' ? posInt(pipe?.virtual_stages, 1) : 1;
  const shown = Math.min(m, maxMicrobatches);
  const tf = Number.isFinite(pipe?.t_fwd_s) && pipe.t_fwd_s > 0 ? pipe.t_fwd_s / v : 0;
  const tb = Number.isFinite(pipe?.t_bwd_s) && pipe.t_bwd_s > 0 ? pipe.t_bwd_s / v : 0;
  const result = { stages: p, microbatches: m, shown, truncated: shown < m, virtual_stages: v, schedule, ops: [], makespan: 0, busy: 0, deadlock: false };
  if (p * shown * v * 3 > maxOps) {
    result.deadlock = true;
    return result;
  }
  if (schedule === 'zb_h1') {
    const tw = Number.isFinite(pipe?.t_wgrad_s) && pipe.t_wgrad_s > 0 ? pipe.t_wgrad_s : 0;
    simulateZeroBubble(p, shown, tf, tb, tw, result);
    result.makespan = Math.max(0, ...result.ops.map((o) => o.end));
    result.busy = result.ops.reduce((a, o) => a + (o.end - o.start), 0);
    return result;
  }
  const orders = [];
  for (let s = 0; s < p; s++) orders.push(stageOrder(schedule, p, shown, v, s));
  const done = new Map();
  const next = new Array(p).fill(0);
  const free = new Array(p).fill(0);
  let remaining = orders.reduce((a, o) => a + o.length, 0);
  while (remaining > 0) {
    let progress = false;
    for (let s = 0; s < p; s++) {
      while (next[s] < orders[s].length) {
        const op = orders[s][next[s]];
        const ds = deps(op, s, p, v);
        if (!ds.every((k) => done.has(k))) break;
        const start = Math.max(free[s], ...ds.map((k) => done.get(k)));
        const end = start + (op.kind === 'F' ? tf : tb);
        done.set(key(op.kind, s, op.chunk, op.mb), end);
        free[s] = end;
        result.ops.push({ stage: s, kind: op.kind, mb: op.mb, chunk: op.chunk, start, end });
        next[s] += 1;
        remaining -= 1;
        progress = true;
      }
    }
    if (!progress) {
      result.deadlock = true;
      break;
    }
  }
  result.makespan = Math.max(0, ...free);
  result.busy = result.ops.reduce((a, o) => a + (o.end - o.start), 0);
  return result;
}
