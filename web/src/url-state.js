// The URL hash codec. The schema table gives every field a short `url` key;
// the hash holds only values that differ from the defaults, plus v=1:
//   #v=1&mode=inference&m=llama3.1-70b&tp=8&b=32
// Decoding is defensive: unknown keys are ignored, text is length-limited,
// and values are kept as text (numbers are checked when the scenario is built).
export const URL_VERSION = '1';
const MAX_LEN = 200;

export function encodeState(schema, state) {
  const p = new URLSearchParams();
  p.set('v', URL_VERSION);
  for (const f of schema.fields) {
    let value;
    if (f.key === 'mode') value = state.mode;
    else if (f.type === 'preset') value = state[f.key];
    else if (f.key in state.values) value = state.values[f.key];
    else continue;
    if (value === undefined || value === null) continue;
    if (f.type === 'preset' || f.key === 'mode') {
      if (value === f.default) continue;
    }
    if (f.type === 'bool') value = value ? '1' : '0';
    p.set(f.url, String(value));
  }
  return p.toString();
}

export function decodeState(schema, hash, defaults) {
  const state = structuredClone(defaults);
  const text = String(hash || '').replace(/^#/, '');
  if (!text) return state;
  let p;
  try {
    p = new URLSearchParams(text);
  } catch {
    return state;
  }
  const byUrl = new Map(schema.fields.map((f) => [f.url, f]));
  for (const [k, raw] of p) {
    const f = byUrl.get(k);
    if (!f || typeof raw !== 'string' || raw.length > MAX_LEN) continue;
    const value = raw.trim();
    if (f.key === 'mode') {
      if ((f.values || []).includes(value)) state.mode = value;
    } else if (f.type === 'preset') {
      state[f.key] = value;
    } else if (f.type === 'bool') {
      if (value === '1' || value === 'true') state.values[f.key] = true;
      else if (value === '0' || value === 'false') state.values[f.key] = false;
    } else if (f.type === 'enum') {
      if ((f.values || []).includes(value)) state.values[f.key] = value;
    } else {
      state.values[f.key] = value;
    }
  }
  return state;
}
