// Inference: prefill vs decode, per op. For each phase one strip on a log
// arithmetic-intensity axis (a dot per op, its area its share of the phase's
// time, its colour what bounds it), the ridge points of the device (peak ÷
// bandwidth of each memory level: left of a ridge an op cannot be
// compute-bound on that level), and a bar of the phase's time by bound.
// Drawn with Observable Plot on one log x axis; the time bar maps its 0..1
// share onto that axis geometrically, so it is linear in pixels.
import { el } from '../dom.js';
import * as fmt from '../format.js';
import { Plot, boundIndex, chartWidth, logTicks, plotSvg, tag } from './plot-kit.js';

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

// Ridge points: peak ÷ bandwidth per memory level, plus the achievable one
// on the outermost level (i = -1).
function ridgePoints(device) {
  const peak = device?.peak_flops;
  const roofs = (device?.roofs || []).filter((r) => r.bandwidth_Bps > 0);
  const ridges = peak > 0 ? roofs.map((r, i) => ({ name: r.name, label: fmt.levelLabel({ device }, r.name), ai: peak / r.bandwidth_Bps, i })) : [];
  const ach = device?.achievable_flops;
  const hbm = roofs[roofs.length - 1];
  if (ach > 0 && hbm && ach < peak) ridges.push({ name: `${hbm.name} (achievable)`, label: `${fmt.levelLabel({ device }, hbm.name)} (achievable)`, ai: ach / hbm.bandwidth_Bps, i: -1 });
  return { ridges, last: roofs.length - 1 };
}

// Rows of the chart (y grows downwards, one unit per phase): the dot strip
// sits at k + 0.35, the time bar spans k + 0.6 .. k + 0.78.
const STRIP = 0.35;
const BAR = [0.6, 0.78];

// Each phase's time by bound as segments of a bar, in x units of the log axis
// ([lo, hi] the axis domain) so the bar is linear in pixels.
function boundSegments(phases, [lo, hi], label) {
  const at = (f) => lo * (hi / lo) ** f;
  return phases.flatMap((s, k) => {
    let acc = 0;
    return s.bounds.filter((b) => b.share > 0).map((b) => {
      const x1 = at(acc);
      acc += b.share;
      return { phase: s.phase, bound: b.bound, x1, x2: at(acc), y1: k + BAR[0], y2: k + BAR[1], tip: `${s.phase}: ${label(b.bound)}-bound ${fmt.percent(b.share)} (${fmt.seconds(b.time)})` };
    });
  });
}

function phaseMarks(phases, domain, label) {
  const dots = phases.flatMap((s, k) => s.points.map((p) => ({ ...p, phase: s.phase, k, r: Math.max(2, Math.min(12, 14 * Math.sqrt(p.share))) })));
  const segs = boundSegments(phases, domain, label);
  const rows = phases.map((s, k) => ({ ...s, k }));
  return [
    Plot.ruleY(rows, { y: (s) => s.k + STRIP, render: tag(rows, () => ({ class: 'tick' })) }),
    Plot.text(rows, { x: domain[0], y: (s) => s.k + STRIP, dx: -86, dy: -2, textAnchor: 'start', text: 'phase', render: tag(rows, () => ({ class: 'axis-label phase-label' })) }),
    Plot.text(rows, { x: domain[0], y: (s) => s.k + STRIP, dx: -86, dy: 12, textAnchor: 'start', text: (s) => fmt.seconds(s.total), render: tag(rows, () => ({ class: 'tick-label' })) }),
    Plot.dot(dots, {
      x: 'ai',
      y: (d) => d.k + STRIP,
      r: 'r',
      title: (d) => `${d.op.name} (${d.phase}): ${fmt.num(d.ai)} FLOP/B, ${fmt.seconds(opTime(d.op))} (${fmt.percent(d.share)}), bound: ${label(d.op.bound)}`,
      render: tag(dots, (d) => ({ class: `op b${boundIndex(d.op.bound) % 10}`, 'data-op': d.op.name, 'data-phase': d.phase, 'data-bound': d.op.bound || '' })),
    }),
    Plot.rect(segs, { x1: 'x1', x2: 'x2', y1: 'y1', y2: 'y2', title: 'tip', render: tag(segs, (g) => ({ class: `seg b${boundIndex(g.bound) % 10}`, 'data-phase': g.phase, 'data-bound': g.bound })) }),
  ];
}

// The ridge labels that fit at the top of a plot `width` px wide (its left
// margin `left` px): the outermost first, each right of its line, or left of
// it where it would run off the right edge; a label that would overlap one
// already placed is left out (the line keeps its tooltip). About 6 px a
// character at 10 px.
function placeRidgeLabels(ridges, last, domain, width, left) {
  const px = (ai) => (Math.log(ai / domain[0]) / Math.log(domain[1] / domain[0])) * width;
  const text = (r) => (r.i === last ? `${r.label} ridge ${fmt.num(r.ai)}` : r.label);
  const order = ridges.filter((r) => r.i >= 0).sort((a, b) => (b.i === last) - (a.i === last) || b.ai - a.ai);
  const placed = [];
  for (const r of order) {
    const w = text(r).length * 6;
    const x = px(r.ai);
    const end = x + 3 + w > width;
    const span = end ? [x - 3 - w, x - 3] : [x + 3, x + 3 + w];
    if (span[0] < -left || placed.some((p) => p.span[0] < span[1] + 4 && span[0] < p.span[1] + 4)) continue;
    placed.push({ ...r, text: text(r), end, span });
  }
  return placed;
}

// Every memory level's ridge is named at the top where there is room (the
// outermost with its value); the achievable one, beside it, is told apart in
// the note below.
function ridgeMarks(ridges, last, domain, width, left) {
  const labels = placeRidgeLabels(ridges, last, domain, width, left);
  // (Plot takes an anchor per mark, not per datum: one mark for each side)
  const side = (end) => {
    const these = labels.filter((r) => r.end === end);
    return Plot.text(these, { x: 'ai', frameAnchor: 'top', dx: end ? -3 : 3, dy: -8, textAnchor: end ? 'end' : 'start', text: 'text', render: tag(these, () => ({ class: 'ridge-label' })) });
  };
  return [
    Plot.ruleX(ridges, { x: 'ai', insetTop: -4, title: (r) => `${r.label} ridge: ${fmt.num(r.ai)} FLOP/B`, render: tag(ridges, (r) => ({ class: r.i >= 0 ? 'ridge' : 'ridge achievable', 'data-ridge': r.name })) }),
    side(false),
    side(true),
  ];
}

export function phaseChart(result) {
  const phases = ['prefill', 'decode'].map((p) => phaseSummary(result.ops, p)).filter((s) => s.count > 0);
  if (!phases.length) return null;
  const label = (bound) => fmt.levelLabel(result, bound);
  const { ridges, last } = ridgePoints(result.device);
  const ais = [...phases.flatMap((s) => s.points.map((p) => p.ai)), ...ridges.map((r) => r.ai)];
  const domain = [Math.min(...ais, 1) / 2, Math.max(...ais, 10) * 2];
  const desc = phases
    .map((s) => `${s.phase}: ${fmt.seconds(s.total)} of op time, ` + s.bounds.slice(0, 3).map((b) => `${fmt.percent(b.share)} ${label(b.bound)}-bound`).join(', '))
    .join('; ');
  const width = chartWidth() - 90 - 16;
  const root = plotSvg(
    {
      height: 22 + phases.length * 78 + 36,
      marginLeft: 90,
      marginRight: 16,
      marginTop: 22,
      marginBottom: 36,
      r: { type: 'identity' },
      x: { type: 'log', domain, clamp: true, ticks: logTicks(domain), tickFormat: fmt.compact, label: `arithmetic intensity (FLOP/byte of ${ridges.find((r) => r.i === last)?.label ?? 'HBM'})`, grid: true },
      y: { domain: [0, phases.length], reverse: true, axis: null },
      marks: [...ridgeMarks(ridges, last, domain, width, 90), ...phaseMarks(phases, domain, label)],
    },
    { className: 'phases', label: `Prefill vs decode boundedness. ${desc}` },
  );
  const all = [...new Set(phases.flatMap((s) => s.bounds.map((b) => b.bound)))].sort((a, b) => boundIndex(a) - boundIndex(b));
  const leg = el('ul', { class: 'legend' });
  for (const b of all) leg.append(el('li', { 'data-bound': b }, [el('span', { class: `swatch b${boundIndex(b) % 10}`, 'aria-hidden': 'true' }), `${label(b)}-bound`]));
  const achievable = ridges.find((r) => r.i < 0);
  const key = ridges.length
    ? ` Dashed lines: ridge points, the peak ÷ the bandwidth of each memory level${achievable ? `; the lighter one, the achievable rate ÷ the ${ridges.find((r) => r.i === last)?.label} bandwidth (${fmt.num(achievable.ai)} FLOP/byte)` : ''}.`
    : '';
  const summary = el('p', { class: 'chart-note', text: desc + '.' + key });
  return el('figure', { class: 'chart-box chart-phases', 'data-view': 'phases' }, [el('figcaption', { text: 'Prefill vs decode: what bounds each op' }), root, leg, summary]);
}
