// The formulas beside the views (web/src/formulas.js), in Node: the numbers they
// write in are the closed forms of the papers, worked out here by hand.
import test from 'node:test';
import assert from 'node:assert/strict';
import { FAMILY_FORMULAS, formulaOf, num } from '../../web/src/formulas.js';

test('num: integers in full, others to 4 significant digits, a × 10^k when tiny or huge', () => {
  assert.equal(num(500000), '500000');
  assert.equal(num(0.25), '0.25');
  assert.equal(num(1 / 3), '0.3333');
  assert.equal(num(2 * Math.PI * 10000), '62830', '62831.85 to 4 digits');
  assert.equal(num(2.5e-5), '2.5\\times 10^{-5}');
  assert.equal(num(1e-7), '1\\times 10^{-7}');
  assert.equal(num(Infinity), '\\infty');
  assert.equal(num(-Infinity), '-\\infty');
});

test('ALiBi: the rule for H heads as written, and the slopes the core computed (none before the result)', () => {
  // Press et al.'s get_slopes(12): [2^-1, 2^-2, ..., 2^-8] + [2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5]
  const core12 = Float32Array.from([1, 2, 3, 4, 5, 6, 7, 8, 0.5, 1.5, 2.5, 3.5], (e) => 2 ** -e);
  const tex = formulaOf('slopes', { encoding: 'alibi', n_heads: 12, head: 0 }, { heads: { slopes: core12 } });
  assert.match(tex, /m_h = 2\^\{-8\(h\+1\)\/8\}\\ \(h < 8\)/);
  assert.match(tex, /m_\{8\+k\} = 2\^\{-8\(2k\+1\)\/16\}\\ \(k < 4\)/);
  assert.match(tex, /m_0 = 0\.5,/);
  assert.match(tex, /m_\{11\} = 0\.08839/, '2^-3.5 = 0.088388...');
  assert.doesNotMatch(formulaOf('slopes', { encoding: 'alibi', n_heads: 12, head: 0 }), /m_\{11\} =/);
  // The bias view of head 9 of 12: the core's m_9 = 2^-1.5 (the result's slopes), the rule beside it.
  const bias = formulaOf('bias', { encoding: 'alibi', n_heads: 12, head: 9, causal: false }, { slopes: core12 });
  assert.match(bias, /m_\{9\} = 0\.3536/, '2^-1.5 = 0.35355...');
  const before = formulaOf('bias', { encoding: 'alibi', n_heads: 8, head: 2, causal: false });
  assert.match(before, /m_h = 2\^\{-8\(h\+1\)\/8\}/);
  assert.doesNotMatch(before, /m_\{2\} =/);
});

test('YaRN: the formula shows the ramp ends the core computed (ropeInvFreq ramp_low, ramp_high), and none without them', () => {
  const p = { encoding: 'rope', rope_type: 'yarn', head_dim: 128, partial_rotary_factor: 1, rope_theta: 10000, factor: 4,
    max_position_embeddings: 4096, original_max_position_embeddings: 0, beta_fast: 32, beta_slow: 1, truncate: true, seq_len: 4096 };
  const drawn = formulaOf('spectrum', p, { scaled: { ramp_low: 20, ramp_high: 46 } });
  assert.match(drawn, /i_\{\\beta\} = \\lfloor i\(32\) \\rfloor = 20/);
  assert.match(drawn, /i_\{\\alpha\} = \\lceil i\(1\) \\rceil = 46/);
  const before = formulaOf('spectrum', p);
  assert.match(before, /i_\{\\beta\} = \\lfloor i\(32\) \\rfloor,/);
  assert.doesNotMatch(before, /= 20,/);
});

test('RoPE spectrum: θ_i over the rotated width (head_dim × partial_rotary_factor, GPT-NeoX 64 × 0.25 = 16), and the scaling’s θ′', () => {
  const neox = { encoding: 'rope', head_dim: 64, partial_rotary_factor: 0.25, rope_theta: 10000, rope_type: 'default', seq_len: 2048,
    max_position_embeddings: 2048 };
  const tex = formulaOf('spectrum', neox);
  assert.match(tex, /\\theta_i = 10000\^\{-2i\/16\}/);
  assert.match(tex, /i = 0,\\dots,7/, '8 rotated pairs');
  const linear = formulaOf('spectrum', { ...neox, partial_rotary_factor: 1, rope_type: 'linear', factor: 8 });
  assert.match(linear, /\\theta'_i = \\theta_i \/ 8/);
  // llama3: keep wavelengths below 8192 / 4, divide those above 8192 / 1
  const llama3 = formulaOf('spectrum', { ...neox, head_dim: 128, partial_rotary_factor: 1, rope_theta: 500000, rope_type: 'llama3', factor: 8,
    low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192, max_position_embeddings: 131072 });
  assert.match(llama3, /\\lambda_i < 2048/);
  assert.match(llama3, /\\lambda_i > 8192/);
});

test('sinusoidal: ω_i = base^(−2i/d); the slowest wavelength is 2π base^((d−2)/d)', () => {
  const p = { encoding: 'sinusoidal', d_model: 4, base: 10000, layout: 'interleaved', timescales: 'vaswani' };
  const waves = formulaOf('waves', p);
  assert.match(waves, /\\omega_i = 10000\^\{-2i\/4\}/);
  // pair 1 of d = 4: ω = 10000^(-1/2) = 0.01, wavelength 2π / 0.01 = 628.3
  assert.match(waves, /\\in \[2\\pi,\\ 628\.3\]/);
  assert.match(formulaOf('heatmap', { ...p, layout: 'concat' }), /\\mathrm\{PE\}_\{\\mathrm\{pos\},\\,2\+i\} = \\cos/);
  assert.match(formulaOf('heatmap', { ...p, timescales: 'tensor2tensor' }), /\\omega_i = 10000\^\{-i\/1\}/, 'base^(-i/(d/2 - 1))');
});

test('T5 buckets: half the buckets each way when bidirectional, the first half of those exact', () => {
  const tex = formulaOf('buckets', { encoding: 't5', num_buckets: 32, max_distance: 128, bidirectional: true });
  assert.match(tex, /16\\,\[r > 0\]/);
  assert.match(tex, /\\min\\Big\(15,\\ 8 \+/);
  assert.match(tex, /\\ln\(128\/8\)/);
});

test('the attention lab’s logit: where the family’s position acts and its width, from the core’s description of it', () => {
  const p = { encoding: 'xpos', head_dim: 32, scale_base: 512, sharpness: 1, projections: 'random', attn_causal: false };
  // describe()'s xpos entry, as far as the formula reads it: rotary, head_dim wide.
  const xpos = formulaOf('attention', p, undefined, { type: 'xpos', acts: 'rotary', width_key: 'head_dim' });
  assert.match(xpos, /\\frac\{q_i\^\{\\top\} \\zeta\^\{\(i-j\)\/512\}R_\{j-i\}\\, k_j\}\{\\sqrt\{32\}\}/);
  const alibi = formulaOf('attention', { ...p, encoding: 'alibi' }, undefined, { type: 'alibi', acts: 'bias', width_key: '' });
  assert.match(alibi, /\\frac\{q_i\\cdot k_j\}\{\\sqrt\{64\}\} \+ b\(i,j\)/, 'no width key: the 64-wide head');
  const sinusoidal = formulaOf('attention', { ...p, encoding: 'sinusoidal', d_model: 16 }, undefined,
    { type: 'sinusoidal', acts: 'absolute', width_key: 'd_model' });
  assert.match(sinusoidal, /q_i = \(x_i \+ p_i\)W_q/);
  assert.match(sinusoidal, /\\sqrt\{16\}/);
});

test('every family has a symbolic formula and a note beside the core’s source (it may be empty); an unknown view has none', () => {
  for (const [family, { tex, note }] of Object.entries(FAMILY_FORMULAS)) {
    assert.ok(tex.length > 4 && typeof note === 'string', family);
  }
  assert.equal(formulaOf('no-such-view', {}), null);
  assert.equal(formulaOf('constructor', {}), null, 'not read from the prototype');
});

test('YaRN in the rotation view: the ramp ends of the view\'s own pair trajectory (engine pairTrajectory)', () => {
  const p = { encoding: 'rope', rope_type: 'yarn', head_dim: 128, partial_rotary_factor: 1, rope_theta: 10000, factor: 4,
    max_position_embeddings: 4096, original_max_position_embeddings: 0, beta_fast: 32, beta_slow: 1, truncate: true,
    pair: 8, start: 0, layout: 'half' };
  assert.match(formulaOf('rotation', p, { rotation: { ramp_low: 20, ramp_high: 46 } }), /\\lfloor i\(32\) \\rfloor = 20/);
});

test('every view of every encoding has its formula at the page defaults, before any result (the view frame typesets it)', async () => {
  const { FAMILIES } = await import('../../web/src/families/index.js');
  const { SHARED_VIEW_IDS, loadView } = await import('../../web/src/views/index.js');
  const { defaultsOf, parse } = await import('../../web/src/state.js');
  const shown = new Set();
  for (const [name, family] of Object.entries(FAMILIES)) {
    const p = { ...parse(family.parameters, defaultsOf(family.parameters)).params, encoding: name };
    for (const view of family.views) {
      shown.add(view);
      const tex = formulaOf(view, p, null, family, (await loadView(view)).formula);
      assert.ok(typeof tex === 'string' && tex.length > 0, `${name}: ${view}`);
      assert.doesNotMatch(tex, /undefined|NaN/, `${name}: ${view}`);
    }
  }
  assert.deepEqual(SHARED_VIEW_IDS.filter((id) => !shown.has(id)), [], 'a view no encoding shows');
});
