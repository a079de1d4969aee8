// The language-model lab's result table (web/src/views/lm-table.js table(), its CSV): perplexity at 1, 4 and 8 x L_train
// with, at one seed, each one's standard error exp(loss) x loss_se (the delta method over the test's windows), and at
// several seeds the sample standard deviation over them. Given numbers, hand-computed.
import test from 'node:test';
import assert from 'node:assert/strict';
import { table } from '../../web/src/views/lm-table.js';

/** A model tested at L = 16 .. 128 with loss ln(ppl) and the loss_se given. */
const model = (ppl, se, loss = [2, 1.5], msPerStep = 20) => ({ loss, validation: [{ step: 10, loss: 1.6 }], msPerStep,
  eval: [[16, ppl[0]], [64, ppl[1]], [128, ppl[2]]].map(([length, p]) => ({ length, perplexity: p, loss: Math.log(p), loss_se: se })) });
const csv = (runs) => {
  const t = table({ languageModel: { trainLength: 16, runs } });
  return Array.from({ length: t.rows }, (_, k) => Object.fromEntries(t.columns.map((c, j) => [c, t.row(k)[j]])));
};

test('one seed: each perplexity with its standard error, the 4x / 1x ratio, the losses as drawn', () => {
  const [row] = csv([{ name: 'alibi', ...model([8, 7.5, 7.2], 0.01) }]);
  assert.equal(row.encoding, 'alibi');
  assert.equal(row.train_loss, 1.75);  // the mean of the last (here: both) steps
  assert.equal(row.validation_loss, 1.6);
  assert.deepEqual([row.ppl_at_L_train, row.ppl_at_4x_L_train, row.ppl_at_8x_L_train], [8, 7.5, 7.2]);
  assert.ok(Math.abs(row.ppl_at_L_train_se - 0.08) < 1e-12);  // 8 x 0.01
  assert.ok(Math.abs(row.ppl_at_8x_L_train_se - 0.072) < 1e-12);
  assert.equal(row.ppl_4x_over_1x, 7.5 / 8);
  assert.equal(row.ms_per_step, 20);
  assert.equal('ms_per_step_se' in row, false);
});

test('several seeds: mean and sample standard deviation over them, no standard error', () => {
  const runs = [{ name: 'rope', ...model([8, 12, 20], 0.01), bySeed: [model([8, 12, 20], 0.01), model([10, 14, 30], 0.02)] }];
  const [row] = csv(runs);
  assert.equal(row.ppl_at_L_train, 9);
  assert.ok(Math.abs(row.ppl_at_L_train_sd - Math.SQRT2) < 1e-12);  // sd of {8, 10}
  assert.equal(row.ppl_at_8x_L_train, 25);
  assert.equal(row.seeds, 2);
  assert.equal('ppl_at_L_train_se' in row, false);
});

test('a run of seeds with one seed done so far: that seed\'s numbers, no standard error (the table\'s ± is the seeds\' sd)', () => {
  const [row] = csv([{ name: 'alibi', ...model([8, 7.5, 7.2], 0.01), bySeed: [model([8, 7.5, 7.2], 0.01)] }]);
  assert.equal(row.ppl_at_L_train, 8);
  assert.equal(row.ppl_at_L_train_se, '');  // blank: not the test's standard error
});
