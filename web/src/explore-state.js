// URL state of the Search, Sweep and Studies views. The view is view=search |
// sweep | study (view= with embed=1 is an embed view instead, see embed.js);
// each view's settings use short keys, written only when set:
//   search: qg (GPUs), qt (top), qf (max TTFT s), qo (max TPOT s)
//   sweep:  wi (input), wf (from), wt (to), wn (steps), wl=0 (linear; log is the default),
//           wo (outputs, comma-separated), wr (series: system presets, comma-separated)
//   study:  study (name); technology-nodes' budget: tw (TDP W), ta (die mm2),
//           tx (package mm2), tr (architecture), th (HBM generation)
// Values stay text; each view checks them when it runs.
export const EXPLORE_VIEWS = ['search', 'sweep', 'study'];
export const STUDIES = ['gpu-generations', 'technology-nodes', 'dram-scaling', 'inference-boundedness'];

const NUM = /^[0-9eE.+_-]{1,24}$/;
const PATH = /^[a-zA-Z0-9_.]{1,80}$/;
const LIST = /^[a-zA-Z0-9_.,-]{1,400}$/;
export const EXPLORE_KEYS = {
  qg: NUM,
  qt: NUM,
  qf: NUM,
  qo: NUM,
  wi: PATH,
  wf: NUM,
  wt: NUM,
  wn: NUM,
  wl: /^[01]$/,
  wo: LIST,
  wr: LIST,
  study: /^[a-z-]{1,40}$/,
  tw: NUM,
  ta: NUM,
  tx: NUM,
  tr: /^(hopper|ampere)$/,
  th: /^HBM[0-9A-Z]{1,3}$/,
};

// The technology-nodes budget in state.x, as the core's params object (or null).
export function technologyParams(x = {}) {
  const params = {};
  for (const [k, key] of [['tw', 'tdp_W'], ['ta', 'die_area_mm2'], ['tx', 'package_area_mm2']])
    if (x[k] !== undefined && String(x[k]).trim() !== '') params[key] = Number(x[k]);
  if (x.tr) params.architecture = x.tr;
  if (x.th) params.hbm = x.th;
  return Object.keys(params).length ? params : null;
}

export const isExploreKey = (k) => k in EXPLORE_KEYS;

// Adds state.view and state.x to the URL parameters p.
export function encodeExplore(p, state) {
  if (EXPLORE_VIEWS.includes(state.view)) p.set('view', state.view);
  for (const k of Object.keys(EXPLORE_KEYS)) {
    const v = state.x?.[k];
    if (v !== undefined && v !== null && String(v) !== '') p.set(k, String(v));
  }
}

// Reads one explore key into state.x; returns false when the value is invalid.
export function decodeExploreKey(state, k, raw) {
  const value = raw.trim();
  if (!EXPLORE_KEYS[k].test(value)) return false;
  if (k === 'study' && !STUDIES.includes(value)) return false;
  state.x = state.x || {};
  state.x[k] = value;
  return true;
}

export const list = (text) => String(text || '').split(',').map((s) => s.trim()).filter(Boolean);
