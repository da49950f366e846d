// Hugging Face config.json import of the recent families (web/src/form/hf-config.js):
// MLA, Qwen3, Qwen3-Next, Mamba-2 hybrids, GLM-4.5, GPT-OSS, Llama 4, Gemma 3,
// Granite 4.0-H; each maps to its preset, or evaluates on the real core.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { importHfConfig } from '../../web/src/form/hf-config.js';
import { ctx, loadContext, evaluates, asPreset, closest, kvTypes } from './hf-context.mjs';

before(loadContext);

// The families of issue 13: MLA (DeepSeek-V3, Kimi K2), Qwen3 dense and MoE,
// GPT-OSS (sliding window + sinks), Llama 4 and Gemma 3 (text_config inside).
const DEEPSEEK_V3 = {
  architectures: ['DeepseekV3ForCausalLM'], attention_bias: false, attention_dropout: 0.0,
  auto_map: { AutoConfig: 'configuration_deepseek.DeepseekV3Config', AutoModel: 'modeling_deepseek.DeepseekV3Model', AutoModelForCausalLM: 'modeling_deepseek.DeepseekV3ForCausalLM' },
  aux_loss_alpha: 0.001, bos_token_id: 0, eos_token_id: 1, ep_size: 1, first_k_dense_replace: 3, hidden_act: 'silu', hidden_size: 7168,
  initializer_range: 0.02, intermediate_size: 18432, kv_lora_rank: 512, max_position_embeddings: 163840, model_type: 'deepseek_v3',
  moe_intermediate_size: 2048, moe_layer_freq: 1, n_group: 8, n_routed_experts: 256, n_shared_experts: 1, norm_topk_prob: true,
  num_attention_heads: 128, num_experts_per_tok: 8, num_hidden_layers: 61, num_key_value_heads: 128, num_nextn_predict_layers: 1,
  q_lora_rank: 1536, qk_nope_head_dim: 128, qk_rope_head_dim: 64,
  quantization_config: { activation_scheme: 'dynamic', fmt: 'e4m3', quant_method: 'fp8', weight_block_size: [128, 128] },
  rms_norm_eps: 1e-6,
  rope_scaling: { beta_fast: 32, beta_slow: 1, factor: 40, mscale: 1.0, mscale_all_dim: 1.0, original_max_position_embeddings: 4096, type: 'yarn' },
  rope_theta: 10000, routed_scaling_factor: 2.5, scoring_func: 'sigmoid', seq_aux: true, tie_word_embeddings: false, topk_group: 4,
  topk_method: 'noaux_tc', torch_dtype: 'bfloat16', transformers_version: '4.33.1', use_cache: true, v_head_dim: 128, vocab_size: 129280,
};

const KIMI_K2 = {
  ...DEEPSEEK_V3, model_type: 'kimi_k2', first_k_dense_replace: 1, n_group: 1, n_routed_experts: 384, num_attention_heads: 64,
  num_key_value_heads: 64, num_nextn_predict_layers: 0, routed_scaling_factor: 2.827, topk_group: 1, vocab_size: 163840,
  max_position_embeddings: 131072, rope_theta: 50000.0,
};

const QWEN3_8B = {
  architectures: ['Qwen3ForCausalLM'], attention_bias: false, attention_dropout: 0.0, bos_token_id: 151643, eos_token_id: 151645, head_dim: 128,
  hidden_act: 'silu', hidden_size: 4096, initializer_range: 0.02, intermediate_size: 12288, max_position_embeddings: 40960, max_window_layers: 36,
  model_type: 'qwen3', num_attention_heads: 32, num_hidden_layers: 36, num_key_value_heads: 8, rms_norm_eps: 1e-6, rope_scaling: null,
  rope_theta: 1000000, sliding_window: null, tie_word_embeddings: false, torch_dtype: 'bfloat16', transformers_version: '4.51.0', use_cache: true,
  use_sliding_window: false, vocab_size: 151936,
};

const QWEN3_30B_A3B = {
  architectures: ['Qwen3MoeForCausalLM'], attention_bias: false, attention_dropout: 0.0, bos_token_id: 151643, decoder_sparse_step: 1,
  eos_token_id: 151645, head_dim: 128, hidden_act: 'silu', hidden_size: 2048, initializer_range: 0.02, intermediate_size: 6144,
  max_position_embeddings: 40960, max_window_layers: 48, mlp_only_layers: [], model_type: 'qwen3_moe', moe_intermediate_size: 768,
  norm_topk_prob: true, num_attention_heads: 32, num_experts: 128, num_experts_per_tok: 8, num_hidden_layers: 48, num_key_value_heads: 4,
  output_router_logits: false, rms_norm_eps: 1e-6, rope_scaling: null, rope_theta: 1000000.0, router_aux_loss_coef: 0.001, sliding_window: null,
  tie_word_embeddings: false, torch_dtype: 'bfloat16', transformers_version: '4.51.0', use_cache: true, use_sliding_window: false, vocab_size: 151936,
};

const GPT_OSS_120B = {
  architectures: ['GptOssForCausalLM'], attention_bias: true, attention_dropout: 0.0, eos_token_id: 200002, experts_per_token: 4, head_dim: 64,
  hidden_act: 'silu', hidden_size: 2880, initial_context_length: 4096, initializer_range: 0.02, intermediate_size: 2880,
  layer_types: Array.from({ length: 36 }, (_, i) => (i % 2 === 0 ? 'sliding_attention' : 'full_attention')),
  max_position_embeddings: 131072, model_type: 'gpt_oss', num_attention_heads: 64, num_experts_per_tok: 4, num_hidden_layers: 36,
  num_key_value_heads: 8, num_local_experts: 128, output_router_logits: false, pad_token_id: 199999,
  quantization_config: { modules_to_not_convert: ['model.layers.*.self_attn', 'model.layers.*.mlp.router', 'model.embed_tokens', 'lm_head'], quant_method: 'mxfp4' },
  rms_norm_eps: 1e-5, rope_scaling: { beta_fast: 32.0, beta_slow: 1.0, factor: 32.0, original_max_position_embeddings: 4096, rope_type: 'yarn', truncate: false },
  rope_theta: 150000, router_aux_loss_coef: 0.9, sliding_window: 128, swiglu_limit: 7.0, tie_word_embeddings: false,
  transformers_version: '4.55.0.dev0', use_cache: true, vocab_size: 201088,
};

const LLAMA4_TEXT = {
  attention_bias: false, attention_chunk_size: 8192, attention_dropout: 0.0, attn_scale: 0.1, attn_temperature_tuning: true, bos_token_id: 200000,
  eos_token_id: [200001, 200007, 200008], floor_scale: 8192, for_llm_compressor: false, head_dim: 128, hidden_act: 'silu', hidden_size: 5120,
  initializer_range: 0.02, interleave_moe_layer_step: 1, intermediate_size: 8192, intermediate_size_mlp: 16384, max_position_embeddings: 10485760,
  model_type: 'llama4_text', moe_layers: Array.from({ length: 48 }, (_, i) => i),
  no_rope_layers: Array.from({ length: 48 }, (_, i) => ((i + 1) % 4 === 0 ? 0 : 1)),
  num_attention_heads: 40, num_experts_per_tok: 1, num_hidden_layers: 48, num_key_value_heads: 8, num_local_experts: 16,
  output_router_logits: false, pad_token_id: 200018, rms_norm_eps: 1e-5,
  rope_scaling: { factor: 16.0, high_freq_factor: 1.0, low_freq_factor: 1.0, original_max_position_embeddings: 8192, rope_type: 'llama3' },
  rope_theta: 500000.0, router_aux_loss_coef: 0.001, router_jitter_noise: 0.0, torch_dtype: 'bfloat16', use_cache: true, use_qk_norm: true,
  vocab_size: 202048,
};
const LLAMA4_SCOUT = {
  architectures: ['Llama4ForConditionalGeneration'], boi_token_index: 200080, eoi_token_index: 200081, image_token_index: 200092,
  model_type: 'llama4', text_config: LLAMA4_TEXT, tie_word_embeddings: false, torch_dtype: 'bfloat16', transformers_version: '4.51.0.dev0',
  vision_config: { hidden_size: 1408, image_size: 336, model_type: 'llama4_vision_model', num_hidden_layers: 34, patch_size: 14 },
};
const LLAMA4_MAVERICK = {
  ...LLAMA4_SCOUT,
  text_config: {
    ...LLAMA4_TEXT, interleave_moe_layer_step: 2, num_local_experts: 128, max_position_embeddings: 1048576, use_qk_norm: false,
    moe_layers: Array.from({ length: 24 }, (_, i) => 2 * i + 1),
  },
};

// google/gemma-3-27b-it: text_config leaves vocab_size and the layer pattern to Gemma 3's defaults.
const GEMMA3_27B = {
  architectures: ['Gemma3ForConditionalGeneration'], boi_token_index: 255999, eoi_token_index: 256000, eos_token_id: [1, 106],
  image_token_index: 262144, initializer_range: 0.02, mm_tokens_per_image: 256, model_type: 'gemma3',
  text_config: {
    head_dim: 128, hidden_size: 5376, intermediate_size: 21504, model_type: 'gemma3_text', num_attention_heads: 32, num_hidden_layers: 62,
    num_key_value_heads: 16, query_pre_attn_scalar: 168, rope_scaling: { factor: 8.0, rope_type: 'linear' }, sliding_window: 1024,
  },
  torch_dtype: 'bfloat16', transformers_version: '4.50.0.dev0',
  vision_config: { hidden_size: 1152, image_size: 896, intermediate_size: 4304, model_type: 'siglip_vision_model', num_attention_heads: 16, num_hidden_layers: 27, patch_size: 14, vision_use_head: false },
};

test('DeepSeek-V3: MLA ranks, routed and shared experts, dense layers and MTP', async () => {
  const r = importHfConfig(DEEPSEEK_V3);
  assert.equal(r.family, 'deepseek_v3');
  assert.deepEqual(r.model.mla, { q_lora_rank: 1536, kv_lora_rank: 512, qk_nope_head_dim: 128, qk_rope_head_dim: 64, v_head_dim: 128 });
  assert.deepEqual(r.model.moe, { experts: 256, top_k: 8, ffn_hidden: 2048, shared_experts: 1, dense_layers: 3, groups: 8, top_groups: 4 });
  assert.equal(r.model.mtp_layers, 1);
  assert.equal(r.model.ffn_hidden, 18432);
  // YaRN's ceiling is the window; the length it extended (4,096) the pre-training one
  assert.equal(r.model.context, 163840);
  assert.equal(r.model.seq_len, 4096);
  asPreset(r, 'deepseek-v3');
  assert.deepEqual(r.unknown, []);
  for (const k of ['topk_method', 'scoring_func', 'auto_map', 'quantization_config']) assert.ok(r.ignored.includes(k), k);
  assert.match(r.warnings.join(' '), /fp8/);
  assert.equal(await closest(r.model), 'deepseek-v3');
  const kv = kvTypes(r.model);
  assert.equal(kv.length, 1);
  assert.equal(kv[0].layers, 61);
  assert.equal(kv[0].bytes_per_token_per_layer, (512 + 64) * 2);
  assert.equal(kv[0].bytes_per_token, 70272);
});

test('DeepSeek-V3.2: the DeepSeek-V3 layout with sparse attention (index_topk, index_n_heads, index_head_dim)', async () => {
  const cfg = { ...DEEPSEEK_V3, architectures: ['DeepseekV32ForCausalLM'], model_type: 'deepseek_v32', index_topk: 2048, index_n_heads: 64, index_head_dim: 128 };
  const r = importHfConfig(cfg);
  assert.equal(r.family, 'deepseek_v32');
  assert.deepEqual(r.model.sparse_attention, { top_k: 2048, index_heads: 64, index_head_dim: 128 });
  assert.deepEqual(r.unknown, []);
  asPreset(r, 'deepseek-v3.2');
  assert.equal(await closest(r.model), 'deepseek-v3.2');
  // Its cache: the MLA latent of every token, and the indexer's fp8 key (128 + a 4-byte scale).
  const kv = kvTypes(r.model);
  assert.deepEqual(kv.map((t) => [t.type, t.layers, t.bytes_per_token_per_layer]), [['mla', 61, 1152], ['indexer_keys', 61, 132]]);
  // An indexer without its width is an error, not a dense import.
  assert.throws(() => importHfConfig({ ...cfg, index_head_dim: undefined }), /index_topk .* index_n_heads and index_head_dim/);
});

test('Kimi K2: the DeepSeek-V3 layout under model_type kimi_k2 or by its architecture', async () => {
  const r = importHfConfig(KIMI_K2);
  assert.equal(r.family, 'kimi_k2');
  assert.equal(r.model.mtp_layers, undefined);
  asPreset(r, 'kimi-k2');
  assert.deepEqual(r.unknown, []);
  assert.equal(await closest(r.model), 'kimi-k2');
  const byArch = importHfConfig({ ...KIMI_K2, model_type: 'something_new' });
  assert.equal(byArch.family, 'deepseek_v3');
  assert.deepEqual(byArch.model.mla, r.model.mla);
  // DeepSeek-V2-Lite: no query compression (q_lora_rank null)
  const lite = importHfConfig({
    ...DEEPSEEK_V3, architectures: ['DeepseekV2ForCausalLM'], model_type: 'deepseek_v2', q_lora_rank: null, hidden_size: 2048, num_hidden_layers: 27,
    num_attention_heads: 16, num_key_value_heads: 16, intermediate_size: 10944, moe_intermediate_size: 1408, n_routed_experts: 64,
    n_shared_experts: 2, num_experts_per_tok: 6, first_k_dense_replace: 1, vocab_size: 102400, num_nextn_predict_layers: undefined,
    n_group: 1, topk_group: 1, // V2-Lite routes greedily over all experts
  });
  asPreset(lite, 'deepseek-v2-lite');
});

test('Qwen3 dense and MoE: head_dim, num_experts, moe_intermediate_size, decoder_sparse_step', async () => {
  const dense = importHfConfig(QWEN3_8B);
  assert.equal(dense.family, 'qwen3');
  assert.equal(dense.model.attention, undefined, 'use_sliding_window false: full attention');
  asPreset(dense, 'qwen3-8b');
  assert.equal(dense.model.qk_norm, true, 'Qwen3 always runs QK-Norm');
  assert.deepEqual(dense.unknown, []);
  assert.equal(await closest(dense.model), 'qwen3-8b');
  const moe = importHfConfig(QWEN3_30B_A3B);
  assert.equal(moe.family, 'qwen3_moe');
  assert.deepEqual(moe.model.moe, { experts: 128, top_k: 8, ffn_hidden: 768, shared_experts: 0, dense_layers: 0 });
  asPreset(moe, 'qwen3-30b-a3b');
  assert.deepEqual(moe.unknown, []);
  assert.equal(await closest(moe.model), 'qwen3-30b-a3b');
  const sparse = importHfConfig({ ...QWEN3_30B_A3B, decoder_sparse_step: 2, mlp_only_layers: [0, 1] });
  assert.equal(sparse.model.moe.every, 2);
  assert.equal(sparse.model.moe.dense_layers, 2);
  evaluates(moe.model);
});

const QWEN3_NEXT = {
  architectures: ['Qwen3NextForCausalLM'], attention_bias: false, attention_dropout: 0.0, bos_token_id: 151643, decoder_sparse_step: 1,
  eos_token_id: 151645, full_attention_interval: 4, head_dim: 256, hidden_act: 'silu', hidden_size: 2048, initializer_range: 0.02,
  intermediate_size: 5120, linear_conv_kernel_dim: 4, linear_key_head_dim: 128, linear_num_key_heads: 16, linear_num_value_heads: 32,
  linear_value_head_dim: 128, max_position_embeddings: 262144, mlp_only_layers: [], model_type: 'qwen3_next', moe_intermediate_size: 512,
  norm_topk_prob: true, num_attention_heads: 16, num_experts: 512, num_experts_per_tok: 10, num_hidden_layers: 48, num_key_value_heads: 2,
  output_router_logits: false, partial_rotary_factor: 0.25, rms_norm_eps: 1e-6, rope_scaling: null, rope_theta: 10000000,
  router_aux_loss_coef: 0.001, shared_expert_intermediate_size: 512, tie_word_embeddings: false, torch_dtype: 'bfloat16',
  transformers_version: '4.57.0.dev0', use_cache: true, use_sliding_window: false, vocab_size: 151936,
};

test('Qwen3-Next: Gated DeltaNet layers, a full-attention layer every 4th, gated attention, shared expert', async () => {
  const r = importHfConfig(QWEN3_NEXT);
  assert.equal(r.family, 'qwen3_next');
  assert.deepEqual(r.model.linear_attention, { key_heads: 16, value_heads: 32, key_head_dim: 128, value_head_dim: 128, conv_kernel: 4, full_every: 4 });
  assert.deepEqual(r.model.attention, { output_gate: true });
  asPreset(r, 'qwen3-next-80b-a3b');
  assert.deepEqual(r.unknown, []);
  assert.equal(await closest(r.model), 'qwen3-next-80b-a3b');
  // layer_types spelled out say the same; an irregular list is read approximately, with a warning
  const types = Array.from({ length: 48 }, (_, i) => ((i + 1) % 4 === 0 ? 'full_attention' : 'linear_attention'));
  assert.equal(importHfConfig({ ...QWEN3_NEXT, layer_types: types }).model.linear_attention.full_every, 4);
  const odd = importHfConfig({ ...QWEN3_NEXT, layer_types: types.map((t, i) => (i === 0 ? 'full_attention' : t)) });
  assert.match(odd.warnings.join(' '), /irregular/);
  // 36 linear layers keep a fixed state, 12 full layers a KV cache (tp 8: one KV head replicated)
  const kv = kvTypes(r.model, 'dgx-h100', 8);
  assert.deepEqual(kv.map((t) => [t.type, t.layers]), [['full', 12], ['linear_state', 36]]);
  assert.equal(kv[0].bytes_per_token_per_layer, 2 * 256 * 2);
  assert.equal(kv[1].bytes_per_sequence, 36 * ((32 / 8) * 128 * 128 * 4 + 3 * ((2 * 16 * 128 + 32 * 128) / 8) * 2));
  const out = evaluates(r.model);
  assert.ok(Math.abs(out.model.parameters / 80e9 - 1) < 0.01, String(out.model.parameters));
});

const BAMBA_9B = {
  architectures: ['BambaForCausalLM'], model_type: 'bamba', attn_layer_indices: [9, 18, 27], hidden_act: 'silu', hidden_size: 4096,
  intermediate_size: 14336, mamba_chunk_size: 256, mamba_conv_bias: true, mamba_d_conv: 4, mamba_d_head: 64, mamba_d_state: 128,
  mamba_expand: 2, mamba_n_groups: 1, mamba_n_heads: 128, mamba_proj_bias: false, max_position_embeddings: 262144,
  num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 8, rms_norm_eps: 1e-5, rope_theta: 10000,
  tie_word_embeddings: false, torch_dtype: 'bfloat16', use_cache: true, vocab_size: 128256,
};

test('Bamba-9B: Mamba-2 layers with softmax attention at attn_layer_indices', async () => {
  const r = importHfConfig(BAMBA_9B);
  assert.equal(r.family, 'bamba');
  // 3 attention layers at 9, 18, 27 of 32: read as every 10th (9, 19, 29), the same count, with a warning
  assert.deepEqual(r.model.linear_attention, {
    kind: 'mamba2', key_heads: 1, value_heads: 128, key_head_dim: 128, value_head_dim: 64, conv_kernel: 4, chunk: 256, full_every: 10,
  });
  assert.match(r.warnings.join(' '), /attn_layer_indices: 3 full-attention layers of 32 in an irregular pattern: read as every 10th layer full \(3 layers\)/);
  asPreset(r, 'bamba-9b');
  assert.deepEqual(r.unknown, []);
  assert.equal(await closest(r.model), 'bamba-9b');
  // mamba_d_head "auto": expand x hidden / heads
  assert.equal(importHfConfig({ ...BAMBA_9B, mamba_d_head: 'auto' }).model.linear_attention.value_head_dim, 64);
  assert.throws(() => importHfConfig({ ...BAMBA_9B, mamba_n_groups: 3 }), /not a multiple of mamba_n_groups/);
  const kv = kvTypes(r.model, 'dgx-h100', 1);
  assert.deepEqual(kv.map((t) => [t.type, t.layers]), [['full', 3], ['linear_state', 29]]);
  assert.equal(kv[1].bytes_per_sequence, 29 * (128 * 128 * 64 * 4 + 3 * (8192 + 2 * 128) * 2));
  const out = evaluates(r.model);
  assert.ok(Math.abs(out.model.parameters / 9.78e9 - 1) < 0.01, String(out.model.parameters));
});

// Shaped like NVIDIA's Nemotron-H 8B config.json: Mamba-2, attention and MLP
// blocks in the order of hybrid_override_pattern, squared-ReLU MLPs.
const NEMOTRON_H = {
  architectures: ['NemotronHForCausalLM'], model_type: 'nemotron_h', hidden_size: 4096, intermediate_size: 21504,
  hybrid_override_pattern: 'M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-', num_hidden_layers: 52,
  num_attention_heads: 32, num_key_value_heads: 8, head_dim: 128, mlp_hidden_act: 'relu2', layer_norm_epsilon: 1e-5,
  mamba_num_heads: 128, mamba_head_dim: 64, ssm_state_size: 128, n_groups: 8, conv_kernel: 4, chunk_size: 128, expand: 2,
  mamba_hidden_act: 'silu', use_conv_bias: true, use_bias: false, residual_in_fp32: false, rescale_prenorm_residual: true,
  max_position_embeddings: 8192, tie_word_embeddings: false, vocab_size: 131072, torch_dtype: 'bfloat16', use_cache: true,
};

test('Nemotron-H: the mixers of the pattern are the layers, the MLP-less ones mixer_only_layers', () => {
  const r = importHfConfig(NEMOTRON_H);
  assert.equal(r.family, 'nemotron_h');
  // 24 M, 4 * and 24 - blocks: 28 mixer layers, 4 of them with no MLP after them
  assert.equal(r.model.layers, 28);
  assert.equal(r.model.mixer_only_layers, 4);
  assert.equal(r.model.ffn_type, 'relu2');
  assert.equal(r.model.norm, 'rmsnorm');
  assert.deepEqual(r.model.linear_attention, {
    kind: 'mamba2', key_heads: 8, value_heads: 128, key_head_dim: 128, value_head_dim: 64, conv_kernel: 4, chunk: 128, full_every: 7,
  });
  assert.match(r.warnings.join(' '), /24 Mamba-2, 4 attention and 24 MLP blocks, read as 28 layers, 4 of them without an MLP/);
  assert.deepEqual(r.unknown, []);
  const out = evaluates(r.model);
  // embeddings and head 2 x 131072 x 4096, 24 MLPs of 2 x 4096 x 21504, 24 Mamba-2 mixers
  // (in_proj 4096 x 18560, conv 10240 x 5, 3 x 128, norm 8192, out_proj 8192 x 4096), 4 attention
  // mixers (4096 x 6144 + 4096 x 4096) and 52 norms of 4096 plus the final one
  const mamba = 4096 * 18560 + 10240 * 5 + 384 + 8192 + 8192 * 4096;
  const want = 2 * 131072 * 4096 + 24 * 2 * 4096 * 21504 + 24 * mamba + 4 * (4096 * 6144 + 4096 * 4096) + 53 * 4096;
  assert.ok(Math.abs(out.model.parameters - want) < 1, `${out.model.parameters} vs ${want}`);
  assert.throws(() => importHfConfig({ ...NEMOTRON_H, hybrid_override_pattern: 'M-E*' }), /both MLP \(-\) and MoE \(E\) blocks/);
  assert.throws(() => importHfConfig({ ...NEMOTRON_H, hybrid_override_pattern: 'M--' }), /2 MLP blocks for 1 mixers/);
  assert.throws(() => importHfConfig({ ...NEMOTRON_H, hybrid_override_pattern: 'MEM*E' }), /no number of experts/);
});

// A small model shaped like a Nemotron 3 config.json: MoE blocks (E) in
// place of the MLPs, a shared expert beside the routed ones.
const NEMOTRON_MOE = {
  ...NEMOTRON_H, hidden_size: 1024, intermediate_size: 4096, hybrid_override_pattern: 'MEMEM*E'.repeat(4), num_hidden_layers: 28,
  num_attention_heads: 8, num_key_value_heads: 2, mamba_num_heads: 32, mamba_head_dim: 64, ssm_state_size: 64, n_groups: 2, vocab_size: 1000,
  n_routed_experts: 8, num_experts_per_tok: 2, moe_intermediate_size: 1024, moe_shared_expert_intermediate_size: 2048,
};

test('Nemotron-H with MoE blocks: the mixers without one are mixer-only MoE layers', () => {
  const r = importHfConfig(NEMOTRON_MOE);
  // each 'MEMEM*E' holds 3 Mamba-2 and 1 attention mixer and 3 MoE blocks: 16 layers, 4 without a block
  assert.equal(r.model.layers, 16);
  assert.equal(r.model.mixer_only_layers, 4);
  assert.equal(r.model.linear_attention.full_every, 4);
  assert.deepEqual(r.model.moe, { experts: 8, top_k: 2, ffn_hidden: 1024, shared_experts: 1, shared_ffn_hidden: 2048, dense_layers: 0 });
  assert.match(r.warnings.join(' '), /12 Mamba-2, 4 attention and 12 MoE blocks, read as 16 layers, 4 of them without an MoE block/);
  const out = evaluates(r.model);
  // 12 Mamba-2 mixers (in_proj 1024 x 4384, conv 2304 x 5, 3 x 32, norm 2048, out_proj 2048 x 1024),
  // 4 attention mixers (1024 x 1536 + 1024 x 1024), 12 MoE blocks (8 experts of 2 x 1024 x 1024,
  // the shared one of 2 x 1024 x 2048, the router 1024 x 8), 28 norms and the final one, embedding and head
  const mamba = 1024 * 4384 + 2304 * 5 + 96 + 2048 + 2048 * 1024;
  const moe = 8 * 2 * 1024 * 1024 + 2 * 1024 * 2048 + 1024 * 8;
  const want = 12 * mamba + 4 * (1024 * 1536 + 1024 * 1024) + 12 * moe + 29 * 1024 + 2 * 1000 * 1024;
  assert.ok(Math.abs(out.model.parameters - want) < 1, `${out.model.parameters} vs ${want}`);
  assert.throws(() => importHfConfig({ ...NEMOTRON_MOE, hybrid_override_pattern: 'M-M*-' }), /MLP \(-\) blocks, not MoE \(E\)/);
  // 6 attention mixers of 29, which no every-G-th reading gives (7 or 5): their count, spread evenly
  const odd = importHfConfig({ ...NEMOTRON_MOE, hybrid_override_pattern: 'MEMEM*E'.repeat(6) + 'MEMEMEMEME' });
  assert.equal(odd.model.layers, 29);
  assert.equal(odd.model.mixer_only_layers, 6);
  assert.equal(odd.model.linear_attention.full_layers, 6);
  assert.equal(odd.model.linear_attention.full_every, undefined);
  assert.match(odd.warnings.join(' '), /6 full-attention layers of 29 in an irregular pattern: read as 6 spread evenly/);
  const kv = evaluates(odd.model).inference.kv_cache_by_layer_type;
  assert.deepEqual(kv.map((t) => [t.type, t.layers]), [['full', 6], ['linear_state', 23]]);
});

test('GLM-4.5: 96 query heads on a 5120 hidden size, leading dense layers, a shared expert and the MTP layer', async () => {
  const cfg = {
    architectures: ['Glm4MoeForCausalLM'], attention_bias: true, attention_dropout: 0.0, eos_token_id: [151329, 151336, 151338], first_k_dense_replace: 3,
    head_dim: 128, hidden_act: 'silu', hidden_size: 5120, initializer_range: 0.02, intermediate_size: 12288, max_position_embeddings: 131072,
    model_type: 'glm4_moe', moe_intermediate_size: 1536, n_group: 1, n_routed_experts: 160, n_shared_experts: 1, norm_topk_prob: true,
    num_attention_heads: 96, num_experts_per_tok: 8, num_hidden_layers: 92, num_key_value_heads: 8, num_nextn_predict_layers: 1,
    pad_token_id: 151329, partial_rotary_factor: 0.5, rms_norm_eps: 1e-5, rope_scaling: null, rope_theta: 1000000, routed_scaling_factor: 2.5,
    tie_word_embeddings: false, topk_group: 1, torch_dtype: 'bfloat16', transformers_version: '4.54.0', use_cache: true, use_qk_norm: true, vocab_size: 151552,
  };
  const r = importHfConfig(cfg);
  assert.equal(r.family, 'glm4_moe');
  // a 131,072-token window with no pre-training length named: the training
  // sequences default to the whole window, and the report says so
  assert.equal(r.model.seq_len, 131072);
  assert.deepEqual(r.warnings, ['max_position_embeddings 131072: the context window, also taken as the training sequence length (config.json names no shorter pre-training length, rope_scaling.original_max_position_embeddings); set seq len to the length you train at']);
  asPreset(r, 'glm4.5');
  assert.deepEqual(r.unknown, []);
  assert.equal(await closest(r.model), 'glm4.5');
  const air = importHfConfig({ ...cfg, hidden_size: 4096, num_hidden_layers: 46, intermediate_size: 10944, moe_intermediate_size: 1408, n_routed_experts: 128, first_k_dense_replace: 1, use_qk_norm: false });
  asPreset(air, 'glm4.5-air');
  assert.equal(r.model.qk_norm, true);
  assert.equal(air.model.qk_norm, undefined, 'use_qk_norm false: no QK-Norm');
  evaluates(air.model);
});

test('GPT-OSS: sliding window and layer_types, sinks, biases, experts_per_token', async () => {
  const r = importHfConfig(GPT_OSS_120B);
  assert.equal(r.family, 'gpt_oss');
  assert.deepEqual(r.model.attention, { window: 128, global_every: 2, sinks: true });
  assert.equal(r.model.bias, true);
  asPreset(r, 'gpt-oss-120b');
  assert.deepEqual(r.unknown, []);
  assert.match(r.warnings.join(' '), /mxfp4/);
  assert.equal(await closest(r.model), 'gpt-oss-120b');
  const small = importHfConfig({ ...GPT_OSS_120B, num_hidden_layers: 24, num_local_experts: 32, layer_types: GPT_OSS_120B.layer_types.slice(0, 24) });
  assert.equal(await closest(small.model), 'gpt-oss-20b');
  const only = { ...GPT_OSS_120B, num_experts_per_tok: undefined };
  delete only.num_experts_per_tok;
  assert.equal(importHfConfig(only).model.moe.top_k, 4);
  const kv = kvTypes(r.model, 'gb200-nvl72', 1);
  assert.equal(kv.length, 2);
  for (const t of kv) assert.equal(t.layers, 18);
});

test('Llama 4: text_config, chunked attention, NoPE global layers, shared expert, interleaved MoE', async () => {
  const scout = importHfConfig(LLAMA4_SCOUT);
  assert.equal(scout.family, 'llama4');
  assert.deepEqual(scout.model.attention, { chunk: 8192, global_every: 4 });
  assert.deepEqual(scout.model.moe, { experts: 16, top_k: 1, ffn_hidden: 8192, shared_experts: 1, dense_layers: 0 });
  assert.equal(scout.model.ffn_hidden, 16384);
  asPreset(scout, 'llama4-scout');
  assert.deepEqual(scout.unknown, []);
  assert.ok(scout.ignored.includes('vision_config'));
  assert.equal(scout.model.qk_norm, true, 'use_qk_norm is read, not ignored');
  assert.ok(!scout.ignored.includes('text_config.use_qk_norm'));
  assert.match(scout.warnings.join(' '), /vision/);
  assert.equal(await closest(scout.model), 'llama4-scout');
  const maverick = importHfConfig(LLAMA4_MAVERICK);
  assert.equal(maverick.model.moe.every, 2);
  asPreset(maverick, 'llama4-maverick');
  assert.equal(await closest(maverick.model), 'llama4-maverick');
  // no no_rope_layers: every 4th layer global, as transformers' default
  const { no_rope_layers: _x, ...bare } = LLAMA4_TEXT;
  assert.equal(importHfConfig({ ...LLAMA4_SCOUT, text_config: bare }).model.attention.global_every, 4);
  // a text-only config (llama4_text at the top level)
  assert.equal(importHfConfig(LLAMA4_TEXT).family, 'llama4');
});

test('Gemma 3: text_config, sliding window 1024 with 5 local layers per global one, Gemma defaults', async () => {
  const r = importHfConfig(GEMMA3_27B);
  assert.equal(r.family, 'gemma3');
  assert.deepEqual(r.model.attention, { window: 1024, global_every: 6 });
  assert.equal(r.model.ffn_type, 'geglu');
  assert.equal(r.model.tied_embeddings, true);
  assert.equal(r.model.vocab, 262208);
  asPreset(r, 'gemma3-27b');
  assert.deepEqual(r.unknown, []);
  assert.match(r.warnings.join(' '), /default taken: .*vocab_size 262208/);
  assert.equal(await closest(r.model), 'gemma3-27b');
  // newer configs list layer_types and sliding_window_pattern
  const types = Array.from({ length: 62 }, (_, i) => ((i + 1) % 6 === 0 ? 'full_attention' : 'sliding_attention'));
  const newer = importHfConfig({ ...GEMMA3_27B, text_config: { ...GEMMA3_27B.text_config, layer_types: types, sliding_window_pattern: 6, vocab_size: 262208 } });
  assert.deepEqual(newer.model.attention, { window: 1024, global_every: 6 });
  assert.deepEqual(newer.unknown, []);
  const kv = kvTypes(r.model, 'gb200-nvl72', 1);
  assert.equal(kv.length, 2);
});

test('an imported model never inherits structure its base preset has and it lacks', async () => {
  const { modelValues } = await import('../../web/src/form/custom-model.js');
  const schema = JSON.parse(ctx.mod.schema());
  // Kimi K2 on top of DeepSeek-V3 would keep mtp_layers 1: the import sets 0
  const k2 = importHfConfig(KIMI_K2).model;
  const values = modelValues(k2, schema.fields, ctx.presets.models['deepseek-v3'].model);
  assert.equal(values['model.mtp_layers'], '0');
  // a Llama 4 Scout import based on Maverick goes back to every layer MoE
  const scout = importHfConfig(LLAMA4_SCOUT).model;
  assert.equal(modelValues(scout, schema.fields, ctx.presets.models['llama4-maverick'].model)['model.moe.every'], '1');
});

// Shaped like a Granite 4.0-H config.json (GraniteMoeHybridConfig): Mamba-2
// and attention layers by layer_types, a shared SwiGLU MLP in every layer and
// routed experts beside it.
const GRANITE_H = {
  architectures: ['GraniteMoeHybridForCausalLM'], model_type: 'granitemoehybrid', hidden_size: 1536, num_hidden_layers: 40,
  layer_types: Array.from({ length: 40 }, (_, i) => (i % 10 === 5 ? 'attention' : 'mamba')),
  num_attention_heads: 12, num_key_value_heads: 4, hidden_act: 'silu', rms_norm_eps: 1e-5, vocab_size: 100352, tie_word_embeddings: true,
  mamba_n_heads: 48, mamba_d_head: 64, mamba_n_groups: 1, mamba_d_state: 128, mamba_d_conv: 4, mamba_expand: 2, mamba_chunk_size: 256,
  mamba_conv_bias: true, mamba_proj_bias: false, num_local_experts: 62, num_experts_per_tok: 6, intermediate_size: 512,
  shared_intermediate_size: 1024, max_position_embeddings: 131072, embedding_multiplier: 12, logits_scaling: 6, residual_multiplier: 0.22,
  attention_multiplier: 0.0078125, position_embedding_type: 'nope', router_aux_loss_coef: 0, output_router_logits: false,
};

test('Granite 4.0-H: a shared MLP in every layer beside the routed experts; without experts the shared MLP alone', () => {
  const r = importHfConfig(GRANITE_H);
  assert.equal(r.family, 'granitemoehybrid');
  assert.deepEqual(r.unknown, []);
  assert.equal(r.model.ffn_hidden, 1024);
  assert.deepEqual(r.model.moe, { experts: 62, top_k: 6, ffn_hidden: 512, shared_experts: 1, shared_ffn_hidden: 1024, dense_layers: 0 });
  // attention at layers 5, 15, 25, 35: 4 of 40, read as every 10th (the same count)
  assert.equal(r.model.linear_attention.full_every, 10);
  assert.equal(r.model.tied_embeddings, true);
  const out = evaluates(r.model);
  // 36 Mamba-2 mixers (in_proj 1536 x 6448, conv 3328 x 5, 3 x 48, norm 3072, out_proj 3072 x 1536),
  // 4 attention mixers (1536 x 2560 + 1536 x 1536), 40 MLP blocks (62 experts of 3 x 1536 x 512,
  // the shared one of 3 x 1536 x 1024, the router 1536 x 62), 81 norms and the tied embedding
  const mamba = 1536 * 6448 + 3328 * 5 + 144 + 3072 + 3072 * 1536;
  const mlp = 62 * 3 * 1536 * 512 + 3 * 1536 * 1024 + 1536 * 62;
  const want = 36 * mamba + 4 * (1536 * 2560 + 1536 * 1536) + 40 * mlp + 81 * 1536 + 100352 * 1536;
  assert.ok(Math.abs(out.model.parameters - want) < 1, `${out.model.parameters} vs ${want}`);
  // Granite 4.0-H Micro: no routed experts, the shared MLP is the layer's MLP
  const dense = importHfConfig({ ...GRANITE_H, num_local_experts: 0, shared_intermediate_size: 8192 });
  assert.equal(dense.model.moe, undefined);
  assert.equal(dense.model.ffn_hidden, 8192);
  assert.deepEqual(dense.unknown, []);
  assert.match(dense.warnings.join(' '), /intermediate_size: the routed experts' width, unused/);
});
