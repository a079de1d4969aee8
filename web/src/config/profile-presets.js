// The models the per-layer profile lab (labs/model-profile.js) offers ready-made: configs written from each model's
// published config.json format (its configuration class in transformers and the values on its model card), keeping the
// keys that decide where positions act. The whole config of each is public on the Hugging Face Hub under the name given.
const range = (n, f) => Array.from({ length: n }, (_, i) => f(i));

/** id -> {label, source: the Hub repository (or what the config follows), config: a config.json object}. */
export const MODEL_PROFILES = {
  'gemma-4': {
    label: 'Gemma-4 style: proportional RoPE on the global layers',
    source: 'transformers Gemma4TextConfig: its default rope_parameters (full_attention proportional, partial_rotary_factor 0.25, ' +
      'rope_theta 1e6, global_head_dim 512; sliding_attention default, rope_theta 1e4) and its layer pattern (every 6th full)',
    config: { architectures: ['Gemma4ForConditionalGeneration'], model_type: 'gemma4',
      text_config: { model_type: 'gemma4_text', hidden_size: 1536, num_attention_heads: 8, num_key_value_heads: 1, head_dim: 256,
        global_head_dim: 512, num_hidden_layers: 30, layer_types: range(30, (i) => ((i + 1) % 6 ? 'sliding_attention' : 'full_attention')),
        sliding_window: 512, max_position_embeddings: 131072, vocab_size: 262144,
        rope_parameters: { full_attention: { partial_rotary_factor: 0.25, rope_theta: 1000000, rope_type: 'proportional' },
          sliding_attention: { rope_theta: 10000, rope_type: 'default' } } } },
  },
  'gemma-3-4b': {
    label: 'Gemma-3 4B: local layers at θ 10⁴, every 6th global at θ 10⁶ ×8',
    source: 'google/gemma-3-4b-it (Gemma3TextConfig, transformers v4 form: rope_local_base_freq, sliding_window_pattern)',
    config: { architectures: ['Gemma3ForConditionalGeneration'], model_type: 'gemma3',
      text_config: { model_type: 'gemma3_text', hidden_size: 2560, num_attention_heads: 8, num_key_value_heads: 4, head_dim: 256,
        num_hidden_layers: 34, rope_theta: 1000000, rope_local_base_freq: 10000, sliding_window: 1024, sliding_window_pattern: 6,
        max_position_embeddings: 131072, rope_scaling: { factor: 8, rope_type: 'linear' }, vocab_size: 262208 } },
  },
  'llama-4-scout': {
    label: 'Llama 4 Scout: chunked RoPE layers, every 4th NoPE with temperature',
    source: 'meta-llama/Llama-4-Scout-17B-16E (Llama4TextConfig)',
    config: { architectures: ['Llama4ForConditionalGeneration'], model_type: 'llama4',
      text_config: { model_type: 'llama4_text', hidden_size: 5120, num_attention_heads: 40, num_key_value_heads: 8, head_dim: 128,
        num_hidden_layers: 48, max_position_embeddings: 10485760, rope_theta: 500000, attention_chunk_size: 8192, use_qk_norm: true,
        attn_temperature_tuning: true, floor_scale: 8192, attn_scale: 0.1, no_rope_layer_interval: 4, vocab_size: 202048,
        rope_scaling: { factor: 16, high_freq_factor: 1, low_freq_factor: 1, original_max_position_embeddings: 8192, rope_type: 'llama3' } } },
  },
  'smollm3-3b': {
    label: 'SmolLM3 3B: every 4th layer NoPE',
    source: 'HuggingFaceTB/SmolLM3-3B (SmolLM3Config)',
    config: { architectures: ['SmolLM3ForCausalLM'], model_type: 'smollm3', hidden_size: 2048, num_attention_heads: 16, num_key_value_heads: 4,
      num_hidden_layers: 36, max_position_embeddings: 65536, rope_theta: 5000000, no_rope_layer_interval: 4,
      no_rope_layers: range(36, (i) => ((i + 1) % 4 ? 1 : 0)), use_sliding_window: false, sliding_window: null, vocab_size: 128256 },
  },
  'gpt-oss-20b': {
    label: 'gpt-oss-20b: sliding (128) and full layers alternate, YaRN ×32',
    source: 'openai/gpt-oss-20b (GptOssConfig)',
    config: { architectures: ['GptOssForCausalLM'], model_type: 'gpt_oss', hidden_size: 2880, head_dim: 64, num_attention_heads: 64,
      num_key_value_heads: 8, num_hidden_layers: 24, layer_types: range(24, (i) => (i % 2 ? 'full_attention' : 'sliding_attention')),
      sliding_window: 128, rope_theta: 150000, max_position_embeddings: 131072, initial_context_length: 4096, vocab_size: 201088,
      rope_scaling: { beta_fast: 32, beta_slow: 1, factor: 32, original_max_position_embeddings: 4096, rope_type: 'yarn', truncate: false } },
  },
  'qwen3-next-80b': {
    label: 'Qwen3-Next 80B-A3B: linear attention, every 4th layer rotates a quarter',
    source: 'Qwen/Qwen3-Next-80B-A3B-Instruct (Qwen3NextConfig)',
    config: { architectures: ['Qwen3NextForCausalLM'], model_type: 'qwen3_next', hidden_size: 2048, num_attention_heads: 16,
      num_key_value_heads: 2, head_dim: 256, num_hidden_layers: 48, partial_rotary_factor: 0.25, rope_theta: 10000000,
      max_position_embeddings: 262144, full_attention_interval: 4, vocab_size: 151936 },
  },
  'deepseek-v3': {
    label: 'DeepSeek-V3: MLA rotates 64 of 192, YaRN ×40',
    source: 'deepseek-ai/DeepSeek-V3 (DeepseekV3Config)',
    config: { architectures: ['DeepseekV3ForCausalLM'], model_type: 'deepseek_v3', hidden_size: 7168, num_attention_heads: 128,
      num_key_value_heads: 128, num_hidden_layers: 61, qk_nope_head_dim: 128, qk_rope_head_dim: 64, v_head_dim: 128, kv_lora_rank: 512,
      q_lora_rank: 1536, rope_theta: 10000, max_position_embeddings: 163840, vocab_size: 129280,
      rope_scaling: { beta_fast: 32, beta_slow: 1, factor: 40, mscale: 1.0, mscale_all_dim: 1.0, original_max_position_embeddings: 4096, type: 'yarn' } },
  },
  'qwen2.5-vl-7b': {
    label: 'Qwen2.5-VL 7B: M-RoPE sections [16, 24, 24]',
    source: 'Qwen/Qwen2.5-VL-7B-Instruct (Qwen2_5_VLConfig)',
    config: { architectures: ['Qwen2_5_VLForConditionalGeneration'], model_type: 'qwen2_5_vl', hidden_size: 3584, num_attention_heads: 28,
      num_key_value_heads: 4, num_hidden_layers: 28, rope_theta: 1000000, max_position_embeddings: 128000, sliding_window: 32768,
      use_sliding_window: false, max_window_layers: 28, vocab_size: 152064, rope_scaling: { type: 'mrope', mrope_section: [16, 24, 24] } },
  },
  'llama-3.1-8b': {
    label: 'Llama 3.1 8B: one kind of layer (llama3 ×8)',
    source: 'meta-llama/Llama-3.1-8B (LlamaConfig)',
    config: { architectures: ['LlamaForCausalLM'], model_type: 'llama', hidden_size: 4096, num_attention_heads: 32, num_key_value_heads: 8,
      num_hidden_layers: 32, max_position_embeddings: 131072, rope_theta: 500000, vocab_size: 128256,
      rope_scaling: { factor: 8, high_freq_factor: 4, low_freq_factor: 1, original_max_position_embeddings: 8192, rope_type: 'llama3' } },
  },
};

/** A preset's config as the lab's config box holds it (indented JSON). */
export function presetText(id) {
  return JSON.stringify(MODEL_PROFILES[id].config, null, 1);
}
