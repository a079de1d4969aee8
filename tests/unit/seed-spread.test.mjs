// The language-model lab's seeds: the mean and spread of a few numbers (web/src/lib/spread.js), the band of one
// seed's point from its standard error, and the points the perplexity plot draws from them (views/lm-extrapolation.js).
import test from 'node:test';
import assert from 'node:assert/strict';
import { meanSpread, standardErrorBand } from '../../web/src/lib/spread.js';
import { pointsOf } from '../../web/src/views/lm-extrapolation.js';

test('meanSpread: the mean, the sample standard deviation (n - 1), min and max, as by hand', () => {
  // 3, 5, 10: mean 6; deviations -3, -1, 4; squares 9 + 1 + 16 = 26; 26 / (3 - 1) = 13; sd = sqrt(13).
  assert.deepEqual(meanSpread([3, 5, 10]), { n: 3, mean: 6, sd: Math.sqrt(13), min: 3, max: 10 });
  // Two values a and b: sd = |a - b| / sqrt(2): (1 + 1) / 1 = 2, sqrt(2).
  assert.equal(meanSpread([2, 4]).sd, Math.sqrt(2));  // 2 / sqrt(2)
  const one = meanSpread([7.5]);
  assert.equal(one.mean, 7.5);
  assert.ok(Number.isNaN(one.sd));  // no spread from one value
  assert.throws(() => meanSpread([]), (e) => e instanceof RangeError && e.param === 'values');
});

test('one seed\'s band is exp(loss ± loss_se), none without loss_se', () => {
  assert.deepEqual(standardErrorBand({ loss: 2, loss_se: 0.1 }), { lo: Math.exp(1.9), hi: Math.exp(2.1) });
  assert.equal(standardErrorBand({ loss: 2 }), null);
});

test('the perplexity plot\'s points: the mean ± 1 sd over seeds, or the value and its own band', () => {
  const evalOf = (perplexities) => perplexities.map((p, k) => ({ length: 16 * 2 ** k, perplexity: p, loss: Math.log(p) }));
  const seeds = [evalOf([3, 4]), evalOf([5, 4]), evalOf([10, 4])].map((e, s) => ({ seed: s, eval: e }));
  const points = pointsOf({ eval: seeds[0].eval, bySeed: seeds });
  assert.deepEqual(points.map((p) => [p.x, p.y, p.n]), [[16, 6, 3], [32, 4, 3]]);
  assert.equal(points[0].lo, 6 - Math.sqrt(13));
  assert.equal(points[0].hi, 6 + Math.sqrt(13));
  assert.deepEqual([points[1].lo, points[1].hi], [4, 4]);  // the same perplexity at every seed: no spread
  // One seed: its own perplexity, its band from loss_se when the result has it.
  const single = pointsOf({ eval: [{ length: 16, perplexity: Math.exp(2), loss: 2, loss_se: 0.5 }, { length: 32, perplexity: 9, loss: Math.log(9) }] });
  assert.deepEqual(single.map((p) => [p.y, p.lo, p.hi]), [[Math.exp(2), Math.exp(1.5), Math.exp(2.5)], [9, undefined, undefined]]);
});
