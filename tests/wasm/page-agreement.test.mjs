// Every list of families the page keeps against the core's one list (describe()
// of this build): the formulas, the config reader's names, the views each family
// shows, the experiment's arms, the compare mode's ready-made comparisons, the
// curves' dash patterns, and each control's default against the core's range.
// (tests/wasm/families.test.mjs checks the family table, the controls' kinds,
// choices and slider ranges.)
import test from 'node:test';
import assert from 'node:assert/strict';
import { loadPosenc } from './load.mjs';
import { FAMILIES } from '../../web/src/families/index.js';
import { COMPUTE } from '../../web/src/families/compute.js';
import { COMPARISONS, readSlot } from '../../web/src/labs/compare-mode.js';
import { TRAINED } from '../../web/src/labs/experiment.js';
import { FAMILY_FORMULAS } from '../../web/src/formulas.js';
import { specFromConfig } from '../../web/src/config/model-config.js';
import { VIEW_IDS } from '../../web/src/views/index.js';
import { DASHES } from '../../web/src/lib/curves.js';

const pe = await loadPosenc();
const core = pe.describe();
const TYPES = core.families.map((f) => f.type);

test('the formulas beside the families are the core’s families', () => {
  assert.deepEqual(Object.keys(FAMILY_FORMULAS).sort(), [...TYPES].sort());
});

test('the worker computes what the page offers: the same names', () => {
  assert.deepEqual(Object.keys(COMPUTE), Object.keys(FAMILIES));
});

test('the config reader knows the core’s names: each family’s spec and each rope_type’s bare block pass', () => {
  for (const type of TYPES) assert.deepEqual(specFromConfig({ type }).spec, { type }, type);
  for (const { name } of core.rope_types) {
    assert.deepEqual(specFromConfig({ rope_type: name, factor: 2 }).spec, { type: 'rope', rope_scaling: { rope_type: name, factor: 2 } }, name);
  }
});

test('every view a family shows exists, and every view is shown by some family', () => {
  const shown = new Set(Object.values(FAMILIES).flatMap((f) => f.views));
  assert.deepEqual([...shown].filter((v) => !VIEW_IDS.includes(v)), []);
  assert.deepEqual(VIEW_IDS.filter((v) => !shown.has(v)), []);
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
  test(`${family.type}: each control’s default of a core key is one the core accepts`, (t) => {
    const differs = [];
    for (const p of FAMILIES[family.type].parameters.filter((x) => !x.view)) {
      const key = family.keys.find((k) => k.name === p.name);
      if (!key || p.default === null || p.default === undefined) continue;
      if (key.choices) assert.ok(key.choices.includes(p.default), `${p.name}: ${p.default} not among ${key.choices}`);
      if (typeof p.default === 'number') {
        if (key.min != null) assert.ok(p.default >= key.min, `${p.name}: default ${p.default} < core min ${key.min}`);
        if (key.exclusive_min != null) assert.ok(p.default > key.exclusive_min, `${p.name}: default ${p.default} <= ${key.exclusive_min}`);
        if (key.max != null) assert.ok(p.default <= key.max, `${p.name}: default ${p.default} > core max ${key.max}`);
        if (key.kind === 'integer') assert.ok(Number.isInteger(p.default), `${p.name}: default ${p.default} is not an integer`);
      }
      if (key.default !== null && JSON.stringify(key.default) !== JSON.stringify(p.default)) differs.push(`${p.name} ${p.default} (core ${key.default})`);
    }
    // A page default may differ from the paper's for display (a 128-wide table reads better than 512): said, not failed.
    if (differs.length) t.diagnostic(`page defaults that differ from the core's: ${differs.join(', ')}`);
  });
}
