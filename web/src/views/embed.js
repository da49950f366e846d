// Embed mode: #embed=1&view=<name> shows one view with no page chrome and
// tells the parent page its height, window.parent.postMessage({type:
// 'llmcalc:height', height}, '*'), whenever it changes. embedSnippet() writes
// the <iframe> code the "Embed" dialog offers.

import { el } from '../dom.js';
import { SCENARIO_STUDIES } from './study-view.js';

export const EMBED_VIEWS = ['summary', 'memory', 'time', 'whatif', 'pipeline', 'phases', 'kv', 'roofline', 'ops', 'compare', 'systems', 'scaling', 'models', 'published-runs'];

// The studies an embed can show (#embed=1&view=NAME).
export const EMBED_STUDIES = new Set([...SCENARIO_STUDIES, 'published-runs']);

// What the views that not every scenario has need (results.js draws them
// only then).
const VIEW_NEEDS = {
  pipeline: 'a training scenario',
  phases: 'an inference scenario',
  kv: 'an inference scenario',
  compare: 'a pinned result to compare with (pin= in the link, as “Pin this result” writes it)',
};

// What an embed shows in place of a view it cannot draw: a name that is no
// view (a typing slip in a hand-written link) lists the views there are, and
// a view this scenario has not says what it needs.
export function missingViewText(name) {
  if (!EMBED_VIEWS.includes(name)) return `No view is named “${name}”; an embed shows one of: ${EMBED_VIEWS.join(', ')}.`;
  const needs = VIEW_NEEDS[name];
  return `The “${name}” view is not available for this scenario${needs ? `: it needs ${needs}` : ''}.`;
}

const escapeAttr = (s) => String(s).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

// pageUrl: the page address without a hash; hash: the state (no leading #).
export function embedUrl(pageUrl, hash, view) {
  const p = new URLSearchParams(String(hash || '').replace(/^#/, ''));
  p.delete('embed');
  p.delete('view');
  p.set('embed', '1');
  p.set('view', EMBED_VIEWS.includes(view) ? view : 'summary');
  return `${String(pageUrl).split('#')[0]}#${p.toString()}`;
}

export function embedSnippet(pageUrl, hash, view, { height = 420, title = 'llmcalc' } = {}) {
  const src = embedUrl(pageUrl, hash, view);
  const id = `llmcalc-${view}`;
  const h = Number.isFinite(height) && height > 0 ? Math.round(height) : 420;
  return [
    `<iframe id="${escapeAttr(id)}" src="${escapeAttr(src)}" title="${escapeAttr(title)}" width="100%" height="${h}" style="border:0;width:100%" loading="lazy"></iframe>`,
    '<script>',
    "addEventListener('message', function (e) {",
    `  var f = document.getElementById(${JSON.stringify(id)});`,
    "  if (f && e.source === f.contentWindow && e.data && e.data.type === 'llmcalc:height') f.height = Math.ceil(e.data.height);",
    '});',
    '</script>',
  ].join('\n');
}

let lastPosted = -1;
export function postHeight() {
  if (window.parent === window) return;
  const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
  if (height === lastPosted) return;
  lastPosted = height;
  window.parent.postMessage({ type: 'llmcalc:height', height }, '*');
}

// The full page with an embed's scenario, for its "Open in llmcalc" link: a
// study embed opens the Studies view on that study, any other the calculator.
export function fullPageUrl(href, view) {
  const [base, hash = ''] = String(href).split('#');
  const p = new URLSearchParams(hash);
  p.delete('embed');
  p.delete('view');
  if (EMBED_STUDIES.has(view)) {
    p.set('view', 'study');
    p.set('study', view);
  }
  const rest = p.toString();
  return rest ? `${base}#${rest}` : base;
}

export function startEmbed(view) {
  document.documentElement.classList.add('embed');
  document.body.classList.add('embed');
  const link = el('a', { href: fullPageUrl(location.href, view), target: '_blank', rel: 'noopener', text: 'Open in llmcalc ↗' });
  (document.querySelector('main') || document.body).append(el('p', { class: 'embed-credit' }, [link]));  // inside a landmark
  new ResizeObserver(() => postHeight()).observe(document.body);
  postHeight();
}
