// The language-model lab in headless Chromium: a short run of two encodings on the
// shipped text (Moby-Dick) draws perplexity against length, the loss curves, the
// result table and generated samples, with the text and its licence named; its CSV;
// a bad list of encodings is named beside its control and the figures stay.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { drawn, openPlayground, startPlayground } from './browser.mjs';

let playground;
before(async () => { playground = await startPlayground(); });
after(async () => { await playground?.close(); });

const QUERY = '?encoding=language_model&steps=12&train_length=16&encodings=rope+alibi';

test('a short language-model run draws every view of the lab for each encoding, and names its text', async () => {
  const page = await playground.newPage();
  const progress = [];
  await page.exposeFunction('noteProgress', (text) => progress.push(text));
  await page.addInitScript(() => {
    new MutationObserver(() => {
      const label = document.querySelector('#lm-extrapolation .busy-text')?.textContent;
      if (label) window.noteProgress(label);
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
  await openPlayground(playground, page, QUERY);
  for (const id of ['lm-extrapolation', 'lm-loss']) {
    assert.ok(await page.$eval(`#${id}`, drawn), `${id} is drawn`);
    const labels = await page.$$eval(`#${id} .curve-toggles label`, (l) => l.map((x) => x.textContent.trim()));
    assert.deepEqual(labels.filter((l) => !l.includes('val')), ['rope', 'alibi']);
  }
  assert.ok(progress.some((p) => /^training .*\(\d of 2 arms done\)$/.test(p)), `progress labels: ${progress.slice(0, 3).join(' | ')}`);
  const rows = await page.$$eval('#lm-table tbody tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  assert.deepEqual(rows.map((r) => r[0]), ['rope', 'alibi']);
  for (const r of rows) for (const cell of r.slice(1, -1)) assert.ok(Number.isFinite(Number(cell)) && Number(cell) > 0, `cell ${cell}`);
  assert.deepEqual(rows.map((r) => r.at(-1)), ['–', '–']);  // not a family with a trained set at these settings
  const samples = await page.$$eval('#lm-samples .lm-sample', (s) => s.map((x) => x.querySelectorAll('.generated').length));
  assert.deepEqual(samples, [2, 2]);
  assert.match(await page.textContent('#family-formula'), /Moby-Dick; or, The Whale, Herman Melville \(1851\), public domain.*Apache-2\.0/);
  // The CSV of perplexity against length: 2 encodings x 6 lengths.
  const [file] = await Promise.all([page.waitForEvent('download'), page.click('#lm-extrapolation [data-export=csv]')]);
  const csv = fs.readFileSync(await file.path(), 'utf8').trim().split('\n');
  assert.equal(csv[0], 'encoding,eval_length,perplexity,loss_nats,next_char_accuracy');
  assert.deepEqual(csv.slice(1).map((l) => l.split(',').slice(0, 2).join(',')),
    ['rope', 'alibi'].flatMap((e) => [4, 8, 16, 32, 64, 128].map((n) => `${e},${n}`)));
  // A bad encoding: named beside the control; the figures stay.
  await page.fill('#control-encodings', 'rope bogus');
  await page.waitForFunction(() => document.getElementById('error-encodings')?.textContent !== '');
  assert.match(await page.textContent('#error-encodings'), /encodings = "rope bogus" is invalid: expected 1 to 13 of/);
  assert.equal(await page.locator('#lm-table tbody tr').count(), 2);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('a long language-model run shows its arms\' progress; Cancel stops it and says so', async () => {
  const page = await playground.newPage();
  await page.goto(`${playground.url}?encoding=language_model&steps=5000&train_length=16&encodings=rope+alibi+kerple`, { waitUntil: 'commit' });
  const bar = page.getByRole('progressbar', { name: /^training / }).first();
  await bar.waitFor({ timeout: 60000 });
  await page.waitForFunction(() => /rope .* alibi/.test(document.querySelector('#lm-extrapolation .busy-text')?.textContent ?? ''));
  assert.match(await page.textContent('#lm-extrapolation .busy-text'), /^training rope \d+ \/ 5000 steps, alibi \d+ \/ 5000 steps \(0 of 3 arms done\)$/);
  assert.equal(Number(await bar.getAttribute('max')), 3000);  // thousandths of an arm
  await page.click('#lm-extrapolation .busy .cancel');
  await page.waitForFunction(() => [...document.querySelectorAll('section.view .busy')].every((b) => b.hidden));
  assert.match(await page.textContent('#lm-extrapolation .view-note'), /^Cancelled: nothing to show yet\./);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('a link past its size\'s L_train falls back to the default L_train and trains: never a blank lab', async () => {
  // The audit's: ?encoding=language_model&size=medium drew nothing for 50 s, then fell back to quick. medium runs at the
  // default L_train now; past its limit (64), the lab refuses at once, naming train_length, and the link's value goes.
  const page = await playground.newPage();
  await page.goto(`${playground.url}?encoding=language_model&size=medium&train_length=128&steps=1&encodings=none`, { waitUntil: 'commit' });
  await page.waitForFunction(() => document.getElementById('control-train_length')?.value === '64', null, { timeout: 60000 });
  assert.equal(await page.inputValue('#control-size'), 'medium');
  // The slider of L_train stops at the size's limit.
  assert.equal(await page.getAttribute('input[name="train_length-slider"]', 'max'), String(Math.log10(64)));
  const bar = page.getByRole('progressbar', { name: /^training / }).first();
  await bar.waitFor({ timeout: 60000 });
  assert.match(await page.textContent('#lm-extrapolation .busy-text'), /^training (none \d \/ 1 steps|none testing|…) \(0 of 1 arms done\)$/);
  // The replacement is said while the fallback's run trains, not after it: one warning, by the control's name.
  assert.deepEqual(await page.$$eval('#warnings li', (items) => items.map((li) => li.dataset.param)), ['train_length']);
  assert.match(await page.textContent('#warnings li'), /^train_length = 128 is invalid.*; using the default "64"$/);
  // Until the fallback's run draws, a view says what the lab refused by its control's name (no internal key).
  for (const text of await page.$$eval('section.view .error', (e) => e.map((x) => x.textContent).filter(Boolean))) {
    assert.match(text, /train_length (= 128 )?is invalid/);
  }
  await page.click('#lm-extrapolation .busy .cancel');
  assert.deepEqual(page.problems, []);
  await page.close();
});
