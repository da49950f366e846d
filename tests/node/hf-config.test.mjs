// Hugging Face config.json import (web/src/form/hf-config.js): each family maps to
// the model section, the result is a valid scenario for the real core, and the
// fields it does not understand are listed.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { importHfConfig } from '../../web/src/form/hf-config.js';
import { ctx, loadContext, samePreset, evaluates } from './hf-context.mjs';

before(loadContext);

const LLAMA31_8B = {
  architectures: ['LlamaForCausalLM'], attention_bias: false, attention_dropout: 0.0, bos_token_id: 128000, eos_token_id: 128001,
  hidden_act: 'silu', hidden_size: 4096, initializer_range: 0.02, intermediate_size: 14336, max_position_embeddings: 131072,
  mlp_bias: false, model_type: 'llama', num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 8, pretraining_tp: 1,
  rms_norm_eps: 1e-5, rope_scaling: { factor: 8.0, high_freq_factor: 4.0, low_freq_factor: 1.0, original_max_position_embeddings: 8192, rope_type: 'llama3' },
  rope_theta: 500000.0, tie_word_embeddings: false,
  torch_dtype: 'bfloat16', transformers_version: '4.43.0.dev0', use_cache: true, vocab_size: 128256,
};

test('Llama 3.1 8B maps to the preset architecture', () => {
  const r = importHfConfig(JSON.stringify(LLAMA31_8B));
  assert.equal(r.family, 'llama');
  samePreset(r.model, 'llama3.1-8b');
  // the context window, and the pre-training length Llama 3.1's RoPE scaling extended
  assert.equal(r.model.context, 131072);
  assert.equal(r.model.seq_len, 8192);
  assert.doesNotMatch(r.warnings.join(' '), /max_position_embeddings/, 'the extension names the pre-training length');
  assert.deepEqual(r.unknown, []);
  assert.ok(r.ignored.includes('rope_theta'));
  const out = evaluates(r.model);
  const pub = ctx.presets.models['llama3.1-8b'].published_params;
  assert.ok(Math.abs(out.model.parameters / pub - 1) < 0.01, `${out.model.parameters} vs ${pub}`);
});

test('Mixtral 8x7B: num_local_experts and num_experts_per_tok become moe', () => {
  const r = importHfConfig({
    architectures: ['MixtralForCausalLM'], model_type: 'mixtral', hidden_act: 'silu', hidden_size: 4096, intermediate_size: 14336,
    max_position_embeddings: 32768, num_attention_heads: 32, num_experts_per_tok: 2, num_hidden_layers: 32, num_key_value_heads: 8,
    num_local_experts: 8, output_router_logits: false, rms_norm_eps: 1e-5, rope_theta: 1e6, router_aux_loss_coef: 0.02,
    sliding_window: null, tie_word_embeddings: false, vocab_size: 32000,
  });
  assert.deepEqual(r.model.moe, { experts: 8, top_k: 2, ffn_hidden: 14336, shared_experts: 0, dense_layers: 0 });
  samePreset(r.model, 'mixtral-8x7b');
  evaluates(r.model);
});

test('Mistral 7B and Qwen2 7B', () => {
  const mistral = importHfConfig({
    model_type: 'mistral', hidden_size: 4096, intermediate_size: 14336, num_attention_heads: 32, num_hidden_layers: 32,
    num_key_value_heads: 8, vocab_size: 32768, max_position_embeddings: 32768, hidden_act: 'silu', rms_norm_eps: 1e-5, head_dim: 128,
  });
  assert.equal(mistral.model.kv_heads, 8);
  assert.equal(mistral.model.ffn_type, 'swiglu');
  evaluates(mistral.model);
  const qwen = importHfConfig({
    architectures: ['Qwen2ForCausalLM'], model_type: 'qwen2', hidden_size: 3584, intermediate_size: 18944, num_attention_heads: 28,
    num_hidden_layers: 28, num_key_value_heads: 4, vocab_size: 152064, max_position_embeddings: 131072, rms_norm_eps: 1e-6,
    tie_word_embeddings: false, use_sliding_window: false, sliding_window: 131072, max_window_layers: 28, hidden_act: 'silu',
  });
  assert.equal(qwen.model.head_dim, 128);
  assert.equal(qwen.model.kv_heads, 4);
  assert.equal(qwen.model.norm, 'rmsnorm');
  assert.deepEqual(qwen.unknown, []);
  const out = evaluates(qwen.model);
  assert.ok(Math.abs(out.model.parameters / 7.6e9 - 1) < 0.02, String(out.model.parameters));
});

test('GPT-2: n_layer, n_embd, n_head, n_positions, vocab_size', () => {
  const r = importHfConfig({
    activation_function: 'gelu_new', architectures: ['GPT2LMHeadModel'], attn_pdrop: 0.1, bos_token_id: 50256, embd_pdrop: 0.1,
    eos_token_id: 50256, initializer_range: 0.02, layer_norm_epsilon: 1e-5, model_type: 'gpt2', n_ctx: 1024, n_embd: 768, n_head: 12,
    n_layer: 12, n_positions: 1024, resid_pdrop: 0.1, summary_type: 'cls_index', vocab_size: 50257, n_inner: null,
    some_new_thing: 3,
  });
  assert.deepEqual(
    { ...r.model },
    {
      name: 'gpt2 (config.json)', layers: 12, hidden: 768, heads: 12, kv_heads: 12, head_dim: 64, ffn_hidden: 3072, ffn_type: 'gelu',
      norm: 'layernorm', vocab: 50257, seq_len: 1024, context: 1024, tied_embeddings: true, bias: true, learned_positions: true, dropout: false,
    },
  );
  assert.deepEqual(r.unknown, ['some_new_thing']);
  const out = evaluates(r.model);
  assert.ok(Math.abs(out.model.parameters / 124.4e6 - 1) < 0.01, String(out.model.parameters));
});

test('GPT-NeoX 20B', () => {
  const r = importHfConfig({
    architectures: ['GPTNeoXForCausalLM'], model_type: 'gpt_neox', hidden_act: 'gelu_fast', hidden_size: 6144, intermediate_size: 24576,
    layer_norm_eps: 1e-5, max_position_embeddings: 2048, num_attention_heads: 64, num_hidden_layers: 44, rotary_pct: 0.25,
    tie_word_embeddings: false, use_parallel_residual: true, vocab_size: 50432,
  });
  assert.equal(r.model.ffn_type, 'gelu');
  assert.equal(r.model.kv_heads, 64);
  assert.equal(r.model.bias, true);
  const out = evaluates(r.model);
  assert.ok(Math.abs(out.model.parameters / 20.55e9 - 1) < 0.02, String(out.model.parameters));
});

test('Falcon: multi_query, num_kv_heads and new_decoder_architecture', () => {
  const f7 = importHfConfig({ model_type: 'falcon', hidden_size: 4544, num_attention_heads: 71, num_hidden_layers: 32, multi_query: true, vocab_size: 65024, bias: false, new_decoder_architecture: false });
  assert.equal(f7.model.kv_heads, 1);
  assert.equal(f7.model.head_dim, 64);
  assert.equal(f7.model.ffn_hidden, 4 * 4544);
  assert.equal(f7.model.tied_embeddings, true);
  const f180 = importHfConfig({
    model_type: 'falcon', hidden_size: 14848, num_attention_heads: 232, num_hidden_layers: 80, num_kv_heads: 8, new_decoder_architecture: true,
    vocab_size: 65024, bias: false, parallel_attn: true, alibi: false, max_position_embeddings: 2048,
  });
  assert.equal(f180.model.kv_heads, 8);
  samePreset(f180.model, 'falcon-180b');
  const old = importHfConfig({ model_type: 'RefinedWeb', n_embd: 8192, n_head: 128, n_layer: 60, n_head_kv: 8, new_decoder_architecture: true, vocab_size: 65024 });
  assert.equal(old.family, 'falcon');
  assert.equal(old.model.kv_heads, 8);
  for (const r of [f7, f180, old]) evaluates(r.model);
});

test('bad input is an error with a message; unknown families are read Llama-style with a warning', () => {
  assert.throws(() => importHfConfig('{'), /not valid JSON/);
  assert.throws(() => importHfConfig('[1,2]'), /JSON object/);
  assert.throws(() => importHfConfig('{"model_type":"llama"}'), /no usable layers/);
  assert.throws(() => importHfConfig('x'.repeat(2 << 20)), /1 MiB/);
  const r = importHfConfig({ model_type: 'brand_new', num_hidden_layers: 2, hidden_size: 64, num_attention_heads: 4, vocab_size: 100, num_hidden_layers_x: 1 });
  assert.match(r.warnings.join(' '), /brand_new/);
  assert.deepEqual(r.unknown, ['num_hidden_layers_x']);
  const bad = importHfConfig({ model_type: 'llama', num_hidden_layers: 2, hidden_size: 64, num_attention_heads: 4, vocab_size: 100, num_key_value_heads: -3 });
  assert.equal(bad.model.kv_heads, 4);
  assert.match(bad.warnings.join(' '), /num_key_value_heads/);
});

test('an imported model becomes the closest preset plus only the fields that differ', async () => {
  const { closestPreset, modelValues } = await import('../../web/src/form/custom-model.js');
  const schema = JSON.parse(ctx.mod.schema());
  const modelKeys = schema.fields.filter((f) => f.key.startsWith('model.') && f.key !== 'model.name').map((f) => f.key.slice(6));
  const r = importHfConfig(LLAMA31_8B);
  const base = closestPreset(r.model, ctx.presets.models, modelKeys);
  assert.equal(base, 'llama3.1-8b');
  const values = modelValues(r.model, schema.fields, ctx.presets.models[base].model);
  // the label (model.name) is kept too; the lengths are the preset's (8,192 pre-trained, a 131,072 window)
  assert.deepEqual(Object.keys(values).filter((k) => k !== 'model.name').sort(), []);
});
