// The frame every explore view shares (explorePanel) and its Run / Cancel row
// with a progress bar and status line (jobBar).
import { el } from '../dom.js';
import { download } from './export.js';

// The frame every explore view shares: a titled section with its controls
// (`parts`), the Run / Cancel row and an output box #ID-out. Cancel stops
// the view's job. The output remembers the scenario it ran on (ran) and is
// marked out of date while the scenario on the left differs (refresh). A
// JSON button beside Run saves the last run's request and the core's output
// ({request, output}: the request is the file llmcalc search or sweep takes,
// or a study's {name, params}; the output is the core's).
// Returns {root, bar, out, ran(scenario|null, saved {file, request, output}), refresh(scenario)}.
export function explorePanel({ id, label, title, note, runLabel, onRun, jobs, parts = [] }) {
  const save = el('button', { type: 'button', id: `${id}-json`, class: 'job-json', text: 'JSON', disabled: true, title: 'Download the request and the core’s output as JSON', 'aria-label': `Download this ${label.toLowerCase()} run as JSON (request and output)` });
  const bar = jobBar({
    id,
    runLabel,
    onRun,
    onStart: () => {
      save.disabled = true;  // until this run gives an output
    },
    onCancel: () => {
      if (jobs.cancel()) bar.finish('Cancelled.', 'cancelled');
    },
  });
  bar.node.insertBefore(save, bar.node.querySelector('.job-progress'));
  let saved = null;
  save.addEventListener('click', () => {
    if (saved) download(`${saved.file}.json`, new Blob([JSON.stringify({ request: saved.request, output: saved.output }, null, 2)], { type: 'application/json' }));
  });
  const out = el('div', { id: `${id}-out`, class: 'explore-out' });
  const staleNote = el('p', { id: `${id}-stale`, class: 'stale-note', hidden: true, text: 'Out of date: the scenario on the left has changed since this ran. Run it again to update.' });
  const root = el('section', { class: 'explore-view', 'data-explore': id, 'aria-label': label }, [
    el('h2', { text: title }),
    el('p', { class: 'chart-note', text: note }),
    ...parts,
    bar.node,
    staleNote,
    out,
  ]);
  let ranOn = null; // the scenario the output was computed from (JSON); null: it does not depend on one
  const mark = (stale) => {
    out.classList.toggle('stale', stale);
    staleNote.hidden = !stale;
  };
  return {
    root,
    bar,
    out,
    ran(scenario, output = null) {
      ranOn = scenario ? JSON.stringify(scenario) : null;
      mark(false);
      saved = output;
      save.disabled = !output;
    },
    refresh(scenario) {
      mark(ranOn !== null && JSON.stringify(scenario) !== ranOn);
    },
  };
}

// The Run / Cancel row of a view. Returns {node, start(text), progress(done,
// total, text), finish(text, kind)}; the row carries data-state = idle |
// running | done | error | cancelled for tests and styles.
// onStart: called as each run starts.
export function jobBar({ id, runLabel, onRun, onCancel, onStart = () => {} }) {
  const run = el('button', { type: 'button', id: `${id}-run`, class: 'job-run', text: runLabel, onclick: onRun });
  const cancel = el('button', { type: 'button', id: `${id}-cancel`, class: 'job-cancel', text: 'Cancel', disabled: true, onclick: onCancel });
  const bar = el('progress', { id: `${id}-progress`, class: 'job-progress', hidden: true, 'aria-label': 'Progress' });
  const status = el('span', { id: `${id}-status`, class: 'status', role: 'status', 'aria-live': 'polite' });
  const node = el('div', { class: 'job-bar', 'data-state': 'idle' }, [run, cancel, bar, status]);
  let t0 = 0;
  let ticker = null;
  const stopTicker = () => {
    clearInterval(ticker);
    ticker = null;
  };
  return {
    node,
    start(text) {
      onStart();
      t0 = performance.now();
      node.dataset.state = 'running';
      cancel.disabled = false;
      bar.hidden = false;
      bar.removeAttribute('value');
      status.className = 'status busy';
      status.textContent = text;
      stopTicker();
      ticker = setInterval(() => {
        if (!bar.hasAttribute('value')) status.textContent = `${text} ${((performance.now() - t0) / 1000).toFixed(1)} s`;
      }, 200);
    },
    progress(done, total, text) {
      bar.max = total;
      bar.value = done;
      status.textContent = text;
    },
    finish(text, kind = 'ok') {
      stopTicker();
      node.dataset.state = kind === 'ok' ? 'done' : kind;
      cancel.disabled = true;
      bar.hidden = true;
      status.className = `status ${kind === 'ok' ? 'ok' : kind === 'cancelled' ? '' : 'error'}`;
      status.textContent = text;
    },
    elapsedMs: () => performance.now() - t0,
  };
}
