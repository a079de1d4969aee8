// describe(): the one list of families the page and the config reader use.
// Checked against what the functions themselves accept, so the list cannot
// drift from the core.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { loadPosenc } from './load.mjs';

const pe = await loadPosenc();
const described = pe.describe();

/** The described default of `key` in `family`. */
function defaultOf(family, key) {
  return family.keys.find((k) => k.name === key).default;
}

/** True when `call` runs, false when it refuses the spec's type; any other error fails the test. */
function accepts(call) {
  try {
    call();
    return true;
  } catch (error) {
    if (error.param === 'type' || error.param === 'encoding.type') return false;
    throw error;
  }
}

/** Each JS function that takes a spec, called with the family's spec {type} alone. */
function calls(family) {
  const spec = { type: family.type };
  const width = family.width_key ? defaultOf(family, family.width_key) : 4;
  const d = 4;
  const w = new Float32Array(d * d).fill(0.1);
  return {
    positionTable: () => pe.positionTable(spec, 4),
    positionSimilarity: () => pe.positionSimilarity(spec, 4, 'dot'),
    positionFrequencies: () => pe.positionFrequencies(spec),
    ropeInvFreq: () => pe.ropeInvFreq(spec, 16),
    applyRope: () => pe.applyRope(new Float32Array(2 * width), 2, width, spec, 0),
    decay: () => pe.decay(spec, 8),
    attentionBias: () => pe.attentionBias(spec, 4),
    attention: () => pe.attention({ text: 'the cat sat', d_model: 8, d_head: 8, encoding: spec }),
    attentionForward: () => pe.attentionForward({ x: new Float32Array(2 * d).fill(1), wq: w, wk: w, wv: w, n: 2,
      d_model: d, d_head: d, encoding: spec }),
  };
}

test('describe() lists every family once, in the page order, with where it acts', () => {
  // The one list, core/include/posenc/family_list.hpp, in its order: each line's namespace is the type (nope's is "none").
  const listed = [...fs.readFileSync(new URL('../../core/include/posenc/family_list.hpp', import.meta.url), 'utf8')
    .matchAll(/^POSENC_FAMILY\((\w+)\)$/gm)].map((m) => (m[1] === 'nope' ? 'none' : m[1]));
  assert.ok(listed.length >= 14);
  assert.deepEqual(described.families.map((f) => f.type), listed);
  const acts = Object.fromEntries(described.families.map((f) => [f.type, [f.acts, f.width_key]]));
  assert.deepEqual(acts.sinusoidal, ['absolute', 'd_model']);
  assert.deepEqual(acts.none, ['none', 'd_model']);
  assert.deepEqual(acts.xpos, ['rotary', 'head_dim']);
  assert.deepEqual(acts.alibi, ['bias', '']);
  assert.deepEqual(acts.transformer_xl, ['bias', 'd_head']);
  assert.deepEqual(acts.deberta, ['bias', 'head_dim']);
  assert.deepEqual(acts.cope, ['bias', 'head_dim']);
  assert.deepEqual(acts.fox, ['bias', '']);
  assert.match(described.version, /^\d+\.\d+\.\d+$/);
  assert.ok(pe.version().includes(described.version));
});

test("a family's `computes` is exactly the functions that accept its spec", () => {
  for (const family of described.families) {
    const accepted = Object.entries(calls(family)).filter(([, call]) => accepts(call)).map(([name]) => name);
    assert.deepEqual([...accepted].sort(), [...family.computes].sort(), family.type);
  }
});

test('the described defaults are the ones the core uses: a spec of all defaults computes what {type} does', () => {
  for (const family of described.families) {
    const explicit = { type: family.type };
    for (const key of family.keys) if (key.default !== null) explicit[key.name] = key.default;
    const plain = { type: family.type };
    const curve = (spec) => pe.decay(spec, 16);
    if (family.computes.includes('positionTable')) assert.deepEqual(pe.positionTable(explicit, 3), pe.positionTable(plain, 3), family.type);
    if (family.computes.includes('ropeInvFreq')) assert.deepEqual(pe.ropeInvFreq(explicit, 64), pe.ropeInvFreq(plain, 64), family.type);
    if (family.computes.includes('attentionBias')) assert.deepEqual(pe.attentionBias(explicit, 5), pe.attentionBias(plain, 5), family.type);
    if (family.computes.includes('decay')) assert.deepEqual(curve(explicit), curve(plain), family.type);
  }
});

test("a key's range is the core's: its min, max and choices are accepted, past them is refused with the key's allowed text", () => {
  const bias = described.families.find((f) => f.type === 'alibi');
  const nHeads = bias.keys.find((k) => k.name === 'n_heads');
  assert.deepEqual([nHeads.min, nHeads.max, nHeads.default], [1, described.limits.max_heads, 8]);
  assert.equal(pe.attentionBias({ type: 'alibi', n_heads: nHeads.max }, 2).length, 4);
  assert.throws(() => pe.attentionBias({ type: 'alibi', n_heads: nHeads.max + 1 }, 2),
    { param: 'n_heads', value: String(nHeads.max + 1), allowed: nHeads.allowed });
  const sinusoidal = described.families[0];
  const dModel = sinusoidal.keys.find((k) => k.name === 'd_model');
  assert.throws(() => pe.positionTable({ type: 'sinusoidal', d_model: dModel.min - 1 }, 1),
    { param: 'd_model', allowed: dModel.allowed });
  const base = sinusoidal.keys.find((k) => k.name === 'base');
  assert.equal(base.exclusive_min, 1);
  assert.throws(() => pe.positionTable({ type: 'sinusoidal', base: base.exclusive_min }, 1), { param: 'base', allowed: base.allowed });
  const layout = sinusoidal.keys.find((k) => k.name === 'layout');
  for (const choice of layout.choices) assert.equal(pe.positionTable({ type: 'sinusoidal', d_model: 4, layout: choice }, 1).cols, 4);
});

test('rope_types: the names the core accepts, with their required and optional keys', () => {
  const names = described.rope_types.map((t) => t.name);
  assert.deepEqual(names, ['default', 'linear', 'ntk', 'dynamic', 'yarn', 'llama3', 'longrope', 'proportional']);
  const yarn = described.rope_types.find((t) => t.name === 'yarn');
  assert.deepEqual(yarn.required, ['factor']);
  assert.ok(yarn.optional.includes('beta_fast'));
  for (const type of described.rope_types) {
    const spec = { type: 'rope', head_dim: 8, rope_scaling: { rope_type: type.name } };
    if (type.required.length === 0) assert.equal(pe.ropeInvFreq(spec, 16).inv_freq.length, 4, type.name);
    else assert.throws(() => pe.ropeInvFreq(spec, 16), { param: type.required[0], value: 'undefined' }, type.name);
  }
  assert.throws(() => pe.ropeInvFreq({ type: 'rope', rope_scaling: { rope_type: 'turbo' } }, 16), { param: 'rope_type' });
});

test('the limits are the ones the functions check', () => {
  const { limits } = described;
  assert.equal(limits.max_distance, 1000000);
  assert.equal(pe.decay({ type: 'none' }, limits.max_distance).distance.length, limits.max_distance + 1);
  assert.throws(() => pe.decay({ type: 'none' }, limits.max_distance + 1), { param: 'maxDistance', allowed: `an integer in [0, ${limits.max_distance}]` });
  assert.throws(() => pe.attentionBias({ type: 'alibi' }, limits.max_matrix_n + 1), { param: 'n' });
  assert.throws(() => pe.alibiSlopes(limits.max_heads + 1), { param: 'nHeads' });
  assert.throws(() => pe.ropeInvFreq({ type: 'rope' }, limits.max_position + 1), { param: 'seqLen' });
  assert.throws(() => pe.embedTokens('a', limits.max_model_dim + 1, 0), { param: 'dModel' });
  assert.throws(() => pe.positionTable({ type: 'none', d_model: 1 }, limits.max_table_elements + 1), { param: 'n' });
});

test('npm run build:wasm wrote web/generated/describe.json (describe(), pretty-printed) and the formulas apart', () => {
  const file = fs.readFileSync(new URL('../../web/generated/describe.json', import.meta.url), 'utf8');
  const formulas = JSON.parse(fs.readFileSync(new URL('../../web/generated/family-formulas.json', import.meta.url), 'utf8'));
  // describe() with each family's formula and formula_note moved to family-formulas.json (by type).
  const lean = { ...described, families: described.families.map(({ formula, formula_note: note, ...rest }) => {
    assert.deepEqual(formulas[rest.type], { tex: formula, note }, rest.type);
    assert.ok(formula.length >= 5, `${rest.type}: a formula`);
    return rest;
  }) };
  assert.deepEqual(JSON.parse(file), lean);
  assert.deepEqual(Object.keys(formulas), described.families.map((f) => f.type));
  assert.ok(file.includes('\n  "families": ['));
});

test("the .d.ts's FamilyType union is the core's families, in its order", () => {
  // npm run build:wasm writes the union (web/generated/families.d.ts); wasm/posenc.d.ts exports it as FamilyType.
  const api = fs.readFileSync(new URL('../../wasm/posenc.d.ts', import.meta.url), 'utf8');
  assert.match(api, /^export type \{ FamilyType \} from '\.\.\/web\/generated\/families';$/m);
  const dts = fs.readFileSync(new URL('../../web/generated/families.d.ts', import.meta.url), 'utf8');
  const union = dts.match(/export type FamilyType =([^;]*);/)?.[1];
  assert.ok(union, 'families.d.ts declares FamilyType');
  assert.deepEqual([...union.matchAll(/'([^']+)'/g)].map((m) => m[1]), described.families.map((f) => f.type));
});
