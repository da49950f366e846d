// Hugging Face config.json families: which fields carry no performance
// meaning, how each model_type is read (gated MLP, norm, tied embeddings,
// key aliases and defaults) and how a config names its family.

// Fields that carry no performance meaning here.
export const IGNORED = new Set([
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
  'auto_map', 'dtype', 'rope_parameters', 'partial_rotary_factor',
  // Granite's scaling constants and position setting (same cost)
  'embedding_multiplier', 'logits_scaling', 'residual_multiplier', 'attention_multiplier', 'position_embedding_type',
  // router and load-balancing settings: no effect on time or memory here
  'topk_method', 'routed_scaling_factor', 'scoring_func', 'norm_topk_prob', 'aux_loss_alpha',
  'seq_aux', 'ep_size', 'router_aux_loss_coef', 'moe_aux_loss_coef', 'router_z_loss_coef',
  // numerics of attention and logits (same cost)
  'query_pre_attn_scalar', 'attn_logit_softcapping', 'final_logit_softcapping', 'rope_local_base_freq',
  'cache_implementation', 'swiglu_limit', 'attn_temperature_tuning', 'floor_scale', 'attn_scale',
  'initial_context_length', 'for_llm_compressor', 'use_sliding_window',
  // the multimodal wrapper around a text_config (the vision tower is not modelled)
  'vision_config', 'image_token_index', 'image_token_id', 'boi_token_index', 'eoi_token_index', 'mm_tokens_per_image',
  'vision_feature_layer', 'vision_feature_select_strategy', 'projector_hidden_act', 'multi_modal_projector_bias',
  // Mamba-2 numerics and initialisation (same cost)
  'mamba_hidden_act', 'residual_in_fp32', 'rescale_prenorm_residual', 'num_logits_to_keep', 'use_mamba_kernels',
  'time_step_min', 'time_step_max', 'time_step_floor', 'time_step_limit', 'time_step_rank', 'mamba_dt_min', 'mamba_dt_max',
  'mamba_dt_init_floor', 'mamba_dt_limit', 'attn_rotary_emb', 'z_loss_coefficient',
]);

// Family -> how to read it. Each reader returns the model object; it marks the
// keys it used through `get`.
export const FAMILIES = {
  llama: { gated: true, norm: 'rmsnorm', tied: false },
  mistral: { gated: true, norm: 'rmsnorm', tied: false },
  mixtral: { gated: true, norm: 'rmsnorm', tied: false, moe: true },
  qwen2: { gated: true, norm: 'rmsnorm', tied: false },
  qwen2_moe: { gated: true, norm: 'rmsnorm', tied: false, moe: true },
  gpt2: { gated: false, norm: 'layernorm', tied: true, gpt2: true },
  gpt_neox: { gated: false, norm: 'layernorm', tied: false },
  falcon: { gated: false, norm: 'layernorm', tied: true, falcon: true },
  // MLA + DeepSeekMoE (Kimi K2 ships the same layout under model_type kimi_k2)
  deepseek_v3: { gated: true, norm: 'rmsnorm', tied: false, moe: true, mla: true },
  // DeepSeek-V3.2: DeepSeek-V3 with sparse attention (index_topk, index_n_heads, index_head_dim)
  deepseek_v32: { gated: true, norm: 'rmsnorm', tied: false, moe: true, mla: true },
  deepseek_v2: { gated: true, norm: 'rmsnorm', tied: false, moe: true, mla: true },
  kimi_k2: { gated: true, norm: 'rmsnorm', tied: false, moe: true, mla: true },
  // Qwen3 normalises each head's q and k (QK-Norm) without a config key
  qwen3: { gated: true, norm: 'rmsnorm', tied: false, qkNorm: true },
  qwen3_moe: { gated: true, norm: 'rmsnorm', tied: false, moe: true, qkNorm: true },
  // GLM-4.5 / 4.5-Air: DeepSeek-style MoE (leading dense layers, shared expert, MTP) on GQA
  glm4_moe: { gated: true, norm: 'rmsnorm', tied: false, moe: true },
  // Gated DeltaNet linear-attention layers between gated softmax-attention layers
  qwen3_next: { gated: true, norm: 'rmsnorm', tied: false, moe: true, linear: true, qkNorm: true },
  // Mamba-2 layers with a few softmax-attention layers (attn_layer_indices), an MLP after each
  bamba: { gated: true, norm: 'rmsnorm', tied: false, mamba: true },
  // Mamba-2, attention and MLP blocks in the order of hybrid_override_pattern; RMSNorm
  // under the name layer_norm_epsilon
  nemotron_h: { gated: false, norm: 'rmsnorm', normFixed: true, tied: false, mamba: true, pattern: true },
  // Granite 4.0-H: Mamba-2 and attention layers (layer_types), each followed by a shared
  // SwiGLU MLP of shared_intermediate_size and, when num_local_experts > 0, routed
  // experts of intermediate_size beside it (transformers GraniteMoeHybridConfig)
  granitemoehybrid: { gated: true, norm: 'rmsnorm', tied: true, mamba: true, granite: true },
  // alternating sliding-window / full attention with per-head sinks, biased
  gpt_oss: { gated: true, norm: 'rmsnorm', tied: false, moe: true, sinks: true, bias: true },
  // iRoPE: chunked local attention, every 4th layer global (NoPE); one shared expert
  llama4: { gated: true, norm: 'rmsnorm', tied: false, moe: true, llama4: true },
  // 5 sliding-window layers per global layer; Gemma defaults when config.json omits them
  gemma3: {
    gated: true, norm: 'rmsnorm', tied: true, qkNorm: true,
    defaults: { vocab_size: 262208, sliding_window: 4096, sliding_window_pattern: 6, hidden_activation: 'gelu_pytorch_tanh', max_position_embeddings: 131072 },
  },
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
  DeepseekV3ForCausalLM: 'deepseek_v3',
  DeepseekV32ForCausalLM: 'deepseek_v32',
  DeepseekV2ForCausalLM: 'deepseek_v2',
  Qwen3ForCausalLM: 'qwen3',
  Qwen3MoeForCausalLM: 'qwen3_moe',
  Qwen3NextForCausalLM: 'qwen3_next',
  Glm4MoeForCausalLM: 'glm4_moe',
  BambaForCausalLM: 'bamba',
  NemotronHForCausalLM: 'nemotron_h',
  GraniteMoeHybridForCausalLM: 'granitemoehybrid',
  GptOssForCausalLM: 'gpt_oss',
  Llama4ForConditionalGeneration: 'llama4',
  Llama4ForCausalLM: 'llama4',
  llama4_text: 'llama4',
  Gemma3ForConditionalGeneration: 'gemma3',
  Gemma3ForCausalLM: 'gemma3',
  gemma3_text: 'gemma3',
};

export function detectFamily(cfg, text) {
  for (const c of [cfg, text]) {
    if (!c) continue;
    const t = typeof c.model_type === 'string' ? c.model_type : '';
    if (FAMILIES[t]) return t;
    if (ALIASES[t]) return ALIASES[t];
    const arch = Array.isArray(c.architectures) ? c.architectures.find((a) => typeof a === 'string') : null;
    if (arch && ALIASES[arch]) return ALIASES[arch];
  }
  if ('n_embd' in cfg && 'n_layer' in cfg) return 'gpt2';
  return null;
}
