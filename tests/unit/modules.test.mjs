// engine/modules.js: which wasm module a request needs, and which views a page of one view can start without
// posenc.wasm (startingModule). The list of views that can train is checked against every family's views.
import assert from 'node:assert/strict';
import test from 'node:test';
import { FAMILIES } from '../../web/src/families/index.js';
import { loadView } from '../../web/src/views/index.js';
import { TRAINING_VIEWS, needsFullModule, startingModule } from '../../web/src/engine/modules.js';

/** The defaults of a family's controls, with the attention lab's trained head on (its default). */
const defaultsOf = (name) => ({ ...Object.fromEntries(FAMILIES[name].parameters.map((p) => [p.name, p.default])), trained_head: true });

test('TRAINING_VIEWS are exactly the views whose request needs posenc.wasm in some family, at the defaults', async () => {
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

test('a page of one view starts on posenc-view.wasm, or lets its first request pick for a view that may train', () => {
  assert.equal(startingModule('heatmap'), 'view');
  assert.equal(startingModule('decay'), 'view');
  assert.equal(startingModule('attention'), 'auto');
  assert.equal(startingModule('ablation'), 'auto');
  assert.equal(startingModule('no such view'), 'view');
  assert.equal(startingModule(null), 'view');
  // The untrained head computes on the view module.
  assert.equal(needsFullModule('sinusoidal', { trained_head: false }, ['attention']), false);
  assert.equal(needsFullModule('sinusoidal', { trained_head: true }, ['attention']), true);
});
