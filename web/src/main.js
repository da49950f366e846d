// The page's wiring: start the worker, read the schema and presets from the
// core, make the store (state/store.js) and the page around it (app.js),
// load the state from the link (or the first screen), go.
import { $, el } from './dom.js';
import { Engine } from './client/engine.js';
import { Store } from './state/store.js';
import { App } from './app.js';
import { startEmbed } from './views/embed.js';
import { wireToolbar } from './views/toolbar.js';

const ui = {
  form: $('#form'),
  status: $('#status'),
  notice: $('#notice'),
  noticeText: $('#notice-text'),
  generalError: $('#general-error'),
  results: $('#results'),
  scenarioJson: $('#scenario-json'),
  version: $('#version'),
  tabs: $('#view-tabs'),
  explore: $('#explore'),
  output: $('#output'),
};

async function boot() {
  const engine = new Engine('worker.js');
  const [schemaText, presetsText, version] = await Promise.all([engine.call('schema'), engine.call('presets'), engine.call('version')]);
  const schema = JSON.parse(schemaText);
  let presets = JSON.parse(presetsText);
  if (!schema || !Array.isArray(schema.fields)) throw new Error(schema?.error?.message || 'the core returned no schema');
  if (presets?.error) presets = { models: {}, systems: {} };
  ui.version.textContent = `llmcalc ${version}`;

  const store = new Store(schema, presets);
  const report = store.load(location.hash);
  const embedView = report.embed ? report.view || 'summary' : null;
  if (embedView) startEmbed(embedView);
  const app = new App(store, engine, ui, { embedView });
  wireToolbar(app);
  app.start(report);
}

boot().catch((err) => {
  ui.status.textContent = 'The calculator failed to start.';
  ui.status.className = 'status error';
  ui.generalError.textContent = String((err && err.message) || err);
  ui.generalError.hidden = false;
  ui.form.replaceChildren(el('p', { class: 'error', text: 'Could not load the calculator (WebAssembly in a Web Worker is required).' }));
});
