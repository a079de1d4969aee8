// engine/modules.js: which wasm module a request needs, and which views a page of one view can start without
// posenc.wasm (startingModule). The list of views that can train is checked against every family's views in
// tests/wasm/training-views.test.mjs (the families' lists read the core's describe.json, built with the module).
import assert from 'node:assert/strict';
import test from 'node:test';
import { needsFullModule, startingModule } from '../../web/src/engine/modules.js';

test('a page of one view starts on posenc-view.wasm, or lets its first request pick for a view that may train', () => {
  assert.equal(startingModule('heatmap'), 'view');
  assert.equal(startingModule('decay'), 'view');
  assert.equal(startingModule('attention'), 'auto');
  assert.equal(startingModule('ablation'), 'auto');
  assert.equal(startingModule('no such view'), 'view');
  assert.equal(startingModule(null), 'view');
  // The untrained head computes on the view module, and so does a trained head on the task whose heads ship
  // (families/heads.js; whether its spec is the shipped one, the server checks); another task trains, on posenc.wasm.
  assert.equal(needsFullModule('sinusoidal', { trained_head: false }, ['attention']), false);
  assert.equal(needsFullModule('sinusoidal', { trained_head: true, trained_task: 'copy' }, ['attention']), false);
  assert.equal(needsFullModule('sinusoidal', { trained_head: true }, ['attention']), false);
  assert.equal(needsFullModule('sinusoidal', { trained_head: true, trained_task: 'induction' }, ['attention']), true);
  assert.equal(needsFullModule('sinusoidal', { trained_head: true, trained_task: 'induction' }, ['table']), false);
  assert.equal(needsFullModule('experiment', {}, ['table']), true);
});
