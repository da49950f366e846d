// The URL hash codec. The schema table gives every field a short `url` key;
// the hash holds only values that differ from the defaults, plus v=1:
//   #v=1&mode=inference&m=llama3.1-70b&tp=8&b=32
// A model changed from its preset keeps m= and adds only the changed fields,
// so a custom model costs a few bytes. Page keys: pin= (a pinned state, itself
// encoded the same way), embed=1 and view= (embed mode, see embed.js), and
// view=search|sweep|study with the request fields of the schema (explore-state.js).
// Decoding is defensive: unknown keys are ignored, text is length-limited,
// values are kept as text (numbers are checked when the scenario is built),
// and everything set aside is reported so the page can say so.
import { EXPLORE_VIEWS, decodeExploreValue, encodeExplore } from './explore-state.js';
import { isRequestField } from './fields.js';

export const URL_VERSION = '1';
export const MAX_HASH = 16384;
const MAX_LEN = 200;
const PAGE_KEYS = new Set(['v', 'pin', 'embed', 'view']);
// The page's tabs by the names they show, so that a hand-written link may
// name a tab as it reads ("Studies" is the study view).
const TAB_NAMES = { calculator: 'calc', studies: 'study' };

export function encodeState(schema, state, { pin = true } = {}) {
  const p = new URLSearchParams();
  p.set('v', URL_VERSION);
  for (const f of schema.fields) {
    if (isRequestField(f) || !f.url) continue;
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
  if (pin && typeof state.pin === 'string' && state.pin) p.set('pin', state.pin);
  if (pin) encodeExplore(schema, p, state);
  return p.toString();
}

const short = (s) => (s.length > 40 ? `${s.slice(0, 40)}…` : s);

// The link's parameters, or null with the reason in `issues` (too long,
// unreadable): the page then shows the defaults.
function linkParams(text, issues) {
  if (text.length > MAX_HASH) {
    issues.push(`The link's settings are too long (${Math.round(text.length / 1024)} KB, the limit is ${MAX_HASH / 1024} KB) and were not read: showing the defaults.`);
    return null;
  }
  try {
    return new URLSearchParams(text);
  } catch {
    issues.push("The link's settings could not be read: showing the defaults.");
    return null;
  }
}

// A view's name ("published-runs"), in any case; another text is reported.
function readViewName(raw, out) {
  const name = raw.trim().toLowerCase();
  if (/^[a-z][a-z-]{0,29}$/.test(name)) out.view = name;
  else out.issues.push(`Ignored the view "${short(raw)}" in the link: not a view's name.`);
}

// A page switch (v, embed, view, pin) into `out`; a pinned result is a link
// of its own, read once (a pin inside a pin is ignored).
function readPageKey(k, raw, out, schema, defaults, nested) {
  if (k === 'v' && raw !== URL_VERSION) out.issues.push(`This link is from another version of the page (v=${short(raw)}); some settings may be lost.`);
  else if (k === 'embed') out.embed = raw === '1' || raw === 'true';
  else if (k === 'view') readViewName(raw, out);
  else if (k === 'pin' && !nested) {
    const pinned = decodeStateReport(schema, raw, defaults, { nested: true });
    if (pinned.issues.length) out.issues.push(`Pinned result: ${pinned.issues.join(' ')}`);
    out.state.pin = encodeState(schema, pinned.state, { pin: false });
  }
}

// One form field's value into `state`; false when the field's type refuses it.
function readFieldValue(state, f, value) {
  if (f.key === 'mode') {
    if (!(f.values || []).includes(value)) return false;
    state.mode = value;
  } else if (f.type === 'preset') {
    state[f.key] = value;
  } else if (f.type === 'bool') {
    if (value === '1' || value === 'true') state.values[f.key] = true;
    else if (value === '0' || value === 'false') state.values[f.key] = false;
    else return false;
  } else if (f.type === 'enum') {
    if (!(f.values || []).includes(value)) return false;
    state.values[f.key] = value;
  } else {
    state.values[f.key] = value;
  }
  return true;
}

// "Ignored unknown settings in the link: a, b and 3 more."
function ignoredText(what, items) {
  const more = items.length > 5 ? ` and ${items.length - 5} more` : '';
  return `Ignored ${what}${items.length > 1 ? 's' : ''} in the link: ${items.slice(0, 5).join(', ')}${more}.`;
}

// The tab a plain (not embedded) link opens: its view= names calc, search,
// sweep or study, or a tab's label; any other name is reported and the
// calculator opens.
function readTabView(out) {
  const view = TAB_NAMES[out.view] ?? out.view;
  if (EXPLORE_VIEWS.includes(view)) out.state.view = view;
  else if (view !== null && view !== 'calc')
    out.issues.push(`Ignored the view "${short(view)}" in the link: the views are calc, ${EXPLORE_VIEWS.join(', ')}.`);
}

// Returns { state, issues: [text], embed: bool, view: string|null }.
export function decodeStateReport(schema, hash, defaults, { nested = false } = {}) {
  const state = structuredClone(defaults);
  const issues = [];
  const out = { state, issues, embed: false, view: null };
  const text = String(hash || '').replace(/^#/, '');
  const p = text ? linkParams(text, issues) : null;
  if (!p) return out;
  const byUrl = new Map(schema.fields.filter((f) => f.url).map((f) => [f.url, f]));
  const unknown = [];
  const bad = [];
  for (const [k, raw] of p) {
    if (typeof raw !== 'string') continue;
    if (PAGE_KEYS.has(k)) {
      readPageKey(k, raw, out, schema, defaults, nested);
      continue;
    }
    const f = byUrl.get(k);
    if (f && isRequestField(f)) {
      if (!nested && (raw.length > MAX_LEN * 2 || !decodeExploreValue(state, f, raw))) bad.push(`${k} = "${short(raw)}"`);
    } else if (!f) {
      unknown.push(short(k));
    } else if (raw.length > MAX_LEN) {
      bad.push(`${f.key} (longer than ${MAX_LEN} characters)`);
    } else if (!readFieldValue(state, f, raw.trim())) {
      bad.push(`${f.key} = "${short(raw.trim())}"`);
    }
  }
  if (!nested && !out.embed) readTabView(out);
  if (unknown.length) issues.push(ignoredText('unknown setting', unknown));
  if (bad.length) issues.push(ignoredText('invalid value', bad));
  return out;
}

// A link the page did not write (no v=) that sets nothing of the scenario
// or the pin, only a view, embedding or explore settings: "#view=search".
// It means "this view of the calculator", so the page shows it on the first
// screen's example rather than the bare schema defaults.
export function isBareViewLink(schema, hash) {
  const text = String(hash || '').replace(/^#/, '');
  if (!text || text.length > MAX_HASH) return false;
  let p;
  try {
    p = new URLSearchParams(text);
  } catch {
    return false;
  }
  if (p.has('v') || p.has('pin')) return false;
  const byUrl = new Map(schema.fields.filter((f) => f.url).map((f) => [f.url, f]));
  for (const k of p.keys()) {
    const f = byUrl.get(k);
    if (f && !isRequestField(f)) return false;
  }
  return true;
}

export function decodeState(schema, hash, defaults) {
  return decodeStateReport(schema, hash, defaults).state;
}
