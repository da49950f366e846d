// Charts of the Search, Sweep and Studies views, drawn with Observable Plot:
// the TP x PP heatmap, the time-vs-memory scatter (Pareto front), line charts
// and the waterfall. Colours come from CSS classes (strict CSP, dark mode);
// see plot-kit.js.
import { el } from '../dom.js';
import * as fmt from '../format.js';
import { Plot, chartWidth, durationLogTicks, logTicks, octaveTicks, plotSvg, tag, thinTicks } from './plot-kit.js';

const padded = ([a, b], log) => {
  if (a === b) return log ? [a / 2, b * 2] : [a - (Math.abs(a) || 1) * 0.1, b + (Math.abs(b) || 1) * 0.1];
  if (log) return [a / 1.15, b * 1.15];
  const d = (b - a) * 0.06;
  return [a >= 0 && a - d < 0 ? 0 : a - d, b + d];
};

// A position scale: log with decade ticks where there are two, else linear.
// On a linear axis durations and sizes get every tick in one unit at whole
// steps (fmt.axisTicks), not 100 s next to 3.33 min or 9.31 GiB next to
// 18.6 GiB, and shares at whole or decimal percents; log ticks keep each
// value's own unit and are round in it (10 s, 100 s, 10 min).
const AXIS_KIND = new Map([
  [fmt.seconds, 'seconds'],
  [fmt.bytes, 'bytes'],
  [fmt.percent, 'percent'],
]);
// `ticks`: the tick values to use instead (the data's own x values);
// `count`: about how many ticks the axis takes (given for x axes, fewer when
// narrow, so that labels such as "20 GiB" do not run into each other on a
// phone); a log axis of bytes ticks at powers of two.
function axis({ log, domain, tickFormat: format, label, nice = false, ticks = null, count = null }) {
  // Plain numbers tick without trailing zeros (1k, 0.02); values keep fmt.num's three digits.
  const tickFormat = format === fmt.num ? fmt.compact : format;
  // Three ticks or more where the domain is kept; a nice log domain widens to
  // whole decades, and Plot's log tick format (d3's) then blanks the labels
  // of 5s and up, so there two decades do.
  const least = nice ? 2 : 3;
  const most = count ? count + 1 : Infinity;
  if (log && tickFormat === fmt.bytes) {
    // base 2: d3's log tick format labels only the ticks of small mantissa in
    // its base, so in base 10 it would blank 8 GiB (8.59e9); not niced, which
    // would widen the domain to whole octaves past the data
    const octaves = ticks ?? octaveTicks(domain, most);
    if (octaves) return { type: 'log', base: 2, domain, ticks: octaves, tickFormat: wholeBytes, label, grid: true };
  }
  const round = tickFormat === fmt.seconds ? durationLogTicks : logTicks;  // 10 min, not 600 s as "10 min" and 500 s as "8.33 min"
  if (log) return { type: 'log', domain, nice, ticks: ticks ?? thinTicks(round(domain, least) ?? round(domain), most) ?? 6, tickFormat: fmt.trimmed(tickFormat), label, grid: true };
  // Whole-step ticks start at zero or above: an axis reaching below zero keeps Plot's.
  const units = AXIS_KIND.has(tickFormat) && domain[0] >= 0 ? fmt.axisTicks(AXIS_KIND.get(tickFormat), domain[1], count ?? 5, domain[0]) : null;
  return { type: 'linear', domain, nice: nice && !units, ticks: ticks ?? units?.ticks ?? (count ?? 5) + 1, tickFormat: units?.format ?? tickFormat, label, grid: true };
}

// A power of two of bytes without trailing zeros: 2 GiB, 32 GiB, 512 MiB.
const wholeBytes = (v) => fmt.bytes(v).replace(/\.0+(?=\u00a0)|(\.\d*[1-9])0+(?=\u00a0)/, '$1');

// Ticks for an x axis of the chart's width less its side margins: one per
// 80 px (a label such as "16.7 min" takes about 50), at most 5.
const xTickCount = (margins) => Math.max(2, Math.min(5, Math.floor((chartWidth() - margins) / 80)));

// 0 (worst) .. 5 (best), by log distance from the best value.
function heatLevel(v, lo, hi, lowerBetter) {
  if (!(hi > lo)) return 5;
  const f = (Math.log(v) - Math.log(lo)) / (Math.log(hi) - Math.log(lo));
  return Math.round(5 * (lowerBetter ? 1 - f : f));
}

// One entry per (TP, PP) pair of the grid, searched or not.
function heatCells({ tps, pps, cells, format, lowerBetter, valueName, unit }) {
  const vals = cells.map((c) => c.value).filter(Number.isFinite);
  const lo = Math.min(...vals);
  const hi = Math.max(...vals);
  const at = new Map(cells.map((c) => [`${c.tp}x${c.pp}`, c]));
  return tps.flatMap((tp) =>
    pps.map((pp) => {
      const cell = at.get(`${tp}x${pp}`);
      const v = cell?.value;
      const ok = Number.isFinite(v);
      const pending = cell?.state === 'pending';
      const where = `TP ${tp} × PP ${pp}`;
      const flags = ok ? cell.flags || [] : [];
      const value = `${where}: ${valueName} ${format(v)}${flags.length ? `; its plan: ${flags.join(' ')}` : ''}`;
      return {
        tp,
        pp,
        v: ok ? v : '',
        flagged: flags.length > 0,
        cls: ok ? `h${heatLevel(v, lo, hi, lowerBetter)}` : cell ? 'none' : 'out',
        text: !cell ? '' : ok ? format(v) : pending ? '…' : '–',
        tip: !cell ? `${where}: more ${unit}s than searched` : ok ? value : `${where}: ${pending ? 'not searched yet' : 'no plan fits'}`,
      };
    }),
  );
}

// cells: [{tp, pp, value (null: nothing fits / not run), flags}], lower is
// better when `lowerBetter`. Darker = better; a cell whose plan carries
// warnings (`flags`, as the plan table flags its rows) gets an amber border,
// and a ⚠ beside its value where the cell is wide enough. `unit`: the
// system's word for a device ("GPU", a TPU's "chip").
export function heatmap({ title, tps, pps, cells, format, lowerBetter = true, valueName, unit = 'GPU' }) {
  const m = { l: 56, r: 12, t: 12, b: 40 };
  const W = chartWidth();
  const cw = Math.max(28, Math.min(80, (W - m.l - m.r) / Math.max(1, pps.length)));
  const data = heatCells({ tps, pps, cells, format, lowerBetter, valueName, unit });
  const fitting = cells.filter((c) => Number.isFinite(c.value)).length;
  const flagged = data.filter((d) => d.flagged);
  const glyphs = cw >= 64 ? flagged : [];
  const root = plotSvg(
    {
      width: Math.max(W, m.l + m.r + cw * pps.length),
      height: m.t + m.b + 30 * tps.length,
      marginLeft: m.l,
      marginRight: Math.max(m.r, W - m.l - cw * pps.length),
      marginTop: m.t,
      marginBottom: m.b,
      x: { type: 'band', domain: pps, label: 'pipeline parallel (PP)', tickSize: 0 },
      // (the long label, rotated, overflows a heatmap of few rows into its caption)
      y: { type: 'band', domain: tps, label: tps.length >= 4 ? 'tensor parallel (TP)' : 'TP', tickSize: 0 },
      marks: [
        Plot.cell(data, { x: 'pp', y: 'tp', inset: 1, rx: 2, title: 'tip', render: tag(data, (d) => ({ class: `hm-cell ${d.cls}${d.flagged ? ' flagged' : ''}`, 'data-tp': d.tp, 'data-pp': d.pp, 'data-value': d.v })) }),
        Plot.text(data, { x: 'pp', y: 'tp', text: 'text', render: tag(data, (d) => ({ class: `hm-label ${d.cls}` })) }),
        // the ⚠ beside the value where the cell has room for both; the border alone where not
        Plot.text(glyphs, { x: 'pp', y: 'tp', text: () => '\u26a0', textAnchor: 'start', dx: 19, dy: -1, render: tag(glyphs, (d) => ({ class: `hm-flag ${d.cls}`, 'aria-hidden': 'true' })) }),
      ],
    },
    // cells narrower than a value at 10 px ("13.6 s") take a smaller font
    { className: cw < 48 ? 'heatmap narrow' : 'heatmap', label: `${title}: ${fitting} of ${cells.length} (TP, PP) cells have a plan that fits` },
  );
  const warned = flagged.length ? ` ${glyphs.length ? '⚠ and an amber border' : 'An amber border'}: the cell’s best plan carries a warning (its tooltip says which).` : '';
  const key = `Darker is better. –: no plan with this TP × PP fits; …: not searched yet; an empty dashed cell: TP × PP is more ${unit}s than searched.${warned}`;
  return el('figure', { class: 'chart-box heatmap-box', 'data-view': 'heatmap' }, [el('figcaption', { text: title }), root, el('p', { class: 'chart-note', text: key })]);
}

// points: [{x, y, label, front: bool, alt: bool, key}]; log axes when the data
// spans > 20x. `alt` points form a second front (a line of their own, named
// by `altLabel`), as the colocated plans' beside a serving search's.
export function scatter({ title, points, xLabel, yLabel, xFmt, yFmt, className = '', altLabel = '' }) {
  const span = (vs) => Math.max(...vs) / Math.min(...vs);
  const xs = points.map((p) => p.x);
  const ys = points.map((p) => p.y);
  const xLog = xs.every((v) => v > 0) && span(xs) > 20;
  const yLog = ys.every((v) => v > 0) && span(ys) > 20;
  const front = points.filter((p) => p.front).sort((a, b) => a.x - b.x);
  const alt = points.filter((p) => p.alt).sort((a, b) => a.x - b.x);
  const marks = [];
  if (front.length > 1) marks.push(Plot.line(front, { x: 'x', y: 'y', render: tag(front, () => ({ class: 'front-line' })) }));
  if (alt.length > 1) marks.push(Plot.line(alt, { x: 'x', y: 'y', render: tag(alt, () => ({ class: 'front-line alt' })) }));
  marks.push(
    Plot.dot(points, {
      x: 'x',
      y: 'y',
      r: (p) => (p.own ? 6 : p.front || p.alt ? 4 : 3),
      title: 'label',
      render: tag(points, (p) => ({ class: `pt ${p.own ? 'own c2' : p.front ? 'front c0' : p.alt ? 'alt c3' : 'other c1'}${p.flagged ? ' flagged' : ''}`, 'data-key': p.key })),
    }),
  );
  const root = plotSvg(
    {
      height: 320,
      marginLeft: 78,
      marginRight: 16,
      marginTop: 12,
      marginBottom: 44,
      r: { type: 'identity' },
      x: axis({ log: xLog, domain: padded([Math.min(...xs), Math.max(...xs)], xLog), tickFormat: xFmt, label: xLabel, nice: true, count: xTickCount(78 + 16) }),
      y: axis({ log: yLog, domain: padded([Math.min(...ys), Math.max(...ys)], yLog), tickFormat: yFmt, label: yLabel, nice: true }),
      marks,
    },
    { className: `scatter ${className}`, label: `${title}: ${points.length} points` },
  );
  const leg = el('ul', { class: 'legend' }, [
    el('li', {}, [el('span', { class: 'swatch c0', 'aria-hidden': 'true' }), 'Pareto front']),
    alt.length ? el('li', {}, [el('span', { class: 'swatch c3', 'aria-hidden': 'true' }), altLabel]) : null,
    el('li', {}, [el('span', { class: 'swatch c1', 'aria-hidden': 'true' }), 'best plans']),
    points.some((p) => p.own) ? el('li', {}, [el('span', { class: 'swatch c2', 'aria-hidden': 'true' }), 'the plan on the left']) : null,
    // as the heatmap's amber border: the plan carries a warning the listed plans do not all carry
    points.some((p) => p.flagged) ? el('li', {}, [el('span', { class: 'swatch ring-warn', 'aria-hidden': 'true' }), 'amber ring: the plan carries a warning (its tooltip says which)']) : null,
  ]);
  return el('figure', { class: `chart-box ${className}` }, [el('figcaption', { text: title }), root, leg]);
}

// One series as two marks: its line (broken where a value is missing) and a
// dot per value, each element carrying data-series so a series is selectable.
// A point whose plan does not fit in device memory (s.fits[j] false) is hollow.
function seriesMarks(s, i, xs, xFmt, yFmt) {
  const ci = i % 6;
  const rows = xs.map((x, j) => ({ x, y: Number.isFinite(s.values[j]) ? s.values[j] : NaN, over: s.fits?.[j] === false }));
  const dots = rows.filter((r) => Number.isFinite(r.y));
  return [
    Plot.line(rows, { x: 'x', y: 'y', render: tag(rows, () => ({ class: `line r${ci}`, 'data-series': s.name })) }),
    Plot.dot(dots, {
      x: 'x',
      y: 'y',
      r: 3,
      title: (r) => `${s.name}: ${xFmt(r.x)} → ${yFmt(r.y)}${r.over ? ' (does not fit in memory)' : ''}`,
      render: tag(dots, (r) => ({ class: `pt r${ci}${r.over ? ' open' : ''}`, 'data-series': s.name, 'data-fits': String(!r.over) })),
    }),
  ];
}

// A linear value axis spans at least a tenth of its largest magnitude, so that
// a figure that hardly moves (an MFU from 59.9% to 60.05%) draws nearly flat
// instead of filling the chart; at or above zero it stays so.
function atLeastTenth(ys) {
  const lo = Math.min(...ys), hi = Math.max(...ys);
  const span = 0.1 * Math.max(Math.abs(lo), Math.abs(hi));
  if (hi - lo >= span) return [lo, hi];
  const mid = (lo + hi) / 2;
  return lo >= 0 && mid - span / 2 < 0 ? [0, span] : [mid - span / 2, mid + span / 2];
}

// series: [{name, values: [number|null], fits?: [bool|null]}] over xs; one
// path and one dot per point, hollow where the plan does not fit.
// xTicks: true to tick the x axis at the xs themselves.
// yLog: a log y axis as well (with a log x, a power law is then a straight line).
export function lineChart({ title, xs, series, xLog = false, yLog = false, xLabel, yLabel, xFmt = fmt.num, yFmt = fmt.num, className = '', xTicks = false }) {
  const ys = series.flatMap((s) => s.values).filter(Number.isFinite);
  if (!ys.length || !xs.length) return el('p', { class: 'view-missing', text: `${title}: no values to draw.` });
  const xLo = Math.min(...xs);
  const xHi = Math.max(...xs);
  const root = plotSvg(
    {
      height: 300,
      marginLeft: 78,
      marginRight: 16,
      marginTop: 12,
      marginBottom: 44,
      x: axis({ log: xLog, domain: xLo === xHi ? padded([xLo, xHi], xLog) : [xLo, xHi], tickFormat: xFmt, label: xLabel, ticks: xTicks ? xs : null, count: xTickCount(78 + 16) }),
      y: axis({ log: yLog, domain: padded(yLog ? [Math.min(...ys), Math.max(...ys)] : atLeastTenth(ys), yLog), tickFormat: yFmt, label: yLabel, nice: !yLog }),
      marks: series.flatMap((s, i) => seriesMarks(s, i, xs, xFmt, yFmt)),
    },
    { className: `line-chart ${className}`, label: `${title}: ${series.length} series of ${xs.length} points` },
  );
  const leg = el('ul', { class: 'legend' });
  series.forEach((s, i) => leg.append(el('li', { 'data-series': s.name }, [el('span', { class: `swatch b${i % 6}`, 'aria-hidden': 'true' }), s.name])));
  const drawn = series.flatMap((s) => s.values.map((v, j) => (Number.isFinite(v) ? s.fits?.[j] : undefined)));
  const over = drawn.filter((f) => f === false).length;
  const note = over ? [el('p', { class: 'chart-note fit-note', text: `Hollow points (${over} of ${drawn.filter((f) => f !== undefined).length}) do not fit in memory: their figures are for a plan that could not run as given.` })] : [];
  if (xLog && yLog) note.unshift(el('p', { class: 'chart-note log-note', text: 'Both axes are logarithmic: a figure proportional to the input is a straight line of slope 1, and equal steps up or down are equal factors.' }));
  return el('figure', { class: `chart-box ${className}`, 'data-y-scale': yLog ? 'log' : 'linear' }, [el('figcaption', { text: title }), root, leg, ...note]);
}

// Each step as a bar from the previous factor to its own.
function waterfallBars(steps) {
  return steps.map((s, i) => {
    const from = i === 0 ? 0 : steps[i - 1].value;
    const kind = i === 0 ? 'base' : s.value >= from ? 'up' : 'down';
    return { i, label: s.label, value: s.value, from, a: Math.min(from, s.value), b: Math.max(from, s.value), kind };
  });
}

// Horizontal factor bars, one band per datum (label, value, a, b, kind), with
// `extra` marks (links, rules) and the value written after each bar.
// `hi`: the largest value the axis must reach (factors: at least 1×).
// `tickFormat`: the axis' labels (shorter than the values': "2×", not "2.00×").
// Narrower than 560 px (a phone), each label goes above its bar: beside it,
// a 300 px label column would leave the bars no room.
function factorFigure({ title, data, extra, format, tickFormat = format === fmt.num ? fmt.compact : format, className, boxClass, view, hi = Math.max(1, ...data.map((b) => b.value)) }) {
  const W = chartWidth();
  const stacked = W < 560;
  const most = stacked ? Math.floor((W - 24) / 6.6) : 44;  // characters of a label (about 6.5 px each at 11 px)
  const short = (l) => (l.length > most ? `${l.slice(0, most - 1)}…` : l);
  const labels = stacked ? [Plot.text(data, { frameAnchor: 'left', y: 'i', dy: -13, lineAnchor: 'bottom', textAnchor: 'start', text: (b) => short(b.label), render: tag(data, () => ({ class: 'wf-label' })) })] : [];
  const root = plotSvg(
    {
      height: 8 + 30 + (stacked ? 40 : 24) * data.length,
      marginLeft: stacked ? 14 : 300,
      marginRight: stacked ? 48 : 60,
      marginTop: stacked ? 20 : 8,
      marginBottom: 30,
      x: { domain: [0, hi * 1.05], nice: true, ticks: stacked ? 4 : 6, tickFormat, label: null, grid: true },
      y: { type: 'band', domain: data.map((b) => b.i), tickFormat: (i) => short(data[i].label), axis: stacked ? null : 'left', label: null, padding: stacked ? 0.5 : 0.25, tickSize: 0 },
      marks: [
        Plot.barX(data, { x1: 'a', x2: 'b', y: 'i', title: (b) => `${b.label}: ${format(b.value)}`, render: tag(data, (b) => ({ class: `wf-bar ${b.kind}`, 'data-step': b.i })) }),
        ...labels,
        ...extra,
        Plot.text(data, { x: 'b', y: 'i', dx: 4, textAnchor: 'start', text: (b) => format(b.value), render: tag(data, () => ({ class: 'wf-value' })) }),
      ],
    },
    { className, label: `${title}: ${data.map((b) => `${b.label} ${format(b.value)}`).join(', ')}` },
  );
  return el('figure', { class: `chart-box ${boxClass}`, 'data-view': view }, [el('figcaption', { text: title }), root]);
}

// A factor axis' label: "2×", "1.5×".
const factorTick = (v) => `${Number(v.toFixed(2))}×`;

// steps: [{label, value}] with value the cumulative factor after the step (the
// first is the baseline). Each bar spans from the previous factor to its own.
export function waterfall({ title, steps, format = fmt.times }) {
  const bars = waterfallBars(steps);
  const links = bars.slice(1);
  const extra = [Plot.tickX(links, { x: 'from', y: 'i', render: tag(links, () => ({ class: 'wf-link' })) })];
  return factorFigure({ title, data: bars, extra, format, tickFormat: factorTick, className: 'waterfall', boxClass: 'waterfall-box', view: 'waterfall' });
}

// bars: [{label, value, own}], a factor against the bar marked own (1×),
// each drawn from 0, with a rule at 1×: faster (up) or slower (down).
export function factorBars({ title, bars, format = fmt.times }) {
  const data = bars.map((b, i) => ({ label: b.label, value: b.value, i, a: 0, b: b.value, kind: b.own ? 'base' : b.value >= 1 ? 'up' : 'down' }));
  const extra = [Plot.ruleX([1], { render: tag([1], () => ({ class: 'wf-link' })) })];
  return factorFigure({ title, data, extra, format, tickFormat: factorTick, className: 'factor-bars', boxClass: 'factor-box', view: 'factor-bars' });
}

// bars: [{label, value, own}], each drawn from 0 on a scale of its own unit
// (GPU-hours per million tokens), the one marked own apart; no reference line.
export function valueBars({ title, bars, format = fmt.num }) {
  const data = bars.map((b, i) => ({ label: b.label, value: b.value, i, a: 0, b: b.value, kind: b.own ? 'base' : 'plain' }));
  const hi = Math.max(...data.map((b) => b.value));
  return factorFigure({ title, data, extra: [], format, className: 'value-bars', boxClass: 'value-box', view: 'value-bars', hi });
}

// A signed share as an axis labels it: "+20%", "−10%", "0%".
const signedPercent = (v) => {
  const p = Math.round(Math.abs(v) * 100);
  return p === 0 ? '0%' : `${v > 0 ? '+' : '−'}${p}%`;
};

// groups: [{label, points: [{value, label, kind, key}]}]: a band per group (its
// label wrapped on the left, a line break kept) and a dot per case at its
// signed error (predicted against measured: left of 0 the model is too fast
// or too small), with a rule at 0 and dotted ones at ±10% and ±25%. kind:
// the dot's colour class; key: its data-key.
export function errorDots({ title, groups, legend = [] }) {
  const data = groups.flatMap((g, i) => g.points.map((p) => ({ i, value: p.value, label: p.label, kind: p.kind, key: p.key })));
  const lim = Math.ceil(Math.max(0.3, ...data.map((d) => Math.abs(d.value))) * 10) / 10;
  const refs = [-0.25, -0.1, 0.1, 0.25].filter((v) => Math.abs(v) < lim);
  const within = data.filter((d) => Math.abs(d.value) <= 0.1).length;
  // Ticks every 10% up to ±30%, else every 20% (twice that on a narrow
  // chart), symmetric about 0; the band labels take at most 45% of the width.
  const width = chartWidth();
  const narrow = width < 480;
  const left = narrow ? Math.round(0.45 * width) : 300;
  const step = (lim > 0.3 ? 0.2 : 0.1) * (narrow ? 2 : 1);
  const xTicks = [];
  for (let k = -Math.floor(lim / step + 1e-9); k * step <= lim + 1e-9; k++) xTicks.push(Number((k * step).toFixed(2)));
  const root = plotSvg(
    {
      height: 8 + 44 + (narrow ? 64 : 52) * groups.length,
      marginLeft: left,
      marginRight: 20,
      marginTop: 8,
      marginBottom: 44,
      x: { domain: [-lim, lim], ticks: xTicks, tickFormat: signedPercent, label: narrow ? 'signed error' : 'signed error (predicted − measured) / measured', grid: true },
      y: { type: 'band', domain: groups.map((_, i) => i), label: null, padding: 0.2, axis: null },
      marks: [
        Plot.axisY({ tickFormat: (i) => groups[i].label, lineWidth: narrow ? Math.floor((21 * left) / 300) : 25, tickSize: 0, fontSize: 10 }),
        Plot.ruleX(refs, { render: tag(refs, () => ({ class: 'wf-link' })) }),
        Plot.ruleX([0], { render: tag([0], () => ({ class: 'err-zero' })) }),
        Plot.dot(data, { x: 'value', y: 'i', r: 4, title: (d) => d.label, render: tag(data, (d) => ({ class: `pt ${d.kind}`, 'data-key': d.key, 'data-error': d.value.toFixed(4) })) }),
      ],
    },
    { className: 'error-dots', label: `${title}: ${data.length} measurements, ${within} within 10%` },
  );
  const leg = el('ul', { class: 'legend' }, legend.map(([cls, text]) => el('li', {}, [el('span', { class: `swatch ${cls}`, 'aria-hidden': 'true' }), text])));
  return el('figure', { class: 'chart-box error-box', 'data-view': 'error-dots' }, [el('figcaption', { text: title }), root, leg]);
}
