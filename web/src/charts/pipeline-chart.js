// The pipeline schedule chart: one row per stage, one box per forward (F) or
// backward (B) pass of a micro-batch (and chunk, when interleaved; ZB-H1 draws
// the weight gradient W apart); the gaps are the bubble. At most 32
// micro-batches are drawn.
// Drawn with Observable Plot (see plot-kit.js).
import { el } from '../dom.js';
import * as fmt from '../format.js';
import { simulatePipeline } from './pipeline.js';
import { Plot, chartWidth, plotSvg, tag } from './plot-kit.js';

const M = { l: 54, r: 10, t: 8, b: 34 };
const PASS = {
  F: { name: 'forward', cls: 'fwd' },
  B: { name: 'backward', cls: 'bwd' },
  W: { name: 'weight gradient', cls: 'wgrad' },
};
const SCHEDULE_NAMES = { interleaved: 'interleaved 1F1B', gpipe: 'GPipe', zb_h1: 'ZB-H1 zero bubble', dualpipe: 'DualPipe', '1f1b': '1F1B' };

// The boxes: one per pass, with its label when the box is wide enough.
function opMarks(sim, rowH) {
  const ops = sim.ops;
  const many = sim.virtual_stages > 1;
  const dual = sim.schedule === 'dualpipe'; // chunk = direction: 0 from stage 0, 1 from the last stage
  const which = (o) => (many ? `, chunk ${o.chunk}` : dual ? (o.chunk ? ', entering at the last stage' : ', entering at stage 0') : '');
  const pxPerS = (chartWidth() - marginLeft(sim.stages) - M.r) / (sim.makespan || 1);
  const labelled = rowH >= 12 ? ops.filter((o) => (o.end - o.start) * pxPerS >= 14) : [];
  return [
    Plot.barX(ops, {
      x1: 'start',
      x2: 'end',
      y: 'stage',
      title: (o) => `stage ${o.stage}: ${PASS[o.kind].name} micro-batch ${o.mb + 1}${which(o)}, ${fmt.seconds(o.start)} to ${fmt.seconds(o.end)}`,
      render: tag(ops, (o) => ({ class: `pipe-op ${PASS[o.kind].cls} k${o.chunk % 4}${(o.end - o.start) * pxPerS < 3 ? ' thin' : ''}`, 'data-kind': o.kind, 'data-stage': o.stage, 'data-mb': o.mb, 'data-chunk': o.chunk })),
    }),
    Plot.text(labelled, {
      x: (o) => (o.start + o.end) / 2,
      y: 'stage',
      text: (o) => `${o.kind}${o.mb + 1}${many ? `.${o.chunk}` : ''}`,
      render: tag(labelled, () => ({ class: 'pipe-label' })),
    }),
  ];
}

// Room for the widest stage label: "stage 15" needs a digit's more than "stage 9".
const marginLeft = (p) => M.l + 8 * (String(Math.max(0, p - 1)).length - 1);

// Why a schedule has no drawing: a part group of Megatron's interleaved
// order (the core warns of it too), else its size or order.
function undrawable(sim, name) {
  const p = sim.stages, m = sim.microbatches;
  const why = sim.schedule === 'interleaved' && m > p && m % p !== 0
    ? `Megatron's interleaved order takes the micro-batches through the chunks in groups of ${p} (the stages); ${m} leave a part group, which that order cannot lay out, so the schedule is not drawn.`
    : sim.schedule === 'dualpipe' && (p % 2 !== 0 || sim.shown % 2 !== 0 || sim.shown < 2 * p)
      ? `DualPipe's order feeds half the micro-batches from each end and needs an even count of stages and at least ${2 * p} micro-batches, an even count (here ${p} stages, ${m} micro-batches), so the schedule is not drawn.`
      : 'This schedule could not be laid out for drawing (too large or not a valid order).';
  return el('figure', { class: 'chart-box chart-pipeline', 'data-view': 'pipeline', 'data-truncated': 'false' }, [
    el('figcaption', { text: `Pipeline schedule (${name})` }),
    el('p', { class: 'chart-note pipeline-note', text: why }),
  ]);
}

export function pipelineChart(pipe) {
  if (!pipe || typeof pipe !== 'object') return null;
  const sim = simulatePipeline(pipe);
  const p = sim.stages;
  const rowH = Math.max(6, Math.min(22, Math.floor(320 / p)));
  const name = sim.schedule === 'interleaved' ? `interleaved 1F1B, ${sim.virtual_stages} chunks per stage` : SCHEDULE_NAMES[sim.schedule] || '1F1B';
  if (sim.deadlock) return undrawable(sim, name);
  const idle = sim.makespan > 0 ? 1 - sim.busy / (p * sim.makespan) : 0;
  const every = p <= 16 ? 1 : Math.ceil(p / 16);
  const root = plotSvg(
    {
      height: M.t + p * rowH + M.b,
      marginLeft: marginLeft(p),
      marginRight: M.r,
      marginTop: M.t,
      marginBottom: M.b,
      // about one tick label per 90 px; the long axis label only where it fits
      x: { domain: [0, sim.makespan || 1], ticks: Math.max(2, Math.min(6, Math.floor(chartWidth() / 90))), tickFormat: fmt.seconds, label: chartWidth() < 480 || p === 1 ? 'time within one iteration' : 'time within one iteration (point-to-point transfers not drawn)', grid: true },
      y: { type: 'band', domain: Array.from({ length: p }, (_, s) => s), paddingInner: 2 / rowH, paddingOuter: 0, ticks: Array.from({ length: p }, (_, s) => s).filter((s) => s % every === 0), tickFormat: (s) => `stage ${s}`, tickSize: 0, label: null },
      marks: opMarks(sim, rowH),
    },
    { className: 'pipeline', label: p === 1 ? `Micro-batches of one iteration, no pipeline: ${sim.shown} drawn` : `Pipeline schedule, ${name}: ${p} stages, ${sim.shown} micro-batches drawn, idle share ${fmt.percent(idle)}` },
  );
  const dual = sim.schedule === 'dualpipe';
  const zb = sim.schedule === 'zb_h1' || dual;
  const bwd = zb ? `backward ${fmt.seconds(pipe.t_bwd_s)} (of which weight gradient ${fmt.seconds(pipe.t_wgrad_s)}, run where the stage would idle)` : `backward ${fmt.seconds(pipe.t_bwd_s)}`;
  const mbs = `${sim.microbatches} micro-batch${sim.microbatches === 1 ? '' : 'es'}`;
  // One stage has no pipeline: the figure shows gradient accumulation's
  // passes back to back, and says so rather than naming a schedule.
  const notes = [
    p === 1
      ? `No pipeline parallelism (pp 1): the ${mbs} of one iteration run back to back, forward ${fmt.seconds(pipe.t_fwd_s)} and ${bwd} each, with no bubble.`
      : `${p} stages, ${mbs}, ${name}; forward ${fmt.seconds(pipe.t_fwd_s)}, ${bwd} per micro-batch and stage; idle (bubble) ${fmt.percent(idle)} of the time drawn.`,
  ];
  // The layers of a stage (result.training.pipeline.layers_per_stage): when
  // pp does not divide them, short_stages hold one fewer, the end stages first.
  const L = pipe.layers_per_stage, short = pipe.short_stages || 0;
  if (L > 0 && p > 1)
    notes.push(
      short === 0 ? `${fmt.many(L, 'layer')} per stage.`
      : short === 1 ? `${fmt.many(L, 'layer')} per stage, ${L - 1} on the one with the LM head.`
      : short === 2 ? `${fmt.many(L, 'layer')} per stage, ${L - 1} on the end stages, with the embedding and the LM head.`
      : `${fmt.many(L, 'layer')} per stage, ${L - 1} on ${short} of them, the end stages (embedding, LM head) among them.`,
    );
  if (dual)
    notes.push('DualPipe: half the micro-batches enter at stage 0, half at the last stage (lighter); rank i holds stage i and stage p-1-i (twice the weights), and a forward runs beside another micro-batch\'s backward, hiding their all-to-alls.');
  if (sim.truncated) notes.push(`Showing the first ${sim.shown} of ${sim.microbatches} micro-batches: the steady state repeats.`);
  const leg = el('ul', { class: 'legend' }, [
    el('li', {}, [el('span', { class: 'swatch fwd', 'aria-hidden': 'true' }), 'forward']),
    el('li', {}, [el('span', { class: 'swatch bwd', 'aria-hidden': 'true' }), zb && !dual ? 'backward (input gradient)' : 'backward']),
    ...(zb ? [el('li', {}, [el('span', { class: 'swatch wgrad', 'aria-hidden': 'true' }), dual ? 'weight gradient run apart' : 'weight gradient'])] : []),
  ]);
  return el('figure', { class: 'chart-box chart-pipeline', 'data-view': 'pipeline', 'data-truncated': sim.truncated ? 'true' : 'false' }, [
    el('figcaption', { text: p === 1 ? 'Micro-batches of one iteration (no pipeline)' : `Pipeline schedule (${name})` }),
    root,
    leg,
    ...notes.map((t) => el('p', { class: 'chart-note pipeline-note', text: t })),
  ]);
}
