// Small form controls of the Search, Sweep and Studies views, and the check of
// what was typed into them. Their values live in the URL (explore-state.js).
import { el } from '../dom.js';
import { parseNumber } from '../state/fields.js';

export function numberInput({ id, label, unit = '', value, placeholder = '', onInput, help = '' }) {
  const input = el('input', { type: 'text', id, inputmode: 'decimal', autocomplete: 'off', spellcheck: 'false', value: value ?? '', placeholder });
  input.addEventListener('input', () => onInput(input.value.trim()));
  const note = help ? el('p', { class: 'help', id: `${id}-help`, text: help }) : null;
  if (note) input.setAttribute('aria-describedby', note.id);
  return el('div', { class: 'field', 'data-key': id }, [el('label', { for: id, text: label }), el('span', { class: 'with-unit' }, [input, unit ? el('span', { class: 'unit', text: ` ${unit}` }) : null]), note]);
}

// options: [[value, label]]
export function selectInput({ id, label, value, options, onChange }) {
  const select = el('select', { id }, options.map(([v, t]) => el('option', { value: v, text: t })));
  select.value = value;
  select.addEventListener('change', () => onChange(select.value));
  return el('div', { class: 'field', 'data-key': id }, [el('label', { for: id, text: label }), select]);
}

// A group of checkboxes; onChange(checkedValues).
export function checkList({ id, legend, options, checked, onChange }) {
  const boxes = options.map(([v, t]) => {
    const box = el('input', { type: 'checkbox', id: `${id}-${v.replace(/[^a-zA-Z0-9]+/g, '-')}`, value: v });
    box.checked = checked.includes(v);
    return [box, el('label', { class: 'check' }, [box, ` ${t}`])];
  });
  const fire = () => onChange(boxes.filter(([b]) => b.checked).map(([b]) => b.value));
  for (const [b] of boxes) b.addEventListener('change', fire);
  return el('fieldset', { class: 'check-list', id }, [el('legend', { text: legend }), ...boxes.map(([, l]) => l)]);
}

// The number in `text`, or `fallback` when empty; pushes a message to errors
// (and returns the fallback) when it is not a number in [min, max].
export function readNumber(text, fallback, { int = false, min = -Infinity, max = Infinity, name }, errors) {
  if (text === undefined || text === null || String(text).trim() === '') return fallback;
  const n = parseNumber(text);
  if (!Number.isFinite(n) || (int && !Number.isInteger(n)) || n < min || n > max) {
    errors.push(`${name}: expected ${int ? 'a whole number' : 'a number'} from ${min} to ${max}`);
    return fallback;
  }
  return n;
}
