// The config.json reader, table-driven: configs written here from the published
// formats (transformers' configuration classes and the models' config.json
// files), one per family and per rope_type, the nested and legacy forms. Each
// goes through specFromConfig -> spec -> the core's numbers, directly and after
// the page's control round-trip (tests/reference/check-config.mjs), and rotary
// numbers are compared with an independent float64 reading of transformers'
// formulas (tests/reference/transformers-rope.mjs).
import test from 'node:test';
import assert from 'node:assert/strict';
import { loadPosenc } from './load.mjs';
import { checkConfig } from '../reference/check-config.mjs';
import { specFromConfig } from '../../web/src/config/model-config.js';
import { FAMILY_TYPES, ROPE_TYPES } from '../../web/src/describe.js';

const pe = await loadPosenc();
const ramp = (n, from, to) => Array.from({ length: n }, (_, i) => from + ((to - from) * i) / (n - 1));

// name -> [config, expected spec (the keys that must be there), expected rope_type of the block or undefined]
const CONFIGS = {
  'Llama-2 (no rope_theta: 10000)': [{ model_type: 'llama', hidden_size: 4096, num_attention_heads: 32, max_position_embeddings: 4096, rope_scaling: null, vocab_size: 32000 },
    { type: 'rope', head_dim: 128, max_position_embeddings: 4096, layout: 'half' }],
  'linear (Position Interpolation)': [{ model_type: 'llama', hidden_size: 2048, num_attention_heads: 16, rope_theta: 10000, max_position_embeddings: 8192, rope_scaling: { type: 'linear', factor: 4 } },
    { type: 'rope', head_dim: 128, rope_theta: 10000 }, 'linear'],
  'ntk (NTK-aware base)': [{ model_type: 'llama', head_dim: 64, num_attention_heads: 8, hidden_size: 512, max_position_embeddings: 2048, rope_scaling: { rope_type: 'ntk', factor: 2 } },
    { type: 'rope', head_dim: 64 }, 'ntk'],
  'dynamic (InternLM2)': [{ model_type: 'internlm2', hidden_size: 4096, num_attention_heads: 32, rope_theta: 1e6, max_position_embeddings: 32768, rope_scaling: { type: 'dynamic', factor: 2 } },
    { type: 'rope', rope_theta: 1e6 }, 'dynamic'],
  'yarn (gpt-oss, truncate false)': [{ model_type: 'gpt_oss', head_dim: 64, hidden_size: 2880, num_attention_heads: 64, rope_theta: 150000, max_position_embeddings: 131072,
    rope_scaling: { rope_type: 'yarn', factor: 32, beta_fast: 32, beta_slow: 1, original_max_position_embeddings: 4096, truncate: false } },
  { type: 'rope', head_dim: 64 }, 'yarn'],
  'yarn with mscale (DeepSeek-V2, interleaved, qk_rope_head_dim)': [{ model_type: 'deepseek_v2', hidden_size: 2048, num_attention_heads: 16, qk_rope_head_dim: 64, qk_nope_head_dim: 128,
    rope_theta: 10000, max_position_embeddings: 163840,
    rope_scaling: { type: 'yarn', factor: 40, beta_fast: 32, beta_slow: 1, mscale: 0.707, mscale_all_dim: 0.707, original_max_position_embeddings: 4096 } },
  { type: 'rope', head_dim: 64, layout: 'interleaved' }, 'yarn'],
  'llama3 (Llama-3.2)': [{ model_type: 'llama', head_dim: 64, hidden_size: 2048, num_attention_heads: 32, rope_theta: 500000, max_position_embeddings: 131072,
    rope_scaling: { rope_type: 'llama3', factor: 32, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192 } },
  { type: 'rope', head_dim: 64 }, 'llama3'],
  'longrope without factor (Phi-3.5-mini: factor 131072 / 4096 = 32)': [{ model_type: 'phi3', hidden_size: 3072, num_attention_heads: 32, rope_theta: 10000,
    max_position_embeddings: 131072, original_max_position_embeddings: 4096,
    rope_scaling: { type: 'longrope', short_factor: ramp(48, 1, 2), long_factor: ramp(48, 1, 40) } },
  { type: 'rope', head_dim: 96 }, 'longrope'],
  'legacy "su" (Phi-3.5-vision)': [{ model_type: 'phi3_v', hidden_size: 3072, num_attention_heads: 32, max_position_embeddings: 131072, original_max_position_embeddings: 4096,
    rope_scaling: { type: 'su', short_factor: ramp(48, 1, 1.5), long_factor: ramp(48, 1, 30) } },
  { type: 'rope', head_dim: 96 }, 'longrope'],
  'legacy "yarn" with factor lists (early Phi-3)': [{ model_type: 'phi3', hidden_size: 3072, num_attention_heads: 32, max_position_embeddings: 131072, original_max_position_embeddings: 4096,
    rope_scaling: { type: 'yarn', short_factor: ramp(48, 1, 1.5), long_factor: ramp(48, 1, 30) } },
  { type: 'rope', head_dim: 96 }, 'longrope'],
  'partial rotary (Phi-4-mini 0.75, longrope)': [{ model_type: 'phi3', hidden_size: 3072, num_attention_heads: 24, partial_rotary_factor: 0.75, max_position_embeddings: 131072,
    original_max_position_embeddings: 4096, rope_scaling: { type: 'longrope', short_factor: ramp(48, 1, 2), long_factor: ramp(48, 1, 20) } },
  { type: 'rope', head_dim: 128, partial_rotary_factor: 0.75 }, 'longrope'],
  'GPT-NeoX (rotary_pct, rotary_emb_base)': [{ model_type: 'gpt_neox', hidden_size: 2560, num_attention_heads: 32, rotary_pct: 0.25, rotary_emb_base: 10000, max_position_embeddings: 2048 },
    { type: 'rope', head_dim: 80, partial_rotary_factor: 0.25, rope_theta: 10000 }],
  'GPT-J (rotary_dim, interleaved)': [{ model_type: 'gptj', n_embd: 4096, n_head: 16, rotary_dim: 64, n_positions: 2048, rotary: true },
    { type: 'rope', head_dim: 256, rotary_dim: 64, layout: 'interleaved', max_position_embeddings: 2048 }],
  'nested text_config (Llama-4)': [{ model_type: 'llama4', architectures: ['Llama4ForConditionalGeneration'],
    text_config: { model_type: 'llama4_text', head_dim: 128, hidden_size: 5120, num_attention_heads: 40, rope_theta: 500000, max_position_embeddings: 1048576,
      no_rope_layer_interval: 4, attention_chunk_size: 8192 }, vision_config: { hidden_size: 1408, rope_theta: 10000 } },
  { type: 'rope', head_dim: 128, rope_theta: 500000 }],
  'nested llm_config (InternVL-style)': [{ model_type: 'internvl_chat', llm_config: { model_type: 'qwen2', hidden_size: 896, num_attention_heads: 14, rope_theta: 1e6, max_position_embeddings: 32768 } },
    { type: 'rope', head_dim: 64, rope_theta: 1e6 }],
  'M-RoPE (Qwen2-VL "mrope" -> text tokens as default RoPE)': [{ model_type: 'qwen2_vl', hidden_size: 3584, num_attention_heads: 28, rope_theta: 1e6, max_position_embeddings: 32768,
    rope_scaling: { type: 'mrope', mrope_section: [16, 24, 24] } }, { type: 'rope', head_dim: 128 }],
  'v5 rope_parameters': [{ model_type: 'llama', head_dim: 128, num_attention_heads: 32, hidden_size: 4096, max_position_embeddings: 131072,
    rope_parameters: { rope_type: 'llama3', rope_theta: 500000, factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192 } },
  { type: 'rope', head_dim: 128 }, 'llama3'],
  'v5 rope_parameters by layer type (Gemma-3)': [{ model_type: 'gemma3_text', head_dim: 256, hidden_size: 1152, num_attention_heads: 4, max_position_embeddings: 32768, sliding_window: 512,
    rope_parameters: { full_attention: { rope_type: 'linear', factor: 8, rope_theta: 1e6 }, sliding_attention: { rope_type: 'default', rope_theta: 10000 } } },
  { type: 'rope', head_dim: 256 }, 'linear'],
  'proportional (Gemma-4 global layers: global_head_dim, 64 of 256 pairs turn)': [{ model_type: 'gemma4_text', head_dim: 256, global_head_dim: 512,
    hidden_size: 1536, num_attention_heads: 8, max_position_embeddings: 131072, sliding_window: 512,
    rope_parameters: { full_attention: { partial_rotary_factor: 0.25, rope_theta: 1000000, rope_type: 'proportional' },
      sliding_attention: { rope_theta: 10000, rope_type: 'default' } } },
  { type: 'rope', head_dim: 512 }, 'proportional'],
  'Gemma-3 v4 (rope_local_base_freq)': [{ model_type: 'gemma3_text', head_dim: 256, hidden_size: 1152, num_attention_heads: 4, max_position_embeddings: 32768,
    rope_theta: 1e6, rope_local_base_freq: 10000, sliding_window: 512, sliding_window_pattern: 6, rope_scaling: null },
  { type: 'rope', head_dim: 256, rope_theta: 1e6 }],
  'ALiBi (BLOOM n_head)': [{ model_type: 'bloom', hidden_size: 2560, n_head: 32, n_layer: 30, offset_alibi: 100 }, { type: 'alibi', n_heads: 32 }],
  'ALiBi (MPT attn_config.alibi)': [{ model_type: 'mpt', d_model: 4096, n_heads: 32, max_seq_len: 2048, attn_config: { alibi: true, alibi_bias_max: 8 } }, { type: 'alibi', n_heads: 32 }],
  'ALiBi (Falcon-RW alibi)': [{ model_type: 'falcon', hidden_size: 2048, num_attention_heads: 32, alibi: true }, { type: 'alibi', n_heads: 32 }],
  'T5 relative buckets (t5-small)': [{ model_type: 't5', d_model: 512, num_heads: 8, relative_attention_num_buckets: 32, relative_attention_max_distance: 128, is_encoder_decoder: true, n_positions: 512 },
    { type: 't5', n_heads: 8, num_buckets: 32, max_distance: 128, bidirectional: true }],
  'learned (GPT-2)': [{ model_type: 'gpt2', n_embd: 768, n_head: 12, n_positions: 1024, initializer_range: 0.02 }, { type: 'learned', d_model: 768, max_position_embeddings: 1024, std: 0.02 }],
  'learned (GPT-Neo)': [{ model_type: 'gpt_neo', hidden_size: 2048, num_heads: 16, max_position_embeddings: 2048, window_size: 256 }, { type: 'learned', d_model: 2048, max_position_embeddings: 2048 }],
  'learned (BERT absolute)': [{ model_type: 'bert', hidden_size: 768, num_attention_heads: 12, max_position_embeddings: 512, position_embedding_type: 'absolute' },
    { type: 'learned', d_model: 768, max_position_embeddings: 512 }],
  'learned (RoBERTa: 514 rows, positions from pad + 1)': [{ model_type: 'roberta', hidden_size: 768, num_attention_heads: 12, max_position_embeddings: 514, pad_token_id: 1 },
    { type: 'learned', d_model: 768, max_position_embeddings: 512 }],
  'learned (OPT offset 2)': [{ model_type: 'opt', hidden_size: 768, num_attention_heads: 12, max_position_embeddings: 2048, init_std: 0.02 },
    { type: 'learned', d_model: 768, max_position_embeddings: 2048, std: 0.02 }],
  // DeBERTa-v3-base's published form: the undeclared keys (position_buckets, share_att_key, norm_rel_ebd) given,
  // pos_att_type as a "|" string, max_relative_positions -1 (so max_position_embeddings).
  'DeBERTa-v3 (disentangled, log buckets)': [{ model_type: 'deberta-v2', hidden_size: 768, num_attention_heads: 12, max_position_embeddings: 512,
    relative_attention: true, position_buckets: 256, max_relative_positions: -1, pos_att_type: 'p2c|c2p', share_att_key: true,
    norm_rel_ebd: 'layer_norm', layer_norm_eps: 1e-7, position_biased_input: false, type_vocab_size: 0, vocab_size: 128100 },
  { type: 'deberta', head_dim: 64, hidden_size: 768, position_buckets: 256, max_relative_positions: -1, pos_att_type: ['p2c', 'c2p'],
    share_att_key: true, norm_rel_ebd: 'layer_norm', relative_attention: true }],
  // DeBERTa (v1-style keys only): what the model's getattr defaults give.
  'DeBERTa without the undeclared keys': [{ model_type: 'deberta-v2', hidden_size: 256, num_attention_heads: 4, relative_attention: true,
    max_relative_positions: 128, pos_att_type: ['c2p'], vocab_size: 1000 },
  { type: 'deberta', head_dim: 64, position_buckets: -1, max_relative_positions: 128, pos_att_type: ['c2p'], share_att_key: false,
    norm_rel_ebd: 'none' }],
  'Shaw (BERT relative_key)': [{ model_type: 'bert', hidden_size: 768, num_attention_heads: 12, max_position_embeddings: 512, position_embedding_type: 'relative_key' },
    { type: 'shaw', head_dim: 64, max_relative_position: 511 }],
};

for (const [name, [config, expected, ropeType]] of Object.entries(CONFIGS)) {
  test(`config: ${name}`, () => {
    const { read, problems } = checkConfig(pe, config);
    assert.deepEqual(problems, []);
    for (const [key, value] of Object.entries(expected)) assert.deepEqual(read.spec[key], value, key);
    const block = read.spec.rope_scaling ?? read.spec.rope_parameters;
    assert.equal(block && (block.rope_type ?? block.type), ropeType);
  });
}

test('the table covers every family the reader can produce and every rope_type of the core', () => {
  const read = Object.values(CONFIGS).map(([config]) => specFromConfig(config).spec);
  const types = new Set(read.map((s) => s.type));
  for (const family of ['rope', 'alibi', 't5', 'learned', 'shaw', 'deberta']) assert.ok(types.has(family), family);  // the families a transformers config can name
  assert.ok(types.size > 0 && [...types].every((t) => FAMILY_TYPES.includes(t)));
  const ropeTypes = new Set(read.map((s) => { const b = s.rope_scaling ?? s.rope_parameters; return b ? (b.rope_type ?? b.type) : 'default'; }));
  for (const t of ROPE_TYPES) assert.ok(ropeTypes.has(t), `rope_type ${t}`);
});

test('a bare scaling block is read as rope_scaling, a spec object as itself', () => {
  assert.deepEqual(specFromConfig({ rope_type: 'ntk', factor: 2 }).spec, { type: 'rope', rope_scaling: { rope_type: 'ntk', factor: 2 } });
  assert.deepEqual(specFromConfig({ type: 'su', short_factor: [1], long_factor: [2] }).spec.rope_scaling.type, 'longrope');
  assert.deepEqual(specFromConfig({ type: 'kerple', variant: 'power' }).spec, { type: 'kerple', variant: 'power' });
});

test('ALiBi from BLOOM: head 0 of 32 has slope 2^(-8/32), so b(i, i - 5) = -5 * 2^(-1/4)', () => {
  const { spec } = specFromConfig(CONFIGS['ALiBi (BLOOM n_head)'][0]);
  const bias = pe.attentionBias(spec, 8);
  assert.ok(Math.abs(bias[7 * 8 + 2] - -5 * 2 ** -0.25) < 1e-6);
  assert.equal(bias[2 * 8 + 7], -Infinity, 'BLOOM is a decoder: causal');
});

test('T5 from t5-small: relative position +200 (past max_distance 128) falls in the last bucket, 31', () => {
  const { spec } = specFromConfig(CONFIGS['T5 relative buckets (t5-small)'][0]);
  assert.deepEqual([...pe.t5Bucket([0, 200, -200], spec.bidirectional, spec.num_buckets, spec.max_distance)], [0, 31, 15]);
});

test('learned from GPT-2: 1024 rows of N(0, 0.02²) — the sample std of the table is within 2% of 0.02', () => {
  const { spec } = specFromConfig(CONFIGS['learned (GPT-2)'][0]);
  const table = pe.positionTable(spec, 1024);
  let sum = 0;
  for (const v of table.data) sum += v * v;
  assert.ok(Math.abs(Math.sqrt(sum / table.data.length) - 0.02) < 0.02 * 0.02);
  assert.throws(() => pe.positionTable(spec, 1025), /max_position_embeddings/);
});

test('Gemma-3: the sliding-window layers read their own base (rope_local_base_freq) and window', () => {
  const v4 = specFromConfig(CONFIGS['Gemma-3 v4 (rope_local_base_freq)'][0]);
  assert.deepEqual(v4.sliding, { rope_theta: 10000, window: 512 });
  assert.ok(v4.used.includes('rope_local_base_freq'));
  assert.ok(v4.unmodelled.some((u) => u.key === 'sliding_window_pattern'));
  const v5 = specFromConfig(CONFIGS['v5 rope_parameters by layer type (Gemma-3)'][0]);
  assert.deepEqual(v5.sliding, { rope_theta: 10000, window: 512 });
});

test('the note: keys used, positional keys not modelled (never "not positional"), ignored keys', () => {
  const r = specFromConfig(CONFIGS['nested text_config (Llama-4)'][0]);
  assert.ok(r.used.includes('text_config.rope_theta') && r.used.includes('text_config.head_dim'));
  assert.deepEqual(r.unmodelled.map((u) => u.key).sort(), ['text_config.attention_chunk_size', 'text_config.no_rope_layer_interval']);
  assert.ok(r.ignored.includes('vision_config') && r.ignored.includes('architectures'));
  const bloom = specFromConfig(CONFIGS['ALiBi (BLOOM n_head)'][0]);
  assert.ok(bloom.unmodelled.some((u) => u.key === 'offset_alibi'));
  assert.ok(!bloom.ignored.includes('offset_alibi'));
});

test('refusals say why: custom-code ChatGLM, unknown keys of an excerpt', () => {
  assert.throws(() => specFromConfig({ model_type: 'chatglm', hidden_size: 4096, num_attention_heads: 32, kv_channels: 128, original_rope: true }),
    /model_type "chatglm" runs its own modeling code/);
  assert.throws(() => specFromConfig({ rope_theta: 500, rope_thta: 1 }), /unknown key "rope_thta"; positional keys: head_dim/);
  assert.throws(() => specFromConfig({ model_type: 'mystery', vocab_size: 10 }), /model_type "mystery": none of its keys says how it encodes positions/);
  assert.throws(() => specFromConfig([1, 2]), /expected a JSON object/);
});

test('compare mode: a pasted config of any family becomes that family’s configuration line', async () => {
  const { readSlot } = await import('../../web/src/labs/compare-mode.js');
  await (await import('../../web/src/families/pages.js')).loadFamilyPages();  // readSlot reads loaded files (request loads them)
  const bloom = readSlot('config_a', JSON.stringify(CONFIGS['ALiBi (BLOOM n_head)'][0]));
  // The label names the model: its _name_or_path (the last part), else its model_type, with the family read.
  assert.deepEqual([bloom.family, bloom.params.n_heads, bloom.label], ['alibi', 32, 'bloom (alibi)']);
  const phiConfig = CONFIGS['longrope without factor (Phi-3.5-mini: factor 131072 / 4096 = 32)'][0];
  const phi = readSlot('config_b', JSON.stringify({ ...phiConfig, _name_or_path: 'microsoft/Phi-3.5-mini-instruct' }));
  assert.deepEqual([phi.family, phi.params.factor, phi.label], ['rope', 32, 'Phi-3.5-mini-instruct (rope, longrope)']);
  const { model_type: _, ...anonymous } = phiConfig;  // eslint-disable-line no-unused-vars
  assert.equal(readSlot('config_b', JSON.stringify(anonymous)).label, 'rope (pasted config, longrope)');
  // The link carries a pasted config as the short line it reads into, named: the same configuration again.
  const { linkLine } = await import('../../web/src/labs/compare-mode.js');
  const llama = JSON.stringify({ _name_or_path: 'meta-llama/Llama-3.1-8B', model_type: 'llama', hidden_size: 4096,
    num_attention_heads: 32, max_position_embeddings: 131072, rope_theta: 500000,
    rope_scaling: { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192 } });
  const line = linkLine(llama);
  assert.ok(line.length < 200 && line.startsWith('rope ') && line.endsWith(' as=Llama-3.1-8B'), line);
  const [pasted, linked] = [readSlot('config_a', llama), readSlot('config_a', line)];
  assert.deepEqual(linked.params, pasted.params);
  assert.equal(linked.label, 'Llama-3.1-8B (rope, llama3)');
  assert.equal(linkLine('rope rope_theta=20000'), 'rope rope_theta=20000', 'a line is linked as it is');
  assert.equal(linkLine('{not json'), '{not json', 'what does not read is linked as typed');
  const deberta = readSlot('config_c', JSON.stringify({ model_type: 'deberta-v2', hidden_size: 768, num_attention_heads: 12,
    relative_attention: true, position_buckets: 256, pos_att_type: 'p2c|c2p' }));
  assert.deepEqual([deberta.family, deberta.params.position_buckets, deberta.params.pos_att], ['deberta', 256, 'p2c|c2p']);
});

test('built-in names through the worker’s readers and the core: every reply clones; the core refuses them by name', async () => {
  const { profileFromText } = await import('../../web/src/config/profile-text.js');
  const { readConfigText } = await import('../../web/src/config/model-config.js');
  const { createCalls } = await import('../../web/src/engine/calls.js');
  const { baseRaw, adjustRaw } = await import('../../web/src/labs/compare-mode.js');
  const { T, writeGguf } = await import('../gguf-writer.mjs');
  const calls = createCalls(pe);
  for (const name of ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty']) {
    // A pasted config (the model lab's profile, the playground's paste): the model type is unknown, the reply plain data.
    const text = JSON.stringify({ model_type: name, num_hidden_layers: 2, head_dim: 64, layer_types: ['sliding_attention', 'full_attention'] });
    const profile = profileFromText(text);
    assert.deepEqual(structuredClone(profile), profile, name);
    assert.equal(profile.model, name);
    assert.deepEqual(profile.kinds.map((k) => k.window), [{ kind: 'global' }, { kind: 'global' }]);
    const read = readConfigText(text);
    assert.deepEqual(structuredClone(read), read, name);
    // A GGUF file of that architecture (audit: its reply could not be sent to the page).
    const gguf = await calls.readGguf(new Blob([writeGguf([['general.architecture', T.str, name], [`${name}.block_count`, T.u32, 2],
      [`${name}.attention.head_count`, T.u32, 8], [`${name}.embedding_length`, T.u32, 512]])]));
    assert.deepEqual(structuredClone(gguf), gguf, name);
    assert.equal(gguf.config.model_type, name);
    assert.equal(profileFromText(JSON.stringify(gguf.config)).kinds[0].spec.head_dim, 64);
    // The core's own tables: a rope_type or family type so named is refused by its key.
    assert.throws(() => pe.ropeInvFreq({ type: 'rope', head_dim: 64, rope_scaling: { rope_type: name, factor: 2 } }, 16),
      { param: 'rope_type', message: new RegExp(`^rope_type = "${name}" is invalid`) });
    assert.throws(() => pe.ropeInvFreq({ type: name, head_dim: 64 }, 16), { param: 'type' });
    // Compare mode's named comparisons: a link's comparison so named is none of them (audit: a TypeError).
    assert.deepEqual(baseRaw({ comparison: 'families' }, { comparison: name }), { comparison: 'families' });
    assert.deepEqual(adjustRaw({ comparison: name, config_a: 'rope' }, null), { comparison: name, config_a: 'rope' });
  }
  // "__proto__" read from a pasted config is a key of the spec: the core names it as unknown.
  const spec = specFromConfig(JSON.parse('{"model_type": "llama", "head_dim": 64, "rope_scaling": {"rope_type": "linear", "factor": 2, "__proto__": {"factor": 8}}}')).spec;
  assert.throws(() => pe.ropeInvFreq(spec, 16), { param: '__proto__', message: /unknown key "__proto__"/ });
  // So is a key "__proto__" of a compare-mode line.
  const { readSlot } = await import('../../web/src/labs/compare-mode.js');
  await (await import('../../web/src/families/pages.js')).loadFamilyPages(['rope']);
  assert.throws(() => readSlot('config_a', 'rope __proto__=1'), { param: 'config_a', message: /rope has no parameter __proto__/ });
});
