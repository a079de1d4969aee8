// engine/modules.js's TRAINING_VIEWS against every family's views: exactly the views whose request needs posenc.wasm
// at their family's defaults (needsFullModule). Here and not in tests/unit: the families' lists read
// web/generated/describe.json, which the wasm build writes.
import assert from 'node:assert/strict';
import test from 'node:test';
import { FAMILIES } from '../../web/src/families/index.js';
import { loadView } from '../../web/src/views/index.js';
import { TRAINING_VIEWS, needsFullModule } from '../../web/src/engine/modules.js';

/**
 * The defaults of a family's controls, with the attention lab's trained head on (its default) learning a task whose
 * heads do not ship (families/heads.js ships the default task's): the request that trains.
 */
const defaultsOf = (name) => ({ ...Object.fromEntries(FAMILIES[name].parameters.map((p) => [p.name, p.default])), trained_head: true,
  trained_task: 'induction' });

test('TRAINING_VIEWS are exactly the views whose request can need posenc.wasm in some family', async () => {
  const training = new Set();
  for (const [name, family] of Object.entries(FAMILIES)) {
    for (const id of family.views) {
      const view = await loadView(id);
      if (needsFullModule(name, defaultsOf(name), view.needs)) training.add(id);
    }
  }
  assert.deepEqual([...training].sort(), [...TRAINING_VIEWS].sort());
  assert.ok(training.has('attention') && training.has('train-loss') && !training.has('heatmap'));
});

