// The page's families against the core's own list (describe()): the same
// families in the same order, each control that sets a core key of the
// same kind, with the core's choices and a slider range the core accepts, and
// every rope_type with a control for each of its keys.
import test from 'node:test';
import assert from 'node:assert/strict';
import { loadPosenc } from './load.mjs';
import { FAMILIES } from '../../web/src/families/index.js';
import { DESCRIPTION } from '../../web/src/describe.js';
import { defaultsOf, parse } from '../../web/src/state.js';
import { TRAINED_TYPES, loadTrained } from '../../web/src/families/trained.js';

const pe = await loadPosenc();
await loadTrained(TRAINED_TYPES);  // the defaults of a family with learned parameters are the trained set (families/trained.js)
const live = pe.describe();
const KIND = { int: 'integer', 'optional-int': 'integer', number: 'number', 'optional-number': 'number', choice: 'choice', bool: 'boolean', list: 'list' };

test('web/generated/describe.json is the core’s describe() of this build (its formulas apart: describe.test.mjs)', () => {
  const lean = live.families.map(({ formula, formula_note, ...rest }) => rest);  // eslint-disable-line no-unused-vars
  assert.deepEqual(DESCRIPTION, { ...live, families: lean });
});

test('the page offers the core’s families, in the core’s order, then compare, the experiment, the language-model lab and the model lab', () => {
  assert.deepEqual(Object.keys(FAMILIES), [...live.families.map((f) => f.type), 'compare', 'experiment', 'language_model', 'model_profile']);
});

for (const family of live.families) {
  test(`${family.type}: each control of a core key has its kind, choices and a slider range the core accepts`, () => {
    const parameters = FAMILIES[family.type].parameters.filter((p) => !p.view);
    let checked = 0;
    for (const p of parameters) {
      const key = family.keys.find((k) => k.name === p.name);
      if (!key) continue;
      checked += 1;
      assert.equal(KIND[p.kind], key.kind, `${p.name}: kind`);
      if (key.choices) assert.deepEqual([...p.choices].sort(), [...key.choices].sort(), `${p.name}: choices`);
      for (const bound of [p.sliderMin, p.sliderMax].filter((b) => b !== undefined)) {
        if (key.min !== undefined) assert.ok(bound >= key.min, `${p.name}: slider ${bound} < core min ${key.min}`);
        if (key.exclusive_min !== undefined) assert.ok(bound > key.exclusive_min, `${p.name}: slider ${bound} <= ${key.exclusive_min}`);
        if (key.max !== undefined) assert.ok(bound <= key.max, `${p.name}: slider ${bound} > core max ${key.max}`);
      }
    }
    assert.ok(checked >= Math.min(1, family.keys.length), `${family.type}: no control sets a core key`);
    // The page's defaults make a spec the core accepts (with trained parameters: the shipped set, tensors and all).
    const { params } = parse(FAMILIES[family.type].parameters, defaultsOf(FAMILIES[family.type].parameters));
    const spec = FAMILIES[family.type].spec(params);
    const verdict = { absolute: () => pe.positionTable(spec, 1), none: () => pe.positionTable(spec, 1),
      rotary: () => pe.ropeInvFreq(spec, 1), bias: () => pe.attentionBias(spec, 1), polar: () => pe.decay(spec, 1) }[family.acts];
    assert.doesNotThrow(verdict);
  });
}

test('rope: the rope_type control lists the core’s rope types, and each type’s keys have a control', () => {
  const names = new Set(FAMILIES.rope.parameters.map((p) => p.name));
  const ropeType = FAMILIES.rope.parameters.find((p) => p.name === 'rope_type');
  assert.deepEqual(ropeType.choices, live.rope_types.map((t) => t.name));
  for (const t of live.rope_types) for (const key of [...t.required, ...t.optional]) assert.ok(names.has(key), `${t.name}: ${key}`);
});
