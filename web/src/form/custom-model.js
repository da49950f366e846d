// An imported model (web/src/form/hf-config.js) as page state: the preset it
// is closest to, and the model fields that differ from that preset.

const getPath = (o, path) => path.split('.').reduce((a, k) => (a && typeof a === 'object' ? a[k] : undefined), o);

// The preset whose model differs from `model` in the fewest architecture
// fields, among those of the same shape (dense with dense, MoE with MoE, MLA
// with MLA, sliding with sliding): the base of the custom model.
// What a preset cannot take back by overriding fields: the moe, mla,
// sparse_attention, attention and linear_attention objects and the kind of
// local attention.
const shape = (m) => [Boolean(m.moe), Boolean(m.mla), Boolean(m.sparse_attention), Boolean(m.attention?.window), Boolean(m.attention?.chunk), Boolean(m.linear_attention)].join();

export function closestPreset(model, presetModels, keys) {
  let best = '';
  let bestDiff = Infinity;
  for (const [id, p] of Object.entries(presetModels || {})) {
    const pm = p?.model || {};
    if (shape(pm) !== shape(model)) continue;
    const diff = keys.filter((k) => getPath(model, k) !== undefined && getPath(model, k) !== getPath(pm, k)).length;
    if (diff < bestDiff) {
      best = id;
      bestDiff = diff;
    }
  }
  return best;
}

// The page's state changes for an imported model on top of preset `base`:
// {key: value} for every model field that differs (text for numbers).
export function modelValues(model, fields, baseModel) {
  const values = {};
  for (const f of fields) {
    if (!f.key.startsWith('model.')) continue;
    const sub = f.key.slice(6);
    let v = getPath(model, sub);
    const b = getPath(baseModel || {}, sub) ?? f.default;
    if (v === undefined && b !== undefined && b !== null && b !== f.default) {
      // a field the base preset sets and the imported model leaves out: its
      // default (a shared expert as wide as a routed one)
      if (sub === 'moe.shared_ffn_hidden') v = model.moe?.ffn_hidden;
      else if (f.default !== null && f.default !== undefined) v = f.default;
    }
    if (v === undefined) continue;
    if (v === b) continue;
    values[f.key] = typeof v === 'number' ? String(v) : v;
  }
  return values;
}
