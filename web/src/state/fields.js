// What the page reads from the core's one input table (`llmcalc schema`):
// which fields belong to a scenario and which to a request (search, sweep,
// study, derive), and where a system field lives inside a system object.
//
// A system field carries `at`, the path of its value inside the system
// object; a segment after an array (device.memory, network) names the
// element by its "name" field or its index. `clear` lists sibling keys that the value
// replaces (a capacity given in GiB drops the MiB one). The page sends edited
// system figures as {"preset": id, ...}: the core merges objects into the
// preset key by key and replaces arrays whole, so an array on the path is
// copied from the preset and only the named element changes.
const NUMBER_RE = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

export function parseNumber(text) {
  const t = String(text).trim().replace(/_/g, '');
  if (!NUMBER_RE.test(t)) return NaN;
  return Number(t);
}

export const fieldApplies = (field, mode) => !field.modes || field.modes.includes(mode);
export const isRequestField = (field) => Boolean(field.request);
export const isSystemField = (field) => typeof field.at === 'string';
export const isNumeric = (field) => field.type === 'int' || field.type === 'number';
// A field of the scenario the form edits (not the mode, a preset picker or a request).
export const isScenarioField = (field) => field.key !== 'mode' && field.type !== 'preset' && !isRequestField(field);

// The fields of one request (search, sweep, study, derive), in table order.
export const requestFields = (schema, request) => schema.fields.filter((f) => f.request === request);

const segments = (at) => String(at).split('.').filter(Boolean);
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
// The element of a list named `seg`, or at index `seg` (network.0: the
// innermost tier, whatever its name), as core/src/io/inputs.cpp resolves it.
const byName = (list, seg) => {
  const named = list.findIndex((e) => e && e.name === seg);
  if (named >= 0 || !/^[0-9]+$/.test(seg)) return named;
  return Number(seg) < list.length ? Number(seg) : -1;
};

// The value of a system field in a system object, or null. A plain number
// where the path goes on (efficiency.matmul: 0.8) holds for every key below it.
export function systemValue(field, system) {
  if (!isSystemField(field)) return null;
  let o = system;
  for (const seg of segments(field.at)) {
    if (typeof o === 'number') return o;
    if (Array.isArray(o)) o = o[byName(o, seg)];
    else if (isObject(o)) o = o[seg];
    else return null;
  }
  return typeof o === 'number' ? o : null;
}

// Sets one system field in the override `out` ({preset, ...}) of the preset
// system `base`. Returns false when the path names an element the system lacks.
export function setSystemValue(out, base, field, value) {
  const segs = segments(field.at);
  let o = out;
  let b = base;
  for (let i = 0; i < segs.length - 1; i++) {
    const seg = segs[i];
    if (Array.isArray(o)) {
      const j = byName(o, seg);
      if (j < 0) return false;
      o = o[j];
      b = Array.isArray(b) ? b[byName(b, seg)] : undefined;
      continue;
    }
    const bv = isObject(b) ? b[seg] : undefined;
    if (Array.isArray(bv)) {
      if (!Array.isArray(o[seg])) o[seg] = structuredClone(bv);
    } else if (typeof bv === 'number' && !isObject(o[seg])) {
      // One number for every key below: it becomes the object form, keyed by the next segment.
      o[seg] = { [segs[i + 1]]: bv };
    } else if (!isObject(o[seg])) {
      o[seg] = {};
    }
    o = o[seg];
    b = bv;
  }
  if (!isObject(o)) return false;
  for (const k of field.clear || []) delete o[k];
  o[segs[segs.length - 1]] = value;
  return true;
}

// id: preset id; system: that preset's system object; values: [[field, number]].
// Returns {system: the id alone when nothing is set, else the override; missing: [field]}.
export function systemScenario(id, system, values) {
  if (!values.length || !system) return { system: id, missing: [] };
  const out = { preset: id };
  const missing = [];
  for (const [field, v] of values) if (!setSystemValue(out, system, field, v)) missing.push(field);
  return { system: out, missing };
}

// Key suffixes that spell a unit: GB/s -> gbps or gbs, TFLOP/s -> tflops.
const unitSpellings = (unit) => {
  const u = unit.toLowerCase();
  return [u.replace('/', 'p'), u.replace('/', '')].map((x) => x.replace(/[^a-z0-9]/g, ''));
};
// A unit that is a plain word (tokens, layers, sequences).
const wordUnit = (unit) => /^[a-z]{3,}$/.test(unit);

function labelWords(field) {
  const parts = field.key.split('.');
  const words = (parts.length > 1 ? parts.slice(1) : parts).join(' ').split(/[ _]/);
  // The unit follows the label in brackets, so a key ending in its
  // abbreviation (host_overhead_us, hbm_GBps) drops that last word.
  const last = words.at(-1).toLowerCase();
  if (field.unit && !wordUnit(field.unit) && words.length > 1 && unitSpellings(field.unit).includes(last)) words.pop();
  return words;
}

// The form's label of a field: its own, else the words of its key.
export function labelFor(field) {
  return field.label || labelWords(field).join(' ');
}

// The bracketed unit, unless the label already names it ("input tokens",
// "GPUs per node"); microseconds read µs.
export function unitFor(field) {
  const unit = field.unit && !labelFor(field).split(' ').includes(field.unit) ? field.unit : '';
  return unit === 'us' ? 'µs' : unit;
}

// `text` with "GPU" and "GPUs" (a GPU-hour too) in the system's word for a
// device, `word` ("chip" on a TPU, "HPU" on a Gaudi); `sentences`: the text
// is prose (a help text), so the word is capitalised where it starts one.
export function deviceWords(text, word, sentences = false) {
  if (typeof text !== 'string' || !word || word === 'GPU') return text;
  const starts = (at) => sentences && (at === 0 || text.slice(Math.max(0, at - 2), at) === '. ');
  const capital = word.charAt(0).toUpperCase() + word.slice(1);
  return text.replace(/\bGPU(s?)\b/g, (_, s, at) => `${starts(at) ? capital : word}${s}`);
}

// The field as the form shows it on a system whose devices are `word` and
// whose device memory is `memory` (its label: "GDDR6", "HBM3"): a field
// marked device_words (its texts say GPU for any device, HBM for any device
// memory) gets its help, label and unit in those words; any other comes back
// as it is.
export function inDeviceWords(field, word, memory = '') {
  const unit = word && word !== 'GPU' ? word : '';
  const dram = memory && memory !== 'HBM' ? memory : '';
  if (!field?.device_words || (!unit && !dram)) return field;
  const words = (text, sentences = false) => {
    const t = unit ? deviceWords(text, unit, sentences) : text;
    return dram && typeof t === 'string' ? t.replace(/\bHBM\b/g, dram) : t;
  };
  return { ...field, help: words(field.help, true), label: words(labelFor(field)), unit: words(field.unit) };
}

// The system's words for a device and its memory, from its preset: a TPU's
// "chip" (system.device.unit_name, else "GPU") and the device memory's label
// ("GDDR6" on an L4; "" when the preset names none).
export function systemWords(presets, id) {
  const device = presets?.systems?.[id]?.system?.device;
  const memories = Array.isArray(device?.memory) ? device.memory : [];
  const dram = memories.at(-1);
  return { unit: typeof device?.unit_name === 'string' && device.unit_name ? device.unit_name : 'GPU', memory: typeof dram?.label === 'string' ? dram.label : '' };
}
