// Every list of families the page keeps against the core's one list (describe()
// of this build): the families' names on the page, the formulas, the config
// reader's names, the views each family shows, the experiment's arms, the compare
// mode's ready-made comparisons, the curves' dash patterns, and each control of a
// core key against the core's key: built from it (coreParameter), its default the
// core's or a page default with a why. (tests/wasm/families.test.mjs checks the
// family table, the controls' kinds, choices and slider ranges.)
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { loadPosenc } from './load.mjs';
import { ENCODING, FAMILIES } from '../../web/src/families/index.js';
import { COMPUTE_NAMES, loadCompute } from '../../web/src/families/compute.js';
import { COMPARISONS, readSlot } from '../../web/src/labs/compare-mode.js';
import { TRAINED } from '../../web/src/labs/experiment.js';
import { FAMILY_FORMULAS, formulaOf, num } from '../../web/src/formulas.js';
import { computeFields, createCalls } from '../../web/src/engine/calls.js';
import { specFromConfig } from '../../web/src/config/model-config.js';
import { MAX_LAYERS } from '../../web/src/config/hf-config.js';
import { SHARED_VIEW_IDS, isViewId } from '../../web/src/views/index.js';
import { DASHES } from '../../web/src/lib/curves.js';
import { coreParameter, scalingParameter } from '../../web/src/describe.js';
import { defaultsOf, parse } from '../../web/src/state.js';

const pe = await loadPosenc();
const core = pe.describe();
const TYPES = core.families.map((f) => f.type);

test('the formulas beside the families are the core’s families', () => {
  assert.deepEqual(Object.keys(FAMILY_FORMULAS).sort(), [...TYPES].sort());
});

test('the encoding control names each core family by the core’s label, up to its colon', () => {
  for (const family of core.families) {
    const name = family.label.slice(0, family.label.indexOf(':'));
    assert.ok(name.length > 1, `${family.type}: the core's label has a name before a colon`);
    assert.equal(ENCODING.choiceLabels[family.type], name, family.type);
    assert.equal(FAMILIES[family.type].label, name, family.type);
  }
  assert.equal(ENCODING.choiceLabels.rope, 'RoPE');
});

test('the rope_type control: a label for each of the core’s rope_types; a scaling key’s control shows for the types that read it', () => {
  const rope = FAMILIES.rope.parameters;
  const control = rope.find((p) => p.name === 'rope_type');
  const names = core.rope_types.map((t) => t.name);
  assert.deepEqual(control.choices, names);
  assert.deepEqual(Object.keys(control.choiceLabels), names);
  for (const t of core.rope_types) {
    for (const key of new Set(core.rope_types.flatMap((x) => x.keys.map((k) => k.name)))) {
      const p = rope.find((q) => q.name === key);
      if (!p) continue;  // a key without a control of its own (none today)
      assert.equal(Boolean(p.when({ rope_type: t.name })), t.keys.some((k) => k.name === key) && !t.unread.includes(key), `${key} under ${t.name}`);
    }
  }
  // By hand, from modeling_rope_utils.py: yarn reads beta_fast, llama3 low_freq_factor and the original context; dynamic
  // accepts that context but grows its base from max_position_embeddings, so it shows no control for it.
  const shown = (key, type) => rope.find((q) => q.name === key).when({ rope_type: type });
  assert.ok(shown('beta_fast', 'yarn') && !shown('beta_fast', 'llama3') && shown('low_freq_factor', 'llama3'));
  assert.ok(shown('original_max_position_embeddings', 'llama3') && !shown('original_max_position_embeddings', 'dynamic'));
  assert.ok(!shown('factor', 'default') && shown('factor', 'proportional'));
});

test('each family whose acts is bias has its b(i, j) among the formulas (formulas.js biasOf), at its page defaults', () => {
  const bias = core.families.filter((f) => f.acts === 'bias').map((f) => f.type);
  assert.ok(bias.includes('alibi') && bias.includes('cope') && !bias.includes('rope'));
  for (const type of bias) {
    const family = FAMILIES[type];
    const p = { ...parse(family.parameters, defaultsOf(family.parameters)).params, encoding: type };
    const tex = formulaOf('bias', p, null);
    assert.match(tex ?? '', /b\(i,\s*j\)/, `${type}: ${tex}`);
    assert.doesNotMatch(tex, /undefined|NaN|null/, type);
  }
});

test('the worker computes what the page offers: the same names', () => {
  assert.deepEqual(COMPUTE_NAMES, Object.keys(FAMILIES));
});

test('families/all.js lists every core family\'s page file, by its type, in the core\'s order, and nothing else', async () => {
  // The worker (families/compute.js) and the page (catalogue.js) load families/page/<type>.js by the core's names.
  const text = fs.readFileSync(new URL('../../web/src/families/all.js', import.meta.url), 'utf8');
  const listed = [...text.matchAll(/^export \* as (\w+) from '\.\/page\/(\w+)\.js';$/gm)];
  assert.deepEqual(listed.filter(([, type, file]) => type !== file), [], 'each file named by its type');
  assert.deepEqual(listed.map(([, type]) => type), core.families.map((f) => f.type));
  const ALL = await import('../../web/src/families/all.js');  // and each file loads
  assert.equal(Object.keys(ALL).length, core.families.length);
});

test('the config reader knows the core’s names: each family’s spec and each rope_type’s bare block pass', () => {
  for (const type of TYPES) assert.deepEqual(specFromConfig({ type }).spec, { type }, type);
  for (const { name } of core.rope_types) {
    assert.deepEqual(specFromConfig({ rope_type: name, factor: 2 }).spec, { type: 'rope', rope_scaling: { rope_type: name, factor: 2 } }, name);
  }
});

test('every view a family shows exists, and every view is shown by some family', () => {
  const shown = new Set(Object.values(FAMILIES).flatMap((f) => f.views));
  assert.deepEqual([...shown].filter((v) => !isViewId(v)), []);
  // Each file of web/src/views/ is a view (index.js aside): a shared one, or a family's own, which its family shows.
  const files = fs.readdirSync(new URL('../../web/src/views/', import.meta.url)).filter((f) => f.endsWith('.js') && f !== 'index.js')
    .map((f) => f.slice(0, -3));
  assert.deepEqual([...shown].filter((v) => !files.includes(v)), [], 'a view without its file');
  assert.deepEqual(files.filter((v) => !shown.has(v)), [], 'a view no encoding shows');
  assert.deepEqual(SHARED_VIEW_IDS.filter((v) => !files.includes(v)), []);
});

test('the experiment trains every core family', () => {
  assert.deepEqual(TRAINED, TYPES);
});

test('the ready-made comparisons read, and name core families', () => {
  for (const [id, { slots }] of Object.entries(COMPARISONS)) {
    slots.forEach((line, k) => {
      if (line === '') return;
      const { family } = readSlot(`config_${'abcd'[k]}`, line);
      assert.ok(TYPES.includes(family), `${id}: ${line}`);
    });
  }
});

test('the decay comparison has a dash pattern of its own for each family’s curve', () => {
  const curves = core.families.filter((f) => f.computes.includes('decay')).length;
  assert.ok(new Set(DASHES).size >= curves, `${new Set(DASHES).size} dash patterns for ${curves} curves`);
});

for (const family of core.families) {
  test(`${family.type}: each control of a core key is the core’s (coreParameter), its default the core’s or one the page says why it takes`, () => {
    for (const p of FAMILIES[family.type].parameters.filter((x) => !x.view)) {
      const key = family.keys.find((k) => k.name === p.name)
        ?? (family.type === 'rope' ? core.rope_types.flatMap((t) => t.keys).find((k) => k.name === p.name) : undefined);
      if (!key) continue;
      assert.ok(Object.hasOwn(p, 'coreDefault'), `${p.name}: typed by the page, not built from describe() (coreParameter)`);
      assert.deepEqual(p.coreDefault, key.default, `${p.name}: core default`);
      if (key.choices && key.kind === 'choice') assert.deepEqual(p.choices, key.choices, `${p.name}: choices`);
      if (JSON.stringify(p.default) !== JSON.stringify(key.default)) {
        assert.ok(typeof p.why === 'string' && p.why.length > 10, `${p.name}: page default ${p.default} (core ${key.default}) without a why`);
      } else {
        assert.equal(p.why, undefined, `${p.name}: a why for the core's own default`);
      }
      if (typeof p.default === 'number') {
        if (key.min != null) assert.ok(p.default >= key.min, `${p.name}: default ${p.default} < core min ${key.min}`);
        if (key.exclusive_min != null) assert.ok(p.default > key.exclusive_min, `${p.name}: default ${p.default} <= ${key.exclusive_min}`);
        if (key.max != null) assert.ok(p.default <= key.max, `${p.name}: default ${p.default} > core max ${key.max}`);
        if (key.kind === 'integer') assert.ok(Number.isInteger(p.default), `${p.name}: default ${p.default} is not an integer`);
      }
    }
  });
}

test('coreParameter: the core’s kind, choices and default; a page default only with a why', () => {
  const dModel = coreParameter('sinusoidal', 'd_model', { sliderMin: 2 });
  assert.deepEqual(dModel, { name: 'd_model', kind: 'int', default: 512, coreDefault: 512, label: 'd_model', sliderMin: 2 });
  assert.deepEqual(coreParameter('kerple', 'variant').choices, ['log', 'power']);
  assert.equal(coreParameter('alibi', 'causal').kind, 'bool');
  assert.equal(coreParameter('rope', 'original_max_position_embeddings').kind, 'optional-int');
  assert.equal(scalingParameter('mscale').kind, 'optional-number');
  const wide = coreParameter('sinusoidal', 'd_model', { pageDefault: 128, why: 'fits the screen' });
  assert.equal(wide.default, 128);
  assert.equal(wide.coreDefault, 512);
  assert.throws(() => coreParameter('sinusoidal', 'd_model', { pageDefault: 128 }), /needs a why/);
  assert.throws(() => coreParameter('sinusoidal', 'd_model', { pageDefault: 512, why: 'the same' }), /default is the core's/);
  assert.throws(() => coreParameter('sinusoidal', 'head_dim'), /has no key "head_dim"/);
  assert.throws(() => scalingParameter('rope_theta'), /no rope_type takes/);
});

test('ALiBi’s formulas show the core’s slopes: every view’s result carries them (formulaNeeds), as alibiSlopes gives them', async () => {
  await loadCompute('alibi');  // as the worker does before a request's fields
  const calls = createCalls(pe);
  const defaults = Object.fromEntries(FAMILIES.alibi.parameters.map((p) => [p.name, p.default]));
  for (const [nHeads, head] of [[8, 3], [12, 9], [5, 4]]) {
    const params = { ...defaults, encoding: 'alibi', n_heads: nHeads, head };
    const { data } = computeFields(calls, 'alibi', params, ['bias']);
    const core = pe.alibiSlopes(nHeads);
    assert.deepEqual(Array.from(data.slopes), Array.from(core));
    assert.ok(formulaOf('bias', params, data).includes(`m_{${head}} = ${num(core[head])}`), `${nHeads} heads, head ${head}`);
  }
});

test('the config readers’ layer limit (hf-config.js MAX_LAYERS) is the core’s describe().limits.max_layers', async () => {
  assert.equal(MAX_LAYERS, core.limits.max_layers);
  // The limits the JS API reads (post.js limits(): posenc_limits, in both modules) carry it too.
  const view = await loadPosenc('view');
  assert.deepEqual([pe.posenc_limits().max_layers, view.posenc_limits().max_layers], [MAX_LAYERS, MAX_LAYERS]);
});
