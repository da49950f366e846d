// Hugging Face config.json -> llmcalc model section (spec: scenario.md, "Model
// object"). Pure functions, no DOM: importHfConfig(textOrObject) returns
//   { model, family, used: [keys], ignored: [keys], unknown: [keys], warnings: [text] }
// and throws an Error with a readable message when nothing usable is found.
// `unknown` lists the fields this mapping does not understand; `ignored` the
// ones it understands but that do not change time or memory (ids, dtypes, ...).

const MAX_TEXT = 1 << 20;

// Fields that carry no performance meaning here.
const IGNORED = new Set([
  '_name_or_path', 'architectures', 'model_type', 'transformers_version', 'torch_dtype',
  'bos_token_id', 'eos_token_id', 'pad_token_id', 'sep_token_id', 'decoder_start_token_id',
  'initializer_range', 'use_cache', 'rope_theta', 'rope_scaling', 'rotary_emb_base', 'rotary_pct',
  'attention_dropout', 'hidden_dropout', 'resid_pdrop', 'embd_pdrop', 'attn_pdrop', 'summary_type',
  'summary_use_proj', 'summary_activation', 'summary_proj_to_labels', 'summary_first_dropout',
  'task_specific_params', 'output_router_logits', 'router_aux_loss_coef', 'router_jitter_noise',
  'pretraining_tp', 'mlp_bias', 'attention_bias', 'sliding_window', 'use_sliding_window',
  'max_window_layers', 'scale_attn_weights', 'reorder_and_upcast_attn', 'scale_attn_by_inverse_layer_idx',
  'use_parallel_residual', 'parallel_attn', 'alibi', 'layer_norm_epsilon', 'layer_norm_eps',
  'rms_norm_eps', 'classifier_dropout', 'hidden_dropout_prob', 'attention_probs_dropout_prob',
  'n_ctx', 'apply_residual_connection_post_layernorm', 'use_alibi', 'tokenizer_class', 'quantization_config',
]);

// Family -> how to read it. Each reader returns the model object; it marks the
// keys it used through `get`.
const FAMILIES = {
  llama: { gated: true, norm: 'rmsnorm', tied: false },
  mistral: { gated: true, norm: 'rmsnorm', tied: false },
  mixtral: { gated: true, norm: 'rmsnorm', tied: false, moe: true },
  qwen2: { gated: true, norm: 'rmsnorm', tied: false },
  qwen2_moe: { gated: true, norm: 'rmsnorm', tied: false, moe: true },
  gpt2: { gated: false, norm: 'layernorm', tied: true, gpt2: true },
  gpt_neox: { gated: false, norm: 'layernorm', tied: false },
  falcon: { gated: false, norm: 'layernorm', tied: true, falcon: true },
};

const ALIASES = {
  RefinedWeb: 'falcon',
  RefinedWebModel: 'falcon',
  LlamaForCausalLM: 'llama',
  MistralForCausalLM: 'mistral',
  MixtralForCausalLM: 'mixtral',
  Qwen2ForCausalLM: 'qwen2',
  Qwen2MoeForCausalLM: 'qwen2_moe',
  GPT2LMHeadModel: 'gpt2',
  GPTNeoXForCausalLM: 'gpt_neox',
  FalconForCausalLM: 'falcon',
};

function detectFamily(cfg) {
  const t = typeof cfg.model_type === 'string' ? cfg.model_type : '';
  if (FAMILIES[t]) return t;
  if (ALIASES[t]) return ALIASES[t];
  const arch = Array.isArray(cfg.architectures) ? cfg.architectures.find((a) => typeof a === 'string') : null;
  if (arch && ALIASES[arch]) return ALIASES[arch];
  if ('n_embd' in cfg && 'n_layer' in cfg) return 'gpt2';
  return null;
}

function ffnTypeFor(act, gated, warnings) {
  const a = typeof act === 'string' ? act.toLowerCase() : '';
  if (gated) {
    if (a === '' || a === 'silu' || a === 'swish') return 'swiglu';
    if (a.startsWith('gelu')) return 'geglu';
    warnings.push(`activation "${act}" in a gated MLP: treated as swiglu`);
    return 'swiglu';
  }
  if (a === '' || a.startsWith('gelu')) return 'gelu';
  if (a === 'relu2' || a === 'squared_relu') return 'relu2';
  warnings.push(`activation "${act}": treated as gelu (same cost: two matrices)`);
  return 'gelu';
}

export function parseConfigText(text) {
  if (typeof text !== 'string') throw new Error('config.json must be text');
  if (text.length > MAX_TEXT) throw new Error('config.json is larger than 1 MiB');
  let cfg;
  try {
    cfg = JSON.parse(text);
  } catch (err) {
    throw new Error(`not valid JSON: ${err.message}`);
  }
  return cfg;
}

export function importHfConfig(input) {
  const cfg = typeof input === 'string' ? parseConfigText(input) : input;
  if (!cfg || typeof cfg !== 'object' || Array.isArray(cfg)) throw new Error('config.json must be a JSON object');
  const used = new Set();
  const warnings = [];
  const has = (k) => Object.prototype.hasOwnProperty.call(cfg, k) && cfg[k] !== null;
  const get = (...keys) => {
    for (const k of keys) {
      if (has(k)) {
        used.add(k);
        return cfg[k];
      }
    }
    return undefined;
  };
  const posInt = (name, ...keys) => {
    const v = get(...keys);
    if (v === undefined) return undefined;
    if (!Number.isInteger(v) || v < 1) {
      warnings.push(`${keys.find(has)} = ${JSON.stringify(v)} is not a positive integer: ignored (${name})`);
      return undefined;
    }
    return v;
  };

  let family = detectFamily(cfg);
  if (!family) {
    warnings.push(`model_type ${JSON.stringify(cfg.model_type ?? null)} is not one this importer knows: read as Llama-style`);
    family = 'llama';
  }
  const fam = FAMILIES[family];
  const m = {};
  m.layers = posInt('layers', 'num_hidden_layers', 'n_layer', 'num_layers');
  m.hidden = posInt('hidden', 'hidden_size', 'n_embd', 'd_model');
  m.heads = posInt('heads', 'num_attention_heads', 'n_head', 'n_heads');
  m.vocab = posInt('vocab', 'vocab_size');

  // Key/value heads.
  if (fam.falcon) {
    const newArch = get('new_decoder_architecture') === true;
    const multiQuery = get('multi_query');
    const kv = posInt('kv_heads', 'num_kv_heads', 'n_head_kv');
    if (newArch) m.kv_heads = kv ?? m.heads;
    else if (multiQuery === false) m.kv_heads = m.heads;
    else m.kv_heads = kv ?? 1; // Falcon's default: multi_query true
  } else {
    m.kv_heads = posInt('kv_heads', 'num_key_value_heads', 'n_head_kv') ?? m.heads;
  }

  const headDim = posInt('head_dim', 'head_dim');
  if (headDim) m.head_dim = headDim;
  else if (m.hidden && m.heads) m.head_dim = Math.floor(m.hidden / m.heads);

  // Feed-forward.
  const act = get('hidden_act', 'activation_function', 'activation');
  m.ffn_type = ffnTypeFor(act, fam.gated, warnings);
  let ffn = posInt('ffn_hidden', 'intermediate_size', 'n_inner', 'ffn_hidden_size');
  if (fam.gpt2 && has('n_inner') === false) used.add('n_inner');
  if (!ffn && m.hidden) ffn = 4 * m.hidden;
  m.ffn_hidden = ffn;

  // Norm, positions, embeddings.
  if (get('rms_norm_eps') !== undefined) m.norm = 'rmsnorm';
  else if (get('layer_norm_epsilon', 'layer_norm_eps') !== undefined) m.norm = 'layernorm';
  else m.norm = fam.norm;
  const seq = posInt('seq_len', 'max_position_embeddings', 'n_positions', 'seq_length', 'max_seq_len');
  if (seq) m.seq_len = seq;
  const tied = get('tie_word_embeddings');
  m.tied_embeddings = typeof tied === 'boolean' ? tied : fam.tied;
  if (fam.gpt2) {
    m.bias = true;
    m.learned_positions = true;
  } else if (family === 'gpt_neox') {
    m.bias = true;
    m.learned_positions = false;
  } else if (fam.falcon) {
    const b = get('bias');
    m.bias = typeof b === 'boolean' ? b : false;
    m.learned_positions = false;
  } else {
    m.bias = false;
    m.learned_positions = false;
  }
  m.dropout = false;

  // Mixture of experts.
  const experts = posInt('moe.experts', 'num_local_experts', 'num_experts', 'n_routed_experts');
  if (experts && experts > 1) {
    const moe = { experts, top_k: posInt('moe.top_k', 'num_experts_per_tok', 'top_k', 'moe_top_k') ?? 2 };
    const expertFfn = posInt('moe.ffn_hidden', 'moe_intermediate_size');
    moe.ffn_hidden = expertFfn ?? m.ffn_hidden;
    const sharedFfn = posInt('moe.shared_experts', 'shared_expert_intermediate_size');
    moe.shared_experts = sharedFfn && expertFfn ? Math.max(1, Math.round(sharedFfn / expertFfn)) : 0;
    moe.dense_layers = 0;
    m.moe = moe;
  } else if (fam.moe) {
    warnings.push('a mixture-of-experts family without a number of experts: read as dense');
  }

  for (const k of ['layers', 'hidden', 'heads', 'vocab']) {
    if (!m[k]) throw new Error(`config.json has no usable ${k} (looked for ${READS[k]})`);
  }
  for (const k of Object.keys(m)) if (m[k] === undefined) delete m[k];

  const name = get('_name_or_path');
  if (typeof name === 'string' && name.trim()) m.name = name.trim().slice(0, 80);
  else m.name = `${family} (config.json)`;
  used.delete('_name_or_path');

  const keys = Object.keys(cfg);
  const unknown = keys.filter((k) => !used.has(k) && !IGNORED.has(k));
  const ignored = keys.filter((k) => !used.has(k) && IGNORED.has(k));
  return { model: m, family, used: [...used], ignored, unknown, warnings };
}

const READS = {
  layers: 'num_hidden_layers, n_layer',
  hidden: 'hidden_size, n_embd',
  heads: 'num_attention_heads, n_head',
  vocab: 'vocab_size',
};

const getPath = (o, path) => path.split('.').reduce((a, k) => (a && typeof a === 'object' ? a[k] : undefined), o);

// The preset whose model differs from `model` in the fewest architecture
// fields (dense with dense, MoE with MoE): the base of the custom model.
export function closestPreset(model, presetModels, keys) {
  let best = '';
  let bestDiff = Infinity;
  for (const [id, p] of Object.entries(presetModels || {})) {
    const pm = p?.model || {};
    if (Boolean(pm.moe) !== Boolean(model.moe)) continue;
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
    const v = getPath(model, sub);
    if (v === undefined) continue;
    const b = getPath(baseModel || {}, sub) ?? f.default;
    if (v === b) continue;
    values[f.key] = typeof v === 'number' ? String(v) : v;
  }
  return values;
}
