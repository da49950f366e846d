// URL state of the Search, Sweep and Studies views: the request fields of the
// core's schema (those with a `request`: search, sweep, study, derive), each
// under its short `url` key, written only when set, e.g.
//   #view=sweep&wi=system.hbm_GBps&wf=1000&wt=8000&wl=lin
// The view itself is view=search | sweep | study (view= with embed=1 is an
// embed view instead, see views/embed.js). Values stay text in state.x,
// keyed by field key; a link's values are checked by type here and against
// the field's range when the view runs.
import { isNumeric, isRequestField, parseNumber, requestFields } from './fields.js';

export const EXPLORE_VIEWS = ['search', 'sweep', 'study'];

const NUM = /^[0-9eE.+_-]{1,24}$/;
const KEY = /^[a-zA-Z0-9_.]{1,80}$/;
const LIST = /^[a-zA-Z0-9_.,-]{1,400}$/;
// Values older links wrote that the table names differently now.
const LEGACY = { 'sweep.scale': { 0: 'lin', 1: 'log' } };

// Request fields by url key.
export function exploreKeys(schema) {
  return new Map(schema.fields.filter((f) => isRequestField(f) && f.url).map((f) => [f.url, f]));
}

// The names of the studies (the table's study.name values).
export const studyNames = (schema) => schema.fields.find((f) => f.key === 'study.name')?.values || [];

// A value of a request field as given in a link: the value to keep, or null.
export function checkValue(field, raw) {
  const value = String(raw).trim();
  if (isNumeric(field)) return NUM.test(value) && Number.isFinite(parseNumber(value)) ? value : null;
  if (field.type === 'enum') {
    const v = LEGACY[field.key]?.[value] ?? value;
    return (field.values || []).includes(v) ? v : null;
  }
  if (field.type === 'list') return LIST.test(value) ? value : null;
  if (field.type === 'bool') return value === '1' || value === '0' ? value : null;
  return KEY.test(value) ? value : null;
}

// Adds state.view and state.x to the URL parameters p.
export function encodeExplore(schema, p, state) {
  if (EXPLORE_VIEWS.includes(state.view)) p.set('view', state.view);
  for (const [url, f] of exploreKeys(schema)) {
    const v = state.x?.[f.key];
    if (v !== undefined && v !== null && String(v) !== '') p.set(url, String(v));
  }
}

// Reads one request field into state.x; returns false when the value is invalid.
export function decodeExploreValue(state, field, raw) {
  const value = checkValue(field, raw);
  if (value === null) return false;
  state.x = state.x || {};
  state.x[field.key] = value;
  return true;
}

// The technology-nodes budget in state.x, as the core's params object (or null):
// the derive request's fields, named without their "budget." prefix.
export function technologyParams(schema, x = {}) {
  const params = {};
  for (const f of requestFields(schema, 'derive')) {
    const v = x[f.key];
    if (v === undefined || String(v).trim() === '') continue;
    params[f.key.slice(f.key.indexOf('.') + 1)] = isNumeric(f) ? parseNumber(v) : v;
  }
  return Object.keys(params).length ? params : null;
}

export const list = (text) => String(text || '').split(',').map((s) => s.trim()).filter(Boolean);
