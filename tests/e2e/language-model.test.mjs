// The language-model lab in headless Chromium: a short run of two encodings on the
// shipped text (Moby-Dick) draws perplexity against length, the loss curves, the
// result table and generated samples, with the text and its licence named; its CSV;
// a bad list of encodings is named beside its control and the figures stay.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { downloaded, drawn, openPlayground, startPlayground } from './browser.mjs';
import { FAMILY_TYPES } from '../../web/src/describe.js';

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
  assert.ok(progress.some((p) => /^training .*\(\d of 2 arms done(; [^)]* left)?\)$/.test(p)), `progress labels: ${progress.slice(0, 3).join(' | ')}`);
  const rows = await page.$$eval('#lm-table tbody tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  assert.deepEqual(rows.map((r) => r[0]), ['rope', 'alibi']);
  // The losses, the ratio and ms per step as numbers; the perplexities at 1, 4 and 8 x L_train ± their standard errors.
  for (const r of rows) {
    for (const cell of [...r.slice(1, 3), ...r.slice(6, -1)]) assert.ok(Number.isFinite(Number(cell)) && Number(cell) > 0, `cell ${cell}`);
    for (const cell of r.slice(3, 6)) {
      const [value, se] = cell.split(' ± ').map(Number);
      assert.ok(value > 1 && se > 0 && se < value / 2, `perplexity ${cell}`);
    }
  }
  assert.match(await page.textContent('#lm-table caption'), /perplexity ± its standard error over the test’s windows/);
  assert.deepEqual(rows.map((r) => r.at(-1)), ['–', '–']);  // not a family with a trained set at these settings
  const samples = await page.$$eval('#lm-samples .lm-sample', (s) => s.map((x) => x.querySelectorAll('.generated').length));
  assert.deepEqual(samples, [2, 2]);
  assert.match(await page.textContent('#family-formula'), /Moby-Dick; or, The Whale, Herman Melville \(1851\), public domain.*Apache-2\.0/);
  // The CSV of perplexity against length: 2 encodings x 6 lengths.
  const [file] = await Promise.all([page.waitForEvent('download'), page.click('#lm-extrapolation [data-export=csv]')]);
  const csv = (await downloaded(file)).toString('utf8').trim().split('\n');
  assert.equal(csv[0], 'encoding,eval_length,perplexity,loss_nats,next_char_accuracy');
  assert.deepEqual(csv.slice(1).map((l) => l.split(',').slice(0, 2).join(',')),
    ['rope', 'alibi'].flatMap((e) => [4, 8, 16, 32, 64, 128].map((n) => `${e},${n}`)));
  // A bad encoding: named beside the control; the figures stay.
  await page.fill('#control-encodings', 'rope bogus');
  await page.waitForFunction(() => document.getElementById('error-encodings')?.textContent !== '');
  assert.match(await page.textContent('#error-encodings'), new RegExp(`encodings = "rope bogus" is invalid: expected 1 to ${FAMILY_TYPES.length} of`));
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
  assert.match(await page.textContent('#lm-extrapolation .busy-text'),
    /^training rope \d+ \/ 5000 steps, alibi \d+ \/ 5000 steps \(0 of 3 arms done(; [^)]* left)?\)$/);
  assert.equal(Number(await bar.getAttribute('max')), 3000);  // thousandths of an arm
  await page.click('#lm-extrapolation .busy .cancel');
  await page.waitForFunction(() => [...document.querySelectorAll('section.view .busy')].every((b) => b.hidden));
  // Cancelled before any arm's test ended: what the loss view drew of the arms so far stays, said to be partial (the
  // perplexity view had no curve to draw yet).
  assert.match(await page.textContent('#lm-extrapolation .view-note'), /^(Partial: 0 of 3 arms finished; cancelled|Cancelled: nothing to show yet)\./);
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
  assert.match(await page.textContent('#lm-extrapolation .busy-text'), /^training (none \d \/ 1 steps|none testing|…) \(0 of 1 arms done(; [^)]* left)?\)$/);
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

test('the views draw while the arms train, with the time left; Cancel keeps what was drawn, said to be partial', async () => {
  // Three arms on two workers (or more): rope and alibi first; kerple trains after one of them, while its curves show.
  const page = await playground.newPage();
  await page.goto(`${playground.url}?encoding=language_model&steps=120&train_length=16&encodings=rope+alibi+kerple`, { waitUntil: 'commit' });
  // An arm's training loss is drawn while the arms train, the progress a bar above it.
  await page.waitForFunction(() => document.querySelector('#lm-loss .busy')?.hidden === false
    && document.querySelector('#lm-loss svg g[aria-label="line"]'), null, { timeout: 60000 });
  assert.ok(await page.$eval('#lm-loss .figure-box', (b) => b.classList.contains('partial')));
  await page.waitForFunction(() => / left\)$/.test(document.querySelector('#lm-loss .busy-text')?.textContent ?? ''));
  assert.match(await page.textContent('#lm-loss .busy-text'), /\(\d of 3 arms done; (about \d+ (s|min)|a few seconds) left\)$/);
  // An arm's perplexity curve and table row, once its test ended, while another arm still trains.
  await page.waitForFunction(() => document.querySelector('#lm-loss .busy')?.hidden === false
    && document.querySelector('#lm-extrapolation .curve-toggles label') && document.querySelector('#lm-table tbody tr'), null, { timeout: 60000 });
  const rows = await page.$$eval('#lm-table tbody tr th', (t) => t.map((x) => x.textContent));
  assert.ok(rows.length >= 1 && rows.length < 3, `rows ${rows}`);
  assert.match(await page.textContent('#lm-loss .busy-text'), /\([12] of 3 arms done/);
  await page.click('#lm-loss .busy .cancel');
  await page.waitForFunction(() => [...document.querySelectorAll('section.view .busy')].every((b) => b.hidden));
  // An arm may finish between the rows' count and Cancel: the kept figure has the arms finished at Cancel, as its note says.
  const kept = await page.$$eval('#lm-table tbody tr th', (t) => t.length);
  assert.ok(kept >= rows.length && kept < 3, `rows kept ${kept}`);
  for (const id of ['lm-extrapolation', 'lm-loss', 'lm-table']) {
    assert.match(await page.textContent(`#${id} .view-note`), new RegExp(`^Partial: ${kept} of 3 arms finished; cancelled\\.`), id);
    assert.equal(await page.$eval(`#${id}`, (s) => s.classList.contains('stale')), false, id);
  }
  assert.equal(await page.$$eval('#lm-extrapolation .curve-toggles label', (l) => l.length), kept);
  assert.ok(await page.$('#lm-loss svg g[aria-label="line"]'));
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('seeds = 2 draws each encoding\'s mean with a band and says mean ± sd in the table; seeds = 9 is refused by name', async () => {
  const page = await playground.open('?encoding=language_model&steps=8&train_length=16&encodings=alibi&seeds=2');
  assert.equal(await page.locator('#lm-extrapolation svg g[aria-label="area"] path').count(), 1);  // its band
  assert.match(await page.textContent('#lm-extrapolation .band-note'), /mean over n = 2 seeds .* ± 1 sample standard deviation/);
  const cells = await page.$$eval('#lm-table tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 5).map((c) => c.textContent)));
  assert.equal(cells.length, 1);
  for (const cell of cells.flat()) assert.match(cell, /^\d+\.\d+ ± \d+\.\d+$/);
  assert.match(await page.textContent('#lm-table caption'), /mean ± 1 sd over n = 2 seeds/);
  assert.equal(await page.evaluate(() => new URLSearchParams(location.search).get('seeds')), '2');
  // A bad value: named beside its control; the figures stay.
  await page.fill('#control-seeds', '9');
  await page.waitForFunction(() => document.getElementById('error-seeds')?.textContent !== '');
  assert.match(await page.textContent('#error-seeds'), /^seeds = 9 is invalid: expected an integer in \[1, 5\]/);
  assert.equal(await page.locator('#lm-extrapolation svg g[aria-label="area"] path').count(), 1);
  assert.equal(await page.locator('#lm-table tbody tr').count(), 1);
  assert.deepEqual(page.problems, []);
});
