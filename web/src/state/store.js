// The one store of the page: the state (mode, presets, values, pin, explore
// view and its settings), the schema and presets it is read against, and the
// last good evaluation. Every change goes through commit(kind): the page
// subscribes once and decides there what follows each kind of change
// (redraw, write the hash, evaluate; app.js).
//
// URL defaults are the core schema's defaults, so a link means what it
// always meant; a first visit (no hash), or a hand-written link that names
// only a view, starts from the schema's example of the mode instead, a plan
// people run that fits.
import { decodeStateReport, encodeState, isBareViewLink } from './url-state.js';
import { baseline, buildScenario, presetId, stateOfScenario } from './scenario.js';
import { fieldApplies, isNumeric } from './fields.js';

export class Store {
  constructor(schema, presets) {
    this.schema = schema;
    this.presets = presets;
    this.byKey = new Map(schema.fields.map((f) => [f.key, f]));
    const def = (key) => this.byKey.get(key)?.default ?? null;
    const pick = (key, kind) => {
      const d = def(key);
      return d && presets[kind]?.[d] ? d : Object.keys(presets[kind] || {}).sort()[0] || d || '';
    };
    this.defaults = { mode: def('mode') || 'training', model: pick('model', 'models'), system: pick('system', 'systems'), values: {} };
    // The URL codec's idea of "default" is what the page falls back to.
    for (const f of schema.fields) if (f.type === 'preset') f.default = this.defaults[f.key];
    this.state = structuredClone(this.defaults);
    this.current = null; // {state, scenario, result} of the last good evaluation
    this.listeners = new Set();
  }

  field(key) {
    return this.byKey.get(key);
  }

  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  // kind: typing | edit | replace | url | settings | view (see app.js).
  commit(kind, detail = {}) {
    for (const fn of this.listeners) fn({ kind, ...detail });
  }

  scenario(state = this.state) {
    return buildScenario(this.schema, state, this.presets);
  }

  hash(opts) {
    return encodeState(this.schema, this.state, opts);
  }

  decode(hash, opts) {
    return this.canonical(decodeStateReport(this.schema, hash, this.defaults, opts));
  }

  // A link naming a preset by an alias ("s=h100") opens on the preset's id,
  // so the form shows it, its figures fill the placeholders, and the link the
  // page writes back names the id.
  canonical(report) {
    report.state.model = presetId(this.presets, 'models', report.state.model);
    report.state.system = presetId(this.presets, 'systems', report.state.system);
    return report;
  }

  // The first screen of a mode: the schema's example, else the defaults.
  example(mode = this.defaults.mode) {
    const ex = this.schema.examples?.[mode];
    const ok = ex && this.presets.models?.[ex.model] && this.presets.systems?.[ex.system];
    return ok ? stateOfScenario(this.schema, ex, this.presets) : { ...structuredClone(this.defaults), mode };
  }

  // Replaces the state from a link (or the first screen for an empty one;
  // a hand-written link to a view, "#view=search", opens that view on it).
  // Returns the decode report {state, issues, embed, view}.
  load(hash) {
    const text = String(hash || '').replace(/^#/, '');
    let report;
    if (!text) report = { state: this.example(), issues: [], embed: false, view: null };
    else if (isBareViewLink(this.schema, text)) report = this.canonical(decodeStateReport(this.schema, text, this.example()));
    else report = this.decode(text);
    this.state = report.state;
    return report;
  }

  // One form control changed: key is mode, model, system or a field key.
  edit(key, value) {
    const f = this.field(key);
    const state = this.state;
    const typing = Boolean(f && (isNumeric(f) || f.type === 'string'));
    if (key === 'mode') state.mode = value;
    else if (key === 'model') {
      state.model = value;
      for (const k of Object.keys(state.values)) if (k.startsWith('model.')) delete state.values[k];
    } else if (f?.type === 'preset') state[key] = value;
    else if (!f) return;
    else if (typing) {
      if (String(value).trim() === '') delete state.values[key];
      else state.values[key] = value;
    } else this.setValue(f, value);
    this.commit(typing ? 'typing' : 'edit', { key });
  }

  // Sets a field to a value, or forgets it when it is the baseline.
  setValue(f, value) {
    if (String(value) === String(baseline(f, this.state, this.presets))) delete this.state.values[f.key];
    else this.state.values[f.key] = value;
  }

  // A setting of the Search, Sweep or Studies view (a request field).
  setX(key, value, push = false) {
    const state = this.state;
    state.x = state.x || {};
    if (value === '' || value === undefined || value === null) delete state.x[key];
    else state.x[key] = String(value);
    if (!Object.keys(state.x).length) delete state.x;
    this.commit('settings', { push });
  }

  x(key) {
    return this.state.x?.[key];
  }

  // `settings`: view settings set with it, in the same history entry.
  setView(view, settings = {}) {
    if (!view || view === 'calc') delete this.state.view;
    else this.state.view = view;
    if (Object.keys(settings).length) this.state.x = { ...(this.state.x || {}), ...Object.fromEntries(Object.entries(settings).map(([k, v]) => [k, String(v)])) };
    this.commit('view');
  }

  replace(state, detail = {}) {
    this.state = state;
    this.commit('replace', detail);
  }

  // Back to the first screen of the current mode.
  reset() {
    this.replace(this.example(this.state.mode));
  }

  // A plan found by the search: its parallelism and its micro-batch and
  // recompute (training) or batch (inference), then back to the calculator.
  applyPlan(entry, detail = {}) {
    const state = this.state;
    const set = (key, v) => {
      const f = this.field(key);
      if (!f || !fieldApplies(f, state.mode) || v === undefined || v === null) return;
      this.setValue(f, f.type === 'bool' ? Boolean(v) : String(v));
    };
    // The search explores fully sharded plans, and names etp only where it is
    // not the default: a hybrid-sharding or expert-tp setting left in place
    // would describe another plan than the one applied.
    delete state.values['parallelism.zero_shard'];
    delete state.values['parallelism.etp'];
    for (const [k, v] of Object.entries(entry.parallelism || {})) set(`parallelism.${k}`, v);
    if (state.mode === 'training') {
      set('training.micro_batch', entry.training?.micro_batch);
      set('training.recompute', entry.training?.recompute);
      set('training.offload', entry.training?.offload);
    } else {
      set('inference.batch', entry.inference?.batch);
      set('inference.prefill_tp', entry.inference?.prefill_tp);
      // A colocated plan the search ran with chunked prefill names both.
      set('inference.batching', entry.inference?.batching);
      set('inference.token_budget', entry.inference?.token_budget);
      // "Find a plan that fits" may store the weights narrower (views/search-view.js).
      set('inference.weight_precision', entry.inference?.weight_precision);
      set('inference.compute_precision', entry.inference?.compute_precision);
    }
    delete state.view;
    this.commit('replace', detail);
  }

  // model: the mapped Hugging Face model; values: its fields against `base`.
  importModel(base, values) {
    const state = this.state;
    state.model = base;
    for (const k of Object.keys(state.values)) if (k.startsWith('model.')) delete state.values[k];
    Object.assign(state.values, values);
    this.commit('replace');
  }

  setPin(on) {
    if (on) this.state.pin = this.hash({ pin: false });
    else delete this.state.pin;
    this.commit('replace', { pin: true });
  }

  // The pinned state becomes the current one (the pin stays).
  restorePin() {
    const pin = this.state.pin;
    const state = this.decode(pin).state;
    state.pin = pin;
    this.replace(state);
  }
}
