// The input form, generated from the core's schema table: one row per
// scenario field, grouped by `group`, shown only in the modes the field
// applies to (request fields belong to the Search, Sweep and Studies views).
// The same table drives the URL codec and the scenario (state/).
import { el, clear } from '../dom.js';
import { baseline } from '../state/scenario.js';
import { fieldApplies, inDeviceWords, isRequestField, isSystemField, labelFor, systemWords, unitFor } from '../state/fields.js';

const GROUPS = [
  ['model', 'Model'],
  ['system', 'System'],
  ['parallelism', 'Parallelism'],
  ['training', 'Training'],
  ['inference', 'Inference'],
  ['cost', 'Cost and energy'],
  ['reliability', 'Interruptions and checkpoints'],
];

const CUSTOM = '\u0000custom';
const slug = (key) => key.replace(/[^a-zA-Z0-9]+/g, '-');

// Subheadings for the nested objects of a group (model.moe.*, model.mla.*, ...).
const SUBGROUPS = {
  'model.moe': 'Mixture of experts',
  'model.mla': 'Multi-head latent attention (MLA)',
  'model.sparse_attention': 'Sparse attention (DeepSeek Sparse Attention)',
  'model.attention': 'Attention pattern (local layers, sinks, output gate)',
  'model.linear_attention': 'Linear attention (Gated DeltaNet or Mamba-2 layers)',
};
const subgroupOf = (key) => {
  const parts = key.split('.');
  return parts.length > 2 ? parts.slice(0, -1).join('.') : '';
};

function shown(v) {
  if (v === null || v === undefined) return '';
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  return String(v);
}

// Field (or picker) that an error path belongs to: the field whose key equals
// the path, else the one with the longest key that prefixes it.
export function fieldForPath(keys, path) {
  if (!path) return null;
  if (keys.includes(path)) return path;
  let best = null;
  for (const k of keys) {
    if (path.startsWith(k + '.') && (!best || k.length > best.length)) best = k;
  }
  if (best) return best;
  const top = path.split('.')[0];
  return keys.includes(top) ? top : null;
}

export class SchemaForm {
  constructor(root, schema, presets, onChange) {
    this.root = root;
    this.schema = schema;
    this.presets = presets;
    this.onChange = onChange;
    this.rows = new Map(); // key -> {field, row, input, error}
    this.fieldsets = [];
    this.state = null;
    this.build();
  }

  build() {
    clear(this.root);
    const fields = this.schema.fields.filter((f) => !isRequestField(f));
    const byKey = new Map(fields.map((f) => [f.key, f]));

    const modeField = byKey.get('mode');
    if (modeField) this.root.append(this.buildMode(modeField));

    const presetSet = el('fieldset', { class: 'group presets' }, [el('legend', { text: 'Presets' })]);
    for (const f of fields.filter((x) => x.type === 'preset')) presetSet.append(this.buildPreset(f));
    this.root.append(presetSet);

    for (const [group, title] of GROUPS) {
      const members = fields.filter((f) => f.group === group && f.type !== 'preset' && f.key !== 'mode');
      if (!members.length) continue;
      const summary = el('summary', { text: title });
      const body = el('div', { class: 'fields' });
      let sub = '';
      // the group's own fields first, then each nested object under its heading
      const ordered = [...members.filter((f) => !subgroupOf(f.key)), ...members.filter((f) => subgroupOf(f.key))];
      for (const f of ordered) {
        const next = subgroupOf(f.key);
        if (next && next !== sub && SUBGROUPS[next]) body.append(el('p', { class: 'subgroup', 'data-subgroup': next, text: SUBGROUPS[next] }));
        sub = next;
        body.append(this.buildField(f));
      }
      const more = this.buildMoreToggle(body, members);
      const set = el('details', { class: `group group-${group}`, open: group !== 'model' && group !== 'system' }, [summary, body, more]);
      this.fieldsets.push({ set, members, summary, title, group, body, more });
      this.root.append(set);
    }
    // Fields whose group is not one of ours still get a place.
    const known = new Set(GROUPS.map((g) => g[0]));
    const rest = fields.filter((f) => !known.has(f.group) && f.type !== 'preset' && f.key !== 'mode');
    if (rest.length) {
      const summary = el('summary', { text: 'Other' });
      const body = el('div', { class: 'fields' });
      for (const f of rest) body.append(this.buildField(f));
      const set = el('details', { class: 'group', open: true }, [summary, body]);
      this.fieldsets.push({ set, members: rest, summary, title: 'Other', group: 'other' });
      this.root.append(set);
    }
  }

  // The group's advanced fields (schema `advanced`) stay folded until one is
  // set or the reader asks for them, so the form opens with what describes
  // the run; a set or invalid one always shows (style.css).
  buildMoreToggle(body, members) {
    if (!members.some((f) => f.advanced)) return null;
    const button = el('button', { type: 'button', class: 'more-settings', 'aria-expanded': 'false' });
    button.addEventListener('click', () => {
      body.classList.toggle('show-advanced');
      this.labelMoreToggle(button, body);
    });
    return button;
  }

  labelMoreToggle(button, body) {
    const open = body.classList.contains('show-advanced');
    const folded = body.querySelectorAll(':scope > .field.advanced:not(.overridden):not(.invalid):not([hidden])').length;
    button.setAttribute('aria-expanded', String(open));
    button.textContent = open ? 'Fewer settings' : `More settings (${folded})`;
    button.hidden = !open && folded === 0;
  }

  buildMode(field) {
    const set = el('fieldset', { class: 'mode-switch', 'data-key': 'mode' }, [el('legend', { text: 'Mode' })]);
    const radios = [];
    for (const value of field.values || []) {
      const id = `f-mode-${slug(value)}`;
      const input = el('input', { type: 'radio', name: 'mode', id, value });
      input.addEventListener('change', () => input.checked && this.onChange('mode', value));
      radios.push(input);
      set.append(el('span', { class: 'radio' }, [input, el('label', { for: id, text: value })]));
    }
    const error = el('p', { class: 'error', id: 'e-mode', hidden: true, 'aria-live': 'polite' });
    set.append(error);
    this.rows.set('mode', { field, row: set, radios, error });
    return set;
  }

  buildPreset(field) {
    const kind = field.kind || (field.values && field.values[0]) || (field.key === 'model' ? 'models' : 'systems');
    const id = `f-${slug(field.key)}`;
    const list = this.presets?.[kind] || {};
    const select = el('select', { id, 'aria-describedby': `h-${slug(field.key)} e-${slug(field.key)}` });
    select.addEventListener('change', () => {
      if (select.value !== CUSTOM) this.onChange(field.key, select.value);
    });
    const search = this.buildPresetSearch(field, id);
    const help = el('p', { class: 'help', id: `h-${slug(field.key)}`, text: field.help || '' });
    const error = el('p', { class: 'error', id: `e-${slug(field.key)}`, hidden: true, 'aria-live': 'polite' });
    let reset = null;
    let badge = null;
    if (field.key === 'model') {
      reset = el('button', { type: 'button', class: 'reset-model', hidden: true, text: 'Reset model', onclick: () => this.onChange('model', this.state?.model ?? '') });
      badge = el('p', { class: 'custom-badge', id: 'model-custom', hidden: true, 'aria-live': 'polite' });
      select.setAttribute('aria-describedby', `h-model e-model model-custom`);
    }
    const row = el('div', { class: 'field preset', 'data-key': field.key }, [
      search.label,
      search.input,
      search.count,
      el('label', { for: id, text: field.key }),
      select,
      badge,
      reset,
      help,
      error,
    ]);
    const r = { field, row, input: select, help, error, kind, reset, badge, ids: Object.keys(list).sort(), search: search.input, count: search.count };
    this.rows.set(field.key, r);
    search.input.addEventListener('input', () => this.fillPresets(r, this.state));
    this.fillPresets(r, null);
    return row;
  }

  // The search box above a preset picker: typing narrows the picker's options
  // (id, alias or description, case-insensitive); the count is announced politely.
  buildPresetSearch(field, selectId) {
    const sid = `${selectId}-search`;
    const label = el('label', { for: sid, class: 'preset-search-label', text: 'search' });
    const input = el('input', {
      type: 'search',
      id: sid,
      class: 'preset-search',
      placeholder: `filter ${field.key} presets`,
      autocomplete: 'off',
      spellcheck: 'false',
      'aria-controls': selectId,
      'aria-describedby': `${sid}-count`,
    });
    const count = el('p', { class: 'preset-count', id: `${sid}-count`, 'aria-live': 'polite' });
    return { label, input, count };
  }

  // Preset ids matching the search box (all of them when it is empty): by id,
  // alias ("gaudi3") or description.
  matchingPresets(r) {
    const q = r.search.value.trim().toLowerCase();
    if (!q) return r.ids;
    const list = this.presets?.[r.kind] || {};
    const names = (pid) => [pid, ...(list[pid]?.aliases || []), String(list[pid]?.description || '')];
    return r.ids.filter((pid) => names(pid).some((n) => n.toLowerCase().includes(q)));
  }

  // Rebuilds a picker's options: the matching presets, plus the current
  // choice even when it does not match (the picker must still show the state),
  // an unknown id from a link, and the custom entries of the model picker.
  fillPresets(r, state) {
    const value = state ? state[r.field.key] ?? '' : '';
    const custom = Boolean(state && r.field.key === 'model' && value && Object.keys(state.values).some((k) => k.startsWith('model.')));
    const matches = this.matchingPresets(r);
    const shown = matches.includes(value) || !value || !r.ids.includes(value) ? matches : [value, ...matches];
    clear(r.input);
    for (const pid of shown) r.input.append(el('option', { value: pid, text: pid }));
    if (value && !r.ids.includes(value)) r.input.append(el('option', { value, text: `${value} (unknown)` }));
    if (r.field.key === 'model') r.input.append(el('option', { value: '', text: 'custom (no preset)' }));
    if (custom) r.input.append(el('option', { value: CUSTOM, text: `custom (based on ${value})` }));
    r.input.value = custom ? CUSTOM : value;
    r.count.textContent = r.search.value.trim() ? `${matches.length} of ${r.ids.length} presets match` : '';
    r.count.hidden = !r.count.textContent;
    return custom;
  }

  buildField(field) {
    const s = slug(field.key);
    const id = `f-${s}`;
    const describedBy = `h-${s} e-${s}`;
    let input;
    if (field.type === 'bool') {
      input = el('input', { type: 'checkbox', id, 'aria-describedby': describedBy });
      input.addEventListener('change', () => this.onChange(field.key, input.checked));
    } else if (field.type === 'enum') {
      input = el('select', { id, 'aria-describedby': describedBy });
      for (const v of field.values || []) input.append(el('option', { value: v, text: v }));
      input.addEventListener('change', () => this.onChange(field.key, input.value));
    } else {
      const numeric = field.type === 'int' || field.type === 'number';
      input = el('input', {
        type: 'text',
        id,
        inputmode: field.type === 'int' ? 'numeric' : numeric ? 'decimal' : 'text',
        autocomplete: 'off',
        spellcheck: 'false',
        'aria-describedby': describedBy,
      });
      input.addEventListener('input', () => this.onChange(field.key, input.value));
    }
    if (field.type === 'int' || field.type === 'number') input.setAttribute('title', `${field.min} to ${field.max}`);
    const help = el('p', { class: 'help', id: `h-${s}`, text: field.help || '' });
    const error = el('p', { class: 'error', id: `e-${s}`, hidden: true, 'aria-live': 'polite' });
    const label = el('label', { for: id });
    this.nameRow(label, help, field);
    const row = el('div', { class: `field type-${field.type}${field.advanced ? ' advanced' : ''}`, 'data-key': field.key }, [label, input, help, error]);
    this.rows.set(field.key, { field, row, input, help, error, label });
    return row;
  }

  // The row's label, unit and help, in `shown`'s words (a field as
  // inDeviceWords gives it).
  nameRow(label, help, shown) {
    const unit = unitFor(shown);
    label.replaceChildren(labelFor(shown), ...(unit ? [el('span', { class: 'unit', text: ` (${unit})` })] : []));
    help.textContent = shown.help || '';
  }

  // Brings every control in line with the state (values, placeholders, visibility).
  render(state) {
    this.state = state;
    // The system's words for a device and its memory, which texts marked
    // device_words use ("chip" on a TPU, "GDDR6" on an L4).
    const { unit, memory } = systemWords(this.presets, state.system);
    for (const [key, r] of this.rows) {
      const f = r.field;
      if (f.device_words && r.label && r.words !== `${unit}/${memory}`) {
        this.nameRow(r.label, r.help, inDeviceWords(f, unit, memory));
        r.words = `${unit}/${memory}`;
      }
      if (key === 'mode') {
        for (const radio of r.radios) radio.checked = radio.value === state.mode;
        continue;
      }
      if (f.type === 'preset') {
        const value = state[key] ?? '';
        const custom = this.fillPresets(r, state);
        if (r.reset) {
          r.reset.hidden = !custom;
          r.reset.textContent = `Reset to ${value}`;
          r.badge.hidden = !custom;
          r.badge.textContent = custom ? `Custom model based on ${value}: ${Object.keys(state.values).filter((k) => k.startsWith('model.')).length} field(s) changed.` : '';
        }
        r.row.classList.toggle('custom', Boolean(custom));
        const desc = this.presets?.[r.kind]?.[value]?.description;
        r.help.textContent = desc || f.help || '';
        continue;
      }
      const visible = fieldApplies(f, state.mode);
      r.row.hidden = !visible;
      const base = baseline(f, state, this.presets);
      const set = key in state.values;
      const value = set ? state.values[key] : base;
      r.row.classList.toggle('overridden', set);
      if (f.type === 'bool') r.input.checked = Boolean(value);
      else if (f.type === 'enum') r.input.value = value ?? (f.values || [])[0] ?? '';
      else {
        const text = set ? String(value) : '';
        if (r.input.value !== text && document.activeElement !== r.input) r.input.value = text;
        // A system figure the preset lacks (fp8 on A100, a host side) is none, not automatic.
        const unset = isSystemField(f) ? 'none' : 'auto';
        r.input.placeholder = base === null || base === undefined ? unset : shown(base);
      }
    }
    for (const { set, members, summary, title, group, body, more } of this.fieldsets) {
      set.hidden = !members.some((f) => fieldApplies(f, state.mode));
      if (more) this.labelMoreToggle(more, body);
      const changed = members.filter((f) => f.key in state.values && fieldApplies(f, state.mode)).length;
      let text = title;
      if (group === 'model') text += !state.model ? ' (custom)' : changed ? ` (custom, based on ${state.model})` : ` (preset ${state.model})`;
      if (group === 'system') text += ` (${state.system})`;
      if (changed) text += ` · ${changed} set`;  // fields away from their defaults (by a link, the first-screen example or the reader)
      summary.textContent = text;
      if (group === 'model' && !state.model) set.open = true;
    }
  }

  clearErrors() {
    for (const r of this.rows.values()) {
      r.error.hidden = true;
      r.error.textContent = '';
      (r.input || r.row).removeAttribute?.('aria-invalid');
      r.row.classList.remove('invalid');
    }
  }

  // errors: [{path, message}]. Returns the ones that found no visible field.
  showErrors(errors) {
    this.clearErrors();
    const keys = [...this.rows.keys()];
    const unplaced = [];
    for (const e of errors) {
      const key = fieldForPath(keys, e.path);
      const r = key && this.rows.get(key);
      if (!r || r.row.hidden) {
        unplaced.push(e);
        continue;
      }
      const prefix = e.path && e.path !== key ? `${e.path}: ` : '';
      r.error.textContent = (r.error.textContent ? r.error.textContent + ' ' : '') + prefix + e.message;
      r.error.hidden = false;
      r.row.classList.add('invalid');
      const details = r.row.closest('details');
      if (details) details.open = true;
      if (r.input) r.input.setAttribute('aria-invalid', 'true');
    }
    return unplaced;
  }
}
