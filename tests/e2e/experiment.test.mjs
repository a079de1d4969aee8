// The experiment page (train short, test long) in real headless Chromium: every
// trained encoding's accuracy against length and its loss curve, computed in the
// engine's worker by train(), with their CSV exports; and the default experiment's time.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { openPlayground, startPlayground } from './browser.mjs';
import { TRAINED } from '../../web/src/families/experiment.js';

const ARMS = [...TRAINED, 'rope + PI', 'rope + NTK', 'rope + YaRN', 'rope + llama3'];

let playground;
before(async () => { playground = await startPlayground(); });
after(async () => { await playground?.close(); });

test('a short experiment draws accuracy against length and the loss curves of every trained encoding', async () => {
  const page = await playground.newPage();
  await openPlayground(playground, page, '?encoding=experiment&steps=40&train_length=8&d_model=8');
  assert.deepEqual(await page.$$eval('#train-extrapolation .curve-toggles label', (l) => l.map((x) => x.textContent.trim())), ARMS);
  assert.equal(await page.$$eval('#train-loss svg g[aria-label="line"]', (g) => g.length), TRAINED.length);  // the scaling arms repeat rope's training
  const [file] = await Promise.all([page.waitForEvent('download'), page.click('#train-extrapolation [data-export=csv]')]);
  const lines = fs.readFileSync(await file.path(), 'utf8').trim().split('\n');
  assert.equal(lines[0], 'encoding,test_length,accuracy,mean_loss');
  assert.equal(lines.length, 1 + ARMS.length * 4);  // lengths 8, 16, 32, 64
  for (const line of lines.slice(1)) {
    const [, length, accuracy] = line.split(',');
    assert.ok([8, 16, 32, 64].includes(Number(length)));
    assert.ok(Number(accuracy) >= 0 && Number(accuracy) <= 1);
  }
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('the default experiment (six encodings and four RoPE scalings, copy, 400 steps at L_train 32) finishes in the worker; its time is reported', async () => {
  const page = await playground.newPage();
  const start = Date.now();
  await openPlayground(playground, page, '?encoding=experiment');
  await page.waitForSelector('#train-extrapolation .curve-toggles');
  const seconds = (Date.now() - start) / 1000;
  console.log(`# the default experiment drew in ${seconds.toFixed(1)} s in headless Chromium`);
  assert.ok(seconds < 60, `${seconds} s`);
  assert.deepEqual(page.problems, []);
  await page.close();
});
