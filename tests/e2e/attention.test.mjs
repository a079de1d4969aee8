// The attention lab in real headless Chromium: the reader's sentence drives
// every attention view; 2048 tokens work and 2049 are refused beside the box.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { downloaded, navigate, openPlayground, startPlayground } from './browser.mjs';
import { loadPosenc } from '../wasm/load.mjs';

let pe;

let playground;
before(async () => { playground = await startPlayground(); pe = await loadPosenc(); });
after(async () => { await playground?.close(); });

const ATTENTION_VIEWS = { sinusoidal: ['attention', 'ablation', 'word-order', 'terms'], rope: ['attention', 'ablation', 'word-order'],
  alibi: ['attention', 'ablation', 'word-order', 'panels'] };

/** The token labels along the attention map's key axis. */
const keyLabels = (page) => page.$$eval('#attention svg [aria-label="x-axis tick label"] text', (t) => t.map((x) => x.textContent));

test('typing a sentence updates every attention view', async () => {
  const page = await playground.newPage();
  for (const [i, [encoding, views]] of Object.entries(ATTENTION_VIEWS).entries()) {
    // One load, then each family shown in place (as Back and Forward show a state): the sentence back at its default.
    const query = `?encoding=${encoding}&d_model=16&head_dim=16&trained_head=false`;
    if (i === 0) await openPlayground(playground, page, query);
    else await navigate(page, query);
    assert.deepEqual(await keyLabels(page), ['the', 'dog', 'chased', 'the', 'cat']);
    const before = await Promise.all(views.map((id) => page.innerHTML(`#${id} .figure`)));
    await page.fill('#control-text', 'A rose is a rose!');
    await page.waitForFunction(() => document.querySelectorAll('#attention svg [aria-label="x-axis tick label"] text').length === 6);
    assert.deepEqual(await keyLabels(page), ['a', 'rose', 'is', 'a', 'rose', '!']);
    const after = await Promise.all(views.map((id) => page.innerHTML(`#${id} .figure`)));
    views.forEach((id, k) => assert.notEqual(after[k], before[k], `${encoding}: ${id} did not change`));
    assert.match(await page.textContent('#ablation .note'), /“a” at positions 0, 3: rows identical \(outlined\) without positions, different with them; “rose” at positions 1, 4/);
    // The URL takes the sentence once it is committed (a pause in typing, or leaving the box).
    await page.waitForFunction(() => /text=A\+rose\+is\+a\+rose%21/.test(location.search));
  }
  assert.deepEqual(page.problems, []);
  await page.close();
});

async function download(page, selector) {
  const [file] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return JSON.parse((await downloaded(file)).toString('utf8'));
}

/** The spread (largest − least weight) of each row of an [n, n] map. */
const rowSpreads = (w, n) => Array.from({ length: n }, (_, i) => Math.max(...w.slice(i * n, i * n + n)) - Math.min(...w.slice(i * n, i * n + n)));

test('the untrained head: the ablation outlines the repeated word and the word-order maps differ visibly', async () => {
  const page = await playground.open('?trained_head=false');
  assert.match(await page.textContent('#attention .untrained-note'), /^Untrained head: W_q, W_k and W_v are random draws, so the map’s pattern is mostly noise/);
  // The head is sharp enough to show a pattern: every row of both maps spans more than 0.15 of weight
  // (an untrained head without the √d_model scale spans about 0.01).
  const ablation = (await download(page, '#ablation [data-export=json]')).data;
  for (const a of [ablation.attention, ablation.ablation]) {
    for (const spread of rowSpreads(a.weights, a.n)) assert.ok(spread > 0.15, `row spread ${spread}`);
  }
  // "the" at 0 and 3: identical rows without positions, outlined in that map only.
  const n = ablation.ablation.n;
  assert.deepEqual(ablation.ablation.weights.slice(0, n), ablation.ablation.weights.slice(3 * n, 4 * n));
  assert.deepEqual(await page.$$eval('#ablation .panel', (panels) => panels.map((p) =>
    [...p.querySelectorAll('.outlines rect')].map((r) => Number(r.dataset.row)))), [[], [0, 3]]);
  // Uniform-centred colours by default, stated in the legend.
  assert.match(await page.textContent('#ablation .legend text'), /weight − uniform \(1\/5\)/);

  // Word order: the second sentence's map in the first's order minus the first's. Without positions
  // 0 up to float32 rounding (the softmax sums the same terms in another order; the panel says which); with them,
  // a difference of more than 0.05 somewhere.
  const { a, b, a0, b0 } = (await download(page, '#word-order [data-export=json]')).data.wordOrder;
  const order = [0, 4, 2, 3, 1];  // "the dog chased the cat" -> "the cat chased the dog"
  const largestDifference = (x, y) => Math.max(...Array.from({ length: 25 }, (_, k) =>
    Math.abs(y.weights[order[Math.floor(k / 5)] * 5 + order[k % 5]] - x.weights[k])));
  const rounding = largestDifference(a0, b0);
  assert.ok(rounding < 1e-6, `without positions: ${rounding}`);
  assert.ok(largestDifference(a, b) > 0.05, `with positions: ${largestDifference(a, b)}`);
  const titles = await page.$$eval('#word-order .panel h3', (h) => h.map((x) => x.textContent));
  assert.ok(titles.includes(`difference, no positions: largest ${rounding === 0 ? '0, exactly' : `${rounding.toPrecision(1)}, float32 rounding`}`),
    titles.join(' | '));
  assert.ok(titles.includes(`difference, with positions: largest ${largestDifference(a, b).toPrecision(3)}`), titles.join(' | '));

  // A causal mask: the note says the mask alone breaks the symmetry; another sentence is flagged.
  await navigate(page, '?encoding=alibi&trained_head=false&attn_causal=true&text=the+cat+sat+on+the+mat&text2=a+long+sentence+of+other+words');
  assert.match(await page.textContent('#ablation .causal-note'), /mask alone breaks the symmetry/);
  assert.match((await page.$$eval('#ablation p.note', (p) => p.map((x) => x.textContent))).join(' '), /rows different without positions \(the causal mask\)/);
  assert.match(await page.textContent('#word-order .warning-note'), /do not hold the same words \(only in the first: “the”, “cat”/);
  assert.deepEqual(page.problems, []);
});

test('the four terms each on their own scale; the worked example prints the head’s own numbers', async () => {
  const page = await playground.open('?d_model=16&projections=identity');
  assert.deepEqual(await page.$$eval('#terms .panel h3', (h) => h.map((x) => x.textContent)),
    ['content–content  w·w', 'content–position  w·p', 'position–content  p·w', 'position–position  p·p', 'sum = the logits']);
  assert.equal(await page.$$eval('#terms .legend', (l) => l.length), 5, 'one legend per panel');

  for (const [encoding, spec] of [['sinusoidal', { type: 'sinusoidal', d_model: 8, base: 10000 }],
    ['rope', { type: 'rope', head_dim: 8, rope_theta: 10000, layout: 'half' }]]) {
    await navigate(page, `?encoding=${encoding}&sharpness=0.5&attn_seed=7`);
    const head = pe.attention({ text: 'the sky is not', encoding: spec, d_model: 8, d_head: 8, seed: 7,
      embedding_scale: 0.5 * Math.sqrt(8) });
    const tables = await page.$$eval('#worked table.numbers', (ts) => Object.fromEntries(ts.map((t) => [t.dataset.quantity,
      [...t.querySelectorAll('tbody tr')].map((r) => [...r.querySelectorAll('td')].map((c) => c.innerText))])));
    const near = (text, value, what) => assert.ok(Math.abs(Number(text) - value) <= 5e-5, `${encoding} ${what}: ${text} vs ${value}`);
    const matrix = (name, data, cols) => tables[name].forEach((row, i) => row.forEach((cell, c) => near(cell, data[i * cols + c], `${name}[${i}, ${c}]`)));
    for (const [name, cols] of [['x', 8], ['v', 8], ['logits', 4], ['weights', 4], ['output', 8]]) matrix(name, head[name], cols);
    if (encoding === 'sinusoidal') {
      matrix('positions', head.positions, 8);
      matrix('sum', head.x.map((v, k) => v + head.positions[k]), 8);
      matrix('q', head.q, 8);
      matrix('k', head.k, 8);
      near(tables.positions[1][0], Math.sin(1), 'P[1, 0] = sin 1');
    } else {
      // Pair i (dims i, i + 4): "(before)\n→ (after)".
      for (const [name, before, after] of [['q', head.q_unrotated, head.q], ['k', head.k_unrotated, head.k]]) {
        tables[name].forEach((row, p) => row.forEach((cell, i) => {
          const numbers = cell.match(/-?\d+\.\d+/g).map(Number);
          [before[p * 8 + i], before[p * 8 + i + 4], after[p * 8 + i], after[p * 8 + i + 4]]
            .forEach((v, k) => near(numbers[k], v, `${name} pair ${i} of ${p}`));
        }));
      }
      near(tables.angles[3][1], 3 * 0.1, 'angle of pair 1 at position 3');
    }
    const rowSums = Array.from({ length: 4 }, (_, i) => tables.weights[i].reduce((s, c) => s + Number(c), 0));
    rowSums.forEach((s) => assert.ok(Math.abs(s - 1) < 5e-4));
  }
  assert.deepEqual(page.problems, []);
});

test('2048 tokens work; 2049 show the limit beside the sentence box and keep the last maps', async () => {
  const page = await playground.open('?encoding=alibi');
  const words = Array.from({ length: 2048 }, (_, k) => `w${k % 40}`).join(' ');
  await page.fill('#control-text', words);
  // 2048 x 2048 weights on fewer screen pixels: painted as block averages, and the figure says so
  await page.waitForFunction(() => document.querySelector('#attention canvas.matrix')?.dataset.averaged &&
    document.querySelector('#attention .figure').textContent.includes('2048 × 2048 entries'), null, { timeout: 60000 });
  const drawn = await page.innerHTML('#attention .figure');
  await page.fill('#control-text', `${words} w1`);
  await page.waitForFunction(() => document.getElementById('error-text').textContent !== '', null, { timeout: 60000 });
  assert.equal(await page.textContent('#error-text'), 'text = a text of 2049 tokens is invalid: expected at most 2048 tokens');
  assert.equal(await page.innerHTML('#attention .figure'), drawn, 'the last good map stays');
  assert.deepEqual(page.problems, []);
});

test('the lab opens on the trained head: the copy head trained with RoPE looks one token back; the untrained one is a switch away', async () => {
  const page = await playground.open('?encoding=rope&text=one+two+three+four+five+six+seven+eight&trained_head=false');
  const untrained = (await download(page, '#attention [data-export=json]')).data.attention;
  await navigate(page, '?encoding=rope&text=one+two+three+four+five+six+seven+eight');
  assert.equal(await page.isChecked('#control-trained_head'), true, 'on by default');
  await page.waitForSelector('#attention .trained-note');
  assert.equal(await page.locator('#attention .untrained-note').count(), 0);
  assert.match(await page.textContent('#attention .trained-note'), /trained on copy at 32 tokens \(400 steps, seed [0-3]; accuracy 1\.00 there\)/);
  // The controls of the untrained head hide; the task shows.
  assert.equal(await page.isVisible('#control-attn_seed'), false);
  assert.equal(await page.isVisible('#control-trained_task'), true);
  assert.doesNotMatch(await page.evaluate(() => location.search), /trained_head/, 'the default stays out of the URL');
  const trained = (await download(page, '#attention [data-export=json]')).data.attention;
  assert.equal(trained.n, 8);
  // Every query after the first puts its largest weight on the token just before it, and most of its weight.
  for (let i = 1; i < 8; i++) {
    const row = trained.weights.slice(i * 8, i * 8 + 8);
    assert.equal(row.indexOf(Math.max(...row)), i - 1, `row ${i}: ${row.map((w) => w.toFixed(2))}`);
    assert.ok(row[i - 1] > 0.5, `row ${i} gives ${row[i - 1]} to the previous token`);
    for (let j = i + 1; j < 8; j++) assert.equal(row[j], 0);  // causal
  }
  assert.notDeepEqual(trained.weights, untrained.weights);
  // The switch: off, the untrained head, with the note on why it looks random, and a link that says so.
  await page.uncheck('#control-trained_head');
  await page.waitForSelector('#attention .untrained-note');
  await page.waitForFunction(() => /trained_head=false/.test(location.search));
  // A spec the trained head (d_model 32) cannot take: Phi-3's longrope factors, 48 of them for head_dim 96. The
  // untrained head is shown, and the note says why, instead of an error in every lab view.
  await navigate(page, '?encoding=rope&preset=phi-3-mini-128k');
  assert.match(await page.textContent('#attention .untrained-note'),
    /^The trained head \(one layer of d_model 32\) cannot take this spec \(short_factor = a list of 48 numbers is invalid/);
  assert.deepEqual(await page.$$eval('section.view .view-error', (e) => e.map((x) => x.textContent).filter(Boolean)), []);
  assert.deepEqual(page.problems, []);
});
