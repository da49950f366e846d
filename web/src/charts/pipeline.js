// One training iteration's pipeline schedule, simulated from the core's
// result.training.pipeline {stages, microbatches, virtual_stages, schedule,
// t_fwd_s, t_bwd_s} (times per micro-batch and stage, all its chunks).
// Each stage runs its own op order (GPipe, 1F1B, or Megatron's interleaved
// 1F1B); an op starts when its stage is free and its inputs are ready.
// ZB-H1 (zb_h1) splits each backward into B (input gradient, t_bwd_s -
// t_wgrad_s) and W (weight gradient, t_wgrad_s), and a stage runs a pending W
// whenever its next F or B is not ready (Qi et al. 2024, zero bubble).
// DualPipe (dualpipe) feeds half the micro-batches from each end, rank r
// holding stage r of one direction and stage p-1-r of the other, and runs
// the reference implementation's eight steps per rank (dualPipeOrder).
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

// Runs each stage's list in its order: an entry starts when its stage is
// free and the ops it depends on are done. step(s, entry) gives { deps: keys
// in `done`, run(start) -> end }. Returns each stage's end, or null when an
// entry waits on one that never runs (not a valid order).
function runInOrder(orders, done, step) {
  const p = orders.length;
  const next = new Array(p).fill(0);
  const free = new Array(p).fill(0);
  let remaining = orders.reduce((a, o) => a + o.length, 0);
  while (remaining > 0) {
    let progress = false;
    for (let s = 0; s < p; s++) {
      while (next[s] < orders[s].length) {
        const op = step(s, orders[s][next[s]]);
        if (!op.deps.every((k) => done.has(k))) break;
        free[s] = op.run(Math.max(free[s], ...op.deps.map((k) => done.get(k))));
        next[s] += 1;
        remaining -= 1;
        progress = true;
      }
    }
    if (!progress) return null;
  }
  return free;
}

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

// DualPipe's op list for rank r of p over m micro-batches (m/2 each way),
// after the eight steps of deepseek-ai/DualPipe's DualPipe.step: 'F'/'B' of
// a phase (0: the direction entering at this rank's end of the pipeline, 1:
// the other), 'FB' a forward of one phase overlapped with a backward of the
// other, 'W' a deferred weight gradient; zb marks a backward whose weight
// gradient is deferred (zero bubble).
export function dualPipeOrder(p, m, r) {
  const halfRanks = p / 2;
  const h = Math.min(r, p - 1 - r);
  const half = m / 2;
  const out = [];
  const rep = (n, f) => {
    for (let i = 0; i < n; i++) f(i);
  };
  rep((halfRanks - h - 1) * 2, () => out.push({ op: 'F', phase: 0 })); // 1: nF0
  rep(h + 1, () => out.push({ op: 'F', phase: 0 }, { op: 'F', phase: 1 })); // 2: nF0F1
  rep(halfRanks - h - 1, () => out.push({ op: 'B', phase: 1, zb: true }, { op: 'W' }, { op: 'F', phase: 1 })); // 3: nB1W1F1
  rep(half - p + h + 1, (i) => {
    // 4: nF0B1F1B0; the last rank runs its first pair apart
    if (i === 0 && r === p - 1) out.push({ op: 'F', phase: 0 }, { op: 'B', phase: 1 });
    else out.push({ op: 'FB', f: 0, b: 1 });
    out.push({ op: 'FB', f: 1, b: 0 });
  });
  rep(halfRanks - h - 1, () => out.push({ op: 'B', phase: 1 }, { op: 'FB', f: 1, b: 0 })); // 5: nB1F1B0
  let zb = false; // 6: nB1B0, the second half with zero bubble
  rep(h + 1, (i) => {
    if (i === Math.floor((h + 1) / 2) && h % 2 === 1) zb = true;
    out.push({ op: 'B', phase: 1, zb });
    if (i === Math.floor((h + 1) / 2) && h % 2 === 0) zb = true;
    out.push({ op: 'B', phase: 0, zb });
  });
  rep(halfRanks - h - 1, () => out.push({ op: 'W' }, { op: 'B', phase: 0, zb: true })); // 7: nWB0
  rep(h + 1, () => out.push({ op: 'W' })); // 8: nW
  return out;
}

// Direction 0 enters at stage 0, direction 1 at stage p-1; a rank's phase 0
// is the direction entering at its own end.
function simulateDualPipe(p, m, tf, tb, tw, result) {
  const dirOf = (r, phase) => (r < p / 2 ? phase : 1 - phase);
  const k = (kind, r, dir, mb) => `${kind}${r}.${dir}.${mb}`;
  const prev = (r, dir) => (dir === 0 ? r - 1 : r + 1); // upstream rank in that direction
  const isFirst = (r, dir) => (dir === 0 ? r === 0 : r === p - 1);
  const isLast = (r, dir) => (dir === 0 ? r === p - 1 : r === 0);
  const fDeps = (r, dir, mb) => (isFirst(r, dir) ? [] : [k('F', prev(r, dir), dir, mb)]);
  const bDeps = (r, dir, mb) => [k('F', r, dir, mb), isLast(r, dir) ? null : k('B', dir === 0 ? r + 1 : r - 1, dir, mb)].filter(Boolean);
  const orders = Array.from({ length: p }, (_, r) => dualPipeOrder(p, m, r));
  const nextF = Array.from({ length: p }, () => [0, 0]);
  const nextB = Array.from({ length: p }, () => [0, 0]);
  const pendingW = Array.from({ length: p }, () => []);
  const done = new Map();
  const push = (r, kind, dir, mb, start, end) => result.ops.push({ stage: r, kind, mb, chunk: dir, start, end });
  // The ops (with their deps) an order entry stands for on rank r.
  const expand = (r, e) => {
    if (e.op === 'W') {
      // the oldest deferred weight gradient on this rank
      const run = (t0) => {
        const w = pendingW[r].shift();
        if (!w) return t0;
        push(r, 'W', w.dir, w.mb, t0, t0 + tw);
        return t0 + tw;
      };
      return { deps: [], run };
    }
    const parts = [];
    if (e.op === 'F' || e.op === 'FB') parts.push({ kind: 'F', dir: dirOf(r, e.op === 'F' ? e.phase : e.f) });
    if (e.op === 'B' || e.op === 'FB') parts.push({ kind: 'B', dir: dirOf(r, e.op === 'B' ? e.phase : e.b), zb: Boolean(e.zb) });
    const mbs = parts.map((x) => (x.kind === 'F' ? nextF : nextB)[r][x.dir]);
    const deps = parts.flatMap((x, i) => (x.kind === 'F' ? fDeps(r, x.dir, mbs[i]) : bDeps(r, x.dir, mbs[i])));
    return {
      deps,
      run: (t0) => {
        let t = t0;
        parts.forEach((x, i) => {
          const d = x.kind === 'F' ? tf : x.zb ? Math.max(0, tb - tw) : tb;
          push(r, x.kind, x.dir, mbs[i], t, t + d);
          done.set(k(x.kind, r, x.dir, mbs[i]), t + d);
          if (x.zb) pendingW[r].push({ dir: x.dir, mb: mbs[i] });
          (x.kind === 'F' ? nextF : nextB)[r][x.dir] += 1;
          t += d;
        });
        return t;
      },
    };
  };
  if (!runInOrder(orders, done, expand)) result.deadlock = true;
}

// Returns { stages, microbatches, shown, truncated, virtual_stages, schedule,
//   ops: [{stage, kind, mb, chunk, start, end}], makespan, busy, deadlock }.
export function simulatePipeline(pipe, { maxMicrobatches = MAX_DRAWN_MICROBATCHES, maxOps = 200000 } = {}) {
  const p = posInt(pipe?.stages, 1);
  const m = posInt(pipe?.microbatches, 1);
  const schedule = ['1f1b', 'interleaved', 'gpipe', 'zb_h1', 'dualpipe'].includes(pipe?.schedule) ? pipe.schedule : '1f1b';
  const v = schedule === 'interleaved' ? posInt(pipe?.virtual_stages, 1) : 1;
  // DualPipe's order needs an even count of at least 2p (its steady state).
  const dual = schedule === 'dualpipe';
  let shown = dual ? Math.min(m, Math.max(maxMicrobatches, 2 * p)) : Math.min(m, maxMicrobatches);
  // Megatron's interleaved order takes the micro-batches through the chunks
  // in groups of p: a shortened drawing keeps whole groups (32 of 48
  // micro-batches on 12 stages would leave a part group it cannot order).
  if (schedule === 'interleaved' && shown < m) shown = Math.min(m, Math.max(p, Math.floor(maxMicrobatches / p) * p));
  const tf = Number.isFinite(pipe?.t_fwd_s) && pipe.t_fwd_s > 0 ? pipe.t_fwd_s / v : 0;
  const tb = Number.isFinite(pipe?.t_bwd_s) && pipe.t_bwd_s > 0 ? pipe.t_bwd_s / v : 0;
  const result = { stages: p, microbatches: m, shown, truncated: shown < m, virtual_stages: v, schedule, ops: [], makespan: 0, busy: 0, deadlock: false };
  // A part group past the first (m > p, p not dividing m) is no order
  // Megatron runs: it needs micro-batches divisible by pp, as the core warns.
  const partGroup = schedule === 'interleaved' && shown > p && shown % p !== 0;
  if (partGroup || p * shown * v * 3 > maxOps) {
    result.deadlock = true;
    return result;
  }
  if (schedule === 'zb_h1' || dual) {
    const tw = Number.isFinite(pipe?.t_wgrad_s) && pipe.t_wgrad_s > 0 ? pipe.t_wgrad_s : 0;
    if (!dual) simulateZeroBubble(p, shown, tf, tb, tw, result);
    else if (p % 2 === 0 && shown % 2 === 0 && shown >= 2 * p) simulateDualPipe(p, shown, tf, tb, tw, result);
    else result.deadlock = true;
    result.makespan = Math.max(0, ...result.ops.map((o) => o.end));
    result.busy = result.ops.reduce((a, o) => a + (o.end - o.start), 0);
    return result;
  }
  const orders = [];
  for (let s = 0; s < p; s++) orders.push(stageOrder(schedule, p, shown, v, s));
  const done = new Map();
  const free = runInOrder(orders, done, (s, op) => ({
    deps: deps(op, s, p, v),
    run: (start) => {
      const end = start + (op.kind === 'F' ? tf : tb);
      done.set(key(op.kind, s, op.chunk, op.mb), end);
      result.ops.push({ stage: s, kind: op.kind, mb: op.mb, chunk: op.chunk, start, end });
      return end;
    },
  }));
  if (!free) result.deadlock = true;
  result.makespan = Math.max(0, ...result.ops.map((o) => o.end));
  result.busy = result.ops.reduce((a, o) => a + (o.end - o.start), 0);
  return result;
}
