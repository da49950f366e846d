// From the page state to a scenario JSON document (spec: scenario.md).
// state = { mode, model: presetId | '' (custom), system: presetId, values }
// `values` holds only what the user set: text for numbers, booleans, enum names.
import { isSystemField, systemScenario, systemValue } from './page-fields.js';
const NUMBER_RE = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

export function parseNumber(text) {
  const t = String(text).trim().replace(/_/g, '');
  if (!NUMBER_RE.test(t)) return NaN;
  return Number(t);
}

export function fieldApplies(field, mode) {
  return !field.modes || field.modes.includes(mode);
}

function setPath(obj, path, value) {
  const parts = path.split('.');
  let o = obj;
  for (const part of parts.slice(0, -1)) {
    if (typeof o[part] !== 'object' || o[part] === null) o[part] = {};
    o = o[part];
  }
  o[parts[parts.length - 1]] = value;
}

function getPath(obj, path) {
  let o = obj;
  for (const part of path.split('.')) {
    if (o === null || typeof o !== 'object' || !(part in o)) return undefined;
    o = o[part];
  }
  return o;
}

// What a field is when the user leaves it alone: the chosen preset's value for
// model fields, else the schema default (null: derived by the core).
export function baseline(field, state, presets) {
  if (isSystemField(field.key)) return systemValue(field.key, presets?.systems?.[state.system]?.system) ?? field.default;
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
  const systemOv = {};
  sections[state.mode] = {};

  for (const f of schema.fields) {
    if (f.key === 'mode' || f.type === 'preset') continue;
    if (!fieldApplies(f, state.mode)) continue;
    if (!(f.key in state.values)) continue;
    let v = state.values[f.key];
    if (f.type === 'int' || f.type === 'number') {
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
    if (isSystemField(f.key)) systemOv[f.key] = v;
    else if (f.key.startsWith('model.')) setPath(model, f.key.slice(6), v);
    else setPath(sections, f.key, v);
  }

  if (state.model) {
    scenario.model = Object.keys(model).length ? { preset: state.model, ...model } : state.model;
  } else {
    scenario.model = model;
  }
  scenario.system = systemScenario(state.system, presets?.systems?.[state.system]?.system, systemOv);
  scenario.parallelism = sections.parallelism;
  scenario[state.mode] = sections[state.mode];
  return { scenario, errors };
}
