// Human-readable numbers: one function per kind of quantity.
const NBSP = '\u00a0';

function fixed(x, digits = 3) {
  if (!Number.isFinite(x)) return '–';
  const a = Math.abs(x);
  if (a === 0) return '0';
  // The form follows the rounded value: 99.96 reads "100", not "100.0".
  if (a >= 99.95) return x.toFixed(0);
  if (a >= 10) return x.toFixed(digits >= 3 ? 1 : 0);
  return x.toPrecision(digits);
}

// Whether `a` reads as at least `unit` once rounded to three digits: 999.6
// shows as 1000, so it takes the larger unit ("1.00k", "1.00 s").
const reaches = (a, unit) => a >= unit * 0.9995;

export function num(x, digits = 3) {
  if (!Number.isFinite(x)) return '–';
  const a = Math.abs(x);
  const units = [
    [1e15, 'P'],
    [1e12, 'T'],
    [1e9, 'G'],
    [1e6, 'M'],
    [1e3, 'k'],
  ];
  for (const [f, u] of units) if (reaches(a, f)) return fixed(x / f, digits) + u;
  return fixed(x, digits);
}

// A speed-up or slow-down factor to three significant digits, as the model's
// precision warrants: 1.00×, 2.45×, 13.1×, 0.110×.
export function times(x) {
  return Number.isFinite(x) ? `${num(x, 3)}×` : '–';
}

// A count of parameters as model cards write it: 8.03B, 1.04T, 350M.
export function count(x, digits = 3) {
  if (!Number.isFinite(x)) return '–';
  const a = Math.abs(x);
  for (const [f, u] of [[1e12, 'T'], [1e9, 'B'], [1e6, 'M'], [1e3, 'k']]) if (reaches(a, f)) return fixed(x / f, digits) + u;
  return fixed(x, digits);
}

// An axis tick: up to three significant digits, no trailing zeros (1k, 2.5M,
// 0.02), where num() keeps three digits for values (1.00k, 0.0200).
export function compact(x) {
  if (!Number.isFinite(x)) return '–';
  const a = Math.abs(x);
  for (const [f, u] of [[1e15, 'P'], [1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k']]) if (a >= f) return `${Number((x / f).toPrecision(3))}${u}`;
  return String(Number(x.toPrecision(3)));
}

// A tick label from a value format: its number without trailing zeros, so
// that a log axis reads 10 s, 20 s, 50 s, 100 s, not 10.0 s, 20.0 s, 100 s.
export function trimmed(format) {
  return (x) => format(x).replace(/(\d)\.(\d*?)0+(?=\D|$)/, (_, d, kept) => (kept ? `${d}.${kept}` : d));
}

// US dollars: $0.42, $12.3, $4.56k, $1.2M.
export function usd(x) {
  return Number.isFinite(x) ? `$${num(x)}` : '–';
}

// Energy from kWh: Wh below 1 kWh, MWh and GWh above.
export function energy(kwh) {
  if (!Number.isFinite(kwh)) return '–';
  const a = Math.abs(kwh);
  if (a < 1) return fixed(kwh * 1000) + NBSP + 'Wh';
  if (a < 1e3) return fixed(kwh) + NBSP + 'kWh';
  if (a < 1e6) return fixed(kwh / 1e3) + NBSP + 'MWh';
  return fixed(kwh / 1e6) + NBSP + 'GWh';
}

// Mass from kg: kg below a tonne, t above.
export function mass(kg) {
  if (!Number.isFinite(kg)) return '–';
  return Math.abs(kg) < 1000 ? fixed(kg) + NBSP + 'kg' : num(kg / 1000) + NBSP + 't';
}

export function int(x) {
  return Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : '–';
}

// The word for one device: "GPU", or the system's own where the part is no
// GPU (system.device.unit_name: a TPU's "chip", a Gaudi's "HPU").
export function unitWord(u) {
  return typeof u === 'string' && u ? u : 'GPU';
}

// "chip" -> "Chip", for a label that starts with it.
export function capital(s) {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

// A whole number with its noun, singular for one: "1 value", "5 values".
export function many(n, noun, plural = `${noun}s`) {
  return `${int(n)} ${n === 1 ? noun : plural}`;
}

export function seconds(s) {
  if (!Number.isFinite(s)) return '–';
  const a = Math.abs(s);
  if (a === 0) return '0' + NBSP + 's';
  if (!reaches(a, 1e-6)) return fixed(s * 1e9) + NBSP + 'ns';
  if (!reaches(a, 1e-3)) return fixed(s * 1e6) + NBSP + 'µs';
  if (!reaches(a, 1)) return fixed(s * 1e3) + NBSP + 'ms';
  if (a < 120) return fixed(s) + NBSP + 's';
  if (a < 7200) return fixed(s / 60) + NBSP + 'min';
  if (a < 3 * 86400) return fixed(s / 3600) + NBSP + 'h';
  if (a < 3 * 365.25 * 86400) return fixed(s / 86400) + NBSP + 'days';
  return fixed(s / (365.25 * 86400)) + NBSP + 'years';
}

export function bytes(b) {
  if (!Number.isFinite(b)) return '–';
  const a = Math.abs(b);
  const units = [
    [2 ** 50, 'PiB'],
    [2 ** 40, 'TiB'],
    [2 ** 30, 'GiB'],
    [2 ** 20, 'MiB'],
    [2 ** 10, 'KiB'],
  ];
  for (const [f, u] of units) if (a >= f) return fixed(b / f) + NBSP + u;
  return fixed(b) + NBSP + 'B';
}

// 121 PFLOP, 3.20 GFLOP: the prefix beside the unit, apart from the number.
export function flops(f) {
  if (!Number.isFinite(f)) return '–';
  const s = num(f);
  return /[kMGTP]$/.test(s) ? `${s.slice(0, -1)}${NBSP}${s.slice(-1)}FLOP` : `${s}${NBSP}FLOP`;
}

export function flopsRate(f) {
  if (!Number.isFinite(f)) return '–';
  return fixed(f / 1e12) + NBSP + 'TFLOP/s';
}

export function tflops(t) {
  return Number.isFinite(t) ? fixed(t) + NBSP + 'TFLOP/s' : '–';
}

export function rate(x, unit) {
  return Number.isFinite(x) ? num(x) + NBSP + unit : '–';
}

export function bandwidth(bps) {
  if (!Number.isFinite(bps)) return '–';
  return bps >= 1e12 ? fixed(bps / 1e12) + NBSP + 'TB/s' : fixed(bps / 1e9) + NBSP + 'GB/s';
}

export function percent(x) {
  return Number.isFinite(x) ? fixed(x * 100) + '%' : '–';
}

// The names of the time and memory parts a result breaks into (time_breakdown_s,
// memory_bytes) and of what bounds a training step (training.bound).
const PART_LABELS = {
  compute: 'compute',
  recompute: 'recompute',
  tp_comm: 'TP comm',
  cp_comm: 'CP comm',
  ep_comm: 'EP comm',
  pp_comm: 'PP comm',
  pp_bubble: 'PP bubble',
  offload: 'activation offload',
  dp_comm: 'DP comm',
  optimizer: 'optimizer',
  host: 'host launches',
  weights: 'weights',
  gradients: 'gradients',
  activations: 'activations',
  kv_cache: 'KV cache',
};
export const partLabel = (k) => PART_LABELS[k] || String(k).replace(/_/g, ' ');

// What a reader calls a `bound` or memory level: the roof's label where the
// device gives one ("GDDR6" for the level the model keys as "hbm").
// Levels without a label read as the hardware's names: SMEM (shared memory), L2.
const LEVEL_NAMES = { smem: 'SMEM', l2: 'L2' };
export function levelLabel(result, name) {
  const roof = (result?.device?.roofs || []).find((r) => r && r.name === name);
  return roof && typeof roof.label === 'string' && roof.label && roof.label !== name ? roof.label : LEVEL_NAMES[name] || name;
}

// Bytes an op moves at memory level `level` (or its largest level).
export function opBytes(op, level) {
  const b = op.bytes;
  if (typeof b === 'number') return b;
  if (!b || typeof b !== 'object') return NaN;
  if (level && Number.isFinite(b[level])) return b[level];
  const vals = Object.values(b).filter(Number.isFinite);
  return vals.length ? Math.max(...vals) : NaN;
}

// Axis ticks in one unit, chosen from the largest value (not 100 s next to
// 3.33 min): {ticks: values, format}. kind: bytes | seconds.
const AXIS_UNITS = {
  bytes: [[2 ** 50, 'PiB'], [2 ** 40, 'TiB'], [2 ** 30, 'GiB'], [2 ** 20, 'MiB'], [2 ** 10, 'KiB'], [1, 'B']],
  seconds: [[86400, 'days', 3], [3600, 'h', 2], [60, 'min', 2], [1, 's'], [1e-3, 'ms'], [1e-6, 'µs'], [1e-9, 'ns']],
  // Shares: steps in whole or decimal percents, so 99.9% to 100.2% reads 99.9, 100, 100.1, 100.2
  // (fmt.percent's three digits would print "100%" three times).
  percent: [[0.01, '%']],
};

// min: the axis start (0 for bars; a scatter's axis starts at its data).
export function axisTicks(kind, max, count = 5, min = 0) {
  const units = AXIS_UNITS[kind];
  if (!units || !(max > 0) || !(min < max)) return null;
  const [size, unit] = units.find(([f, , at = 1]) => max >= f * at) || units[units.length - 1];
  const top = max / size;
  const bottom = Math.max(0, min) / size;
  const raw = (top - bottom) / count;
  const pow = 10 ** Math.floor(Math.log10(raw));
  // The whole step nearest `count` ticks (in ratio), so 26 min gets 5-minute steps, not 10.
  const near = (a, b) => (Math.abs(Math.log(b / raw)) < Math.abs(Math.log(a / raw)) ? b : a);
  const step = [1, 2, 2.5, 5, 10].map((m) => m * pow).reduce(near);
  const ticks = [];
  for (let v = Math.max(0, Math.ceil(bottom / step - 1e-9)) * step; v <= top * (1 + 1e-9); v += step) ticks.push(v * size);
  return { ticks, format: (v) => `${Number((v / size).toPrecision(6))}${unit === '%' ? '' : NBSP}${unit}` };
}
