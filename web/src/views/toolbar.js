// The toolbar and the result tools: copy link, embed, import, reset, pin,
// the JSON / CSV / text exports and the scenario on every system or with every
// model (Studies).
import { $ } from '../dom.js';
import { embedDialog, importDialog } from '../form/dialogs.js';
import { closestPreset, modelValues } from '../form/custom-model.js';
import { download, opsToCsv, resultJson } from './export.js';

export function wireToolbar(app) {
  const { store } = app;
  $('#copy-link').addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(location.href);
      app.setStatus('Link copied.', 'ok');
    } catch {
      app.setStatus('Copy failed: select the address bar to copy the link.', 'error');
    }
  });
  $('#reset').addEventListener('click', () => store.reset());
  const embedDlg = embedDialog(() => store.hash());
  $('#embed').addEventListener('click', () => embedDlg.open());
  const modelKeys = store.schema.fields.filter((f) => f.key.startsWith('model.') && f.key !== 'model.name').map((f) => f.key.slice(6));
  const importDlg = importDialog((r) => {
    const base = closestPreset(r.model, store.presets.models, modelKeys) || '';
    store.importModel(base, modelValues(r.model, store.schema.fields, base ? store.presets.models[base].model : {}));
  });
  $('#import').addEventListener('click', () => importDlg.open());
  $('#pin').addEventListener('click', () => app.setPin(true));
  $('#export-json').addEventListener('click', () => {
    const c = store.current;
    if (c) download(`${app.fileBase()}.json`, new Blob([resultJson(c.scenario, c.result)], { type: 'application/json' }));
  });
  $('#export-csv').addEventListener('click', () => {
    const c = store.current;
    if (c) download(`${app.fileBase()}-ops.csv`, new Blob([opsToCsv(c.result)], { type: 'text/csv' }));
  });
  // The summary the CLI prints (run --text), evaluated again by the core.
  $('#export-text').addEventListener('click', async () => {
    const c = store.current;
    if (!c) return;
    try {
      const text = await app.engine.call('evaluate_text', JSON.stringify(c.scenario));
      download(`${app.fileBase()}.txt`, new Blob([text], { type: 'text/plain' }));
    } catch (err) {
      if (!err?.cancelled) app.setStatus(`Text summary failed: ${err.message || err}`, 'error');
    }
  });
  // The systems and models studies of this scenario (and the published runs), in the Studies view.
  const openStudy = (name) => () => {
    store.setX('study.name', name);
    store.setView('study');
    app.explorer?.views.study.run();
  };
  $('#every-system').addEventListener('click', openStudy('systems'));
  $('#every-model').addEventListener('click', openStudy('models'));
  // Buttons inside results that open a study (the accuracy note's published runs).
  document.addEventListener('click', (e) => {
    const b = e.target.closest?.('[data-open-study]');
    if (b) openStudy(b.dataset.openStudy)();
  });
  $('#notice-close').addEventListener('click', () => app.setNotice([]));
}
