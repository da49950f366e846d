// SVG charts drawn with plain DOM calls (no inline styles: colours come from
// CSS classes, so the strict CSP holds and dark mode follows the stylesheet).
import { scaleLinear, scaleLog } from 'd3-scale';
import { el, svg } from './dom.js';
import * as fmt from './format.js';

const W = 640;

function legend(parts, format, total) {
  const list = el('ul', { class: 'legend' });
  parts.forEach((p) => {
    const share = total > 0 ? ` (${fmt.percent(p.value / total)})` : '';
    list.append(
      el('li', { 'data-key': p.key }, [
        el('span', { class: `swatch c${p.ci % 10}`, 'aria-hidden': 'true' }),
        el('span', { class: 'legend-label', text: p.label }),
        el('span', { class: 'legend-value', text: ` ${format(p.value)}${share}` }),
      ]),
    );
  });
  return list;
}

// One horizontal bar split into parts, with an optional capacity marker.
// parts: [{key, label, value}]; limit: {label, value} or null.
export function stackedBar({ title, parts, limit = null, format, className = '' }) {
  const shownParts = parts.map((p, ci) => ({ ...p, ci })).filter((p) => Number.isFinite(p.value) && p.value > 0);
  const total = shownParts.reduce((a, p) => a + p.value, 0);
  const max = Math.max(total, limit && Number.isFinite(limit.value) ? limit.value : 0) || 1;
  const H = 88;
  const m = { l: 8, r: 8, t: 22, b: 28 };
  const x = scaleLinear().domain([0, max]).range([m.l, W - m.r]);
  const desc = shownParts.map((p) => `${p.label} ${format(p.value)}`).join(', ');
  const root = svg('svg', {
    class: `chart stacked ${className}`,
    viewBox: `0 0 ${W} ${H}`,
    role: 'img',
    'aria-label': `${title}: ${desc}${limit ? `; ${limit.label} ${format(limit.value)}` : ''}`,
  });
  let acc = 0;
  shownParts.forEach((p) => {
    const x0 = x(acc);
    acc += p.value;
    const w = Math.max(0.5, x(acc) - x0);
    root.append(
      svg('rect', { class: `seg c${p.ci % 10}`, 'data-key': p.key, x: x0, y: m.t, width: w, height: H - m.t - m.b }, [
        svg('title', { text: `${p.label}: ${format(p.value)} (${fmt.percent(p.value / (total || 1))})` }),
      ]),
    );
  });
  for (const t of x.ticks(5)) {
    root.append(svg('line', { class: 'tick', x1: x(t), x2: x(t), y1: H - m.b, y2: H - m.b + 4 }));
    root.append(svg('text', { class: 'tick-label', x: x(t), y: H - 8, 'text-anchor': 'middle', text: format(t) }));
  }
  if (limit && Number.isFinite(limit.value) && limit.value > 0) {
    const lx = x(limit.value);
    root.append(svg('line', { class: `limit${total > limit.value ? ' over' : ''}`, x1: lx, x2: lx, y1: m.t - 4, y2: H - m.b + 2 }, [
      svg('title', { text: `${limit.label}: ${format(limit.value)}` }),
    ]));
    const anchorEnd = lx > W / 2;
    root.append(svg('text', { class: 'limit-label', x: anchorEnd ? lx - 4 : lx + 4, y: 14, 'text-anchor': anchorEnd ? 'end' : 'start', text: `${limit.label} ${format(limit.value)}` }));
  }
  return el('figure', { class: `chart-box ${className}` }, [
    el('figcaption', { text: title }),
    root,
    legend(shownParts, format, total),
  ]);
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
  const H = 360;
  const m = { l: 64, r: 16, t: 12, b: 44 };
  let xs = pts.map((p) => p.x);
  let ys = pts.map((p) => p.y);
  if (peak > 0) {
    ys.push(peak);
    for (const r of roofs) xs.push(peak / r.bandwidth_Bps);
  }
  const x = scaleLog().domain([Math.min(...xs) / 3, Math.max(...xs) * 3]).range([m.l, W - m.r]).clamp(true);
  const y = scaleLog().domain([Math.min(...ys) / 3, Math.max(...ys) * 2]).range([H - m.b, m.t]).clamp(true);
  const root = svg('svg', {
    class: 'chart roofline',
    viewBox: `0 0 ${W} ${H}`,
    role: 'img',
    'aria-label': `Roofline: ${pts.length} operations; arithmetic intensity on x, achieved FLOP/s on y`,
  });
  const [x0, x1] = x.domain();
  // axes
  for (const t of x.ticks(6).filter((v) => Math.log10(v) % 1 === 0)) {
    root.append(svg('line', { class: 'grid', x1: x(t), x2: x(t), y1: m.t, y2: H - m.b }));
    root.append(svg('text', { class: 'tick-label', x: x(t), y: H - m.b + 16, 'text-anchor': 'middle', text: fmt.num(t) }));
  }
  for (const t of y.ticks(6).filter((v) => Math.log10(v) % 1 === 0)) {
    root.append(svg('line', { class: 'grid', x1: m.l, x2: W - m.r, y1: y(t), y2: y(t) }));
    root.append(svg('text', { class: 'tick-label', x: m.l - 6, y: y(t) + 4, 'text-anchor': 'end', text: fmt.num(t) }));
  }
  root.append(svg('text', { class: 'axis-label', x: (m.l + W - m.r) / 2, y: H - 8, 'text-anchor': 'middle', text: 'arithmetic intensity (FLOP/byte)' }));
  root.append(svg('text', { class: 'axis-label', x: 14, y: (m.t + H - m.b) / 2, 'text-anchor': 'middle', transform: `rotate(-90 14 ${(m.t + H - m.b) / 2})`, text: 'achieved FLOP/s' }));
  // roofs
  roofs.forEach((r, i) => {
    const bw = r.bandwidth_Bps;
    const ridge = peak > 0 ? peak / bw : x1;
    const xa = x0;
    const xb = Math.min(ridge, x1);
    root.append(svg('line', { class: `roof r${i % 6}`, x1: x(xa), y1: y(bw * xa), x2: x(xb), y2: y(bw * xb) }, [
      svg('title', { text: `${r.name}: ${fmt.bandwidth(bw)}` }),
    ]));
    root.append(svg('text', { class: `roof-label r${i % 6}`, x: x(xa) + 4, y: y(bw * xa) - 4, text: r.name }));
  });
  if (peak > 0) {
    const ridgeMin = Math.min(...roofs.map((r) => peak / r.bandwidth_Bps), x1);
    root.append(svg('line', { class: 'roof peak', x1: x(Math.max(ridgeMin, x0)), y1: y(peak), x2: x(x1), y2: y(peak) }, [
      svg('title', { text: `peak ${fmt.flopsRate(peak)}` }),
    ]));
    root.append(svg('text', { class: 'roof-label peak', x: W - m.r - 4, y: y(peak) - 4, 'text-anchor': 'end', text: `peak ${fmt.flopsRate(peak)}` }));
  }
  const achievable = result.device?.achievable_flops;
  if (peak > 0 && achievable > 0 && achievable < peak) {
    root.append(svg('line', { class: 'roof achievable', x1: x(x0), y1: y(achievable), x2: x(x1), y2: y(achievable) }, [
      svg('title', { text: `achievable ${fmt.flopsRate(achievable)}` }),
    ]));
    root.append(svg('text', { class: 'roof-label achievable', x: W - m.r - 4, y: y(achievable) + 12, 'text-anchor': 'end', text: `achievable ${fmt.flopsRate(achievable)}` }));
  }
  // ops, coloured by what bounds them
  const bounds = [...new Set(pts.map((p) => p.op.bound || 'unknown'))];
  for (const p of pts) {
    const b = p.op.bound || 'unknown';
    root.append(svg('circle', { class: `op b${bounds.indexOf(b) % 10}`, cx: x(p.x), cy: y(p.y), r: 4, 'data-op': p.op.name }, [
      svg('title', {
        text: `${p.op.name} (${p.op.phase || ''}) ${fmt.num(p.x)} FLOP/B, ${fmt.flopsRate(p.y)}, bound: ${b}`,
      }),
    ]));
  }
  const leg = el('ul', { class: 'legend' });
  bounds.forEach((b, i) => leg.append(el('li', {}, [el('span', { class: `swatch b${i % 10}`, 'aria-hidden': 'true' }), `bound: ${b}`])));
  return el('figure', { class: 'chart-box roofline-box' }, [el('figcaption', { text: 'Roofline (per op, log-log)' }), root, leg]);
}
