// The page around the store: the form, the results, the explore views and
// the toolbar, and the one place that decides what follows a change
// (changed(): redraw, write the hash, evaluate). Typing in a field replaces
// the current history entry; every discrete change pushes one, so
// Back/Forward step through settings. Evaluation is debounced and latest-wins.
import { EXPLORE_TIMEOUT_MS } from './client/engine.js';
import { $, el } from './dom.js';
import * as fmt from './format.js';
import { SchemaForm } from './form/schema-form.js';
import { baseline } from './state/scenario.js';
import { ResultsView } from './views/results.js';
import { compareView } from './views/compare.js';
import { Explorer } from './views/explorer.js';
import { closestText, narrowedText, nextGpuCount, planText } from './views/plan-words.js';
import { SCENARIO_STUDIES, scenarioStudyFigure } from './views/study-view.js';
import { exportChart } from './views/export.js';
import { EMBED_STUDIES, missingViewText } from './views/embed.js';

const DEBOUNCE_MS = 150;

// What follows each kind of change (Store.commit): redraw the form; show the
// explore view, or run it (a link opens a view that runs by itself); write
// the hash, pushing a history entry or replacing the current one; evaluate
// after so many ms.
const EFFECTS = {
  load: { form: true, explore: 'run', history: 'replace', evaluate: 0 },
  url: { form: true, explore: 'run', evaluate: 0 },
  typing: { form: true, history: 'typing', evaluate: DEBOUNCE_MS },
  edit: { form: true, explore: 'show', history: 'push', evaluate: DEBOUNCE_MS },
  replace: { form: true, explore: 'show', history: 'push', evaluate: 0 },
  settings: { history: 'settings' },
  view: { history: 'push', explore: 'show' },
};

export class App {
  // ui: the page's fixed elements; embedView: the one view shown in embed mode.
  constructor(store, engine, ui, { embedView = null } = {}) {
    this.store = store;
    this.engine = engine;
    this.ui = ui;
    this.embedView = embedView;
    this.timer = null;
    this.generation = 0;
    this.lastHash = '';
    this.typingKey = null;
    this.hasResult = false;
    this.note = null; // a line about the last applied plan, shown with its result
    this.pinCache = new Map(); // pin hash -> Promise<{state, scenario, result}>
    this.form = new SchemaForm(ui.form, store.schema, store.presets, (key, value) => store.edit(key, value));
    this.results = new ResultsView(ui.results, {
      onExport: (node, name, format) => exportChart(node, `${this.fileBase()}-${name}`, format).catch((err) => this.setStatus(`Export failed: ${err.message}`, 'error')),
      onFit: embedView ? null : (box) => this.fitPlan(box),
    });
    this.explorer = embedView
      ? null
      : new Explorer({ tabs: ui.tabs, root: ui.explore, output: ui.output, store, onApply: (entry) => this.applyPlan(entry, 'Applied the plan from the search.') });
    // An embed shows one view and no tabs: an empty tablist is not left for screen readers.
    if (embedView) ui.tabs.remove();
    store.subscribe((change) => this.changed(change));
  }

  // The one place that decides what follows a change.
  changed({ kind, key, push, note }) {
    const fx = EFFECTS[kind];
    if (!fx) return;
    const state = this.store.state;
    if (kind !== 'settings' && kind !== 'view') this.note = note ?? null;
    if (fx.form) this.form.render(state);
    if (fx.history === 'typing') {
      this.writeHash(this.typingKey !== key);
      this.typingKey = key;
    } else {
      if (kind !== 'settings') this.typingKey = null;
      if (fx.history) this.writeHash(fx.history === 'push' || (fx.history === 'settings' && push));
    }
    if (fx.explore) this.explorer?.show(state, { fromUrl: fx.explore === 'run' });
    if (kind !== 'settings' && kind !== 'view') this.explorer?.refreshStale();
    if (fx.evaluate !== undefined) this.schedule(fx.evaluate);
  }

  start(report) {
    this.setNotice(report.issues);
    window.addEventListener('hashchange', () => this.onHashChange());
    window.addEventListener('popstate', () => this.onHashChange());
    // A new typing session starts when focus leaves the field.
    this.ui.form.addEventListener('focusout', () => {
      this.typingKey = null;
    });
    this.ui.form.addEventListener('submit', (e) => e.preventDefault());
    this.store.commit('load');
  }

  onHashChange() {
    const hash = location.hash.replace(/^#/, '');
    if (hash === this.lastHash) return;
    const report = this.store.load(hash);
    this.setNotice(report.issues);
    this.lastHash = hash;
    this.store.commit('url');
  }

  writeHash(push = false) {
    if (this.embedView) return;
    const hash = this.store.hash();
    if (hash === this.lastHash) return;
    this.lastHash = hash;
    if (push) history.pushState(null, '', `#${hash}`);
    else history.replaceState(null, '', `#${hash}`);
  }

  schedule(ms) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.evaluate(), ms);
  }

  setStatus(text, kind = '') {
    this.ui.status.textContent = text;
    this.ui.status.title = text; // the whole of a line cut short
    this.ui.status.className = `status ${kind}`;
  }

  setGeneralError(text) {
    this.ui.generalError.textContent = text || '';
    this.ui.generalError.hidden = !text;
  }

  setNotice(issues) {
    this.ui.noticeText.textContent = issues.join(' ');
    this.ui.notice.hidden = !issues.length;
  }

  markStale(stale) {
    this.ui.results.classList.toggle('stale', stale && this.hasResult);
    document.body.dataset.state = stale ? 'stale' : 'fresh';
  }

  showErrors(errors) {
    const unplaced = this.form.showErrors(errors);
    this.setGeneralError(unplaced.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('\n'));
    this.markStale(true);
    // Name the first problem where the eye starts: the field itself may be
    // far down the form.
    const [first] = errors;
    const what = first ? `${first.path ? `${first.path}: ` : ''}${String(first.message).replace(/\.$/, '')}` : 'invalid input';
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
    const stale = this.hasResult ? ' Showing the last valid result (out of date).' : '';
    this.setStatus(`Input error: ${what}${more}.${stale}`, 'error');
  }

  applyPlan(entry, status, note = null) {
    this.store.applyPlan(entry, { note });
    this.setStatus(status, 'ok');
  }

  // "Find a plan that fits on these N GPUs": the search of the Search view,
  // in its worker, then its best plan applied. When none fits, the button
  // offers the next size up: a whole node, then twice the GPUs, skipping the
  // counts too small to hold the leanest plan (nextGpuCount).
  // box: {gpus, button, status} (views/results.js).
  async fitPlan(box) {
    const search = this.explorer?.views.search;
    if (!search) return;
    const { gpus, button, status } = box;
    const unit = fmt.unitWord(box.unit);  // the system's word for a device: "GPU", a TPU's "chip"
    const label = button.textContent;
    const count = (n) => fmt.many(n, unit);
    button.disabled = true;
    button.textContent = `Searching plans on ${count(gpus)}…`;
    status.textContent = '';
    let next = label;
    try {
      const weightsBefore = this.store.state.values['inference.weight_precision'] ?? baseline(this.store.field('inference.weight_precision') || {}, this.store.state, this.store.presets);
      const { best, skipped, evaluated, closest: closestPlan, offloaded, offloadTried, hostShort, narrowed, narrowTried = [], released } = await search.fit(gpus);
      if (best) {
        const aside = skipped ? `; the ${skipped} faster plan${skipped === 1 ? '' : 's'} carr${skipped === 1 ? 'ies' : 'y'} warnings, listed in the Search view` : '';
        const tried = `the best of ${fmt.int(evaluated)} tried on ${count(gpus)}${aside}`;
        const what = offloaded === 'parameters' ? 'the weights and optimizer offloaded to host memory (ZeRO-Infinity)' : 'the optimizer offloaded to host memory (ZeRO-Offload)';
        const note = offloaded
          ? `No plan fits in ${unit} memory alone; with ${what}, ${tried}: ${planText(best)}. Back returns to the previous one.`
          : narrowed
            ? `No plan fits with ${weightsBefore} weights; with ${narrowedText(narrowed, best, released)}, ${tried}: ${planText(best)}.${narrowed === released ? '' : ' The model times the narrower kernels; it does not judge the output quality they keep.'} Back returns to the previous one.`
            : `Plan found by the search (${tried}): ${planText(best)}. Back returns to the previous one.`;
        this.applyPlan(best, 'Applied the best plan that fits.', note);
        return;
      }
      // A TPU's node is its whole ICI torus (256 to 9,216 chips), rented as
      // slices of it: there the count doubles instead of jumping to the node.
      const torus = this.store.presets.systems?.[this.store.state.system]?.system?.network?.[0]?.topology === 'torus';
      const node = torus ? NaN : Number(this.store.state.values['system.gpus_per_node'] ?? baseline(this.store.field('system.gpus_per_node') || {}, this.store.state, this.store.presets));
      const short = closestPlan?.misses?.includes('memory');
      const need = short ? closestPlan.memory_bytes_total : 0;
      const allowed = short ? closestPlan.capacity_bytes * (closestPlan.memory_share ?? 1) : 0;
      const up = nextGpuCount(gpus, node, need, allowed);
      box.gpus = up.gpus;
      next = `Find a plan that fits on ${count(box.gpus)}`;
      const closest = closestPlan ? ` ${closestText(closestPlan, unit)}` : '';
      const also =
        { optimizer: ', also with the optimizer offloaded to host memory', parameters: ', also with the optimizer and then the weights offloaded to host memory' }[offloadTried] ||
        (narrowTried.length ? `, also with ${narrowTried.join(' and then ')} weights` : '');
      const more = `More ${unit}s${up.atLeast > gpus + 1 ? ` (at least ${fmt.int(up.atLeast)} to hold that memory)` : ''}`;
      const host = hostShort ? ` ${fmt.int(hostShort)} of them fit in ${unit} memory but offload more than the host memory holds.` : '';
      status.textContent = `No plan fits on ${count(gpus)} (${fmt.many(evaluated, 'plan')} tried${also}).${host}${closest} ${more}, a smaller batch or a shorter sequence would help.`;
    } catch (err) {
      if (err && err.cancelled) return;
      status.textContent = `The search failed: ${err.message || err}`;
    } finally {
      button.disabled = false;
      button.textContent = next;
    }
  }

  evaluatePinned(pin) {
    const { store } = this;
    if (!this.pinCache.has(pin)) {
      const pstate = store.decode(pin).state;
      const { scenario, errors } = store.scenario(pstate);
      const job = errors.length
        ? Promise.reject(new Error(errors.map((e) => `${e.key}: ${e.message}`).join('; ')))
        : this.engine.call('evaluate', JSON.stringify(scenario)).then((text) => {
            const result = JSON.parse(text);
            if (result.error) throw new Error(`${result.error.path}: ${result.error.message}`);
            return { state: pstate, scenario, result };
          });
      job.catch(() => this.pinCache.delete(pin));
      this.pinCache.set(pin, job);
    }
    return this.pinCache.get(pin);
  }

  async compareSection() {
    const { store } = this;
    if (!store.state.pin) return null;
    try {
      const pinned = await this.evaluatePinned(store.state.pin);
      return compareView(store.schema, pinned, store.current, { onUnpin: () => this.setPin(false), onRestore: () => store.restorePin() });
    } catch (err) {
      if (err && err.cancelled) return null;
      return el('p', { class: 'compare-box error', 'data-view': 'compare', text: `The pinned result could not be computed: ${err.message || err}` });
    }
  }

  // An embedded study (systems, scaling, models of the scenario; the
  // published runs, which ignore it), run in the evaluation worker (an embed
  // has no explore views).
  async studySection(name, scenario) {
    try {
      // A study searches a plan per row: the explore views' limit, not an evaluation's.
      const limit = { timeoutMs: EXPLORE_TIMEOUT_MS };
      const text = SCENARIO_STUDIES.has(name) ? await this.engine.call('study_request', JSON.stringify({ name, params: scenario }), limit) : await this.engine.call('study', name, limit);
      const d = JSON.parse(text);
      if (d.error) throw new Error(d.error.message);
      return scenarioStudyFigure(name, d);
    } catch (err) {
      if (err && err.cancelled) return null;
      return el('p', { class: 'view-missing', 'data-view': name, text: `The ${name} study failed: ${err.message || err}` });
    }
  }

  setPin(on) {
    this.store.setPin(on);
    this.setStatus(on ? 'Pinned: change the inputs to compare.' : 'Unpinned.', 'ok');
  }

  async evaluate() {
    const { store, ui } = this;
    const gen = ++this.generation;
    const { scenario, errors } = store.scenario();
    const text = JSON.stringify(scenario);
    ui.scenarioJson.textContent = JSON.stringify(scenario, null, 2);
    if (errors.length) {
      this.showErrors(errors.map((e) => ({ path: e.key, message: e.message })));
      return;
    }
    this.setStatus('Calculating…', 'busy');
    const t0 = performance.now();
    let out;
    try {
      out = JSON.parse(await this.engine.evaluate(text));
    } catch (err) {
      if (err && err.cancelled) return;
      if (gen !== this.generation) return;
      this.form.clearErrors();
      this.setGeneralError(`Evaluation failed: ${err.message || err}`);
      this.markStale(true);
      this.setStatus('Evaluation failed.', 'error');
      return;
    }
    if (gen !== this.generation) return;
    if (out && out.error) {
      this.showErrors([{ path: String(out.error.path ?? ''), message: String(out.error.message ?? 'invalid input') }]);
      return;
    }
    store.current = { state: structuredClone(store.state), scenario, result: out };
    const compare = await this.compareSection();
    const study = EMBED_STUDIES.has(this.embedView) ? await this.studySection(this.embedView, scenario) : null;
    if (gen !== this.generation) return;
    this.form.clearErrors();
    this.setGeneralError('');
    try {
      this.results.render(out, scenario, { only: this.embedView, missing: missingViewText, compare, note: this.note, study });
    } catch (err) {
      this.setGeneralError(`Could not draw the result: ${err.message || err}`);
    }
    // The first drawn result, for the load-time figure (tests/browser/quality).
    if (!this.hasResult) performance.mark('llmcalc:first-result');
    this.hasResult = true;
    this.markStale(false);
    $('#pin').textContent = store.state.pin ? 'Re-pin this result' : 'Pin this result';
    for (const id of ['#pin', '#export-json', '#export-csv', '#export-text', '#every-system', '#every-model']) $(id).disabled = false;
    this.setStatus(`Evaluated in ${(performance.now() - t0).toFixed(0)} ms.`, 'ok');
  }

  fileBase() {
    const { state } = this.store;
    return `llmcalc-${state.mode}-${state.model || 'custom'}`.replace(/[^a-zA-Z0-9._-]+/g, '_').slice(0, 80);
  }
}
