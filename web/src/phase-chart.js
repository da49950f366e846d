// Inference: prefill vs decode, per op. For each phase one strip on a log
// arithmetic-intensity axis (a dot per op, its area its share of the phase's
// time, its colour what bounds it), the ridge points of the device (peak ÷
// bandwidth of each memory level: left of a ridge an op cannot be
// compute-bound on that level), and a bar of the phase's time by bound.
import { scaleLog, scaleLinear } from 'd3-scale';
import { el, svg } from './dom.js';
import * as fmt from './format.js';

const W = 640;
const BOUND_ORDER = ['compute', 'hbm', 'l2', 'smem', 'network', 'latency'];

export function boundIndex(bound) {
  const i = BOUND_ORDER.indexOf(bound);
  return i >= 0 ? i : BOUND_ORDER.length + (Math.abs([...String(bound)].reduce((a, c) => a * 31 + c.charCodeAt(0), 7)) % 4);
}

function opTime(op) {
  const t = (op.time_s || 0) * (Number.isFinite(op.count) ? op.count : 1);
  return t > 0 ? t : 0;
}

function intensity(op) {
  if (Number.isFinite(op.arithmetic_intensity) && op.arithmetic_intensity > 0) return op.arithmetic_intensity;
  const b = op.bytes && typeof op.bytes === 'object' ? op.bytes.hbm : op.bytes;
  return op.flops > 0 && b > 0 ? op.flops / b : NaN;
}

// Per phase: total time, time by bound, and the ops with an intensity.
export function phaseSummary(ops, phase) {
  const mine = (ops || []).filter((o) => o && o.phase === phase);
  const total = mine.reduce((a, o) => a + opTime(o), 0);
  const byBound = new Map();
  for (const o of mine) byBound.set(o.bound || 'unknown', (byBound.get(o.bound || 'unknown') || 0) + opTime(o));
  const bounds = [...byBound.entries()].map(([bound, t]) => ({ bound, time: t, share: total > 0 ? t / total : 0 })).sort((a, b) => b.time - a.time);
  const points = mine.map((o) => ({ op: o, ai: intensity(o), share: total > 0 ? opTime(o) / total : 0 })).filter((p) => Number.isFinite(p.ai) && p.ai > 0);
  return { phase, total, bounds, points, count: mine.length };
}

export function phaseChart(result) {
  const phases = ['prefill', 'decode'].map((p) => phaseSummary(result.ops, p)).filter((s) => s.count > 0);
  if (!phases.length) return null;
  const peak = result.device?.peak_flops;
  const roofs = (result.device?.roofs || []).filter((r) => r.bandwidth_Bps > 0);
  const ridges = peak > 0 ? roofs.map((r, i) => ({ name: r.name, ai: peak / r.bandwidth_Bps, i })) : [];
  const ach = result.device?.achievable_flops;
  const hbm = roofs[roofs.length - 1];
  if (ach > 0 && hbm && ach < peak) ridges.push({ name: `${hbm.name} (achievable)`, ai: ach / hbm.bandwidth_Bps, i: -1 });
  const ais = [...phases.flatMap((s) => s.points.map((p) => p.ai)), ...ridges.map((r) => r.ai)];
  const lo = Math.min(...ais, 1);
  const hi = Math.max(...ais, 10);
  const x = scaleLog().domain([lo / 2, hi * 2]).range([90, W - 16]).clamp(true);
  const band = 78;
  const top = 22;
  const H = top + phases.length * band + 36;
  const desc = phases
    .map((s) => `${s.phase}: ${fmt.seconds(s.total)} of op time, ` + s.bounds.slice(0, 3).map((b) => `${fmt.percent(b.share)} ${b.bound}-bound`).join(', '))
    .join('; ');
  const root = svg('svg', { class: 'chart phases', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': `Prefill vs decode boundedness. ${desc}` });
  for (const t of x.ticks(6).filter((t) => Number.isInteger(Math.log10(t)))) {
    root.append(svg('line', { class: 'grid', x1: x(t), x2: x(t), y1: top, y2: H - 30 }));
    root.append(svg('text', { class: 'tick-label', x: x(t), y: H - 16, 'text-anchor': 'middle', text: fmt.num(t) }));
  }
  root.append(svg('text', { class: 'axis-label', x: (90 + W) / 2, y: H - 2, 'text-anchor': 'middle', text: 'arithmetic intensity (FLOP/byte of HBM)' }));
  for (const r of ridges) {
    const cls = r.i >= 0 ? 'ridge' : 'ridge achievable';
    root.append(svg('line', { class: cls, x1: x(r.ai), x2: x(r.ai), y1: top - 4, y2: H - 30, 'data-ridge': r.name }, [svg('title', { text: `${r.name} ridge: ${fmt.num(r.ai)} FLOP/B` })]));
  }
  const labelled = ridges.filter((r) => r.i === roofs.length - 1);
  for (const r of labelled) root.append(svg('text', { class: 'ridge-label', x: x(r.ai) + 3, y: top - 8, text: `${r.name} ridge ${fmt.num(r.ai)}` }));
  phases.forEach((s, k) => {
    const y0 = top + k * band;
    const bar = scaleLinear().domain([0, 1]).range([90, W - 16]);
    root.append(svg('text', { class: 'axis-label phase-label', x: 4, y: y0 + 26, text: s.phase }));
    root.append(svg('text', { class: 'tick-label', x: 4, y: y0 + 40, text: fmt.seconds(s.total) }));
    root.append(svg('line', { class: 'tick', x1: 90, x2: W - 16, y1: y0 + 28, y2: y0 + 28 }));
    for (const p of s.points) {
      const r = Math.max(2, Math.min(12, 14 * Math.sqrt(p.share)));
      root.append(
        svg('circle', { class: `op b${boundIndex(p.op.bound) % 10}`, cx: x(p.ai), cy: y0 + 28, r, 'data-op': p.op.name, 'data-phase': s.phase, 'data-bound': p.op.bound || '' }, [
          svg('title', { text: `${p.op.name} (${s.phase}): ${fmt.num(p.ai)} FLOP/B, ${fmt.seconds(opTime(p.op))} (${fmt.percent(p.share)}), bound: ${p.op.bound}` }),
        ]),
      );
    }
    let acc = 0;
    for (const b of s.bounds) {
      if (!(b.share > 0)) continue;
      const x0 = bar(acc);
      acc += b.share;
      root.append(
        svg('rect', { class: `seg b${boundIndex(b.bound) % 10}`, x: x0, y: y0 + 48, width: Math.max(0.5, bar(acc) - x0), height: 14, 'data-phase': s.phase, 'data-bound': b.bound }, [
          svg('title', { text: `${s.phase}: ${b.bound}-bound ${fmt.percent(b.share)} (${fmt.seconds(b.time)})` }),
        ]),
      );
    }
  });
  const all = [...new Set(phases.flatMap((s) => s.bounds.map((b) => b.bound)))].sort((a, b) => boundIndex(a) - boundIndex(b));
  const leg = el('ul', { class: 'legend' });
  for (const b of all) leg.append(el('li', { 'data-bound': b }, [el('span', { class: `swatch b${boundIndex(b) % 10}`, 'aria-hidden': 'true' }), `${b}-bound`]));
  const summary = el('p', { class: 'chart-note', text: desc + '.' });
  return el('figure', { class: 'chart-box chart-phases', 'data-view': 'phases' }, [el('figcaption', { text: 'Prefill vs decode: what bounds each op' }), root, leg, summary]);
}
