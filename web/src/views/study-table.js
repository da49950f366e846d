// The tables of the Studies view.
import { el } from '../dom.js';

// A cell's text, or – for a missing value.
export const str = (v) => (v === undefined || v === null ? '–' : String(v));

// columns: [[header, (row) => text, class]]; the first column is the row
// header, the others are figures (class "num", right-aligned) unless given
// another class ("text").
export function table(caption, rows, columns, key) {
  // A region that scrolls sideways takes keyboard focus, so it can be scrolled without a mouse.
  return el('div', { class: 'table-scroll study-table', 'data-table': key, tabindex: '0', role: 'region', 'aria-label': caption }, [
    el('table', { class: 'plans' }, [
      el('caption', { text: caption }),
      // a long header over a narrow column would wrap a word a line and make the header row tall
      el('thead', {}, [el('tr', {}, columns.map(([h]) => el('th', { scope: 'col', text: h, class: h.length > 16 ? 'long' : null })))]),
      el('tbody', {}, rows.map((r) => el('tr', {}, columns.map(([, get, cls = 'num'], i) => el(i ? 'td' : 'th', i ? { class: cls, text: get(r) } : { scope: 'row', text: get(r) }))))),
    ]),
  ]);
}
