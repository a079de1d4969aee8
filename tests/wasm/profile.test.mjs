// The model lab's ready-made models, read per layer kind (config/profile.js) and computed by the core, against the
// frequencies transformers computes for each layer type, written here from its code for that model (which head width,
// base, scaling and share of pairs each layer type's rotary embedding gets) and evaluated by the independent float64
// reference (tests/reference/transformers-rope.mjs). The per-kind configs below are what each model's modeling file
// hands its rotary embedding for that layer type; they are not derived from posenc's reader.
import test from 'node:test';
import assert from 'node:assert/strict';
import { loadPosenc } from './load.mjs';
import { MODEL_PROFILES } from '../../web/src/config/profile-presets.js';
import { readProfile } from '../../web/src/config/profile.js';
import { FAMILY_TYPES, ROPE_TYPES } from '../../web/src/describe.js';
import { maxRelativeError, referenceRope } from '../reference/transformers-rope.mjs';

const pe = await loadPosenc();
const NAMES = { familyTypes: FAMILY_TYPES, ropeTypes: ROPE_TYPES };
const SEQ = 8192;

// model -> kind name -> [the config its layers' rotary embedding reads, the layers]
const EXPECTED = {
  // Gemma4TextRotaryEmbedding: sliding layers head_dim 256, default at 1e4; full layers global_head_dim 512,
  // _compute_proportional_rope_parameters with partial_rotary_factor 0.25 at 1e6. Every 6th layer full.
  'gemma-4': {
    sliding_attention: [{ head_dim: 256, rope_parameters: { rope_type: 'default', rope_theta: 10000 } }, (i) => (i + 1) % 6 !== 0],
    full_attention: [{ global_head_dim: 512, rope_parameters: { rope_type: 'proportional', rope_theta: 1e6, partial_rotary_factor: 0.25 } },
      (i) => (i + 1) % 6 === 0],
  },
  // Gemma3TextModel (v4): rotary_emb with rope_theta 1e6 and linear ×8; rotary_emb_local with rope_local_base_freq 1e4,
  // no scaling. sliding_window_pattern 6: layer i global when (i + 1) % 6 == 0.
  'gemma-3-4b': {
    sliding_attention: [{ head_dim: 256, rope_theta: 10000 }, (i) => (i + 1) % 6 !== 0],
    full_attention: [{ head_dim: 256, rope_theta: 1e6, rope_scaling: { rope_type: 'linear', factor: 8 } }, (i) => (i + 1) % 6 === 0],
  },
  // Llama4TextAttention: use_rope = no_rope_layers[i] = (i + 1) % 4 != 0; llama3 ×16 with low = high = 1 over 8192.
  'llama-4-scout': {
    chunked_attention: [{ head_dim: 128, rope_theta: 500000, rope_scaling: { rope_type: 'llama3', factor: 16, low_freq_factor: 1,
      high_freq_factor: 1, original_max_position_embeddings: 8192 } }, (i) => (i + 1) % 4 !== 0],
    no_rope: [null, (i) => (i + 1) % 4 === 0],
  },
  // SmolLM3Attention: use_rope = no_rope_layers[i]; head_dim 2048 / 16 = 128 at 5e6.
  'smollm3-3b': {
    full_attention: [{ head_dim: 128, rope_theta: 5e6 }, (i) => (i + 1) % 4 !== 0],
    no_rope: [null, (i) => (i + 1) % 4 === 0],
  },
  // GptOssRotaryEmbedding: one rotary for every layer, yarn ×32 over 4096, truncate false; layer_types alternate.
  'gpt-oss-20b': {
    sliding_attention: [{ head_dim: 64, rope_theta: 150000, max_position_embeddings: 131072, rope_scaling: { rope_type: 'yarn', factor: 32,
      beta_fast: 32, beta_slow: 1, original_max_position_embeddings: 4096, truncate: false } }, (i) => i % 2 === 0],
    full_attention: [{ head_dim: 64, rope_theta: 150000, max_position_embeddings: 131072, rope_scaling: { rope_type: 'yarn', factor: 32,
      beta_fast: 32, beta_slow: 1, original_max_position_embeddings: 4096, truncate: false } }, (i) => i % 2 === 1],
  },
  // Qwen3NextRotaryEmbedding on the full-attention layers (every 4th): a quarter of head_dim 256 at 1e7; the gated
  // DeltaNet layers have no rotary embedding.
  'qwen3-next-80b': {
    linear_attention: [null, (i) => (i + 1) % 4 !== 0],
    full_attention: [{ head_dim: 256, partial_rotary_factor: 0.25, rope_theta: 1e7 }, (i) => (i + 1) % 4 === 0],
  },
  // DeepseekV3RotaryEmbedding over qk_rope_head_dim 64: yarn ×40 over 4096, mscale = mscale_all_dim = 1 (attention factor 1).
  'deepseek-v3': {
    full_attention: [{ qk_rope_head_dim: 64, rope_theta: 10000, max_position_embeddings: 163840, rope_scaling: { rope_type: 'yarn',
      factor: 40, beta_fast: 32, beta_slow: 1, mscale: 1, mscale_all_dim: 1, original_max_position_embeddings: 4096 } }, () => true],
  },
  // Qwen2_5_VLRotaryEmbedding: text tokens (t = h = w) rotate as default RoPE over head_dim 3584 / 28 = 128 at 1e6.
  'qwen2.5-vl-7b': { full_attention: [{ head_dim: 128, rope_theta: 1e6 }, () => true] },
  'llama-3.1-8b': {
    full_attention: [{ head_dim: 128, rope_theta: 500000, rope_scaling: { rope_type: 'llama3', factor: 8, low_freq_factor: 1,
      high_freq_factor: 4, original_max_position_embeddings: 8192 } }, () => true],
  },
};

test('every ready-made model has its expected layer kinds', () => {
  assert.deepEqual(Object.keys(EXPECTED).sort(), Object.keys(MODEL_PROFILES).sort());
});

for (const [id, kinds] of Object.entries(EXPECTED)) {
  test(`${id}: each layer kind's layers, and its frequencies as transformers computes them for that layer type`, () => {
    const profile = readProfile(MODEL_PROFILES[id].config, NAMES);
    assert.deepEqual(profile.kinds.map((k) => k.name).sort(), Object.keys(kinds).sort());
    for (const kind of profile.kinds) {
      const [config, isLayer] = kinds[kind.name];
      const n = profile.num_hidden_layers;
      assert.deepEqual(kind.layers, Array.from({ length: n }, (_, i) => i).filter(isLayer), `${kind.name}: layers`);
      if (config === null) {
        assert.equal(kind.spec.type, 'none', `${kind.name} has no rotary embedding`);
        continue;
      }
      const core = pe.ropeInvFreq(kind.spec, SEQ);
      const ref = referenceRope(config, SEQ);
      assert.equal(core.inv_freq.length, ref.inv_freq.length, `${kind.name}: pairs`);
      assert.ok(maxRelativeError(core.inv_freq, ref.inv_freq) < 1e-6, `${kind.name}: inv_freq ${maxRelativeError(core.inv_freq, ref.inv_freq)}`);
      assert.ok(Math.abs(core.attention_factor - ref.attention_factor) < 1e-6, `${kind.name}: attention_factor`);
    }
  });
}
