// Shared glue between the page and Observable Plot. Plot draws the SVG; this
// module makes that SVG fit the page's rules:
// - Plot appends an inline <style> to every chart, which the strict CSP
//   (style-src 'self') refuses; it is removed before the node reaches the
//   document, and the same rules live in style.css under PLOT_CLASS.
// - Colours come from CSS classes (dark mode follows the stylesheet): a CSS
//   rule beats the presentation attributes Plot writes, so each element gets
//   our class names and keeps Plot's geometry.
// - Tests and exports select on data attributes, which `tag` writes per
//   element from the datum Plot bound to it.
// Named imports only: with Plot's sideEffects list, esbuild then leaves out
// the marks, transforms and d3 modules these charts do not use.
import { axisY, barX, cell, dot, line, link, plot, rect, rectX, ruleX, ruleY, text, tickX } from '@observablehq/plot';

export const Plot = { axisY, barX, cell, dot, line, link, rect, rectX, ruleX, ruleY, text, tickX };

export const PLOT_CLASS = 'lc-plot';
// Charts draw at the width the page gives them, up to 640 px: an SVG drawn
// wider and scaled down to a phone shrinks its 11 px labels to 5 px. The
// viewport stands in for the container (charts are built before they are
// placed); 48 px is the page's padding around a chart on a narrow screen.
export const chartWidth = () => Math.round(Math.max(300, Math.min(640, (globalThis.innerWidth || 640) - 48)));

// Attributes `fn(datum, i)` returns (class is added to, not replaced) are set
// on every element of a mark. Plot binds each element to its index into the
// mark's data (line marks: an array of indices), so nothing relies on order.
export function tag(data, fn) {
  return (index, scales, values, dimensions, context, next) => {
    const g = next(index, scales, values, dimensions, context);
    if (!g) return g;
    for (const node of g.children) {
      const i = Array.isArray(node.__data__) ? node.__data__[0] : node.__data__;
      if (Number.isInteger(i) && data[i] !== undefined) setAttrs(node, fn(data[i], i));
    }
    return g;
  };
}

function setAttrs(node, attrs) {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') node.classList.add(...String(v).split(/\s+/).filter(Boolean));
    else node.setAttribute(k, String(v));
  }
}

// Plot.plot with the page's conventions: our class names, role="img" and an
// aria-label carrying the values, no inline <style>, no axis-label arrows.
export function plotSvg(options, { className, label }) {
  const node = plot({
    width: chartWidth(),
    figure: false,
    ...options,
    className: PLOT_CLASS,
    x: axisOptions(options.x),
    y: axisOptions(options.y),
  });
  for (const style of node.querySelectorAll('style')) style.remove();
  // Plot names its groups ("rule", "x-axis tick label") with aria-label on
  // <g>, which ARIA does not allow without a role; inside role="img" they are
  // presentational anyway, and the svg's own label carries the values.
  for (const g of node.querySelectorAll('[aria-label], [aria-description]')) {
    g.removeAttribute('aria-label');
    g.removeAttribute('aria-description');
  }
  node.setAttribute('class', `${PLOT_CLASS} chart ${className}`.trim());
  node.setAttribute('role', 'img');
  node.setAttribute('aria-label', label);
  return node;
}

// Plot calls a tick format as f(value, index); ours take (value, digits),
// so the index must not reach them.
function axisOptions(o = {}) {
  const f = o.tickFormat;
  return { labelArrow: 'none', labelAnchor: 'center', ...o, ...(typeof f === 'function' ? { tickFormat: (v) => f(v) } : {}) };
}

// Ticks for a log axis: the decades when there are at least two of them
// (labels stay short), else 1-2-5 steps (100, 200, 500, 1k), else every
// whole multiple of the decade; undefined when none gives two ticks, which
// lets Plot pick its own. (Plot's own ticks label some of 200..900 and not
// others, and miss the ends.)
// At least `least` ticks: decades first, then 1-2-5, then every mantissa.
export function logTicks([lo, hi], least = 2) {
  for (const mantissas of [[1], [1, 2, 5], [1, 2, 3, 4, 5, 6, 7, 8, 9]]) {
    const out = [];
    for (let e = Math.floor(Math.log10(lo)) - 1; e <= Math.ceil(Math.log10(hi)); e++)
      for (const m of mantissas) {
        const v = Number((m * 10 ** e).toPrecision(12));
        if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) out.push(v);
      }
    if (out.length >= least) return out;
  }
  return undefined;
}

// Ticks for a log axis of durations, round in the unit fmt.seconds writes
// each in: 5 min, 10 min, 20 min, where the seconds' 1-2-5 steps would read
// 8.33 min, 16.7 min, 33.3 min. Each unit ticks the stretch it labels
// (seconds and below to 2 min, minutes to 2 h, hours to 3 days, days to
// 3 years, then years), at decades of that unit first, then 1-2-5, then
// every whole mantissa, whichever first gives `least` ticks. A tick within
// a factor 1.5 of the one before is left out, where one unit's ticks meet
// the next's (100 s, then 3 min, not 2 min beside it) and among whole
// mantissas (30 s, 50 s, 80 s).
const DURATION_UNITS = [
  [1, 0, 120],
  [60, 120, 7200],
  [3600, 7200, 3 * 86400],
  [86400, 3 * 86400, 3 * 365.25 * 86400],
  [365.25 * 86400, 3 * 365.25 * 86400, Infinity],
];
export function durationLogTicks([lo, hi], least = 2) {
  for (const mantissas of [[1], [1, 2, 5], [1, 2, 3, 4, 5, 6, 7, 8, 9]]) {
    const out = [];
    for (const [size, from, to] of DURATION_UNITS) {
      const a = Math.max(lo, from), b = Math.min(hi * (1 + 1e-9), to);
      if (!(a < b)) continue;
      for (let e = Math.floor(Math.log10(a / size)) - 1; e <= Math.ceil(Math.log10(b / size)); e++)
        for (const m of mantissas) {
          const v = Number((m * 10 ** e * size).toPrecision(12));
          const crowds = out.length > 0 && v < 1.5 * out[out.length - 1];
          if (v >= a * (1 - 1e-9) && v < b && !crowds) out.push(v);
        }
    }
    if (out.length >= least) return out;
  }
  return undefined;
}

// Ticks for a log axis of bytes: whole powers of two (4 GiB, 8 GiB, 16 GiB;
// decades of bytes read 4.66 GiB, 9.31 GiB), every k-th octave where more
// than `most` would crowd the axis; undefined when fewer than two fall inside.
export function octaveTicks([lo, hi], most = Infinity) {
  const out = [];
  for (let e = Math.ceil(Math.log2(lo) - 1e-9); 2 ** e <= hi * (1 + 1e-9); e++) out.push(2 ** e);
  return out.length >= 2 ? thinTicks(out, most) : undefined;
}

// At most `most` of `ticks` (every k-th, from the first); as given when they fit.
export function thinTicks(ticks, most = Infinity) {
  if (!ticks || ticks.length <= most) return ticks;
  const k = Math.ceil(ticks.length / Math.max(2, most));
  return ticks.filter((_, i) => i % k === 0);
}

// The colour class index (b0..b9) of what bounds an op, fixed per bound so
// every chart on the page colours, say, hbm-bound alike; unknown names hash
// onto the spare classes.
const BOUND_ORDER = ['compute', 'hbm', 'l2', 'smem', 'network', 'latency'];

export function boundIndex(bound) {
  const i = BOUND_ORDER.indexOf(bound);
  return i >= 0 ? i : BOUND_ORDER.length + (Math.abs([...String(bound)].reduce((a, c) => a * 31 + c.charCodeAt(0), 7)) % 4);
}
