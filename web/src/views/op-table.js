// The per-op table: one row per modelled operation, sortable by any column
// (header buttons, so it works from the keyboard; aria-sort tells the state).
import { el, clear } from '../dom.js';
import * as fmt from '../format.js';

const MAX_ROWS = 2000;

// A collective's time is the network's: the model charges it no arithmetic
// and no memory traffic, so its FLOP and bytes cells say "–", not "0".
const isComm = (r) => r.op.kind === 'comm';
const COMM_TITLE = 'a collective: its time is the network’s; it is charged no FLOP and no memory traffic';

export class OpTable {
  constructor() {
    this.sortKey = null; // null: execution order
    this.sortDir = 1;
    this.rows = [];
    this.label = (name) => name;
    this.table = el('table', { class: 'ops' });
    this.caption = el('caption', { text: 'Operations' });
    this.thead = el('thead');
    this.tbody = el('tbody');
    this.table.append(this.caption, this.thead, this.tbody);
    this.box = el('div', { class: 'table-scroll', tabindex: '0', role: 'region', 'aria-label': 'Operations table' }, [this.table]);
  }

  columns(level) {
    return [
      { key: 'index', label: '#', get: (r) => r.index, show: (v) => String(v + 1), num: true },
      { key: 'name', label: 'op', get: (r) => r.op.name ?? '' },
      { key: 'phase', label: 'phase', get: (r) => r.op.phase ?? '' },
      { key: 'kind', label: 'kind', get: (r) => r.op.kind ?? '' },
      { key: 'count', label: 'count', get: (r) => r.op.count, show: fmt.int, num: true },
      { key: 'flops', label: 'FLOP', get: (r) => (isComm(r) ? NaN : r.op.flops), show: fmt.num, num: true, commTitle: true },
      { key: 'bytes', label: `bytes (${(level && this.label(level)) || 'memory'})`, get: (r) => (isComm(r) ? NaN : fmt.opBytes(r.op, level)), show: fmt.bytes, num: true, commTitle: true },
      { key: 'time', label: 'time each', get: (r) => r.op.time_s, show: fmt.seconds, num: true },
      { key: 'total', label: 'time × count', get: (r) => r.op.time_s * (Number.isFinite(r.op.count) ? r.op.count : 1), show: fmt.seconds, num: true },
      { key: 'share', label: 'share', get: (r) => (this.totalTime > 0 ? (r.op.time_s * (Number.isFinite(r.op.count) ? r.op.count : 1)) / this.totalTime : NaN), show: fmt.percent, num: true },
      { key: 'bound', label: 'bound', get: (r) => (r.op.bound == null ? '' : this.label(r.op.bound)) },
    ];
  }

  update(result) {
    const roofs = result.device?.roofs;
    this.level = Array.isArray(roofs) && roofs.length ? roofs[roofs.length - 1].name : null;
    this.label = (name) => fmt.levelLabel(result, name);
    this.rows = (result.ops || []).map((op, index) => ({ op, index }));
    this.totalTime = this.rows.reduce((a, r) => {
      const t = r.op.time_s * (Number.isFinite(r.op.count) ? r.op.count : 1);
      return Number.isFinite(t) ? a + t : a;
    }, 0);
    this.render();
    return this.box;
  }

  sortBy(key) {
    if (this.sortKey === key) this.sortDir = -this.sortDir;
    else {
      this.sortKey = key;
      this.sortDir = key === 'index' || key === 'name' || key === 'phase' || key === 'kind' || key === 'bound' ? 1 : -1;
    }
    this.render();
    const btn = this.thead.querySelector(`button[data-key="${key}"]`);
    if (btn) btn.focus();
  }

  render() {
    const cols = this.columns(this.level);
    clear(this.thead);
    const tr = el('tr');
    for (const c of cols) {
      const sorted = this.sortKey === c.key;
      const th = el('th', {
        scope: 'col',
        class: c.num ? 'num' : '',
        'aria-sort': sorted ? (this.sortDir > 0 ? 'ascending' : 'descending') : 'none',
      });
      th.append(el('button', { type: 'button', 'data-key': c.key, text: c.label + (sorted ? (this.sortDir > 0 ? ' ▲' : ' ▼') : ''), onclick: () => this.sortBy(c.key) }));
      tr.append(th);
    }
    this.thead.append(tr);

    const rows = [...this.rows];
    const col = cols.find((c) => c.key === this.sortKey);
    if (col) {
      rows.sort((a, b) => {
        const va = col.get(a);
        const vb = col.get(b);
        if (col.num) {
          const na = Number.isFinite(va) ? va : -Infinity;
          const nb = Number.isFinite(vb) ? vb : -Infinity;
          return (na - nb) * this.sortDir || a.index - b.index;
        }
        return String(va).localeCompare(String(vb)) * this.sortDir || a.index - b.index;
      });
    }
    clear(this.tbody);
    for (const r of rows.slice(0, MAX_ROWS)) {
      const row = el('tr');
      for (const c of cols) {
        const v = c.get(r);
        const title = c.commTitle && isComm(r) ? COMM_TITLE : undefined;
        row.append(el('td', { 'data-col': c.key, class: c.num ? 'num' : '', title, text: c.show ? c.show(v) : String(v) }));
      }
      this.tbody.append(row);
    }
    this.caption.textContent =
      rows.length > MAX_ROWS ? `Operations (first ${MAX_ROWS} of ${rows.length})` : `Operations (${rows.length}, in execution order unless sorted)`;
  }
}
