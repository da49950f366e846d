// The two dialogs: "Embed" (the iframe snippet for a chosen view) and
// "Import config.json" (paste or pick a Hugging Face config). Native
// <dialog>: focus moves in, Escape closes, focus returns to the opener.
import { el } from '../dom.js';
import { EMBED_VIEWS, embedSnippet, embedUrl } from '../views/embed.js';
import { importHfConfig } from './hf-config.js';

function dialogShell(id, title, body) {
  const close = el('button', { type: 'button', class: 'dialog-close', text: 'Close' });
  const dlg = el('dialog', { id, class: 'dialog', 'aria-labelledby': `${id}-title` }, [
    el('h2', { id: `${id}-title`, text: title }),
    ...body,
    el('div', { class: 'dialog-actions' }, [close]),
  ]);
  close.addEventListener('click', () => dlg.close());
  document.body.append(dlg);
  return dlg;
}

const VIEW_LABELS = {
  summary: 'Summary (headline numbers)',
  memory: 'Memory per GPU',
  time: 'Time breakdown / latency',
  whatif: 'What twice as fast buys',
  pipeline: 'Pipeline schedule (training)',
  phases: 'Prefill vs decode (inference)',
  kv: 'KV cache per layer type (inference)',
  roofline: 'Roofline',
  ops: 'Operations table',
  compare: 'Pinned vs current',
  systems: 'Every system (speed-up bars and table)',
  scaling: 'GPU count (share of linear scaling and table)',
  models: 'Every model (GPU-hours per million tokens and table)',
  'published-runs': 'Published runs (the model against every measurement)',
};

// getHash(): the page's current state hash (no '#').
export function embedDialog(getHash) {
  const view = el('select', { id: 'embed-view' }, EMBED_VIEWS.map((v) => el('option', { value: v, text: VIEW_LABELS[v] || v })));
  const height = el('input', { type: 'text', id: 'embed-height', inputmode: 'numeric', value: '420', autocomplete: 'off' });
  const code = el('textarea', { id: 'embed-code', readonly: true, rows: 8, spellcheck: 'false' });
  const preview = el('a', { id: 'embed-preview', target: '_blank', rel: 'noopener', text: 'Open the embedded view' });
  const copy = el('button', { type: 'button', id: 'embed-copy', text: 'Copy snippet' });
  const note = el('p', { class: 'dialog-note', role: 'status' });
  const update = () => {
    const base = location.href.split('#')[0];
    code.value = embedSnippet(base, getHash(), view.value, { height: Number(height.value) || 420 });
    preview.href = embedUrl(base, getHash(), view.value);
  };
  view.addEventListener('change', update);
  height.addEventListener('input', update);
  copy.addEventListener('click', async () => {
    code.select();
    try {
      await navigator.clipboard.writeText(code.value);
      note.textContent = 'Snippet copied.';
    } catch {
      note.textContent = 'Copy failed: the snippet is selected, press Ctrl+C.';
    }
  });
  const dlg = dialogShell('embed-dialog', 'Embed this result', [
    el('p', { class: 'dialog-note', text: 'Paste this into a web page: the frame shows one view of the current scenario and resizes itself to its content.' }),
    el('div', { class: 'field' }, [el('label', { for: 'embed-view', text: 'view' }), view]),
    el('div', { class: 'field' }, [el('label', { for: 'embed-height', text: 'initial height (px)' }), height]),
    el('label', { for: 'embed-code', class: 'block-label', text: 'HTML snippet' }),
    code,
    el('div', { class: 'dialog-row' }, [copy, preview]),
    note,
  ]);
  return { open: () => (update(), dlg.showModal()), dialog: dlg };
}

// onImport({model, family, unknown, ignored, warnings}) applies the model.
export function importDialog(onImport) {
  const text = el('textarea', { id: 'hf-text', rows: 10, spellcheck: 'false', placeholder: '{ "model_type": "llama", "hidden_size": 4096, … }' });
  const file = el('input', { type: 'file', id: 'hf-file', accept: '.json,application/json' });
  const go = el('button', { type: 'button', id: 'hf-import', text: 'Import' });
  const report = el('div', { id: 'hf-report', class: 'dialog-report', 'aria-live': 'polite' });
  const run = (input) => {
    report.replaceChildren();
    let r;
    try {
      r = importHfConfig(input);
    } catch (err) {
      report.append(el('p', { class: 'error', role: 'alert', text: `Could not import: ${err.message}` }));
      return;
    }
    onImport(r);
    const m = r.model;
    report.append(el('p', { class: 'ok', text: `Imported ${r.family}: ${m.layers} layers, hidden ${m.hidden}, ${m.heads} heads (${m.kv_heads} KV)${m.moe ? `, ${m.moe.experts} experts top-${m.moe.top_k}` : ''}.` }));
    if (r.warnings.length) report.append(el('ul', { class: 'warnings' }, r.warnings.map((w) => el('li', { text: w }))));
    report.append(el('p', { class: 'hf-unknown', text: r.unknown.length ? `Not understood (ignored): ${r.unknown.join(', ')}` : 'Every field was understood.' }));
    if (r.ignored.length) report.append(el('p', { class: 'dialog-note', text: `No effect on time or memory: ${r.ignored.join(', ')}` }));
  };
  go.addEventListener('click', () => run(text.value));
  file.addEventListener('change', async () => {
    const f = file.files && file.files[0];
    if (!f) return;
    if (f.size > 1 << 20) {
      report.replaceChildren(el('p', { class: 'error', role: 'alert', text: 'Could not import: the file is larger than 1 MiB' }));
      return;
    }
    text.value = await f.text();
    run(text.value);
  });
  const dlg = dialogShell('import-dialog', 'Import a Hugging Face config.json', [
    el('p', { class: 'dialog-note', text: 'Llama, Mistral, Mixtral, Qwen2 and Qwen3 (dense, MoE, Next), DeepSeek-V2/V3, Kimi K2, GLM-4.5, GPT-OSS, Llama 4, Gemma 3, Bamba, Nemotron-H and Nemotron 3, Granite 4.0-H, GPT-2, GPT-NeoX and Falcon configs are understood; others are read as Llama-style, with a warning. The model becomes a custom model based on the closest preset.' }),
    el('label', { for: 'hf-text', class: 'block-label', text: 'Paste config.json' }),
    text,
    el('div', { class: 'dialog-row' }, [el('label', { for: 'hf-file', text: 'or choose a file' }), file]),
    el('div', { class: 'dialog-row' }, [go]),
    report,
  ]);
  return { open: () => dlg.showModal(), dialog: dlg };
}
