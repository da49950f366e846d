// SVG charts of the Search, Sweep and Studies views: the TP x PP heatmap,
// the time-vs-memory scatter (Pareto front), line charts and the waterfall.
// Colours come from CSS classes (strict CSP, dark mode).
import { scaleLinear, scaleLog } from 'd3-scale';
import { el, svg } from './dom.js';
import * as fmt from './format.js';

const W = 640;

function axisLabels(root, { H, m, xLabel, yLabel }) {
  root.append(svg('text', { class: 'axis-label', x: (m.l + W - m.r) / 2, y: H - 6, 'text-anchor': 'middle', text: xLabel }));
  const cy = (m.t + H - m.b) / 2;
  root.append(svg('text', { class: 'axis-label', x: 12, y: cy, 'text-anchor': 'middle', transform: `rotate(-90 12 ${cy})`, text: yLabel }));
}

function ticks(root, { x, y, H, m, xFmt, yFmt, xLog, yLog }) {
  const pick = (s, log) => {
    const t = s.ticks(6);
    if (!log) return t;
    const decades = t.filter((v) => Math.abs(Math.log10(v) % 1) < 1e-9);
    return decades.length >= 2 ? decades : t.filter((_, i) => i % Math.ceil(t.length / 6) === 0);
  };
  for (const t of pick(x, xLog)) {
    root.append(svg('line', { class: 'grid', x1: x(t), x2: x(t), y1: m.t, y2: H - m.b }));
    root.append(svg('text', { class: 'tick-label', x: x(t), y: H - m.b + 14, 'text-anchor': 'middle', text: xFmt(t) }));
  }
  for (const t of pick(y, yLog)) {
    root.append(svg('line', { class: 'grid', x1: m.l, x2: W - m.r, y1: y(t), y2: y(t) }));
    root.append(svg('text', { class: 'tick-label', x: m.l - 6, y: y(t) + 4, 'text-anchor': 'end', text: yFmt(t) }));
  }
}

const padded = ([a, b], log) => {
  if (a === b) return log ? [a / 2, b * 2] : [a - (Math.abs(a) || 1) * 0.1, b + (Math.abs(b) || 1) * 0.1];
  if (log) return [a / 1.15, b * 1.15];
  const d = (b - a) * 0.06;
  return [a >= 0 && a - d < 0 ? 0 : a - d, b + d];
};

// cells: [{tp, pp, value (null: nothing fits / not run), label}], lower is
// better when `lowerBetter`. Darker = better.
export function heatmap({ title, tps, pps, cells, format, lowerBetter = true, valueName }) {
  const m = { l: 56, r: 12, t: 12, b: 40 };
  const cw = Math.max(28, Math.min(80, (W - m.l - m.r) / Math.max(1, pps.length)));
  const ch = 30;
  const H = m.t + m.b + ch * tps.length;
  const vals = cells.map((c) => c.value).filter(Number.isFinite);
  const lo = Math.min(...vals);
  const hi = Math.max(...vals);
  const root = svg('svg', {
    class: 'chart heatmap',
    viewBox: `0 0 ${Math.max(W, m.l + m.r + cw * pps.length)} ${H}`,
    role: 'img',
    'aria-label': `${title}: ${vals.length} of ${cells.length} (TP, PP) cells have a plan that fits`,
  });
  const at = new Map(cells.map((c) => [`${c.tp}x${c.pp}`, c]));
  tps.forEach((tp, r) => {
    root.append(svg('text', { class: 'tick-label', x: m.l - 6, y: m.t + r * ch + ch / 2 + 4, 'text-anchor': 'end', text: String(tp) }));
    pps.forEach((pp, c) => {
      const cell = at.get(`${tp}x${pp}`);
      const v = cell?.value;
      const ok = Number.isFinite(v);
      // 0 (worst) .. 5 (best), by log distance from the best value
      let level = 0;
      if (ok && hi > lo) {
        const f = (Math.log(v) - Math.log(lo)) / (Math.log(hi) - Math.log(lo));
        level = Math.round(5 * (lowerBetter ? 1 - f : f));
      } else if (ok) level = 5;
      const x = m.l + c * cw;
      const y = m.t + r * ch;
      const text = !cell ? '' : ok ? format(v) : cell.state === 'pending' ? '…' : '–';
      const tip = !cell ? `TP ${tp} × PP ${pp}: more GPUs than searched` : ok ? `TP ${tp} × PP ${pp}: ${valueName} ${format(v)}` : `TP ${tp} × PP ${pp}: ${cell.state === 'pending' ? 'not searched yet' : 'no plan fits'}`;
      root.append(
        svg('g', { class: `hm-cell${ok ? ` h${level}` : cell ? ' none' : ' out'}`, 'data-tp': tp, 'data-pp': pp, 'data-value': ok ? v : '' }, [
          svg('rect', { x: x + 1, y: y + 1, width: cw - 2, height: ch - 2, rx: 2 }),
          svg('text', { class: 'hm-label', x: x + cw / 2, y: y + ch / 2 + 4, 'text-anchor': 'middle', text }),
          svg('title', { text: tip }),
        ]),
      );
    });
  });
  pps.forEach((pp, c) => root.append(svg('text', { class: 'tick-label', x: m.l + c * cw + cw / 2, y: H - m.b + 14, 'text-anchor': 'middle', text: String(pp) })));
  root.append(svg('text', { class: 'axis-label', x: m.l + (cw * pps.length) / 2, y: H - 8, 'text-anchor': 'middle', text: 'pipeline parallel (PP)' }));
  const cy = m.t + (ch * tps.length) / 2;
  root.append(svg('text', { class: 'axis-label', x: 12, y: cy, 'text-anchor': 'middle', transform: `rotate(-90 12 ${cy})`, text: 'tensor parallel (TP)' }));
  return el('figure', { class: 'chart-box heatmap-box', 'data-view': 'heatmap' }, [el('figcaption', { text: title }), root]);
}

// points: [{x, y, label, front: bool, key}]; log axes when the data spans > 20x.
export function scatter({ title, points, xLabel, yLabel, xFmt, yFmt, className = '' }) {
  const H = 320;
  const m = { l: 78, r: 16, t: 12, b: 44 };
  const span = (vs) => Math.max(...vs) / Math.min(...vs);
  const xs = points.map((p) => p.x);
  const ys = points.map((p) => p.y);
  const xLog = xs.every((v) => v > 0) && span(xs) > 20;
  const yLog = ys.every((v) => v > 0) && span(ys) > 20;
  const x = (xLog ? scaleLog() : scaleLinear()).domain(padded([Math.min(...xs), Math.max(...xs)], xLog)).range([m.l, W - m.r]).nice();
  const y = (yLog ? scaleLog() : scaleLinear()).domain(padded([Math.min(...ys), Math.max(...ys)], yLog)).range([H - m.b, m.t]).nice();
  const root = svg('svg', { class: `chart scatter ${className}`, viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': `${title}: ${points.length} points` });
  ticks(root, { x, y, H, m, xFmt, yFmt, xLog, yLog });
  axisLabels(root, { H, m, xLabel, yLabel });
  const front = points.filter((p) => p.front).sort((a, b) => a.x - b.x);
  if (front.length > 1) root.append(svg('path', { class: 'front-line', d: front.map((p, i) => `${i ? 'L' : 'M'}${x(p.x).toFixed(1)},${y(p.y).toFixed(1)}`).join('') }));
  for (const p of points) {
    root.append(svg('circle', { class: `pt ${p.front ? 'front c0' : 'other c1'}`, cx: x(p.x), cy: y(p.y), r: p.front ? 4 : 3, 'data-key': p.key }, [svg('title', { text: p.label })]));
  }
  const leg = el('ul', { class: 'legend' }, [
    el('li', {}, [el('span', { class: 'swatch c0', 'aria-hidden': 'true' }), 'Pareto front']),
    el('li', {}, [el('span', { class: 'swatch c1', 'aria-hidden': 'true' }), 'best plans']),
  ]);
  return el('figure', { class: `chart-box ${className}` }, [el('figcaption', { text: title }), root, leg]);
}

// series: [{name, values: [number|null]}] over xs; one path and one dot per point.
export function lineChart({ title, xs, series, xLog = false, xLabel, yLabel, xFmt = fmt.num, yFmt = fmt.num, className = '' }) {
  const H = 300;
  const m = { l: 78, r: 16, t: 12, b: 44 };
  const ys = series.flatMap((s) => s.values).filter(Number.isFinite);
  if (!ys.length || !xs.length) return el('p', { class: 'view-missing', text: `${title}: no values to draw.` });
  const xLo = Math.min(...xs);
  const xHi = Math.max(...xs);
  const x = (xLog ? scaleLog() : scaleLinear()).domain(xLo === xHi ? padded([xLo, xHi], xLog) : [xLo, xHi]).range([m.l, W - m.r]);
  const y = scaleLinear().domain(padded([Math.min(...ys), Math.max(...ys)], false)).range([H - m.b, m.t]).nice();
  const root = svg('svg', { class: `chart line-chart ${className}`, viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': `${title}: ${series.length} series of ${xs.length} points` });
  ticks(root, { x, y, H, m, xFmt, yFmt, xLog, yLog: false });
  axisLabels(root, { H, m, xLabel, yLabel });
  series.forEach((s, i) => {
    const ci = i % 6;
    let d = '';
    let pen = false;
    s.values.forEach((v, j) => {
      if (!Number.isFinite(v)) {
        pen = false;
        return;
      }
      d += `${pen ? 'L' : 'M'}${x(xs[j]).toFixed(1)},${y(v).toFixed(1)}`;
      pen = true;
    });
    const g = svg('g', { class: 'series', 'data-series': s.name }, [svg('path', { class: `line r${ci}`, d })]);
    s.values.forEach((v, j) => {
      if (Number.isFinite(v)) g.append(svg('circle', { class: `pt r${ci}`, cx: x(xs[j]), cy: y(v), r: 3 }, [svg('title', { text: `${s.name}: ${xFmt(xs[j])} → ${yFmt(v)}` })]));
    });
    root.append(g);
  });
  const leg = el('ul', { class: 'legend' });
  series.forEach((s, i) => leg.append(el('li', { 'data-series': s.name }, [el('span', { class: `swatch b${i % 6}`, 'aria-hidden': 'true' }), s.name])));
  return el('figure', { class: `chart-box ${className}` }, [el('figcaption', { text: title }), root, leg]);
}

// steps: [{label, value}] with value the cumulative factor after the step (the
// first is the baseline). Each bar spans from the previous factor to its own.
export function waterfall({ title, steps, format = (v) => `${v.toFixed(2)}×` }) {
  const m = { l: 280, r: 60, t: 8, b: 30 };
  const bh = 24;
  const H = m.t + m.b + bh * steps.length;
  const hi = Math.max(1, ...steps.map((s) => s.value));
  const x = scaleLinear().domain([0, hi * 1.05]).range([m.l, W - m.r]).nice();
  const root = svg('svg', { class: 'chart waterfall', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': `${title}: ${steps.map((s) => `${s.label} ${format(s.value)}`).join(', ')}` });
  for (const t of x.ticks(6)) {
    root.append(svg('line', { class: 'grid', x1: x(t), x2: x(t), y1: m.t, y2: H - m.b }));
    root.append(svg('text', { class: 'tick-label', x: x(t), y: H - m.b + 14, 'text-anchor': 'middle', text: format(t) }));
  }
  let prev = 0;
  steps.forEach((s, i) => {
    const y0 = m.t + i * bh;
    const from = i === 0 ? 0 : prev;
    const a = Math.min(from, s.value);
    const b = Math.max(from, s.value);
    const kind = i === 0 ? 'base' : s.value >= from ? 'up' : 'down';
    root.append(svg('text', { class: 'wf-label', x: m.l - 6, y: y0 + bh / 2 + 4, 'text-anchor': 'end', text: s.label.length > 44 ? `${s.label.slice(0, 43)}…` : s.label }));
    root.append(svg('rect', { class: `wf-bar ${kind}`, 'data-step': i, x: x(a), y: y0 + 3, width: Math.max(1, x(b) - x(a)), height: bh - 6 }, [svg('title', { text: `${s.label}: ${format(s.value)}` })]));
    root.append(svg('text', { class: 'wf-value', x: x(b) + 4, y: y0 + bh / 2 + 4, text: format(s.value) }));
    if (i > 0) root.append(svg('line', { class: 'wf-link', x1: x(from), x2: x(from), y1: y0 - bh + 3, y2: y0 + 3 }));
    prev = s.value;
  });
  return el('figure', { class: 'chart-box waterfall-box', 'data-view': 'waterfall' }, [el('figcaption', { text: title }), root]);
}
