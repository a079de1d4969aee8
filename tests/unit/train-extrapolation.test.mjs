// Which arms of the experiment did not learn the task (web/src/views/train-extrapolation.js notLearned).
import test from 'node:test';
import assert from 'node:assert/strict';
import { LEARNED, notLearned } from '../../web/src/views/train-extrapolation.js';

const run = (name, accuracies, repeats = null) =>
  ({ name, retrained: repeats !== null, repeats, eval: [32, 64, 128, 256].map((length, k) => ({ length, accuracy: accuracies[k], loss: 0 })) });

test('an arm below LEARNED accuracy at L_train did not learn; a scaling tested on a model that did is not counted', () => {
  assert.equal(LEARNED, 0.9);
  const failed = notLearned({ trainLength: 32, runs: [
    run('rope', [1, 0.96, 0.85, 0.72]),
    run('none', [0.23, 0.17, 0.13, 0.11]),
    run('xpos', [0.53, 0.45, 0.34, 0.27]),
    run('alibi', [0.94, 0.95, 0.93, 0.92]),  // 0.94 >= 0.9: learned
    run('rope + PI', [0.11, 0.08, 0.08, 0.07], 'rope'),  // the rope model, tested with PI: its L_train loss is the scaling's
    run('alibi + x', [0.5, 0.4, 0.3, 0.2], 'alibi'),
  ] });
  assert.deepEqual([...failed], [['none', 0.23], ['xpos', 0.53]]);
});

test('a scaling applied to a model that did not learn did not learn either (named with its own accuracy at L_train)', () => {
  const failed = notLearned({ trainLength: 32, runs: [
    run('rope', [0.31, 0.2, 0.15, 0.1]),
    run('alibi', [0.97, 0.96, 0.95, 0.95]),
    run('rope + PI', [0.11, 0.08, 0.08, 0.07], 'rope'),
    run('rope + YaRN', [0.29, 0.08, 0.08, 0.07], 'rope'),
  ] });
  assert.deepEqual([...failed], [['rope', 0.31], ['rope + PI', 0.11], ['rope + YaRN', 0.29]]);
});
