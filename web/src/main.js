// The page: boots the worker, builds the form from the schema, keeps the one
// state object in sync with the URL hash, and evaluates (debounced) on input.
import { $, el } from './dom.js';
import { Engine } from './engine.js';
import { SchemaForm } from './schema-form.js';
import { encodeState, decodeState } from './url-state.js';
import { buildScenario, baseline } from './scenario.js';
import { ResultsView } from './results.js';

const DEBOUNCE_MS = 150;

const ui = {
  form: $('#form'),
  status: $('#status'),
  generalError: $('#general-error'),
  results: $('#results'),
  scenarioJson: $('#scenario-json'),
  version: $('#version'),
};

let engine;
let schema;
let presets;
let defaults;
let state;
let form;
let view;
let timer = null;
let generation = 0;
let lastHash = '';
let hasResult = false;

function setStatus(text, kind = '') {
  ui.status.textContent = text;
  ui.status.className = `status ${kind}`;
}

function setGeneralError(text) {
  ui.generalError.textContent = text || '';
  ui.generalError.hidden = !text;
}

function markStale(stale) {
  ui.results.classList.toggle('stale', stale && hasResult);
  document.body.dataset.state = stale ? 'stale' : 'fresh';
}

function writeHash() {
  const hash = encodeState(schema, state);
  if (hash !== lastHash) {
    lastHash = hash;
    history.replaceState(null, '', `#${hash}`);
  }
}

function fieldByKey(key) {
  return schema.fields.find((f) => f.key === key);
}

function onChange(key, value) {
  if (key === 'mode') state.mode = value;
  else if (key === 'model') {
    state.model = value;
    for (const k of Object.keys(state.values)) if (k.startsWith('model.')) delete state.values[k];
  } else if (fieldByKey(key)?.type === 'preset') state[key] = value;
  else {
    const f = fieldByKey(key);
    if (!f) return;
    if (f.type === 'int' || f.type === 'number' || f.type === 'string') {
      if (String(value).trim() === '') delete state.values[key];
      else state.values[key] = value;
    } else if (value === baseline(f, state, presets)) delete state.values[key];
    else state.values[key] = value;
  }
  form.render(state);
  writeHash();
  schedule(DEBOUNCE_MS);
}

function schedule(ms) {
  clearTimeout(timer);
  timer = setTimeout(evaluate, ms);
}

function showErrors(errors) {
  const unplaced = form.showErrors(errors);
  setGeneralError(unplaced.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('\n'));
  markStale(true);
  setStatus(hasResult ? 'Input error: showing the last valid result (out of date).' : 'Input error.', 'error');
}

async function evaluate() {
  const gen = ++generation;
  const { scenario, errors } = buildScenario(schema, state, presets);
  const text = JSON.stringify(scenario);
  ui.scenarioJson.textContent = JSON.stringify(scenario, null, 2);
  if (errors.length) {
    showErrors(errors.map((e) => ({ path: e.key, message: e.message })));
    return;
  }
  setStatus('Calculating…', 'busy');
  const t0 = performance.now();
  let out;
  try {
    out = JSON.parse(await engine.evaluate(text));
  } catch (err) {
    if (err && err.cancelled) return;
    if (gen !== generation) return;
    form.clearErrors();
    setGeneralError(`Evaluation failed: ${err.message || err}`);
    markStale(true);
    setStatus('Evaluation failed.', 'error');
    return;
  }
  if (gen !== generation) return;
  if (out && out.error) {
    showErrors([{ path: String(out.error.path ?? ''), message: String(out.error.message ?? 'invalid input') }]);
    return;
  }
  form.clearErrors();
  setGeneralError('');
  try {
    view.render(out, scenario);
  } catch (err) {
    setGeneralError(`Could not draw the result: ${err.message || err}`);
  }
  hasResult = true;
  markStale(false);
  setStatus(`Evaluated in ${(performance.now() - t0).toFixed(0)} ms.`, 'ok');
}

function onHashChange() {
  const hash = location.hash.replace(/^#/, '');
  if (hash === lastHash) return;
  state = decodeState(schema, hash, defaults);
  lastHash = hash;
  form.render(state);
  schedule(0);
}

function firstKey(obj) {
  return Object.keys(obj || {}).sort()[0] || '';
}

async function boot() {
  engine = new Engine('worker.js');
  const [schemaText, presetsText, version] = await Promise.all([
    engine.call('schema'),
    engine.call('presets'),
    engine.call('version'),
  ]);
  schema = JSON.parse(schemaText);
  presets = JSON.parse(presetsText);
  if (!schema || !Array.isArray(schema.fields)) throw new Error(schema?.error?.message || 'the core returned no schema');
  if (presets?.error) presets = { models: {}, systems: {} };
  ui.version.textContent = `llmcalc ${version}`;

  const def = (key) => fieldByKey(key)?.default ?? null;
  const pick = (key, kind) => {
    const d = def(key);
    return d && presets[kind]?.[d] ? d : firstKey(presets[kind]) || d || '';
  };
  defaults = { mode: def('mode') || 'training', model: pick('model', 'models'), system: pick('system', 'systems'), values: {} };
  // Keep the URL codec's idea of "default" in line with what the page starts with.
  for (const f of schema.fields) if (f.type === 'preset') f.default = defaults[f.key];

  state = decodeState(schema, location.hash, defaults);
  ui.form.addEventListener('submit', (e) => e.preventDefault());
  form = new SchemaForm(ui.form, schema, presets, onChange);
  view = new ResultsView(ui.results);
  form.render(state);
  writeHash();
  window.addEventListener('hashchange', onHashChange);
  $('#copy-link').addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(location.href);
      setStatus('Link copied.', 'ok');
    } catch {
      setStatus('Copy failed: select the address bar to copy the link.', 'error');
    }
  });
  $('#reset').addEventListener('click', () => {
    state = structuredClone(defaults);
    form.render(state);
    writeHash();
    schedule(0);
  });
  schedule(0);
}

boot().catch((err) => {
  setStatus('The calculator failed to start.', 'error');
  setGeneralError(String((err && err.message) || err));
  ui.form.replaceChildren(el('p', { class: 'error', text: 'Could not load the calculator (WebAssembly in a Web Worker is required).' }));
});
