// The labs' estimate of the time their arms still need (web/src/engine/arms.js timeLeft, timeLeftText, armsLabel): from
// the ms per step and per evaluation unit measured so far and the work left. Given numbers, not measured ones.
import test from 'node:test';
import assert from 'node:assert/strict';
import { armsLabel, curveOf, timeLeft, timeLeftText } from '../../web/src/engine/arms.js';

test('timeLeft: each arm\'s steps left at its own rate, units at the measured rate, shared among the workers', () => {
  const states = [
    // 100 of 300 steps in 2000 ms: 20 ms a step, 200 steps left = 4000 ms; 10 units at 5 ms (the done arm's) = 50 ms.
    { phase: 'train', done: 100, total: 300, steps: 300, units: 10, trainMs: 2000, evaluateMs: 0 },
    // done: 300 steps in 3000 ms (10 ms), 10 units in 50 ms (5 ms a unit).
    { phase: 'done', done: 1, total: 1, steps: 300, units: 10, trainMs: 3000, evaluateMs: 50 },
    // queued: 300 steps at the mean rate of the arms so far, (2000 + 3000) / (100 + 300) = 12.5 ms: 3750 ms; its units
    // unknown: the mean of the known, 10, at 5 ms = 50 ms.
    { phase: 'queued', done: 0, total: 0, steps: 300 },
  ];
  // (4050 + 3800) ms of work, two arms left on two workers: 3925 ms.
  assert.equal(timeLeft(states, 2), (4050 + 3800) / 2);
  assert.equal(timeLeft(states, 1), 4050 + 3800);
  assert.equal(timeLeft(states, 8), (4050 + 3800) / 2);  // never more at once than the arms left
  // Before any step is measured: no estimate.
  assert.equal(timeLeft([{ phase: 'queued', done: 0, total: 0, steps: 300 }], 1), null);
  // An arm testing: its steps are done, its units left at the measured ms per unit.
  assert.equal(timeLeft([{ phase: 'evaluate', done: 4, total: 10, steps: 300, units: 10, trainMs: 3000, evaluateMs: 40 }], 1), 6 * 10);
});

test('timeLeftText says seconds to 5, minutes past 90 s; the label adds it after the arms done', () => {
  assert.equal(timeLeftText(null), '');
  assert.equal(timeLeftText(4000), 'a few seconds left');
  assert.equal(timeLeftText(41000), 'about 40 s left');
  assert.equal(timeLeftText(43000), 'about 45 s left');
  assert.equal(timeLeftText(200000), 'about 3 min left');
  const label = armsLabel(['rope', 'alibi', 't5'], [
    { phase: 'train', done: 100, total: 300, steps: 300, units: 10, trainMs: 2000, evaluateMs: 0 },
    { phase: 'evaluate', done: 2, total: 10, steps: 300, units: 10, trainMs: 3000, evaluateMs: 10 },
    { phase: 'done', done: 1, total: 1, steps: 300, units: 10, trainMs: 3000, evaluateMs: 50 }], 2);
  // rope: 200 steps at 20 ms + 10 units at 5 ms (60 ms over 12 units measured); alibi: 8 units at 5 ms; on two workers: 2045 ms.
  assert.equal(label, 'training rope 100 / 300 steps, alibi testing (1 of 3 arms done; a few seconds left)');
});

test('curveOf gathers a training curve from its pieces', () => {
  const curve = curveOf(5);
  curve.add({ loss: Float32Array.of(3, 2.5), validation: [] });
  curve.add({ loss: Float32Array.of(2), validation: [{ step: 3, loss: 2.2 }] });
  assert.equal(curve.length, 3);
  assert.deepEqual(curve.read(), { loss: Float32Array.of(3, 2.5, 2), validation: [{ step: 3, loss: 2.2 }] });
});

test('timeLeft before any unit is measured: a unit costs a step\'s ms / (3 x batch), one forward of one sequence', () => {
  // 20 ms a step (2000 ms for 100 steps): 200 steps left = 4000 ms; 4800 units at 20 / (3 x 16) ms = 2000 ms.
  assert.equal(timeLeft([{ phase: 'train', done: 100, total: 300, steps: 300, units: 4800, trainMs: 2000, evaluateMs: 0, batch: 16 }], 1), 6000);
});
