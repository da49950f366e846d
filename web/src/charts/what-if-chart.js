// What a part of the system twice as fast buys (the result's what_if): one
// bar per part, from 1× (the part does not limit this run) towards 2× (the
// run is that part alone). Inference draws one strip per headline time,
// first token and each next one, since prefill and decode are limited by
// different parts.
import { el } from '../dom.js';
import * as fmt from '../format.js';
import { Plot, chartWidth, plotSvg, tag } from './plot-kit.js';

const METRICS = {
  iteration_time_s: 'iteration',
  ttft_s: 'time to first token',
  tpot_s: 'time per output token',
};
const ORDER = ['iteration_time_s', 'ttft_s', 'tpot_s'];

// A part keeps its colour from one result to the next (a scale-out row does
// not shift the latency bar's colour).
const PART_COLOUR = { compute: 0, memory: 1, 'network.0': 2, 'network.1': 3, 'network.2': 4, latency: 5, host_link: 6, host: 7 };

// Rows: [{part, label, metric, speedup, time}] of the parts with a finite speed-up.
export function whatIfRows(whatIf) {
  const parts = Array.isArray(whatIf?.parts) ? whatIf.parts : [];
  const rows = [];
  for (const metric of ORDER)
    parts.forEach((p, i) => {
      const s = p?.speedup?.[metric];
      if (Number.isFinite(s) && s > 0) rows.push({ part: p.part, label: p.label || p.part, metric, speedup: s, time: p.times?.[metric], ci: PART_COLOUR[p.part] ?? 8 + (i % 3) });
    });
  return rows;
}

// One chart (one SVG, so that it exports whole): a facet per headline time.
function chart(rows, metrics, base) {
  const top = Math.max(2, ...rows.map((r) => r.speedup));
  const heads = metrics.map((m) => ({ metric: m, text: `${METRICS[m] || m}${Number.isFinite(base?.[m]) ? ` (${fmt.seconds(base[m])})` : ''}` }));
  const labels = [...new Set(rows.map((r) => r.label))];
  const desc = heads.map((h) => `${h.text}: ${rows.filter((r) => r.metric === h.metric).map((r) => `${r.label} ${fmt.times(r.speedup)}`).join(', ')}`).join('; ');
  return plotSvg(
    {
      // A row of 26 px per part in each strip; a strip's title takes 28 more when there are two.
      height: 38 + metrics.length * 26 * labels.length + (metrics.length > 1 ? 28 * metrics.length : 0),
      marginLeft: 200,
      marginRight: 56,
      marginTop: metrics.length > 1 ? 24 : 4,
      marginBottom: 30,
      x: { domain: [Math.min(1, ...rows.map((r) => r.speedup)), top], ticks: (chartWidth() < 480 ? [1, 1.5, 2] : [1, 1.25, 1.5, 1.75, 2]).filter((t) => t <= top), tickFormat: (v) => `${v}×`, label: 'speed-up', grid: true },
      y: { domain: labels, label: null, tickSize: 0, inset: 0 },
      fy: { domain: metrics, axis: null, paddingInner: 0.25 },
      marks: [
        Plot.barX(rows, {
          x1: 1,
          x2: 'speedup',
          y: 'label',
          fy: 'metric',
          title: (r) => `${r.label} twice as fast: ${METRICS[r.metric]} ${fmt.times(r.speedup)}${Number.isFinite(r.time) ? ` (${fmt.seconds(r.time)})` : ''}`,
          render: tag(rows, (r) => ({ class: `seg c${r.ci % 11}`, 'data-part': r.part, 'data-metric': r.metric, 'data-speedup': r.speedup.toFixed(4) })),
        }),
        Plot.text(rows, { x: 'speedup', y: 'label', fy: 'metric', dx: 4, textAnchor: 'start', text: (r) => fmt.times(r.speedup), render: tag(rows, () => ({ class: 'tick-label' })) }),
        ...(metrics.length > 1
          ? [Plot.text(heads, { fy: 'metric', frameAnchor: 'top-left', lineAnchor: 'bottom', dx: -192, dy: -4, text: 'text', render: tag(heads, () => ({ class: 'axis-label' })) })]
          : []),
      ],
    },
    { className: 'what-if', label: `Each part of the system twice as fast. ${desc}` },
  );
}

// The part that buys the most for a headline time (null when none is listed).
const bestOf = (rows, metric) => rows.filter((r) => r.metric === metric).reduce((a, r) => (!a || r.speedup > a.speedup ? r : a), null);

// One sentence per strip: the part that buys the most, and how much of the time it takes off.
function verdict(best, metric) {
  if (!best) return '';
  const what = METRICS[metric] || metric;
  if (best.speedup < 1.02) return `No single part limits the ${what}: twice any of them buys under 2%.`;
  return `The ${what} gains most from ${best.label}: ${fmt.times(best.speedup)} (${fmt.percent(1 - 1 / best.speedup)} less time).`;
}

// One sentence for the verdict line: the part that buys the most for each
// headline time, or null when the result has no what_if.
const SHORT = { ttft_s: 'the first token', tpot_s: 'each next token' };
export function limitSentence(result) {
  const rows = whatIfRows(result?.what_if);
  const best = ORDER.map((m) => bestOf(rows, m)).filter((b) => b && b.speedup >= 1.02);
  if (!best.length) return null;
  if (!SHORT[best[0].metric]) return `Of each part twice as fast, ${best[0].label} gains the most: ${fmt.times(best[0].speedup)}.`;
  const said = best.map((b, i) => `${b.label} ${i === 0 ? `gains ${SHORT[b.metric]} the most` : SHORT[b.metric]} (${fmt.times(b.speedup)})`);
  return `Of each part twice as fast, ${said.join(', ')}.`;
}

export function whatIfChart(result) {
  const w = result?.what_if;
  const rows = whatIfRows(w);
  if (!rows.length) return null;
  const metrics = ORDER.filter((m) => rows.some((r) => r.metric === m));
  const figure = el('figure', { class: 'chart-box chart-what-if', 'data-view': 'whatif' }, [
    el('figcaption', { text: 'What twice as fast buys' }),
    chart(rows, metrics, w.base),
  ]);
  const notes = metrics.map((m) => verdict(bestOf(rows, m), m));
  notes.push('Each bar: one part of the system twice as fast, the plan and memory unchanged. The time breakdown shows where the time goes; this shows what limits it.');
  figure.append(el('p', { class: 'chart-note', text: notes.filter(Boolean).join(' ') }));
  return figure;
}
