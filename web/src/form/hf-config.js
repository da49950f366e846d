// Hugging Face config.json -> llmcalc model section (spec: scenario.md, "Model
// object"). Pure functions, no DOM: importHfConfig(textOrObject) returns
//   { model, family, used: [keys], ignored: [keys], unknown: [keys], warnings: [text] }
// and throws an Error with a readable message when nothing usable is found.
// `unknown` lists the fields this mapping does not understand; `ignored` the
// ones it understands but that do not change time or memory (ids, dtypes, ...).

import { IGNORED, FAMILIES, detectFamily } from './hf-families.js';

const MAX_TEXT = 1 << 20;

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

// Layer pattern from HF `layer_types`: the layers `other` does not match
// attend the full context (["sliding_attention", "full_attention", ...];
// Qwen3-Next's ["linear_attention", ..., "full_attention"]): every G-th
// layer full -> G; none full -> 0.
// 1st, 2nd, 3rd, 4th ... 11th, 12th, 13th ... 21st
function ordinal(n) {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : ['th', 'st', 'nd', 'rd'][n % 10] || 'th';
  return `${n}${suffix}`;
}

function fullEvery(types, other, warnings, what = 'layer_types') {
  const full = [];
  types.forEach((t, i) => {
    if (!other.test(String(t))) full.push(i);
  });
  if (!full.length) return 0;
  const g = full[0] + 1;
  const regular = full.every((i) => (i + 1) % g === 0) && full.length === Math.floor(types.length / g);
  if (regular) return g;
  // Keep the count: every G-th of L layers gives floor(L / G) full layers.
  const n = types.length;
  const lo = Math.max(1, Math.floor(n / full.length));
  const approx = Math.abs(Math.floor(n / lo) - full.length) <= Math.abs(Math.floor(n / (lo + 1)) - full.length) ? lo : lo + 1;
  warnings.push(`${what}: ${full.length} full-attention layers of ${n} in an irregular pattern: read as every ${ordinal(approx)} layer full (${Math.floor(n / approx)} layers)`);
  return approx;
}
const LOCAL = /slid|chunk|local/i;
const LINEAR = /linear|mamba/i;

// The softmax layers of a hybrid: every G-th when the pattern is regular or
// an every-G-th reading keeps their count, else their count spread evenly
// (linear_attention.full_layers).
function softmaxLayers(types, warnings, what = 'layer_types') {
  const full = types.filter((t) => !LINEAR.test(String(t))).length;
  const quiet = [];
  const every = fullEvery(types, LINEAR, quiet, what);
  if (!full || Math.floor(types.length / every) === full) {
    warnings.push(...quiet);
    return { full_every: every };
  }
  warnings.push(`${what}: ${full} full-attention layers of ${types.length} in an irregular pattern: read as ${full} spread evenly`);
  return { full_layers: full };
}

// Mamba-2 mixers (transformers BambaConfig: mamba_n_heads, mamba_d_head,
// mamba_n_groups, mamba_d_state, mamba_d_conv, mamba_chunk_size,
// mamba_expand; the softmax layers at attn_layer_indices, or layer_types).
// B and C are the keys and queries: n_groups key heads of d_state.
function readMamba2(heads, m, { get, posInt, types, pattern }, warnings) {
  const expand = get('mamba_expand', 'expand');
  let headDim = get('mamba_d_head', 'mamba_head_dim');
  if (headDim === 'auto' || headDim === undefined) {
    headDim = Number.isInteger(expand) && m.hidden ? (expand * m.hidden) / heads : undefined;
  }
  if (!Number.isInteger(headDim) || headDim < 1) throw new Error('config.json has mamba_n_heads (Mamba-2) but no usable mamba_d_head');
  const lin = {
    kind: 'mamba2',
    key_heads: posInt('linear_attention.key_heads', 'mamba_n_groups', 'n_groups') ?? 1,
    value_heads: heads,
    key_head_dim: posInt('linear_attention.key_head_dim', 'mamba_d_state', 'ssm_state_size'),
    value_head_dim: headDim,
  };
  if (lin.key_head_dim === undefined) throw new Error('config.json has mamba_n_heads (Mamba-2) but no usable mamba_d_state');
  if (heads % lin.key_heads !== 0) throw new Error(`mamba_n_heads ${heads} is not a multiple of mamba_n_groups ${lin.key_heads}`);
  const conv = posInt('linear_attention.conv_kernel', 'mamba_d_conv', 'conv_kernel');
  if (conv) lin.conv_kernel = conv;
  const chunk = posInt('linear_attention.chunk', 'mamba_chunk_size', 'chunk_size');
  if (chunk) lin.chunk = chunk;
  get('mamba_conv_bias', 'use_conv_bias'); // the convolution's bias is counted
  if (get('mamba_proj_bias', 'use_bias') === true) warnings.push('mamba_proj_bias: the Mamba-2 projections\' biases are not counted');
  const attn = get('attn_layer_indices');
  if (pattern) {
    Object.assign(lin, pattern.layout);
  } else if (Array.isArray(attn) && m.layers) {
    const at = new Set(attn);
    Object.assign(lin, softmaxLayers(Array.from({ length: m.layers }, (_, i) => (at.has(i) ? 'attention' : 'mamba')), warnings, 'attn_layer_indices'));
  } else if (Array.isArray(types) && types.length) {
    Object.assign(lin, softmaxLayers(types, warnings));
  } else {
    lin.full_every = 0;
    warnings.push('no attn_layer_indices or layer_types: every layer read as Mamba-2');
  }
  return lin;
}

// Nemotron-H's hybrid_override_pattern, one block per character: M a Mamba-2
// mixer, * an attention mixer, - an MLP, E a mixture of experts (Nemotron 3),
// each after the mixer before it. The layers are the mixers; those not
// followed by an MLP are mixer_only_layers (MoE layers when the blocks are E).
function readHybridPattern(text, m, warnings) {
  if (typeof text !== 'string' || !/^[M*\-E]+$/.test(text)) throw new Error('hybrid_override_pattern must be a string of M, *, - and E blocks');
  if (text.includes('E') && text.includes('-')) throw new Error('hybrid_override_pattern has both MLP (-) and MoE (E) blocks: a model is either dense or MoE after its mixers here');
  const mixers = [...text].filter((c) => c !== '-' && c !== 'E');
  const mlps = text.length - mixers.length;
  if (!mixers.length) throw new Error('hybrid_override_pattern has no mixer blocks (M or *)');
  if (mlps > mixers.length) throw new Error(`hybrid_override_pattern has ${mlps} MLP blocks for ${mixers.length} mixers: not modelled`);
  if (text[0] === '-') warnings.push('hybrid_override_pattern starts with an MLP block: read as following the first mixer');
  if (m.layers !== undefined && m.layers !== text.length) warnings.push(`num_hidden_layers ${m.layers} and a pattern of ${text.length} blocks`);
  m.layers = mixers.length;
  if (mixers.length > mlps) m.mixer_only_layers = mixers.length - mlps;
  const moeBlocks = text.includes('E') ? mlps : 0;
  const blocks = moeBlocks ? 'MoE' : 'MLP';
  warnings.push(`hybrid_override_pattern: ${mixers.filter((c) => c === 'M').length} Mamba-2, ${mixers.filter((c) => c === '*').length} attention and ${mlps} ${blocks} blocks, read as ${mixers.length} layers, ${mixers.length - mlps} of them without an ${blocks} block`);
  return { layout: softmaxLayers(mixers.map((c) => (c === 'M' ? 'mamba' : 'attention')), warnings, 'hybrid_override_pattern'), moeBlocks };
}

const isObj = (o) => o && typeof o === 'object' && !Array.isArray(o);
const own = (o, k) => o && Object.prototype.hasOwnProperty.call(o, k) && o[k] !== null;

// Reads config keys: text_config first (multimodal wrappers such as Llama 4
// and Gemma 3 keep the language model there), then the top level, then the
// family's default; it remembers what it read so the rest can be reported.
function configReader(cfg, text, defaults, warnings) {
  const r = { cfg, text, warnings, used: new Set(), usedText: new Set(), defaulted: [] };
  r.has = (k) => own(text, k) || own(cfg, k);
  // The first of `keys` present, marked as used.
  r.get = (...keys) => {
    for (const k of keys) {
      if (own(text, k)) {
        r.usedText.add(k);
        return text[k];
      }
      if (own(cfg, k)) {
        r.used.add(k);
        return cfg[k];
      }
    }
    for (const k of keys) {
      if (k in defaults) {
        r.defaulted.push(`${k} ${JSON.stringify(defaults[k])}`);
        return defaults[k];
      }
    }
    return undefined;
  };
  const integer = (min, what) => (name, ...keys) => {
    const v = r.get(...keys);
    if (v === undefined) return undefined;
    if (!Number.isInteger(v) || v < min) {
      warnings.push(`${keys.find(r.has) ?? keys[0]} = ${JSON.stringify(v)} is not a ${what} integer: ignored (${name})`);
      return undefined;
    }
    return v;
  };
  r.posInt = integer(1, 'positive');
  r.nonNegInt = integer(0, 'non-negative');
  return r;
}

// Key/value heads and head width (Falcon's multi_query and new decoder
// architecture name them their own way).
function readHeads(r, fam, m) {
  if (fam.falcon) {
    const newArch = r.get('new_decoder_architecture') === true;
    const multiQuery = r.get('multi_query');
    const kv = r.posInt('kv_heads', 'num_kv_heads', 'n_head_kv');
    if (newArch) m.kv_heads = kv ?? m.heads;
    else if (multiQuery === false) m.kv_heads = m.heads;
    else m.kv_heads = kv ?? 1; // Falcon's default: multi_query true
  } else {
    m.kv_heads = r.posInt('kv_heads', 'num_key_value_heads', 'n_head_kv') ?? m.heads;
  }
  const headDim = r.posInt('head_dim', 'head_dim');
  if (headDim) m.head_dim = headDim;
  else if (m.hidden && m.heads) m.head_dim = Math.floor(m.hidden / m.heads);
}

// Multi-head latent attention (DeepSeek-V2/V3, Kimi K2): the cache holds
// kv_lora_rank + qk_rope_head_dim values per token per layer. kv_heads and
// head_dim are unused with MLA: heads and qk_nope_head_dim, as the presets.
function readMla(r, fam, m) {
  const kvRank = r.posInt('mla.kv_lora_rank', 'kv_lora_rank');
  if (!kvRank) {
    if (fam.mla) r.warnings.push('an MLA family without kv_lora_rank: read as multi-head attention');
    return;
  }
  const mla = {
    q_lora_rank: r.nonNegInt('mla.q_lora_rank', 'q_lora_rank') ?? 0,
    kv_lora_rank: kvRank,
    qk_nope_head_dim: r.posInt('mla.qk_nope_head_dim', 'qk_nope_head_dim'),
    qk_rope_head_dim: r.nonNegInt('mla.qk_rope_head_dim', 'qk_rope_head_dim'),
    v_head_dim: r.posInt('mla.v_head_dim', 'v_head_dim'),
  };
  for (const k of ['qk_nope_head_dim', 'qk_rope_head_dim', 'v_head_dim']) {
    if (mla[k] === undefined) throw new Error(`config.json has kv_lora_rank (MLA) but no usable ${k}`);
  }
  m.mla = mla;
  m.kv_heads = m.heads;
  m.head_dim = mla.qk_nope_head_dim;
}

// DeepSeek Sparse Attention (DeepSeek-V3.2): index_topk tokens per query,
// chosen by an indexer of index_n_heads heads of index_head_dim.
function readSparseAttention(r, m) {
  const topK = r.posInt('sparse_attention.top_k', 'index_topk');
  if (!topK) return;
  const heads = r.posInt('sparse_attention.index_heads', 'index_n_heads');
  const dim = r.posInt('sparse_attention.index_head_dim', 'index_head_dim');
  if (!heads || !dim) throw new Error('config.json has index_topk (sparse attention) but no usable index_n_heads and index_head_dim');
  m.sparse_attention = { top_k: topK, index_heads: heads, index_head_dim: dim };
}

function readFeedForward(r, fam, m) {
  const act = r.get('hidden_act', 'hidden_activation', 'activation_function', 'activation', 'mlp_hidden_act');
  m.ffn_type = ffnTypeFor(act, fam.gated, r.warnings);
  // Llama 4: intermediate_size is the expert's width, intermediate_size_mlp the dense layers'.
  // Granite 4.0-H: the MLP every layer runs is the shared one.
  let ffn = fam.llama4
    ? r.posInt('ffn_hidden', 'intermediate_size_mlp', 'intermediate_size')
    : fam.granite
      ? r.posInt('ffn_hidden', 'shared_intermediate_size', 'intermediate_size')
      : r.posInt('ffn_hidden', 'intermediate_size', 'n_inner', 'ffn_hidden_size');
  if (fam.gpt2 && !r.has('n_inner')) r.used.add('n_inner');
  if (!ffn && m.hidden) ffn = 4 * m.hidden;
  m.ffn_hidden = ffn;
}

// Norm, positions, embeddings, biases and QK-Norm.
function readNormAndEmbeddings(r, fam, family, m) {
  if (fam.normFixed) {
    r.get('rms_norm_eps', 'layer_norm_epsilon', 'layer_norm_eps');
    m.norm = fam.norm;
  } else if (r.get('rms_norm_eps') !== undefined) m.norm = 'rmsnorm';
  else if (r.get('layer_norm_epsilon', 'layer_norm_eps') !== undefined) m.norm = 'layernorm';
  else m.norm = fam.norm;
  // max_position_embeddings is the context window (model.context). A
  // long-context extension (Llama 3.1's RoPE scaling, YaRN) names the length
  // it extended, rope_scaling.original_max_position_embeddings: the
  // pre-training length, the model's seq_len (Llama 3.1 8192, DeepSeek-V3
  // 4096, as the presets); without one the window is the seq_len too.
  const seq = r.posInt('seq_len', 'max_position_embeddings', 'n_positions', 'seq_length', 'max_seq_len');
  const scaling = r.get('rope_scaling');
  const original = scaling && typeof scaling === 'object' ? scaling.original_max_position_embeddings : undefined;
  if (seq) {
    m.context = seq;
    const extended = Number.isInteger(original) && original >= 1 && original < seq;
    m.seq_len = extended ? original : seq;
    // Pre-training runs take 2,048-8,192 tokens (GPT-3 2,048, Llama 2 4,096,
    // Llama 3 8,192); a longer window with no extension named (Qwen3's
    // 40,960) is most likely not the length its training steps ran at.
    if (!extended && seq > 8192)
      r.warnings.push(`max_position_embeddings ${seq}: the context window, also taken as the training sequence length (config.json names no shorter pre-training length, rope_scaling.original_max_position_embeddings); set seq len to the length you train at`);
  }
  const tied = r.get('tie_word_embeddings');
  m.tied_embeddings = typeof tied === 'boolean' ? tied : fam.tied;
  if (fam.gpt2) {
    m.bias = true;
    m.learned_positions = true;
  } else if (family === 'gpt_neox') {
    m.bias = true;
    m.learned_positions = false;
  } else if (fam.falcon) {
    const b = r.get('bias');
    m.bias = typeof b === 'boolean' ? b : false;
    m.learned_positions = false;
  } else {
    const b = fam.bias ? r.get('attention_bias') : undefined;
    m.bias = typeof b === 'boolean' ? b : Boolean(fam.bias);
    m.learned_positions = false;
  }
  m.dropout = false;
  // QK-Norm: Qwen3 and Gemma 3 always; GLM-4.5 and Llama 4 say so in use_qk_norm.
  const qk = r.get('use_qk_norm', 'qk_layernorm');
  if (typeof qk === 'boolean' ? qk : fam.qkNorm) m.qk_norm = true;
}

// Which layers attend globally among local ones: layer_types where given,
// else Llama 4's no_rope_layers / interval, else Gemma 3's
// sliding_window_pattern (N-1 local layers then one global).
function globalEvery(r, fam, m, types) {
  if (Array.isArray(types) && types.length) {
    const every = fullEvery(types, LOCAL, r.warnings);
    if (types.length !== m.layers) r.warnings.push(`layer_types has ${types.length} entries for ${m.layers} layers`);
    if (r.has('sliding_window_pattern')) r.get('sliding_window_pattern'); // says the same as layer_types
    return every;
  }
  if (fam.llama4) {
    // no_rope_layers: 1 = RoPE (chunked, local), 0 = NoPE (global); default every 4th layer
    const nope = r.get('no_rope_layers');
    if (Array.isArray(nope) && nope.length) return fullEvery(nope.map((x) => (x ? 'chunked_attention' : 'full_attention')), LOCAL, r.warnings);
    return r.posInt('attention.global_every', 'no_rope_layer_interval') ?? 4;
  }
  return r.posInt('attention.global_every', 'sliding_window_pattern') ?? 0;
}

// Local attention: sliding window (GPT-OSS, Gemma 3) or chunks (Llama 4).
// Returns layer_types, which linear-attention and Mamba-2 hybrids read too.
function readLocalAttention(r, fam, family, m) {
  const slidingOff = r.get('use_sliding_window') === false; // Qwen2/3 carry a window they do not use
  const types = r.get('layer_types');
  const window = family === 'gpt_oss' || family === 'gemma3' ? r.posInt('attention.window', 'sliding_window') : undefined;
  const chunk = fam.llama4 ? r.posInt('attention.chunk', 'attention_chunk_size') : undefined;
  if (!slidingOff && (window || chunk)) {
    const att = window ? { window } : { chunk };
    att.global_every = globalEvery(r, fam, m, types);
    if (fam.sinks) att.sinks = true;
    m.attention = att;
  } else if (Array.isArray(types)) {
    if (types.some((t) => /slid|chunk/i.test(String(t)))) r.warnings.push('layer_types names local layers but no window size was found: read as full attention');
  }
  return types;
}

// Linear-attention layers (Qwen3-Next's Gated DeltaNet); its softmax
// layers gate their output from a second half of q_proj. Returns whether
// the config has them.
function readLinearAttention(r, fam, m, types) {
  const linearHeads = r.posInt('linear_attention.value_heads', 'linear_num_value_heads');
  if (!linearHeads) {
    if (fam.linear) r.warnings.push('a linear-attention family without linear_num_value_heads: read as softmax attention in every layer');
    return false;
  }
  const lin = {
    key_heads: r.posInt('linear_attention.key_heads', 'linear_num_key_heads'),
    value_heads: linearHeads,
    key_head_dim: r.posInt('linear_attention.key_head_dim', 'linear_key_head_dim'),
    value_head_dim: r.posInt('linear_attention.value_head_dim', 'linear_value_head_dim'),
  };
  for (const k of ['key_heads', 'key_head_dim', 'value_head_dim']) {
    if (lin[k] === undefined) throw new Error(`config.json has linear_num_value_heads (linear attention) but no usable ${k}`);
  }
  const conv = r.posInt('linear_attention.conv_kernel', 'linear_conv_kernel_dim');
  if (conv) lin.conv_kernel = conv;
  if (Array.isArray(types) && types.length) {
    Object.assign(lin, softmaxLayers(types, r.warnings));
    if (types.length !== m.layers) r.warnings.push(`layer_types has ${types.length} entries for ${m.layers} layers`);
    if (r.has('full_attention_interval')) r.get('full_attention_interval'); // says the same as layer_types
  } else {
    lin.full_every = r.nonNegInt('linear_attention.full_every', 'full_attention_interval') ?? 4;
  }
  m.linear_attention = lin;
  if (fam.linear) m.attention = { output_gate: true };
  return true;
}

// The experts' count, routing and widths.
function moeOf(r, fam, m, experts) {
  const moe = { experts, top_k: r.posInt('moe.top_k', 'num_experts_per_tok', 'experts_per_token', 'top_k', 'moe_top_k') ?? 2 };
  if (r.has('num_experts_per_tok') && r.has('experts_per_token')) r.get('experts_per_token');
  const expertFfn = fam.llama4 || fam.granite ? r.posInt('moe.ffn_hidden', 'intermediate_size') : r.posInt('moe.ffn_hidden', 'moe_intermediate_size');
  moe.ffn_hidden = expertFfn ?? m.ffn_hidden;
  const nShared = r.nonNegInt('moe.shared_experts', 'n_shared_experts');
  const sharedFfn = r.posInt('moe.shared_ffn_hidden', 'shared_expert_intermediate_size', 'moe_shared_expert_intermediate_size', 'shared_intermediate_size');
  if (nShared !== undefined) moe.shared_experts = nShared;
  else if (sharedFfn) moe.shared_experts = 1;
  else moe.shared_experts = fam.llama4 ? 1 : 0;
  if (sharedFfn && sharedFfn !== moe.ffn_hidden) moe.shared_ffn_hidden = sharedFfn;
  moe.dense_layers = r.nonNegInt('moe.dense_layers', 'first_k_dense_replace') ?? 0;
  const every = r.posInt('moe.every', 'interleave_moe_layer_step', 'decoder_sparse_step', 'moe_layer_freq');
  if (every && every > 1) moe.every = every;
  // Group-limited routing (DeepSeek-V2/V3): n_group groups, topk_group of them per token.
  const groups = r.posInt('moe.groups', 'n_group');
  const topGroups = r.posInt('moe.top_groups', 'topk_group');
  if (groups > 1 && topGroups < groups && experts % groups === 0) {
    moe.groups = groups;
    moe.top_groups = topGroups;
  }
  const mlpOnly = r.get('mlp_only_layers');
  if (Array.isArray(mlpOnly) && mlpOnly.length) {
    if (mlpOnly.every((x, i) => x === i)) moe.dense_layers = Math.max(moe.dense_layers, mlpOnly.length);
    else r.warnings.push(`mlp_only_layers ${JSON.stringify(mlpOnly)}: only leading dense layers can be expressed; read as MoE`);
  }
  r.get('moe_layers'); // Llama 4 lists them; interleave_moe_layer_step says the same
  return moe;
}

// Mixture of experts, checked against a hybrid pattern's MoE blocks.
function readMoe(r, fam, m, pattern) {
  // Granite 4.0-H Micro sets num_local_experts 0: its layers run the shared MLP alone.
  const noExperts = fam.granite && r.get('num_local_experts') === 0;
  const experts = noExperts ? 0 : r.posInt('moe.experts', 'num_local_experts', 'num_experts', 'n_routed_experts');
  if (experts && experts > 1) m.moe = moeOf(r, fam, m, experts);
  else if (fam.moe) r.warnings.push('a mixture-of-experts family without a number of experts: read as dense');
  if (noExperts) r.get('num_experts_per_tok'); // no experts to pick
  if (noExperts && r.has('intermediate_size') && r.get('intermediate_size') !== m.ffn_hidden) r.warnings.push('intermediate_size: the routed experts\' width, unused with num_local_experts 0');
  if (pattern?.moeBlocks && !m.moe) throw new Error('hybrid_override_pattern has MoE blocks (E) but config.json gives no number of experts (n_routed_experts)');
  if (pattern && m.moe && !pattern.moeBlocks) throw new Error('config.json has experts but hybrid_override_pattern has MLP (-) blocks, not MoE (E) blocks');
}

// Warnings about what the model fields cannot carry, and the model's name.
function finishModel(r, family, m) {
  for (const k of ['layers', 'hidden', 'heads', 'vocab']) {
    if (!m[k]) throw new Error(`config.json has no usable ${k} (looked for ${READS[k]})`);
  }
  for (const k of Object.keys(m)) if (m[k] === undefined) delete m[k];
  const { cfg, text, warnings } = r;
  if (r.defaulted.length) warnings.push(`not in config.json, ${family}'s default taken: ${r.defaulted.join(', ')}`);
  if (isObj(cfg.vision_config)) warnings.push('vision_config: the vision encoder is not modelled (text model only)');
  const q = own(text, 'quantization_config') ? text.quantization_config : cfg.quantization_config;
  if (isObj(q) && typeof q.quant_method === 'string') {
    warnings.push(`quantization_config: ${q.quant_method} weights; set the inference weight precision to match (the model fields do not carry it)`);
  }
  const name = r.get('_name_or_path');
  if (typeof name === 'string' && name.trim()) m.name = name.trim().slice(0, 80);
  else m.name = `${family} (config.json)`;
}

// The keys read, and the rest split into ignored (no performance meaning)
// and unknown.
function keyReport(r) {
  const { cfg, text, used, usedText } = r;
  used.delete('_name_or_path');
  if (text) used.add('text_config');
  const sort = (keys, u, prefix) => ({
    unknown: keys.filter((k) => !u.has(k) && !IGNORED.has(k)).map((k) => prefix + k),
    ignored: keys.filter((k) => !u.has(k) && IGNORED.has(k)).map((k) => prefix + k),
  });
  const top = sort(Object.keys(cfg), used, '');
  const inner = text ? sort(Object.keys(text), usedText, 'text_config.') : { unknown: [], ignored: [] };
  return {
    used: [...used, ...[...usedText].map((k) => `text_config.${k}`)],
    ignored: [...top.ignored, ...inner.ignored],
    unknown: [...top.unknown, ...inner.unknown],
  };
}

export function importHfConfig(input) {
  const cfg = typeof input === 'string' ? parseConfigText(input) : input;
  if (!cfg || typeof cfg !== 'object' || Array.isArray(cfg)) throw new Error('config.json must be a JSON object');
  const text = isObj(cfg.text_config) ? cfg.text_config : null;
  const warnings = [];
  let family = detectFamily(cfg, text);
  if (!family) {
    warnings.push(`model_type ${JSON.stringify((text || cfg).model_type ?? cfg.model_type ?? null)} is not one this importer knows: read as Llama-style`);
    family = 'llama';
  }
  const fam = FAMILIES[family];
  const r = configReader(cfg, text, fam.defaults || {}, warnings);

  const m = {};
  m.layers = r.posInt('layers', 'num_hidden_layers', 'n_layer', 'num_layers');
  m.hidden = r.posInt('hidden', 'hidden_size', 'n_embd', 'd_model');
  m.heads = r.posInt('heads', 'num_attention_heads', 'n_head', 'n_heads');
  m.vocab = r.posInt('vocab', 'vocab_size');
  readHeads(r, fam, m);
  readMla(r, fam, m);
  readSparseAttention(r, m);
  readFeedForward(r, fam, m);
  readNormAndEmbeddings(r, fam, family, m);
  const types = readLocalAttention(r, fam, family, m);
  const linear = readLinearAttention(r, fam, m, types);
  const mambaHeads = r.posInt('linear_attention.value_heads', 'mamba_n_heads', 'mamba_num_heads');
  const pattern = fam.pattern ? readHybridPattern(r.get('hybrid_override_pattern'), m, warnings) : null;
  if (mambaHeads && !linear) m.linear_attention = readMamba2(mambaHeads, m, { get: r.get, posInt: r.posInt, types, pattern }, warnings);
  else if (fam.mamba && !mambaHeads) warnings.push('a Mamba-2 family without mamba_n_heads: read as softmax attention in every layer');
  readMoe(r, fam, m, pattern);
  const mtp = r.nonNegInt('mtp_layers', 'num_nextn_predict_layers');
  if (mtp) m.mtp_layers = mtp;
  finishModel(r, family, m);
  return { model: m, family, ...keyReport(r), warnings };
}

const READS = {
  layers: 'num_hidden_layers, n_layer',
  hidden: 'hidden_size, n_embd',
  heads: 'num_attention_heads, n_head',
  vocab: 'vocab_size',
};
