// The per-layer positional profile (web/src/config/profile.js readProfile) on configs written
// here in the published Hugging Face formats (the keys each model's config.json has, a few
// of them each, not copied files). The expected kinds, layers, bases and windows were worked
// out by hand from transformers' configuration classes (layer_types and their defaults) and
// modeling files (which attention rotates); the test names say which. The core's names are
// handed in as model-config.js does with describe()'s; here they are a literal list.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { MAX_LAYERS, readConfig } from '../../web/src/config/hf-config.js';
import { readProfile } from '../../web/src/config/profile.js';
import { fields } from '../../web/src/labs/model-profile-fields.js';

const NAMES = {
  familyTypes: ['sinusoidal', 'learned', 'none', 'rope', 'xpos', 'alibi', 't5', 'shaw', 'transformer_xl', 'kerple', 'deberta', 'fire', 'cope'],
  ropeTypes: ['default', 'linear', 'dynamic', 'ntk', 'yarn', 'llama3', 'longrope', 'proportional'],
};
const profile = (config) => readProfile(config, NAMES);
const range = (from, to) => Array.from({ length: to - from }, (_, i) => from + i);
/** The layers of 0..n-1 that pass keep. */
const where = (n, keep) => range(0, n).filter(keep);
/** The kind of the given name (asserting there is one). */
function kind(p, name) {
  const found = p.kinds.filter((k) => k.name === name);
  assert.equal(found.length, 1, `one kind named ${name} in ${p.kinds.map((k) => k.name).join(', ')}`);
  return found[0];
}
/** Every layer's kind index agrees with the kinds' layer lists. */
function consistent(p) {
  assert.equal(p.layers.length, p.num_hidden_layers ?? 0);
  p.kinds.forEach((k, index) => k.layers.forEach((layer) => assert.equal(p.layers[layer], index)));
  assert.equal(p.kinds.reduce((sum, k) => sum + k.layers.length, 0), p.layers.length);
}

test('a plain Llama (3.1-8B): one kind, every layer full attention with readConfig’s spec', () => {
  const config = {
    architectures: ['LlamaForCausalLM'], model_type: 'llama', hidden_size: 4096, num_attention_heads: 32, num_key_value_heads: 8,
    num_hidden_layers: 32, max_position_embeddings: 131072, rope_theta: 500000.0, vocab_size: 128256,
    rope_scaling: { factor: 8.0, low_freq_factor: 1.0, high_freq_factor: 4.0, original_max_position_embeddings: 8192, rope_type: 'llama3' },
  };
  const p = profile(config);
  consistent(p);
  assert.equal(p.num_hidden_layers, 32);
  assert.deepEqual(p.kinds.map((k) => k.name), ['full_attention']);
  assert.deepEqual(p.kinds[0].spec, readConfig(config, NAMES).spec);
  assert.deepEqual(p.kinds[0].window, { kind: 'global' });
  assert.equal(p.kinds[0].temperature, null);
  assert.deepEqual(p.kinds[0].layers, range(0, 32));
  assert.deepEqual(p.layers, Array(32).fill(0));
  assert.equal(p.mrope, null);
  assert.deepEqual(p.read.spec, readConfig(config, NAMES).spec);
  assert.ok(p.read.used.includes('num_hidden_layers') && !p.read.ignored.includes('num_hidden_layers'));
});

test('Gemma-3 v4 (gemma-3-4b text_config): every 6th layer global (base 1e6, linear ×8), the others a 1024-token window at base 10000, unscaled', () => {
  // Gemma3TextConfig: sliding if (i + 1) % sliding_window_pattern; Gemma3TextModel's local rotary: rope_local_base_freq, rope_type default.
  const config = {
    architectures: ['Gemma3ForConditionalGeneration'], model_type: 'gemma3',
    text_config: { model_type: 'gemma3_text', hidden_size: 2560, num_attention_heads: 8, num_key_value_heads: 4, head_dim: 256,
      num_hidden_layers: 34, max_position_embeddings: 131072, rope_theta: 1000000.0, rope_local_base_freq: 10000.0,
      rope_scaling: { factor: 8.0, rope_type: 'linear' }, sliding_window: 1024, sliding_window_pattern: 6, query_pre_attn_scalar: 256 },
    vision_config: { model_type: 'siglip_vision_model', hidden_size: 1152 }, mm_tokens_per_image: 256,
  };
  const p = profile(config);
  consistent(p);
  assert.deepEqual(p.kinds.map((k) => k.name), ['sliding_attention', 'full_attention']);
  const local = kind(p, 'sliding_attention');
  const global = kind(p, 'full_attention');
  assert.deepEqual(global.layers, [5, 11, 17, 23, 29]);
  assert.deepEqual(local.layers, where(34, (i) => (i + 1) % 6 !== 0));
  assert.deepEqual(global.spec, { type: 'rope', head_dim: 256, rope_theta: 1000000, max_position_embeddings: 131072, layout: 'half',
    rope_scaling: { factor: 8, rope_type: 'linear' } });
  assert.deepEqual(global.spec, p.read.spec, 'the full-attention kind is readConfig’s spec');
  assert.deepEqual(local.spec, { type: 'rope', head_dim: 256, rope_theta: 10000, max_position_embeddings: 131072, layout: 'half' });
  assert.deepEqual(local.window, { kind: 'sliding', size: 1024 });
  assert.deepEqual(global.window, { kind: 'global' });
  const unmodelled = p.read.unmodelled.map((u) => u.key);
  for (const key of ['text_config.sliding_window_pattern', 'text_config.sliding_window']) {
    assert.ok(!unmodelled.includes(key), `${key} is modelled`);
    assert.ok(p.read.used.includes(key), `${key} is used`);
  }
  assert.ok(readConfig(config, NAMES).unmodelled.some((u) => u.key === 'text_config.sliding_window_pattern'), 'readConfig itself still names it');
});

test('Gemma-3 v5 (rope_parameters by layer type, layer_types given): each kind takes its own entry', () => {
  const layerTypes = range(0, 26).map((i) => ((i + 1) % 6 ? 'sliding_attention' : 'full_attention'));
  const config = {
    model_type: 'gemma3_text', hidden_size: 1152, num_attention_heads: 4, head_dim: 256, num_hidden_layers: 26, max_position_embeddings: 32768,
    sliding_window: 512, layer_types: layerTypes, vocab_size: 262144, transformers_version: '5.0.0',
    rope_parameters: { full_attention: { rope_type: 'linear', factor: 8.0, rope_theta: 1000000.0 },
      sliding_attention: { rope_type: 'default', rope_theta: 10000.0 } },
  };
  const p = profile(config);
  consistent(p);
  assert.deepEqual(kind(p, 'full_attention').layers, [5, 11, 17, 23]);
  assert.deepEqual(kind(p, 'full_attention').spec, { type: 'rope', head_dim: 256, max_position_embeddings: 32768, layout: 'half',
    rope_parameters: { rope_type: 'linear', factor: 8, rope_theta: 1000000 } });
  assert.deepEqual(kind(p, 'sliding_attention').spec, { type: 'rope', head_dim: 256, max_position_embeddings: 32768, layout: 'half',
    rope_parameters: { rope_type: 'default', rope_theta: 10000 } });
  assert.deepEqual(kind(p, 'sliding_attention').window, { kind: 'sliding', size: 512 });
  assert.ok(!p.read.unmodelled.some((u) => u.key === 'layer_types'));
  // Gemma3TextConfig.convert_rope_params_to_dict fills a missing entry (the local base, default 10000).
  const filled = profile({ ...config, rope_parameters: { full_attention: { rope_type: 'default', rope_theta: 1000000.0 } } });
  assert.deepEqual(kind(filled, 'sliding_attention').spec.rope_parameters, { rope_type: 'default', rope_theta: 10000 });
});

test('Gemma-4 (nested in gemma4): sliding layers rotate 256-wide heads at 10000; full layers a 512-wide head, proportional RoPE, the partial factor inside its block', () => {
  // configuration_gemma4.py Gemma4TextConfig (global_head_dim for the full layers), modeling_rope_utils
  // _compute_proportional_rope_parameters with head_dim_key "global_head_dim" (Gemma4TextRotaryEmbedding).
  const layerTypes = range(0, 12).map((i) => ((i + 1) % 6 ? 'sliding_attention' : 'full_attention'));
  const config = {
    architectures: ['Gemma4ForConditionalGeneration'], model_type: 'gemma4',
    text_config: { model_type: 'gemma4_text', hidden_size: 1536, num_attention_heads: 8, num_key_value_heads: 1, head_dim: 256, global_head_dim: 512,
      num_hidden_layers: 12, layer_types: layerTypes, sliding_window: 512, max_position_embeddings: 131072, vocab_size: 262144,
      rope_parameters: { full_attention: { partial_rotary_factor: 0.25, rope_theta: 1000000.0, rope_type: 'proportional' },
        sliding_attention: { rope_theta: 10000.0, rope_type: 'default' } } },
  };
  const p = profile(config);
  consistent(p);
  const full = kind(p, 'full_attention');
  const sliding = kind(p, 'sliding_attention');
  assert.deepEqual(full.layers, [5, 11]);
  assert.deepEqual(sliding.layers, [0, 1, 2, 3, 4, 6, 7, 8, 9, 10]);
  assert.deepEqual(full.spec, { type: 'rope', head_dim: 512, max_position_embeddings: 131072, layout: 'half',
    rope_parameters: { partial_rotary_factor: 0.25, rope_theta: 1000000, rope_type: 'proportional' } });
  assert.equal(full.spec.partial_rotary_factor, undefined, 'the proportional factor stays inside rope_parameters');
  assert.deepEqual(sliding.spec, { type: 'rope', head_dim: 256, max_position_embeddings: 131072, layout: 'half',
    rope_parameters: { rope_theta: 10000, rope_type: 'default' } });
  assert.deepEqual(sliding.window, { kind: 'sliding', size: 512 });
  assert.deepEqual(full.window, { kind: 'global' });
  assert.ok(p.read.used.includes('text_config.global_head_dim') && !p.read.ignored.includes('text_config.global_head_dim'));
  // Without layer_types or rope_parameters: Gemma4TextConfig's pattern (every 6th full), the last layer forced full,
  // its default rope_parameters and global_head_dim 512, sliding_window 512.
  const bare = profile({ model_type: 'gemma4_text', hidden_size: 1536, num_attention_heads: 8, head_dim: 256, num_hidden_layers: 10,
    max_position_embeddings: 131072 });
  consistent(bare);
  assert.deepEqual(kind(bare, 'full_attention').layers, [5, 9]);
  assert.equal(kind(bare, 'full_attention').spec.head_dim, 512);
  assert.deepEqual(kind(bare, 'full_attention').spec.rope_parameters, { rope_type: 'proportional', partial_rotary_factor: 0.25, rope_theta: 1000000 });
  assert.deepEqual(kind(bare, 'sliding_attention').window, { kind: 'sliding', size: 512 });
});

test('Llama 4 Scout: 3 of 4 layers rotate (interleaved, llama3 ×16) in 8192-token chunks; every 4th is NoPE, global, with the query temperature', () => {
  // Llama4TextConfig: no_rope_layers default int((i + 1) % 4 != 0) (1 = rotates); layer_types chunked_attention for
  // the RoPE layers. Llama4TextAttention: use_rope = no_rope_layers[i]; temperature tuning on the NoPE layers.
  const config = {
    architectures: ['Llama4ForConditionalGeneration'], model_type: 'llama4',
    text_config: { model_type: 'llama4_text', hidden_size: 5120, num_attention_heads: 40, num_key_value_heads: 8, head_dim: 128,
      num_hidden_layers: 48, max_position_embeddings: 10485760, rope_theta: 500000.0, attention_chunk_size: 8192, use_qk_norm: true,
      attn_temperature_tuning: true, floor_scale: 8192, attn_scale: 0.1, interleave_moe_layer_step: 1, no_rope_layer_interval: 4,
      rope_scaling: { factor: 16.0, high_freq_factor: 1.0, low_freq_factor: 1.0, original_max_position_embeddings: 8192, rope_type: 'llama3' } },
  };
  const p = profile(config);
  consistent(p);
  assert.deepEqual(p.kinds.map((k) => k.name), ['chunked_attention', 'no_rope']);
  const rope = kind(p, 'chunked_attention');
  const nope = kind(p, 'no_rope');
  assert.deepEqual(nope.layers, where(48, (i) => (i + 1) % 4 === 0));
  assert.deepEqual(rope.layers, where(48, (i) => (i + 1) % 4 !== 0));
  assert.deepEqual(rope.spec, { type: 'rope', head_dim: 128, rope_theta: 500000, max_position_embeddings: 10485760, layout: 'interleaved',
    rope_scaling: { factor: 16, high_freq_factor: 1, low_freq_factor: 1, original_max_position_embeddings: 8192, rope_type: 'llama3' } });
  assert.deepEqual(rope.window, { kind: 'chunked', size: 8192 });
  assert.equal(rope.temperature, null);
  assert.deepEqual(nope.spec, { type: 'none' });
  assert.deepEqual(nope.window, { kind: 'global' });
  assert.deepEqual(nope.temperature, { floor_scale: 8192, attn_scale: 0.1 });
  const unmodelled = p.read.unmodelled.map((u) => u.key);
  for (const key of ['attention_chunk_size', 'no_rope_layer_interval']) assert.ok(!unmodelled.includes(`text_config.${key}`), key);
  assert.ok(p.read.used.includes('text_config.floor_scale'));
  // An explicit no_rope_layers list (1 = rotates) wins over the interval; tuning off drops the temperature.
  const listed = profile({ model_type: 'llama4_text', hidden_size: 5120, num_attention_heads: 40, head_dim: 128, num_hidden_layers: 4,
    rope_theta: 500000.0, no_rope_layers: [1, 0, 1, 1], attn_temperature_tuning: false });
  assert.deepEqual(kind(listed, 'no_rope').layers, [1]);
  assert.equal(kind(listed, 'no_rope').temperature, null);
  assert.deepEqual(kind(listed, 'chunked_attention').window, { kind: 'chunked', size: 8192 }, 'Llama4TextConfig’s default chunk');
});

test('SmolLM3-3B: every 4th layer NoPE (no temperature); with use_sliding_window the NoPE layers take the window', () => {
  // SmolLM3Config: no_rope_layers default every no_rope_layer_interval-th 0; sliding only on NoPE layers.
  const noRope = range(0, 36).map((i) => ((i + 1) % 4 ? 1 : 0));
  const config = { architectures: ['SmolLM3ForCausalLM'], model_type: 'smollm3', hidden_size: 2048, num_attention_heads: 16,
    num_key_value_heads: 4, num_hidden_layers: 36, max_position_embeddings: 65536, rope_theta: 5000000.0, no_rope_layers: noRope,
    no_rope_layer_interval: 4, use_sliding_window: false, sliding_window: null, vocab_size: 128256 };
  const p = profile(config);
  consistent(p);
  assert.deepEqual(p.kinds.map((k) => k.name), ['full_attention', 'no_rope']);
  assert.deepEqual(kind(p, 'no_rope').layers, [3, 7, 11, 15, 19, 23, 27, 31, 35]);
  assert.deepEqual(kind(p, 'no_rope').spec, { type: 'none' });
  assert.equal(kind(p, 'no_rope').temperature, null);
  assert.deepEqual(kind(p, 'full_attention').spec, { type: 'rope', head_dim: 128, rope_theta: 5000000, max_position_embeddings: 65536, layout: 'half' });
  const windowed = profile({ ...config, no_rope_layers: undefined, use_sliding_window: true, sliding_window: 4096 });
  assert.deepEqual(kind(windowed, 'no_rope').window, { kind: 'sliding', size: 4096 });
  assert.deepEqual(kind(windowed, 'no_rope').layers, [3, 7, 11, 15, 19, 23, 27, 31, 35], 'derived from no_rope_layer_interval');
  assert.deepEqual(kind(windowed, 'full_attention').window, { kind: 'global' });
});

test('gpt-oss-20b: alternate layers, sliding (128 tokens) first; both rotate with the same yarn ×32 spec', () => {
  const layerTypes = range(0, 24).map((i) => (i % 2 ? 'full_attention' : 'sliding_attention'));
  const config = { architectures: ['GptOssForCausalLM'], model_type: 'gpt_oss', hidden_size: 2880, head_dim: 64, num_attention_heads: 64,
    num_key_value_heads: 8, num_hidden_layers: 24, layer_types: layerTypes, sliding_window: 128, rope_theta: 150000,
    max_position_embeddings: 131072, initial_context_length: 4096, vocab_size: 201088,
    rope_scaling: { beta_fast: 32.0, beta_slow: 1.0, factor: 32.0, original_max_position_embeddings: 4096, rope_type: 'yarn', truncate: false } };
  const p = profile(config);
  consistent(p);
  assert.deepEqual(kind(p, 'sliding_attention').layers, where(24, (i) => i % 2 === 0));
  assert.deepEqual(kind(p, 'full_attention').layers, where(24, (i) => i % 2 === 1));
  assert.deepEqual(kind(p, 'sliding_attention').window, { kind: 'sliding', size: 128 });
  assert.deepEqual(kind(p, 'full_attention').spec, p.read.spec);
  assert.deepEqual(kind(p, 'sliding_attention').spec, p.read.spec);
  assert.equal(p.read.spec.rope_theta, 150000);
  assert.equal(p.read.spec.head_dim, 64);
  // GptOssConfig derives the same alternation when layer_types is absent.
  const derived = profile({ ...config, layer_types: undefined });
  assert.deepEqual(derived.layers, p.layers);
});

test('Qwen3-Next-80B-A3B: 3 of 4 layers linear attention (no positions); every 4th full attention rotates a quarter of a 256-wide head', () => {
  // Qwen3NextConfig: layer_types linear_attention unless (i + 1) % full_attention_interval == 0; partial_rotary_factor default 0.25.
  const config = { architectures: ['Qwen3NextForCausalLM'], model_type: 'qwen3_next', hidden_size: 2048, num_attention_heads: 16,
    num_key_value_heads: 2, head_dim: 256, num_hidden_layers: 48, partial_rotary_factor: 0.25, rope_theta: 10000000,
    max_position_embeddings: 262144, full_attention_interval: 4, linear_num_key_heads: 16, linear_num_value_heads: 32,
    linear_key_head_dim: 128, linear_value_head_dim: 128, linear_conv_kernel_dim: 4, vocab_size: 151936 };
  const p = profile(config);
  consistent(p);
  assert.deepEqual(p.kinds.map((k) => k.name), ['linear_attention', 'full_attention']);
  assert.deepEqual(kind(p, 'full_attention').layers, where(48, (i) => (i + 1) % 4 === 0));
  assert.deepEqual(kind(p, 'linear_attention').spec, { type: 'none' });
  assert.deepEqual(kind(p, 'linear_attention').window, { kind: 'global' });
  assert.deepEqual(kind(p, 'full_attention').spec, { type: 'rope', head_dim: 256, rope_theta: 10000000, partial_rotary_factor: 0.25,
    max_position_embeddings: 262144, layout: 'half' });
  assert.ok(p.notes.some((note) => /linear_attention layers .*no position encoding/.test(note)));
  // The partial factor defaults to 0.25; legacy layer names ("attention") are remapped.
  const legacy = profile({ ...config, partial_rotary_factor: undefined, num_hidden_layers: 4,
    layer_types: ['linear_attention', 'linear_attention', 'linear_attention', 'attention'] });
  assert.deepEqual(kind(legacy, 'full_attention').layers, [3]);
  assert.equal(kind(legacy, 'full_attention').spec.partial_rotary_factor, 0.25);
});

test('DeepSeek-V3 (MLA, yarn ×40 with mscale): one kind; 64 of each 192-wide q/k head rotate, interleaved', () => {
  const config = { architectures: ['DeepseekV3ForCausalLM'], model_type: 'deepseek_v3', hidden_size: 7168, num_attention_heads: 128,
    num_key_value_heads: 128, num_hidden_layers: 61, qk_nope_head_dim: 128, qk_rope_head_dim: 64, v_head_dim: 128, kv_lora_rank: 512,
    q_lora_rank: 1536, rope_theta: 10000, max_position_embeddings: 163840, vocab_size: 129280,
    rope_scaling: { beta_fast: 32, beta_slow: 1, factor: 40, mscale: 1.0, mscale_all_dim: 1.0, original_max_position_embeddings: 4096, type: 'yarn' } };
  const p = profile(config);
  consistent(p);
  assert.deepEqual(p.kinds.map((k) => k.name), ['full_attention']);
  assert.deepEqual(p.kinds[0].layers, range(0, 61));
  assert.deepEqual(p.kinds[0].spec, readConfig(config, NAMES).spec);
  assert.equal(p.kinds[0].spec.head_dim, 64);
  assert.equal(p.kinds[0].spec.layout, 'interleaved');
  assert.deepEqual(p.kinds[0].spec.rope_scaling, config.rope_scaling);
  assert.ok(!p.read.unmodelled.some((u) => u.key === 'qk_nope_head_dim'));
  assert.ok(p.notes.some((note) => /128 \+ 64 = 192/.test(note)));
  // (0.1 · 1 · ln 40 + 1)² = 1.368888² = 1.873854
  assert.ok(p.notes.some((note) => /1\.8739/.test(note)), p.notes.join('\n'));
});

test('Qwen2.5-VL-7B (M-RoPE [16, 24, 24]) and Qwen3-VL (interleaved sections): text tokens rotate as default RoPE', () => {
  const config = { architectures: ['Qwen2_5_VLForConditionalGeneration'], model_type: 'qwen2_5_vl', hidden_size: 3584, num_attention_heads: 28,
    num_key_value_heads: 4, num_hidden_layers: 28, rope_theta: 1000000.0, max_position_embeddings: 128000, sliding_window: 32768,
    use_sliding_window: false, max_window_layers: 28, vocab_size: 152064, rope_scaling: { type: 'mrope', mrope_section: [16, 24, 24] },
    vision_config: { hidden_size: 1280, depth: 32 } };
  const p = profile(config);
  consistent(p);
  assert.deepEqual(p.kinds.map((k) => k.name), ['full_attention']);
  assert.deepEqual(p.kinds[0].spec, { type: 'rope', head_dim: 128, rope_theta: 1000000, max_position_embeddings: 128000, layout: 'half' });
  assert.deepEqual(p.kinds[0].window, { kind: 'global' }, 'use_sliding_window is off');
  assert.deepEqual(p.mrope, { mrope_section: [16, 24, 24], mrope_interleaved: false });
  assert.ok(!p.read.unmodelled.some((u) => u.key === 'sliding_window'));
  const qwen3vl = profile({ architectures: ['Qwen3VLForConditionalGeneration'], model_type: 'qwen3_vl',
    text_config: { model_type: 'qwen3_vl_text', hidden_size: 4096, num_attention_heads: 32, head_dim: 128, num_hidden_layers: 36,
      rope_theta: 5000000, max_position_embeddings: 262144, rope_scaling: { mrope_interleaved: true, mrope_section: [24, 20, 20], rope_type: 'default' } } });
  assert.deepEqual(qwen3vl.mrope, { mrope_section: [24, 20, 20], mrope_interleaved: true });
  assert.deepEqual(qwen3vl.kinds[0].spec, { type: 'rope', head_dim: 128, rope_theta: 5000000, max_position_embeddings: 262144, layout: 'half' });
});

test('Cohere2 (Command R7B): 3 of 4 layers slide (4096 tokens) and rotate interleaved pairs; every 4th is global with no RoPE', () => {
  // Cohere2Config: sliding unless (i + 1) % sliding_window_pattern == 0; Cohere2Attention rotates only with a sliding window.
  const config = { architectures: ['Cohere2ForCausalLM'], model_type: 'cohere2', hidden_size: 4096, num_attention_heads: 32,
    num_key_value_heads: 8, num_hidden_layers: 32, rope_theta: 50000.0, sliding_window: 4096, sliding_window_pattern: 4,
    max_position_embeddings: 8192, logit_scale: 0.25, vocab_size: 256000 };
  const p = profile(config);
  consistent(p);
  assert.deepEqual(p.kinds.map((k) => k.name), ['sliding_attention', 'no_rope']);
  assert.deepEqual(kind(p, 'sliding_attention').layers, where(32, (i) => (i + 1) % 4 !== 0));
  assert.deepEqual(kind(p, 'sliding_attention').spec, { type: 'rope', head_dim: 128, rope_theta: 50000, max_position_embeddings: 8192,
    layout: 'interleaved' });
  assert.deepEqual(kind(p, 'sliding_attention').window, { kind: 'sliding', size: 4096 });
  assert.deepEqual(kind(p, 'no_rope').layers, [3, 7, 11, 15, 19, 23, 27, 31]);
  assert.deepEqual(kind(p, 'no_rope').spec, { type: 'none' });
  assert.deepEqual(kind(p, 'no_rope').window, { kind: 'global' });
  // sliding_window null: the attention has no window on any layer, so none rotates.
  const unwindowed = profile({ ...config, num_hidden_layers: 4, sliding_window: null });
  assert.ok(unwindowed.kinds.every((k) => k.spec.type === 'none' && k.window.kind === 'global'));
});

test('Qwen2 with use_sliding_window: layers from max_window_layers on slide; Mistral: every layer slides', () => {
  const qwen = profile({ model_type: 'qwen2', hidden_size: 3584, num_attention_heads: 28, num_hidden_layers: 28, rope_theta: 1000000.0,
    max_position_embeddings: 32768, use_sliding_window: true, sliding_window: 4096, max_window_layers: 21, vocab_size: 152064 });
  consistent(qwen);
  assert.deepEqual(kind(qwen, 'full_attention').layers, range(0, 21));
  assert.deepEqual(kind(qwen, 'sliding_attention').layers, range(21, 28));
  assert.deepEqual(kind(qwen, 'sliding_attention').window, { kind: 'sliding', size: 4096 });
  assert.deepEqual(kind(qwen, 'sliding_attention').spec, kind(qwen, 'full_attention').spec);
  const mistral = profile({ model_type: 'mistral', hidden_size: 4096, num_attention_heads: 32, num_hidden_layers: 32, rope_theta: 10000.0,
    max_position_embeddings: 32768, sliding_window: 4096, vocab_size: 32000 });
  assert.deepEqual(mistral.kinds.map((k) => [k.name, k.layers.length, k.window]), [['sliding_attention', 32, { kind: 'sliding', size: 4096 }]]);
  // A positional excerpt has no layer count: one kind, no layers.
  const excerpt = profile({ rope_theta: 10000, head_dim: 128, sliding_window: 4096 });
  assert.equal(excerpt.num_hidden_layers, null);
  assert.deepEqual(excerpt.layers, []);
  assert.deepEqual(excerpt.kinds.map((k) => [k.name, k.window]), [['full_attention', { kind: 'sliding', size: 4096 }]]);
});

test('what it refuses, naming the key, the value and what it expected (.param config)', () => {
  const base = { model_type: 'gpt_oss', hidden_size: 2880, head_dim: 64, num_attention_heads: 64, num_hidden_layers: 4, sliding_window: 128,
    rope_theta: 150000 };
  const refuses = (config, pattern) => assert.throws(() => profile(config), (e) => e.param === 'config' && pattern.test(e.message), String(pattern));
  refuses({ ...base, layer_types: ['sliding_attention', 'full_attention'] },
    /^config: layer_types has 2 entries but num_hidden_layers = 4: expected one layer type per layer$/);
  refuses({ ...base, layer_types: ['sliding_attention', 'global', 'sliding_attention', 'full_attention'] },
    /layer_types\[1\] = "global" is not a layer type posenc knows: expected one of full_attention, sliding_attention/);
  refuses({ ...base, layer_types: 'sliding_attention' }, /layer_types = "sliding_attention" is invalid: expected a list of 4 layer types/);
  refuses({ model_type: 'llama4_text', head_dim: 128, num_attention_heads: 40, hidden_size: 5120, num_hidden_layers: 4, no_rope_layers: [1, 2, 1, 0] },
    /no_rope_layers = \[1,2,1,0\] is invalid: expected a list of 4 entries of 0 or 1/);
  refuses({ model_type: 'smollm3', hidden_size: 2048, num_attention_heads: 16, num_hidden_layers: 4, no_rope_layers: [1, 1, 1] },
    /no_rope_layers = \[1,1,1\] is invalid: expected a list of 4 entries/);
  refuses({ ...base, rope_theta: undefined, rope_parameters: { full_attention: { rope_type: 'default', rope_theta: 150000 } } },
    /rope_parameters by layer type has no "sliding_attention" entry \(it has full_attention\), but layers 0, 2 are sliding_attention and rotate/);
  refuses({ model_type: 'gemma3_text', head_dim: 256, num_attention_heads: 4, hidden_size: 1152, num_hidden_layers: 6, sliding_window_pattern: 0 },
    /sliding_window_pattern = 0 is invalid: expected a whole number of layers >= 1/);
});

/** A list of `length` entries that counts how many of them are read (a refusal before any is read reads none). */
function countingList(length, entry) {
  const reads = { count: 0 };
  const list = new Proxy(Array(length), {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) {
        reads.count += 1;
        return entry;
      }
      return Reflect.get(target, key, receiver);
    },
  });
  return { list, reads };
}

test('layer counts are bounded (MAX_LAYERS, 1024): the audit’s num_hidden_layers 1e7 ... 2^53 are refused by their key', () => {
  assert.equal(MAX_LAYERS, 1024);
  const llama = { model_type: 'llama', hidden_size: 4096, num_attention_heads: 32, rope_theta: 500000 };
  const refused = (key, value) => (error) => {
    assert.ok(error instanceof RangeError, error.message);
    assert.deepEqual([error.param, error.code, error.value], [key, 'bad_param', String(value)]);
    assert.equal(error.message, `${key} = ${value} is invalid: expected a whole number of layers in [1, 1024] (posenc reads models of up to 1024 layers)`);
    return true;
  };
  // Each used to build one entry per layer (1e7: 600 MB; 1e9: out of memory; 2^32: "Invalid array length", no .param).
  for (const n of [1e7, 1e8, 1e9, 2 ** 32, 2 ** 53, 1e308, 1025]) {
    assert.throws(() => profile({ ...llama, num_hidden_layers: n }), refused('num_hidden_layers', n), String(n));
  }
  for (const n of [0, -1, 2.5]) assert.throws(() => profile({ ...llama, num_hidden_layers: n }), refused('num_hidden_layers', n));
  // GPT-2's n_layer and T5's num_layers, in families that do not rotate too.
  assert.throws(() => profile({ model_type: 'gpt2', n_embd: 768, n_head: 12, n_positions: 1024, n_layer: 1e9 }), refused('n_layer', 1e9));
  assert.throws(() => profile({ model_type: 't5', d_model: 512, num_heads: 8, relative_attention_num_buckets: 32, num_layers: 2 ** 32 }),
    refused('num_layers', 2 ** 32));
  const largest = profile({ ...llama, num_hidden_layers: 1024 });
  assert.equal(largest.layers.length, 1024);
  consistent(largest);
});

test('per-layer lists are bounded before any entry is read: layer_types of 1e6 entries, no_rope_layers of 2000', () => {
  const base = { model_type: 'gpt_oss', hidden_size: 2880, head_dim: 64, num_attention_heads: 64, sliding_window: 128, rope_theta: 150000 };
  const refused = (key, length) => (error) => {
    assert.ok(error instanceof RangeError, error.message);
    assert.deepEqual([error.param, error.code], [key, 'bad_param']);
    assert.equal(error.message, `${key} = a list of ${length} entries is invalid: expected one entry per layer, at most 1024 ` +
      '(posenc reads models of up to 1024 layers)');
    return true;
  };
  // Without num_hidden_layers (its length would be the count) and with one.
  for (const layers of [{}, { num_hidden_layers: 4 }, { num_hidden_layers: 1024 }]) {
    const { list, reads } = countingList(1e6, 'full_attention');
    assert.throws(() => profile({ ...base, ...layers, layer_types: list }), refused('layer_types', 1e6), JSON.stringify(layers));
    assert.equal(reads.count, 0, 'no entry of layer_types is read');
  }
  const { list, reads } = countingList(2000, 1);
  assert.throws(() => profile({ model_type: 'llama4_text', head_dim: 128, num_attention_heads: 40, hidden_size: 5120, num_hidden_layers: 4,
    no_rope_layers: list }), refused('no_rope_layers', 2000));
  assert.equal(reads.count, 0, 'no entry of no_rope_layers is read');
  // A list's message shows its first entries only, however long it is (the value is cut while it is written).
  assert.throws(() => profile({ ...base, num_hidden_layers: 4, layer_types: 'sliding_attention'.repeat(1e5) }),
    (error) => error.message.length < 300 && /^config: layer_types = "sliding_attentionsliding_attention.*\.\.\. is invalid/.test(error.message));
});

test('the model lab places a refused layer count beside its config box (.param config_json), as every reader refusal', () => {
  // The lab's fields over an engine whose profile job is the reader itself (the worker runs profile-text.js).
  const engine = { profile: function* profileJob(text) { return profile(JSON.parse(text)); } };
  const refusal = (config) => {
    try {
      fields(engine, { config_json: JSON.stringify(config) }).layers.next();
    } catch (error) {
      return [error.param, error.message];
    }
    return assert.fail('no refusal');
  };
  const llama = { model_type: 'llama', hidden_size: 4096, num_attention_heads: 32 };
  assert.deepEqual(refusal({ ...llama, num_hidden_layers: 1e7 }), ['config_json',
    'num_hidden_layers = 10000000 is invalid: expected a whole number of layers in [1, 1024] (posenc reads models of up to 1024 layers)']);
  assert.deepEqual(refusal({ ...llama, layer_types: Array(2000).fill('full_attention') })[0], 'config_json');
  assert.deepEqual(refusal({ ...llama, num_hidden_layers: 2, layer_types: ['full_attention'] }),
    ['config_json', 'config: layer_types has 1 entries but num_hidden_layers = 2: expected one layer type per layer']);
});

// Every real config.json the project keeps (outside the repository): readProfile reads each one that readConfig
// reads, and its rotating full-attention kind (else its first rotating kind) has readConfig's spec.
const REAL = path.resolve('/work/shared/realconfigs');
test('the real configs in shared/realconfigs: read wherever readConfig reads them, with readConfig’s spec for the full-attention kind',
  { skip: !fs.existsSync(REAL) && `${REAL} is absent` }, () => {
    let read = 0;
    for (const file of fs.readdirSync(REAL).filter((f) => f.endsWith('.json')).sort()) {
      const config = JSON.parse(fs.readFileSync(path.join(REAL, file), 'utf8'));
      let expected;
      try {
        expected = readConfig(config, NAMES);
      } catch {
        assert.throws(() => profile(config), file);  // the same refusal
        continue;
      }
      const p = profile(config);
      consistent(p);
      const rotating = p.kinds.filter((k) => k.spec.type !== 'none');
      const main = rotating.find((k) => k.name === 'full_attention') ?? rotating[0] ?? p.kinds[0];
      assert.deepEqual(main.spec, expected.spec, file);
      read++;
    }
    assert.ok(read > 20, `${read} configs read`);
  });
