// The view tabs (Calculator, Search, Sweep, Studies) and the three explore
// views. The view and its settings are part of the page state (state.view,
// state.x; state/explore-state.js puts them in the URL). A view opened from
// a link (page load, Back/Forward) runs by itself; otherwise Run does.
import { el } from '../dom.js';
import { JobRunner } from '../client/jobs.js';
import { LINK_GPUS, SearchView } from './search-view.js';
import { SweepView } from './sweep-view.js';
import { StudyView } from './study-view.js';

// The GPUs of the result shown, when it is the scenario on the left's (the
// form has not changed since): else null.
function ownGpus(store) {
  const c = store.current;
  if (!c || !Number.isFinite(c.result?.gpus)) return null;
  return JSON.stringify(c.scenario) === JSON.stringify(store.scenario().scenario) ? c.result.gpus : null;
}

const TABS = [
  ['calc', 'Calculator'],
  ['search', 'Search'],
  ['sweep', 'Sweep'],
  ['study', 'Studies'],
];

export class Explorer {
  // opts: {tabs, root, output (the section whose data-view is set), store, onApply(entry)}
  constructor(opts) {
    this.opts = opts;
    this.store = opts.store;
    this.jobs = new JobRunner();
    this.lastRun = '';
    const ctx = {
      store: opts.store,
      jobs: this.jobs,
      onApply: (entry) => {
        this.jobs.cancel();
        opts.onApply(entry);
      },
    };
    this.views = { search: new SearchView(ctx), sweep: new SweepView(ctx), study: new StudyView(ctx) };
    opts.root.replaceChildren(...Object.values(this.views).map((v) => v.root));
    this.buttons = TABS.map(([v, label]) =>
      el('button', { type: 'button', role: 'tab', class: 'view-tab', id: `tab-${v}`, 'data-tab': v, text: label, onclick: () => this.open(v) }),
    );
    opts.tabs.replaceChildren(...this.buttons);
  }

  // A tab pressed. The Search view opened on a scenario of more or fewer
  // GPUs than a link's default (LINK_GPUS) takes the scenario's count, so
  // that it searches the GPUs on the left; the count goes in the link (qg).
  // A link without it keeps its meaning (8 GPUs).
  open(view) {
    const { store } = this;
    const count = ownGpus(store);
    const own = view === 'search' && store.state.x?.['search.gpus'] === undefined && count && count !== LINK_GPUS;
    store.setView(view, own ? { 'search.gpus': count } : {});
  }

  // Marks each view's output out of date while the scenario differs from the one it ran on.
  refreshStale() {
    const { scenario } = this.store.scenario();
    for (const v of Object.values(this.views)) v.refresh(scenario);
  }

  // fromUrl: the state came from a link (load, Back/Forward): run the view.
  show(state, { fromUrl = false } = {}) {
    const current = state.view || 'calc';
    for (const b of this.buttons) {
      const on = b.dataset.tab === current;
      b.setAttribute('aria-selected', on ? 'true' : 'false');
      b.classList.toggle('active', on);
    }
    this.opts.output.dataset.view = current;
    this.opts.root.hidden = current === 'calc';
    for (const [name, v] of Object.entries(this.views)) {
      v.root.hidden = name !== current;
      if (name === current) v.render(state);
    }
    const view = this.views[current];
    if (!fromUrl || !view) return;
    const key = `${current}|${JSON.stringify(state.x || {})}|${JSON.stringify(this.store.scenario().scenario)}`;
    if (key === this.lastRun) return;
    this.lastRun = key;
    if (current !== 'study' || state.x?.['study.name']) view.run();
  }
}
