// The attention lab in real headless Chromium: the reader's sentence drives
// every attention view; 512 tokens work and 513 are refused beside the box.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { openPlayground, startPlayground } from './browser.mjs';

let playground;
before(async () => { playground = await startPlayground(); });
after(async () => { await playground?.close(); });

const ATTENTION_VIEWS = { sinusoidal: ['attention', 'ablation', 'word-order', 'terms'], rope: ['attention', 'ablation', 'word-order'],
  alibi: ['attention', 'ablation', 'word-order', 'panels'] };

/** The token labels along the attention map's key axis. */
const keyLabels = (page) => page.$$eval('#attention svg [aria-label="x-axis tick label"] text', (t) => t.map((x) => x.textContent));

test('typing a sentence updates every attention view', async () => {
  const page = await playground.newPage();
  for (const [encoding, views] of Object.entries(ATTENTION_VIEWS)) {
    await openPlayground(playground, page, `?encoding=${encoding}&d_model=16&head_dim=16`);
    assert.deepEqual(await keyLabels(page), ['the', 'dog', 'chased', 'the', 'cat']);
    const before = await Promise.all(views.map((id) => page.innerHTML(`#${id} .figure`)));
    await page.fill('#control-text', 'A rose is a rose!');
    await page.waitForFunction(() => document.querySelectorAll('#attention svg [aria-label="x-axis tick label"] text').length === 6);
    assert.deepEqual(await keyLabels(page), ['a', 'rose', 'is', 'a', 'rose', '!']);
    const after = await Promise.all(views.map((id) => page.innerHTML(`#${id} .figure`)));
    views.forEach((id, k) => assert.notEqual(after[k], before[k], `${encoding}: ${id} did not change`));
    assert.match(await page.textContent('#ablation .note'), /“a” at positions 0, 3: rows identical without positions, different with them; “rose” at positions 1, 4/);
    // The URL takes the sentence once it is committed (a pause in typing, or leaving the box).
    await page.waitForFunction(() => /text=A\+rose\+is\+a\+rose%21/.test(location.search));
  }
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('the four terms and their sum; the worked example prints its numbers', async () => {
  const page = await playground.newPage();
  await openPlayground(playground, page, '?d_model=16&projections=identity');
  assert.deepEqual(await page.$$eval('#terms .panel h3', (h) => h.map((x) => x.textContent)),
    ['content–content  w·w', 'content–position  w·p', 'position–content  p·w', 'position–position  p·p', 'sum = the logits']);
  // Worked example: omega_1 = 0.1, S_1 = [sin 1, cos 1, ...], the tokens of "the sky is not".
  const cells = await page.$$eval('#worked table.numbers tbody tr', (rows) => rows.map((r) => [...r.children].map((c) => c.textContent)));
  assert.deepEqual(cells[1].slice(0, 2), ['1', '0.100000']);
  assert.deepEqual(cells[5].slice(0, 3), ['S₁ (sky)', '0.8415', '0.5403']);
  assert.deepEqual(cells[4].slice(1, 9), ['0', '1.0000', '0', '1.0000', '0', '1.0000', '0', '1.0000']);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('512 tokens work; 513 show the limit beside the sentence box and keep the last maps', async () => {
  const page = await playground.newPage();
  await openPlayground(playground, page, '?encoding=alibi');
  const words = Array.from({ length: 512 }, (_, k) => `w${k % 40}`).join(' ');
  await page.fill('#control-text', words);
  await page.waitForFunction(() => document.querySelector('#attention canvas.matrix')?.width === 512, null, { timeout: 60000 });
  const drawn = await page.innerHTML('#attention .figure');
  await page.fill('#control-text', `${words} w1`);
  await page.waitForFunction(() => document.getElementById('error-text').textContent !== '', null, { timeout: 60000 });
  assert.equal(await page.textContent('#error-text'), 'text = a text of 513 tokens is invalid: expected at most 512 tokens');
  assert.equal(await page.innerHTML('#attention .figure'), drawn, 'the last good map stays');
  assert.deepEqual(page.problems, []);
  await page.close();
});
