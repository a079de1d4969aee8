// The model presets and the config.json reader: each preset goes through the
// same path as a pasted config and gives the numbers its config implies.
import test from 'node:test';
import assert from 'node:assert/strict';
import { loadPosenc } from './load.mjs';
import { PRESETS } from '../../web/src/config/presets.js';
import { parseConfigText } from '../../web/src/config/hf-config.js';
import { specFromConfig } from '../../web/src/config/model-config.js';
import { FAMILIES } from '../../web/src/families/index.js';
import { roundTrip } from '../reference/check-config.mjs';

const pe = await loadPosenc();
const preset = (id) => specFromConfig(PRESETS.find((p) => p.id === id).config).spec;
const close = (a, b, tolerance, what = '') => assert.ok(Math.abs(a - b) <= tolerance * Math.abs(b), `${what} ${a} vs ${b}`);

test('every preset is a valid spec for the core', () => {
  assert.equal(PRESETS.length, 8);
  for (const p of PRESETS) {
    const { spec } = specFromConfig(p.config);
    const r = pe.ropeInvFreq(spec, 1);
    assert.ok(r.inv_freq.length > 0, p.id);
  }
});

test('GPT-NeoX-20B: head_dim 6144/64 = 96, rotary_pct 0.25 rotates 24 dims, half layout', () => {
  const spec = preset('gpt-neox-20b');
  assert.equal(spec.head_dim, 96);
  assert.equal(spec.layout, 'half');
  assert.equal(pe.ropeInvFreq(spec, 1).rotary_dim, 24);
});

test('GPT-J-6B: head_dim 256, rotary_dim 64, interleaved, frequencies over the rotary width', () => {
  const spec = preset('gpt-j-6b');
  assert.deepEqual([spec.head_dim, spec.rotary_dim, spec.layout], [256, 64, 'interleaved']);
  close(pe.ropeInvFreq(spec, 1).inv_freq[1], 10000 ** (-2 / 64), 1e-7);
});

test('Llama-2-7B and Mistral-7B-v0.2 differ only in theta (1e4 vs 1e6)', () => {
  close(pe.ropeInvFreq(preset('llama-2-7b'), 1).inv_freq[1], 10000 ** (-2 / 128), 1e-7);
  close(pe.ropeInvFreq(preset('mistral-7b-v0.2'), 1).inv_freq[1], 1e6 ** (-2 / 128), 1e-7);
});

test('Llama-3.1-8B: the slowest pair is divided by 8', () => {
  close(pe.ropeInvFreq(preset('llama-3.1-8b'), 1).inv_freq[63], 500000 ** (-126 / 128) / 8, 1e-6);
});

test('Qwen2.5 YaRN x4 (legacy "type" key): attention factor 0.1 ln 4 + 1', () => {
  close(pe.ropeInvFreq(preset('qwen2.5-7b-yarn'), 1).attention_factor, 0.1 * Math.log(4) + 1, 1e-12);
});

test('Phi-3-mini-128k: long factors past 4096 tokens, attention factor sqrt(1 + ln 32 / ln 4096)', () => {
  const spec = preset('phi-3-mini-128k');
  assert.equal(spec.head_dim, 96);
  const short = pe.ropeInvFreq(spec, 4096);
  const long = pe.ropeInvFreq(spec, 4097);
  close(short.attention_factor, Math.sqrt(17 / 12), 1e-12);
  close(long.inv_freq[47], 10000 ** (-94 / 96) / 64.76000213623047, 1e-6);
  close(short.inv_freq[47], 10000 ** (-94 / 96) / 3.049999999999997, 1e-6);
});

test('Phi-3-mini-128k through the page’s controls: factor 131072 / 4096 = 32 survives, attention factor 1.1902', () => {
  const raw = FAMILIES.rope.rawFromPreset('phi-3-mini-128k');
  assert.equal(raw.factor, '32');
  const { spec } = roundTrip(specFromConfig(PRESETS.find((p) => p.id === 'phi-3-mini-128k').config));
  close(pe.ropeInvFreq(spec, 131072).attention_factor, Math.sqrt(1 + Math.log(32) / Math.log(4096)), 1e-12);
  close(Math.sqrt(1 + Math.log(32) / Math.log(4096)), 1.1902, 1e-4);
});

test('DeepSeek-V3: the 64-dim rope slice, interleaved, attention 1 and logit scale (0.1 ln 40 + 1)^2', () => {
  const spec = preset('deepseek-v3');
  assert.deepEqual([spec.head_dim, spec.layout], [64, 'interleaved']);
  const r = pe.ropeInvFreq(spec, 1);
  assert.equal(r.attention_factor, 1);
  close(r.logit_scale, (0.1 * Math.log(40) + 1) ** 2, 1e-7);
});

test('the config reader: full configs ignore other keys, excerpts reject unknown ones, bare blocks work', () => {
  const full = specFromConfig({ model_type: 'llama', vocab_size: 32000, hidden_size: 64, num_attention_heads: 4, rope_theta: 500 });
  assert.deepEqual(full.spec, { type: 'rope', head_dim: 16, rope_theta: 500, layout: 'half' });
  assert.deepEqual(full.ignored, ['vocab_size']);
  assert.deepEqual(full.used, ['model_type', 'hidden_size', 'num_attention_heads', 'rope_theta']);
  assert.throws(() => specFromConfig({ rope_theta: 500, rope_thta: 1 }), /unknown key "rope_thta"; positional keys: head_dim/);
  assert.deepEqual(specFromConfig({ rope_type: 'linear', factor: 2 }).spec, { type: 'rope', rope_scaling: { rope_type: 'linear', factor: 2 } });
  assert.throws(() => specFromConfig([1, 2]), /expected a JSON object/);
  assert.throws(() => specFromConfig({ hidden_size: 100, num_attention_heads: 3 }), /hidden_size = 100 is not a multiple of num_attention_heads = 3/);
  assert.throws(() => parseConfigText('{"rope_theta": 1e4,}'), /^Error: config: not valid JSON \(/);
  // v5 rope_parameters pass through to the core.
  const v5 = specFromConfig({ head_dim: 8, rope_parameters: { rope_type: 'default', rope_theta: 100 } }).spec;
  close(pe.ropeInvFreq(v5, 1).inv_freq[1], 100 ** (-2 / 8), 1e-7);
});

test('the page\'s RoPE (config/rope-presets.js ropePage) carries every export of families/page/rope.js', async () => {
  const rope = await import('../../web/src/families/page/rope.js');
  const { ropePage } = await import('../../web/src/config/rope-presets.js');
  assert.deepEqual(Object.keys(rope).filter((name) => !(name in ropePage)), []);
  assert.equal(ropePage.fields, rope.fields);
  assert.equal(ropePage.parameters[0].name, 'preset');
  assert.deepEqual(ropePage.parameters.slice(1), rope.parameters);
});
