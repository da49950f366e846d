// From the page state to a scenario JSON document (docs: the scenario
// contract), and back from a scenario (the schema's examples) to a state.
// state = { mode, model: presetId | '' (custom), system: presetId, values }
// `values` holds only what the user set: text for numbers, booleans, enum names.
import { fieldApplies, isNumeric, isScenarioField, isSystemField, parseNumber, systemScenario, systemValue } from './fields.js';

export { fieldApplies, parseNumber };

function setPath(obj, path, value) {
  const parts = path.split('.');
  let o = obj;
  for (const part of parts.slice(0, -1)) {
    if (typeof o[part] !== 'object' || o[part] === null) o[part] = {};
    o = o[part];
  }
  o[parts[parts.length - 1]] = value;
}

export function getPath(obj, path) {
  let o = obj;
  for (const part of path.split('.')) {
    if (o === null || typeof o !== 'object' || !(part in o)) return undefined;
    o = o[part];
  }
  return o;
}

// The precisions whose bf16 default is fp16 on a device without bf16 math
// (V100), as the core defaults them (default_16bit_to_device, core/src/io/consistency.cpp).
const SIXTEEN_BIT = new Set(['training.precision', 'inference.compute_precision', 'inference.weight_precision', 'inference.kv_precision']);
function deviceHasBf16(state, presets) {
  const set = state.values?.['system.peak_bf16_tflops'];
  if (set !== undefined && String(set).trim() !== '') return parseNumber(set) > 0;
  const peaks = presets?.systems?.[state.system]?.system?.device?.matmul_tflops;
  return !peaks || peaks.bf16 > 0 || !(peaks.fp16 > 0);
}

// The id of the preset `id` names: itself, or the preset listing it among
// its aliases (the core resolves "h100" to "dgx-h100" alike); unknown ids
// stay as they are, for the form to flag.
export function presetId(presets, kind, id) {
  const list = presets?.[kind] || {};
  if (!id || list[id]) return id;
  return Object.keys(list).find((pid) => (list[pid].aliases || []).includes(id)) ?? id;
}

// What a field is when the user leaves it alone: the chosen preset's value for
// model and system fields, else the schema default (null: derived by the core).
export function baseline(field, state, presets) {
  if (SIXTEEN_BIT.has(field.key) && field.default === 'bf16' && !deviceHasBf16(state, presets)) return 'fp16';
  if (isSystemField(field)) return systemValue(field, presets?.systems?.[state.system]?.system) ?? field.default;
  if (field.key.startsWith('model.') && state.model) {
    const preset = presets?.models?.[state.model];
    const v = preset ? getPath(preset.model || {}, field.key.slice('model.'.length)) : undefined;
    if (v !== undefined) return v;
  }
  return field.default;
}

// Returns { scenario, errors: [{key, message}] }.
export function buildScenario(schema, state, presets) {
  const errors = [];
  const scenario = { mode: state.mode };
  const model = {};
  const sections = { parallelism: {} };
  const system = [];
  sections[state.mode] = {};

  for (const f of schema.fields) {
    if (!isScenarioField(f) || !fieldApplies(f, state.mode)) continue;
    if (!(f.key in state.values)) continue;
    let v = state.values[f.key];
    if (isNumeric(f)) {
      if (String(v).trim() === '') continue;
      const n = parseNumber(v);
      if (!Number.isFinite(n)) {
        errors.push({ key: f.key, message: 'not a number' });
        continue;
      }
      v = n;
    }
    if (f.type === 'string') {
      v = String(v).slice(0, 200);
      if (!v.trim()) continue;
    }
    if (isSystemField(f)) system.push([f, v]);
    else if (f.key.startsWith('model.')) setPath(model, f.key.slice(6), v);
    else setPath(sections, f.key, v);
  }

  if (state.model) {
    scenario.model = Object.keys(model).length ? { preset: state.model, ...model } : state.model;
  } else {
    scenario.model = model;
  }
  const sys = systemScenario(state.system, presets?.systems?.[state.system]?.system, system);
  for (const f of sys.missing) errors.push({ key: f.key, message: `${state.system} has no ${f.at}` });
  scenario.system = sys.system;
  scenario.parallelism = sections.parallelism;
  scenario[state.mode] = sections[state.mode];
  // Optional sections of both modes (cost) only when something is set.
  for (const [key, section] of Object.entries(sections))
    if (!(key in scenario) && Object.keys(section).length) scenario[key] = section;
  return { scenario, errors };
}

// The page state of a scenario whose system is a preset id (the schema's
// examples): each field's value where it differs from its baseline. The
// model is a preset id, or an object (with or without "preset").
export function stateOfScenario(schema, scenario, presets) {
  const model = scenario.model;
  const modelObj = model && typeof model === 'object' ? model : null;
  const state = { mode: scenario.mode, model: typeof model === 'string' ? model : modelObj?.preset || '', system: scenario.system, values: {} };
  for (const f of schema.fields) {
    if (!isScenarioField(f) || isSystemField(f) || !fieldApplies(f, state.mode)) continue;
    const isModel = f.key.startsWith('model.');
    const v = isModel ? (modelObj ? getPath(modelObj, f.key.slice(6)) : undefined) : getPath(scenario, f.key);
    if (v === undefined || v === null || v === baseline(f, state, presets)) continue;
    state.values[f.key] = isNumeric(f) ? String(v) : v;
  }
  return state;
}
