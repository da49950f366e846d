// The page: boots the worker, builds the form from the schema, keeps the one
// state object in sync with the URL hash (replaceState while typing in one
// field, pushState for every discrete change, so Back/Forward step through
// settings), evaluates (debounced) on input, and wires the toolbar: copy
// link, embed, import, pin/compare and export. The Search, Sweep and Studies
// views (explorer.js) share the state and the URL.
import { $, el } from './dom.js';
import { Engine } from './engine.js';
import { SchemaForm } from './schema-form.js';
import { encodeState, decodeStateReport } from './url-state.js';
import { buildScenario, baseline, fieldApplies } from './scenario.js';
import { ResultsView } from './results.js';
import { withPageFields } from './page-fields.js';
import { compareView } from './compare.js';
import { startEmbed } from './embed.js';
import { embedDialog, importDialog } from './dialogs.js';
import { closestPreset, modelValues } from './hf-config.js';
import { download, exportChart, opsToCsv, resultJson } from './export.js';
import { Explorer } from './explorer.js';

const DEBOUNCE_MS = 150;

const ui = {
  form: $('#form'),
  status: $('#status'),
  notice: $('#notice'),
  noticeText: $('#notice-text'),
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
let typingKey = null;
let embedView = null;
let explorer = null;
let current = null; // {state, scenario, result} of the last good evaluation
const pinCache = new Map(); // pin hash -> Promise<{state, scenario, result}>

function setStatus(text, kind = '') {
  ui.status.textContent = text;
  ui.status.className = `status ${kind}`;
}

function setGeneralError(text) {
  ui.generalError.textContent = text || '';
  ui.generalError.hidden = !text;
}

function setNotice(issues) {
  ui.noticeText.textContent = issues.join(' ');
  ui.notice.hidden = !issues.length;
}

function markStale(stale) {
  ui.results.classList.toggle('stale', stale && hasResult);
  document.body.dataset.state = stale ? 'stale' : 'fresh';
}

function writeHash(push = false) {
  if (embedView) return;
  const hash = encodeState(schema, state);
  if (hash === lastHash) return;
  lastHash = hash;
  if (push) history.pushState(null, '', `#${hash}`);
  else history.replaceState(null, '', `#${hash}`);
}

function fieldByKey(key) {
  return schema.fields.find((f) => f.key === key);
}

function onChange(key, value) {
  const f = fieldByKey(key);
  const typing = f && (f.type === 'int' || f.type === 'number' || f.type === 'string');
  if (key === 'mode') state.mode = value;
  else if (key === 'model') {
    state.model = value;
    for (const k of Object.keys(state.values)) if (k.startsWith('model.')) delete state.values[k];
  } else if (f?.type === 'preset') state[key] = value;
  else {
    if (!f) return;
    if (typing) {
      if (String(value).trim() === '') delete state.values[key];
      else state.values[key] = value;
    } else if (value === baseline(f, state, presets)) delete state.values[key];
    else state.values[key] = value;
  }
  // One history entry per field typed into, one per discrete change.
  const push = !typing || typingKey !== key;
  typingKey = typing ? key : null;
  form.render(state);
  writeHash(push);
  if (explorer && state.view && !typing) explorer.show(state);
  schedule(DEBOUNCE_MS);
}

// Apply a plan found by the search: its parallelism and its micro-batch and
// recompute (training) or batch (inference), then back to the calculator.
function applyPlan(entry) {
  const set = (key, v) => {
    const f = fieldByKey(key);
    if (!f || !fieldApplies(f, state.mode) || v === undefined || v === null) return;
    const value = f.type === 'bool' ? Boolean(v) : String(v);
    if (String(value) === String(baseline(f, state, presets))) delete state.values[key];
    else state.values[key] = value;
  };
  for (const [k, v] of Object.entries(entry.parallelism || {})) set(`parallelism.${k}`, v);
  if (state.mode === 'training') {
    set('training.micro_batch', entry.training?.micro_batch);
    set('training.recompute', entry.training?.recompute);
  } else set('inference.batch', entry.inference?.batch);
  delete state.view;
  form.render(state);
  explorer.show(state);
  writeHash(true);
  schedule(0);
  setStatus('Applied the plan from the search.', 'ok');
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

function evaluatePinned(pin) {
  if (!pinCache.has(pin)) {
    const pstate = decodeStateReport(schema, pin, defaults).state;
    const { scenario, errors } = buildScenario(schema, pstate, presets);
    const job = errors.length
      ? Promise.reject(new Error(errors.map((e) => `${e.key}: ${e.message}`).join('; ')))
      : engine.call('evaluate', JSON.stringify(scenario)).then((text) => {
          const result = JSON.parse(text);
          if (result.error) throw new Error(`${result.error.path}: ${result.error.message}`);
          return { state: pstate, scenario, result };
        });
    job.catch(() => pinCache.delete(pin));
    pinCache.set(pin, job);
  }
  return pinCache.get(pin);
}

async function compareSection() {
  if (!state.pin) return null;
  try {
    const pinned = await evaluatePinned(state.pin);
    return compareView(schema, pinned, current, {
      onUnpin: () => setPin(false),
      onRestore: () => {
        const pin = state.pin;
        state = decodeStateReport(schema, pin, defaults).state;
        state.pin = pin;
        form.render(state);
        explorer?.show(state);
        writeHash(true);
        schedule(0);
      },
    });
  } catch (err) {
    if (err && err.cancelled) return null;
    return el('p', { class: 'compare-box error', 'data-view': 'compare', text: `The pinned result could not be computed: ${err.message || err}` });
  }
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
  current = { state: structuredClone(state), scenario, result: out };
  const compare = await compareSection();
  if (gen !== generation) return;
  form.clearErrors();
  setGeneralError('');
  try {
    view.render(out, scenario, { only: embedView, compare });
  } catch (err) {
    setGeneralError(`Could not draw the result: ${err.message || err}`);
  }
  // The first drawn result, for the load-time figure (tests/browser/quality).
  if (!hasResult) performance.mark('llmcalc:first-result');
  hasResult = true;
  markStale(false);
  $('#pin').textContent = state.pin ? 'Re-pin this result' : 'Pin this result';
  for (const id of ['#pin', '#export-json', '#export-csv']) $(id).disabled = false;
  setStatus(`Evaluated in ${(performance.now() - t0).toFixed(0)} ms.`, 'ok');
}

function setPin(on) {
  if (on) state.pin = encodeState(schema, state, { pin: false });
  else delete state.pin;
  writeHash(true);
  schedule(0);
  setStatus(on ? 'Pinned: change the inputs to compare.' : 'Unpinned.', 'ok');
}

function loadFromHash(hash) {
  const report = decodeStateReport(schema, hash, defaults);
  state = report.state;
  setNotice(report.issues);
  return report;
}

function onHashChange() {
  const hash = location.hash.replace(/^#/, '');
  if (hash === lastHash) return;
  loadFromHash(hash);
  lastHash = hash;
  typingKey = null;
  form.render(state);
  explorer?.show(state, { fromUrl: true });
  schedule(0);
}

function firstKey(obj) {
  return Object.keys(obj || {}).sort()[0] || '';
}

function fileBase() {
  const m = state.model || 'custom';
  return `llmcalc-${state.mode}-${m}`.replace(/[^a-zA-Z0-9._-]+/g, '_').slice(0, 80);
}

function wireToolbar() {
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
    explorer.show(state);
    writeHash(true);
    schedule(0);
  });
  const embedDlg = embedDialog(() => encodeState(schema, state));
  $('#embed').addEventListener('click', () => embedDlg.open());
  const modelKeys = schema.fields.filter((f) => f.key.startsWith('model.') && f.key !== 'model.name').map((f) => f.key.slice(6));
  const importDlg = importDialog((r) => {
    const base = closestPreset(r.model, presets.models, modelKeys) || '';
    state.model = base;
    for (const k of Object.keys(state.values)) if (k.startsWith('model.')) delete state.values[k];
    Object.assign(state.values, modelValues(r.model, schema.fields, base ? presets.models[base].model : {}));
    form.render(state);
    writeHash(true);
    schedule(0);
  });
  $('#import').addEventListener('click', () => importDlg.open());
  $('#pin').addEventListener('click', () => setPin(true));
  $('#export-json').addEventListener('click', () => {
    if (current) download(`${fileBase()}.json`, new Blob([resultJson(current.scenario, current.result)], { type: 'application/json' }));
  });
  $('#export-csv').addEventListener('click', () => {
    if (current) download(`${fileBase()}-ops.csv`, new Blob([opsToCsv(current.result)], { type: 'text/csv' }));
  });
  $('#notice-close').addEventListener('click', () => setNotice([]));
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
  schema = withPageFields(schema);
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

  const report = loadFromHash(location.hash);
  if (report.embed) {
    embedView = report.view || 'summary';
    startEmbed();
  }
  ui.form.addEventListener('submit', (e) => e.preventDefault());
  form = new SchemaForm(ui.form, schema, presets, onChange);
  view = new ResultsView(ui.results, { onExport: (node, name, format) => exportChart(node, `${fileBase()}-${name}`, format).catch((err) => setStatus(`Export failed: ${err.message}`, 'error')) });
  form.render(state);
  if (!embedView) {
    explorer = new Explorer({
      tabs: $('#view-tabs'),
      root: $('#explore'),
      output: $('#output'),
      schema,
      presets,
      state: () => state,
      scenario: () => buildScenario(schema, state, presets),
      writeHash,
      onApply: applyPlan,
    });
    explorer.show(state, { fromUrl: true });
  }
  writeHash();
  window.addEventListener('hashchange', onHashChange);
  window.addEventListener('popstate', onHashChange);
  // A new typing session starts when focus leaves the field.
  ui.form.addEventListener('focusout', () => {
    typingKey = null;
  });
  wireToolbar();
  schedule(0);
}

boot().catch((err) => {
  setStatus('The calculator failed to start.', 'error');
  setGeneralError(String((err && err.message) || err));
  ui.form.replaceChildren(el('p', { class: 'error', text: 'Could not load the calculator (WebAssembly in a Web Worker is required).' }));
});
