// The pipeline schedule chart: one row per stage, one box per forward (F) or
// backward (B) pass of a micro-batch (and chunk, when interleaved); the gaps
// are the bubble. At most 32 micro-batches are drawn.
import { scaleLinear } from 'd3-scale';
import { el, svg } from './dom.js';
import * as fmt from './format.js';
import { simulatePipeline } from './pipeline.js';

const W = 640;

export function pipelineChart(pipe) {
  if (!pipe || typeof pipe !== 'object') return null;
  const sim = simulatePipeline(pipe);
  const p = sim.stages;
  const rowH = Math.max(6, Math.min(22, Math.floor(320 / p)));
  const m = { l: 54, r: 10, t: 8, b: 34 };
  const H = m.t + p * rowH + m.b;
  const x = scaleLinear().domain([0, sim.makespan || 1]).range([m.l, W - m.r]);
  const name = sim.schedule === 'interleaved' ? `interleaved 1F1B, ${sim.virtual_stages} chunks per stage` : sim.schedule === 'gpipe' ? 'GPipe' : '1F1B';
  const idle = sim.makespan > 0 ? 1 - sim.busy / (p * sim.makespan) : 0;
  const root = svg('svg', {
    class: 'chart pipeline',
    viewBox: `0 0 ${W} ${H}`,
    role: 'img',
    'aria-label': `Pipeline schedule, ${name}: ${p} stages, ${sim.shown} micro-batches drawn, idle share ${fmt.percent(idle)}`,
  });
  for (let s = 0; s < p; s++) {
    if (p <= 16 || s % Math.ceil(p / 16) === 0) root.append(svg('text', { class: 'tick-label', x: m.l - 6, y: m.t + s * rowH + rowH * 0.7, 'text-anchor': 'end', text: `stage ${s}` }));
  }
  for (const t of x.ticks(6)) {
    root.append(svg('line', { class: 'grid', x1: x(t), x2: x(t), y1: m.t, y2: H - m.b }));
    root.append(svg('text', { class: 'tick-label', x: x(t), y: H - m.b + 14, 'text-anchor': 'middle', text: fmt.seconds(t) }));
  }
  const labelMin = 14;
  for (const o of sim.ops) {
    const x0 = x(o.start);
    const w = Math.max(0.5, x(o.end) - x0);
    const y = m.t + o.stage * rowH + 1;
    const cls = `${o.kind === 'F' ? 'fwd' : 'bwd'} k${o.chunk % 4}`;
    const label = `${o.kind}${o.mb + 1}${sim.virtual_stages > 1 ? `.${o.chunk}` : ''}`;
    root.append(
      svg('rect', { class: `pipe-op ${cls}`, x: x0, y, width: w, height: rowH - 2, 'data-kind': o.kind, 'data-stage': o.stage, 'data-mb': o.mb, 'data-chunk': o.chunk }, [
        svg('title', { text: `stage ${o.stage}: ${o.kind === 'F' ? 'forward' : 'backward'} micro-batch ${o.mb + 1}${sim.virtual_stages > 1 ? `, chunk ${o.chunk}` : ''}, ${fmt.seconds(o.start)} to ${fmt.seconds(o.end)}` }),
      ]),
    );
    if (w >= labelMin && rowH >= 12) root.append(svg('text', { class: 'pipe-label', x: x0 + w / 2, y: y + rowH * 0.62, 'text-anchor': 'middle', text: label }));
  }
  root.append(svg('text', { class: 'axis-label', x: (m.l + W) / 2, y: H - 4, 'text-anchor': 'middle', text: 'time within one iteration (point-to-point transfers not drawn)' }));
  const notes = [`${p} stages, ${sim.microbatches} micro-batches, ${name}; forward ${fmt.seconds(pipe.t_fwd_s)}, backward ${fmt.seconds(pipe.t_bwd_s)} per micro-batch and stage; idle (bubble) ${fmt.percent(idle)} of the time drawn.`];
  if (sim.truncated) notes.push(`Showing the first ${sim.shown} of ${sim.microbatches} micro-batches: the steady state repeats.`);
  if (sim.deadlock) notes.push('This schedule could not be laid out for drawing (too large or not a valid order).');
  const leg = el('ul', { class: 'legend' }, [
    el('li', {}, [el('span', { class: 'swatch fwd', 'aria-hidden': 'true' }), 'forward']),
    el('li', {}, [el('span', { class: 'swatch bwd', 'aria-hidden': 'true' }), 'backward']),
  ]);
  return el('figure', { class: 'chart-box chart-pipeline', 'data-view': 'pipeline', 'data-truncated': sim.truncated ? 'true' : 'false' }, [
    el('figcaption', { text: `Pipeline schedule (${name})` }),
    root,
    leg,
    ...notes.map((t) => el('p', { class: 'chart-note pipeline-note', text: t })),
  ]);
}
