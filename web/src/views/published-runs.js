// The published-runs study: every published measurement the model is
// validated against (tests/validation/public), rerun by the page's core.
import { el } from '../dom.js';
import * as fmt from '../format.js';
import { errorDots } from '../charts/explore-charts.js';
import { chartWidth } from '../charts/plot-kit.js';
import { ACCURACY_METRICS } from './results.js';
import { str, table } from './study-table.js';

// A measured output in words (results quote the same names), and how its values read.
const NAMES = {
  ...ACCURACY_METRICS,
  'training.memory_bytes.activations': 'activation memory',
  'training.memory_bytes.weights+training.memory_bytes.gradients+training.memory_bytes.optimizer': 'weight, gradient and optimizer memory',
};
const outputName = (m) => NAMES[m] || m;
// Bytes, seconds (a key ending in _s), or a rate (_per_s) and other numbers as they are.
const outputValue = (m, v) => (m.includes('memory_bytes') ? fmt.bytes : m.endsWith('_s') && !m.endsWith('_per_s') ? fmt.seconds : fmt.num)(v);
// A source is named up to its first ';' (the core's grouping, validate.cpp).
const sourceOf = (row) => String(row.source || '').split(';')[0];
const clip = (text, n) => (text.length > n ? `${text.slice(0, n - 1)}…` : text);
// Dots coloured by what was measured: time, throughput or memory.
const errorKind = (m) => (m.includes('memory_bytes') ? 'c2' : m.startsWith('inference.') ? 'c1' : 'c0');
const signed = (e) => (Number.isFinite(e) ? `${e >= 0 ? '+' : '−'}${fmt.percent(Math.abs(e))}` : '–');

// The columns of a summary row (a source's or a kind of run's): what was
// measured, how many cases, their mean and worst error and the bias.
const SUMMARY = [
  ['output', (g) => outputName(g.metric), 'text'],
  ['cases', (g) => fmt.int(g.cases)],
  ['mean |error|', (g) => fmt.percent(g.mean_abs_error)],
  ['max |error|', (g) => fmt.percent(g.max_abs_error)],
  ['bias', (g) => signed(g.mean_error)],
];

// Every published run rerun: the mean error per source (each source weighs
// alike, as the accuracy target counts them), a dot per measurement at its
// signed error, grouped by source and output, and the tables behind it (by
// source, by kind of run, every case).
export function publishedRuns(d) {
  const rows = (d.rows || []).filter((r) => !r.skipped);
  const groups = d.groups || [];
  const o = d.overall || {};
  const dots = groups.map((g) => ({
    label: `${clip(g.source, chartWidth() < 480 ? 44 : 84)}\n${outputName(g.metric)}`,
    points: rows.filter((r) => sourceOf(r) === g.source && r.metric === g.metric).map((r) => ({ value: r.error, label: `${r.id}: ${signed(r.error)}`, kind: errorKind(r.metric), key: r.id })),
  }));
  return [
    el('p', {
      class: 'chart-note',
      text: `${fmt.int(o.cases)} measurements from ${fmt.int(o.groups)} sources and outputs, each case's scenario evaluated by this page's model: the mean absolute error per source is ${fmt.percent(o.mean_of_group_means)} (each source weighs alike), the worst case ${fmt.percent(o.max_abs_error)}. Left of 0 the model predicts less than was measured: too short a time, too little memory, too few tokens/s; the dotted lines mark ±10% and ±25%.`,
    }),
    errorDots({ title: 'Signed error of each published measurement, by source', groups: dots, legend: [['c0', 'training time'], ['c1', 'serving latency or throughput'], ['c2', 'memory']] }),
    table('Per source and output', groups, [['source', (g) => g.source], ...SUMMARY], 'groups'),
    table('Per kind of run and output (what a result of that kind quotes)', d.kinds || [], [['kind of run', (k) => str(k.kind_label)], ...SUMMARY], 'kinds'),
    table('Every measurement', rows, [
      ['case', (r) => r.id],
      ['output', (r) => outputName(r.metric), 'text'],
      ['predicted', (r) => outputValue(r.metric, r.predicted)],
      ['measured', (r) => outputValue(r.metric, r.measured)],
      ['error', (r) => signed(r.error)],
      ['kind of run', (r) => str(r.kind_label), 'text'],
      ['device', (r) => str(r.device), 'text'],
    ], 'rows'),
  ];
}
