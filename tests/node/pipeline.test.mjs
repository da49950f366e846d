// The pipeline schedule simulator behind the pipeline chart: textbook bubble
// sizes for GPipe, 1F1B and interleaved 1F1B, and truncation to 32 micro-batches.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { simulatePipeline, stageOrder } from '../../web/src/charts/pipeline.js';

const close = (a, b, msg) => assert.ok(Math.abs(a - b) < 1e-9 * Math.max(1, Math.abs(b)), `${msg}: ${a} vs ${b}`);

test('1F1B: iteration = (m + p - 1) x (tf + tb), every op once', () => {
  const r = simulatePipeline({ stages: 4, microbatches: 8, schedule: '1f1b', virtual_stages: 1, t_fwd_s: 1, t_bwd_s: 2 });
  assert.equal(r.deadlock, false);
  assert.equal(r.ops.length, 4 * 8 * 2);
  close(r.makespan, (8 + 4 - 1) * 3, 'makespan');
  // stage 0 warms up with p - 1 forwards
  assert.deepEqual(stageOrder('1f1b', 4, 8, 1, 0).slice(0, 4).map((o) => o.kind).join(''), 'FFFF');
  assert.deepEqual(stageOrder('1f1b', 4, 8, 1, 3).slice(0, 3).map((o) => o.kind).join(''), 'FBF');
});

test('GPipe has the same bubble as 1F1B', () => {
  const r = simulatePipeline({ stages: 4, microbatches: 8, schedule: 'gpipe', t_fwd_s: 1, t_bwd_s: 2 });
  close(r.makespan, (8 + 4 - 1) * 3, 'makespan');
});

test('interleaved: bubble shrinks by the number of chunks', () => {
  const p = 4;
  const m = 8;
  const v = 2;
  const r = simulatePipeline({ stages: p, microbatches: m, schedule: 'interleaved', virtual_stages: v, t_fwd_s: 1, t_bwd_s: 2 });
  assert.equal(r.deadlock, false);
  assert.equal(r.ops.length, p * m * v * 2);
  close(r.makespan, m * 3 + ((p - 1) * 3) / v, 'makespan');
  const chunks = new Set(r.ops.map((o) => o.chunk));
  assert.deepEqual([...chunks].sort(), [0, 1]);
});

// Fewer micro-batches than stages: Megatron's order takes them through each
// chunk in one group that waits for its first to cross every stage, so the
// iteration is (p + (m - 1)/v) slots, as the core's bubble counts it
// (core/src/sim/schedule.cpp); at m = p it meets the textbook m + (p - 1)/v.
test('interleaved with m <= p: (p + (m - 1)/v) slots, as the core costs it', () => {
  for (const [p, m, v] of [[2, 1, 25], [4, 1, 2], [4, 2, 2], [4, 3, 4], [8, 5, 3], [4, 4, 2]]) {
    const r = simulatePipeline({ stages: p, microbatches: m, schedule: 'interleaved', virtual_stages: v, t_fwd_s: 1, t_bwd_s: 2 });
    assert.equal(r.deadlock, false);
    assert.equal(r.ops.length, p * m * v * 2);
    close(r.makespan, (p + (m - 1) / v) * 3, `p ${p} m ${m} v ${v}`);
  }
});

// A shortened interleaved drawing keeps whole groups of p micro-batches, the
// order Megatron runs: 32 of 48 on 12 stages would leave a part group.
test('interleaved: a shortened drawing keeps whole groups of p', () => {
  for (const [p, m, shown] of [[12, 48, 24], [6, 36, 30], [16, 64, 32], [48, 96, 48]]) {
    const r = simulatePipeline({ stages: p, microbatches: m, schedule: 'interleaved', virtual_stages: 2, t_fwd_s: 1, t_bwd_s: 2 });
    assert.equal(r.shown, shown, `p ${p} m ${m}`);
    assert.equal(r.deadlock, false);
    assert.equal(r.ops.length, p * shown * 2 * 2);
  }
  // A count that leaves a part group is not laid out, whether or not the
  // order would run to the end (Megatron needs micro-batches divisible by pp).
  for (const [p, m] of [[4, 6], [4, 7], [8, 9], [8, 20]]) {
    const r = simulatePipeline({ stages: p, microbatches: m, schedule: 'interleaved', virtual_stages: 2, t_fwd_s: 1, t_bwd_s: 2 });
    assert.equal(r.deadlock, true, `p ${p} m ${m}`);
    assert.equal(r.ops.length, 0);
  }
});

test('dependencies hold: a forward follows the previous stage, a backward the next', () => {
  const r = simulatePipeline({ stages: 3, microbatches: 6, schedule: 'interleaved', virtual_stages: 3, t_fwd_s: 1.5, t_bwd_s: 3 });
  assert.equal(r.deadlock, false);
  const at = new Map(r.ops.map((o) => [`${o.kind}${o.stage}.${o.chunk}.${o.mb}`, o]));
  for (const o of r.ops) {
    if (o.kind === 'F' && o.stage > 0) assert.ok(o.start >= at.get(`F${o.stage - 1}.${o.chunk}.${o.mb}`).end);
    if (o.kind === 'B') assert.ok(o.start >= at.get(`F${o.stage}.${o.chunk}.${o.mb}`).end);
  }
  // no stage runs two ops at once
  for (let s = 0; s < 3; s++) {
    const mine = r.ops.filter((o) => o.stage === s).sort((a, b) => a.start - b.start);
    for (let i = 1; i < mine.length; i++) assert.ok(mine[i].start >= mine[i - 1].end - 1e-12);
  }
});

test('more than 32 micro-batches are truncated; bad input does not throw', () => {
  const r = simulatePipeline({ stages: 8, microbatches: 1536, schedule: '1f1b', t_fwd_s: 0.01, t_bwd_s: 0.02 });
  assert.equal(r.shown, 32);
  assert.equal(r.truncated, true);
  assert.equal(new Set(r.ops.map((o) => o.mb)).size, 32);
  const bad = simulatePipeline({ stages: 'x', microbatches: -1, schedule: 'nope', t_fwd_s: NaN });
  assert.equal(bad.stages, 1);
  assert.equal(bad.deadlock, false);
  assert.equal(simulatePipeline(null).ops.length, 2);
});

test('ZB-H1: weight gradients fill the bubble, (m (tf + tb) + (p - 1)(tf + tb - 2 tw)) as the core costs it', () => {
  for (const [p, m] of [[4, 8], [8, 32], [16, 32], [8, 8]]) {
    const r = simulatePipeline({ stages: p, microbatches: m, schedule: 'zb_h1', t_fwd_s: 1, t_bwd_s: 2, t_wgrad_s: 1 });
    assert.equal(r.deadlock, false);
    assert.equal(r.ops.length, p * m * 3, 'F, B and W of every micro-batch on every stage');
    close(r.makespan, m * 3 + (p - 1) * (1 + 2 - 2), `makespan p ${p} m ${m}`);
    // a W follows its own B on the same stage
    const at = new Map(r.ops.map((o) => [`${o.kind}${o.stage}.${o.mb}`, o]));
    for (const o of r.ops) if (o.kind === 'W') assert.ok(o.start >= at.get(`B${o.stage}.${o.mb}`).end);
  }
  // Unequal passes: no longer than 1F1B, within 5% of the closed form.
  const r = simulatePipeline({ stages: 8, microbatches: 32, schedule: 'zb_h1', t_fwd_s: 1, t_bwd_s: 2.2, t_wgrad_s: 0.9 });
  assert.ok(r.makespan <= (32 + 7) * 3.2);
  assert.ok(Math.abs(r.makespan / (32 * 3.2 + 7 * (3.2 - 1.8)) - 1) < 0.05, String(r.makespan));
});

// Fewer micro-batches than stages leave too few W to fill the wait for the
// first backward: stage 0 idles (p - m) F + (p - 1) B' (B' = B - W), which
// the core takes where it exceeds the steady-state bubble (as it does when
// W > F at any m); the laid-out schedule is at most 9% longer (m = p).
test('ZB-H1 with few micro-batches: the wait for the first backward, as the core costs it', () => {
  for (const [p, m, tf, tb, tw] of [[4, 1, 1, 2, 0.8], [4, 2, 1, 2, 0.8], [8, 3, 1, 2, 0.8], [8, 5, 1.2, 2.6, 1.1], [16, 4, 1, 2, 1], [4, 4, 1, 2, 0.8], [4, 8, 1, 3, 1.5]]) {
    const r = simulatePipeline({ stages: p, microbatches: m, schedule: 'zb_h1', t_fwd_s: tf, t_bwd_s: tb, t_wgrad_s: tw });
    assert.equal(r.deadlock, false);
    const core = m * (tf + tb) + Math.max((p - 1) * (tf + tb - 2 * tw), Math.max(0, p - m) * tf + (p - 1) * (tb - tw));
    assert.ok(core <= r.makespan + 1e-9 && r.makespan <= 1.09 * core, `p ${p} m ${m}: core ${core}, laid out ${r.makespan}`);
  }
});

// DualPipe (DeepSeek-V3 §3.2.1): the eight steps of the reference
// implementation, laid out with the stage dependencies of both directions,
// give Table 2's bubble, (p/2 - 1)(F&B + B - 3W), which the core charges.
test('DualPipe: each direction crosses every stage once; the layout gives Table 2 bubble', () => {
  for (const [p, m, tf, tb, tw] of [[2, 4, 1, 2, 1], [4, 8, 1, 2, 1], [8, 20, 1, 2, 1], [8, 32, 1, 2, 0.5], [16, 32, 1.3, 2.9, 1.1]]) {
    const r = simulatePipeline({ stages: p, microbatches: m, schedule: 'dualpipe', t_fwd_s: tf, t_bwd_s: tb, t_wgrad_s: tw });
    assert.equal(r.deadlock, false, `p ${p} m ${m}`);
    close(r.makespan, m * (tf + tb) + (p / 2 - 1) * (tf + tb + tb - 3 * tw), `makespan p ${p} m ${m}`);
    for (const kind of ['F', 'B']) {
      const seen = new Set(r.ops.filter((o) => o.kind === kind).map((o) => `${o.stage}.${o.chunk}.${o.mb}`));
      assert.equal(seen.size, p * m, `${kind}: one per stage, direction and micro-batch`);
    }
    // direction 0 runs down the stages, direction 1 up; a backward after its own forward
    const at = new Map(r.ops.filter((o) => o.kind !== 'W').map((o) => [`${o.kind}${o.stage}.${o.chunk}.${o.mb}`, o]));
    for (const o of r.ops) {
      if (o.kind === 'F' && o.chunk === 0 && o.stage > 0) assert.ok(o.start >= at.get(`F${o.stage - 1}.0.${o.mb}`).end - 1e-12);
      if (o.kind === 'F' && o.chunk === 1 && o.stage < p - 1) assert.ok(o.start >= at.get(`F${o.stage + 1}.1.${o.mb}`).end - 1e-12);
      if (o.kind === 'B') assert.ok(o.start >= at.get(`F${o.stage}.${o.chunk}.${o.mb}`).end - 1e-12);
    }
    for (let s = 0; s < p; s++) {
      const mine = r.ops.filter((o) => o.stage === s).sort((a, b) => a.start - b.start);
      for (let i = 1; i < mine.length; i++) assert.ok(mine[i].start >= mine[i - 1].end - 1e-12);
    }
  }
  // 64 micro-batches on 8 stages: 32 drawn; on 32 stages 64 (its steady state needs 2p).
  assert.equal(simulatePipeline({ stages: 8, microbatches: 64, schedule: 'dualpipe', t_fwd_s: 1, t_bwd_s: 2 }).shown, 32);
  assert.equal(simulatePipeline({ stages: 32, microbatches: 128, schedule: 'dualpipe', t_fwd_s: 1, t_bwd_s: 2 }).shown, 64);
  // fewer than 2p micro-batches: not laid out
  assert.equal(simulatePipeline({ stages: 8, microbatches: 10, schedule: 'dualpipe', t_fwd_s: 1, t_bwd_s: 2 }).deadlock, true);
});
