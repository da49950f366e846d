// The result charts (memory / time bars, roofline), drawn with Observable
// Plot; plot-kit.js keeps them within the CSP and colours them by CSS class
// (dark mode follows the stylesheet).
import { el } from '../dom.js';
import * as fmt from '../format.js';
import { Plot, boundIndex, logTicks, plotSvg, tag } from './plot-kit.js';

// Colour classes c0..c10 in style.css: one per part of the longest stacked bar (the time breakdown's eleven).
const PALETTE = 11;

function legend(parts, format, total) {
  const list = el('ul', { class: 'legend' });
  parts.forEach((p) => {
    const share = total > 0 ? ` (${fmt.percent(p.value / total)})` : '';
    list.append(
      el('li', { 'data-key': p.key }, [
        el('span', { class: `swatch c${p.ci % PALETTE}`, 'aria-hidden': 'true' }),
        el('span', { class: 'legend-label', text: p.label }),
        el('span', { class: 'legend-value', text: ` ${format(p.value)}${share}` }),
      ]),
    );
  });
  return list;
}

// One horizontal bar split into parts, with an optional capacity marker.
// parts: [{key, label, value}]; limit: {label, value} or null; unit: bytes |
// seconds gives axis ticks in one unit.
export function stackedBar({ title, parts, limit = null, format, unit = null, className = '', note = null }) {
  const shownParts = parts.map((p, ci) => ({ ...p, ci })).filter((p) => Number.isFinite(p.value) && p.value > 0);
  const total = shownParts.reduce((a, p) => a + p.value, 0);
  const hasLimit = limit && Number.isFinite(limit.value) && limit.value > 0;
  const max = Math.max(total, hasLimit ? limit.value : 0) || 1;
  let acc = 0;
  const segs = shownParts.map((p) => ({ ...p, x1: acc, x2: (acc += p.value) }));
  const desc = shownParts.map((p) => `${p.label} ${format(p.value)}`).join(', ');
  const axis = unit ? fmt.axisTicks(unit, max) : null;
  const marks = [
    Plot.rectX(segs, {
      x1: 'x1',
      x2: 'x2',
      title: (p) => `${p.label}: ${format(p.value)} (${fmt.percent(p.value / (total || 1))})`,
      render: tag(segs, (p) => ({ class: `seg c${p.ci % PALETTE}`, 'data-key': p.key })),
    }),
  ];
  if (hasLimit) marks.push(...limitMarks(limit, format, total > limit.value, max));
  const root = plotSvg(
    {
      height: 88,
      marginLeft: 20,
      marginRight: 20,
      marginTop: 22,
      marginBottom: 28,
      x: { domain: [0, max], ...(axis ? { ticks: axis.ticks, tickFormat: axis.format } : { ticks: 5, tickFormat: format }), label: null },
      marks,
    },
    { className: `stacked ${className}`, label: `${title}: ${desc}${limit ? `; ${limit.label} ${format(limit.value)}` : ''}` },
  );
  return el('figure', { class: `chart-box ${className}` }, [
    el('figcaption', { text: title }),
    root,
    legend(shownParts, format, total),
    ...(note ? [el('p', { class: 'chart-note', text: note })] : []),
  ]);
}

// The capacity line across the bar and its label above it, on the side of
// the line with more room.
function limitMarks(limit, format, over, max) {
  const data = [limit];
  const right = limit.value > max / 2;
  return [
    Plot.ruleX(data, {
      x: 'value',
      insetTop: -4,
      insetBottom: -2,
      title: (l) => `${l.label}: ${format(l.value)}`,
      render: tag(data, () => ({ class: `limit${over ? ' over' : ''}` })),
    }),
    Plot.text(data, {
      x: 'value',
      frameAnchor: 'top',
      lineAnchor: 'bottom', // the whole label above the bar, never on it
      dy: -5,
      dx: right ? -4 : 4,
      textAnchor: right ? 'end' : 'start',
      text: (l) => `${l.label} ${format(l.value)}`,
      render: tag(data, () => ({ class: 'limit-label' })),
    }),
  ];
}

function dramLevel(result) {
  const roofs = result.device?.roofs;
  if (Array.isArray(roofs) && roofs.length) return roofs[roofs.length - 1].name;
  return null;
}


// Points for the roofline: ops that did arithmetic, moved bytes and took time.
export function rooflinePoints(result) {
  const level = dramLevel(result);
  const pts = [];
  for (const op of result.ops || []) {
    const f = op.flops;
    const b = fmt.opBytes(op, level);
    const t = op.time_s;
    if (!(f > 0 && b > 0 && t > 0)) continue;
    pts.push({ op, x: f / b, y: f / t });
  }
  return pts;
}

// Log-log roofline: one roof per memory level of result.device.roofs, the
// compute ceiling at device.peak_flops, and one dot per op.
export function roofline(result) {
  const pts = rooflinePoints(result);
  if (!pts.length) return null;
  const peak = result.device?.peak_flops;
  const roofs = (result.device?.roofs || []).filter((r) => r.bandwidth_Bps > 0);
  const xs = pts.map((p) => p.x);
  const ys = pts.map((p) => p.y);
  if (peak > 0) {
    ys.push(peak);
    for (const r of roofs) xs.push(peak / r.bandwidth_Bps);
  }
  const xDomain = [Math.min(...xs) / 3, Math.max(...xs) * 3];
  const yDomain = [Math.min(...ys) / 3, Math.max(...ys) * 2];
  const bounds = [...new Set(pts.map((p) => p.op.bound || 'unknown'))].sort((a, b) => boundIndex(a) - boundIndex(b));
  const root = plotSvg(
    {
      height: 360,
      marginLeft: 64,
      marginRight: 16,
      marginTop: 12,
      marginBottom: 44,
      x: { type: 'log', domain: xDomain, clamp: true, ticks: logTicks(xDomain), tickFormat: fmt.compact, label: 'arithmetic intensity (FLOP/byte)', grid: true },
      y: { type: 'log', domain: yDomain, clamp: true, ticks: logTicks(yDomain), tickFormat: fmt.compact, label: 'achieved FLOP/s', grid: true },
      marks: [...roofMarks(result, roofs, xDomain), opDots(pts, (b) => fmt.levelLabel(result, b))],
    },
    { className: 'roofline', label: `Roofline: ${pts.length} operations; arithmetic intensity on x, achieved FLOP/s on y` },
  );
  const leg = el('ul', { class: 'legend' });
  for (const b of bounds) leg.append(el('li', { 'data-bound': b }, [el('span', { class: `swatch b${boundIndex(b) % 10}`, 'aria-hidden': 'true' }), `${fmt.levelLabel(result, b)}-bound`]));
  return el('figure', { class: 'chart-box roofline-box' }, [el('figcaption', { text: 'Roofline (per op, log-log)' }), root, leg]);
}

// The slanted bandwidth roofs (up to their ridge), the flat peak and the
// achievable ceiling, each a segment with a label.
function roofMarks(result, roofs, [x0, x1]) {
  const peak = result.device?.peak_flops;
  const achievable = result.device?.achievable_flops;
  const segs = roofs.map((r, i) => {
    const xb = Math.min(peak > 0 ? peak / r.bandwidth_Bps : x1, x1);
    return { cls: `mem${Math.max(0, 2 - (roofs.length - 1 - i))}`, x1: x0, y1: r.bandwidth_Bps * x0, x2: xb, y2: r.bandwidth_Bps * xb, tip: `${fmt.levelLabel(result, r.name)}: ${fmt.bandwidth(r.bandwidth_Bps)}`, label: fmt.levelLabel(result, r.name), at: 'start' };
  });
  if (peak > 0) {
    const ridgeMin = Math.min(...roofs.map((r) => peak / r.bandwidth_Bps), x1);
    segs.push({ cls: 'peak', x1: Math.max(ridgeMin, x0), y1: peak, x2: x1, y2: peak, tip: `peak ${fmt.flopsRate(peak)}`, label: `peak ${fmt.flopsRate(peak)}`, at: 'end' });
  }
  if (peak > 0 && achievable > 0 && achievable < peak) {
    segs.push({ cls: 'achievable', x1: x0, y1: achievable, x2: x1, y2: achievable, tip: `achievable ${fmt.flopsRate(achievable)}`, label: `achievable ${fmt.flopsRate(achievable)}`, at: 'start', below: true });
  }
  return [
    Plot.link(segs, { x1: 'x1', y1: 'y1', x2: 'x2', y2: 'y2', title: 'tip', render: tag(segs, (s) => ({ class: `roof ${s.cls}` })) }),
    roofLabels(segs.filter((s) => s.at === 'start' && !s.below), { x: 'x1', y: 'y1', textAnchor: 'start', dx: 4, dy: -6 }),
    roofLabels(segs.filter((s) => s.at === 'end'), { x: 'x2', y: 'y2', textAnchor: 'end', dx: -4, dy: -6 }),
    // The achievable ceiling's label at its left end, under the line, clear of the compute-bound dots on the right.
    roofLabels(segs.filter((s) => s.below), { x: 'x1', y: 'y1', textAnchor: 'start', dx: 4, dy: 12 }),
  ];
}

// Labels share an anchor and offset per mark (Plot takes them as constants).
function roofLabels(segs, options) {
  return Plot.text(segs, { ...options, text: 'label', render: tag(segs, (s) => ({ class: `roof-label ${s.cls}` })) });
}

// One dot per op, coloured by what bounds it (as in the prefill-vs-decode chart).
function opDots(pts, label) {
  return Plot.dot(pts, {
    x: 'x',
    y: 'y',
    r: 4,
    title: (p) => `${p.op.name} (${p.op.phase || ''}) ${fmt.num(p.x)} FLOP/B, ${fmt.flopsRate(p.y)}, bound: ${label(p.op.bound || 'unknown')}`,
    render: tag(pts, (p) => ({ class: `op b${boundIndex(p.op.bound || 'unknown') % 10}`, 'data-op': p.op.name, 'data-bound': p.op.bound || 'unknown' })),
  });
}
