// Learned, NoPE and the attention-bias families in real headless Chromium.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { navigate, openPlayground, startPlayground } from './browser.mjs';

let playground;
before(async () => { playground = await startPlayground(); });
after(async () => { await playground?.close(); });

// Every family draws each of its views, and at most four decay curves: families.test.mjs, one load per family.

test('ALiBi small multiples show n_heads maps with their slopes', async () => {
  const page = await playground.open('?encoding=alibi&n_heads=12');
  assert.equal(await page.locator('#heads canvas.mini').count(), 12);
  const captions = await page.$$eval('#heads figcaption', (c) => c.map((x) => x.textContent));
  assert.equal(captions[0], 'head 0: m = 0.5');
  assert.equal(captions[8], 'head 8: m = 0.7071');
  assert.equal(captions[11], 'head 11: m = 0.08839');
  // By default each map is e^b, what the bias keeps of a key's weight, on [0, 1]: the flat heads are seen too.
  assert.match(await page.textContent('#heads svg'), /e\^b: share of a key’s weight kept/);
  const spread = await page.evaluate(() => {  // distinct colours of head 7 (the flattest of the first 8)
    const canvas = document.querySelectorAll('#heads canvas.mini')[7];
    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    const colours = new Set();
    for (let i = 0; i < data.length; i += 4) colours.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
    return colours.size;
  });
  assert.ok(spread > 20, `head 7 shows ${spread} colours`);
  // Each small map is the head's own bias: with n = 100 it shows the first 64 positions, b(i, j) = -m|i - j|.
  await navigate(page, '?encoding=alibi&n_heads=12&n=100');
  assert.deepEqual(await page.$$eval('#heads canvas.mini', (c) => [c[0].width, c[0].height]), [64, 64]);
  await page.fill('#control-n_heads', '5');
  await page.waitForFunction(() => document.querySelectorAll('#heads canvas.mini').length === 5);
  assert.equal(await page.locator('#slopes svg [aria-label="dot"] circle').count(), 5);
  assert.deepEqual(page.problems, []);
});

test('the T5 bucket map follows the bidirectional setting', async () => {
  const page = await playground.newPage();
  await openPlayground(playground, page, '?encoding=t5&weights=random&max_distance=16&num_buckets=8');  // its own settings
  // span 24: relative positions -24..24, one dot each.
  assert.equal(await page.locator('#buckets svg [aria-label="dot"] circle').count(), 49);
  const before = await page.innerHTML('#buckets .figure');
  await page.uncheck('#control-bidirectional');
  await page.waitForFunction((old) => document.querySelector('#buckets .figure').innerHTML !== old, before);
  // The link follows once every view has drawn (the trained head trains again for the new spec).
  await page.waitForFunction(() => /bidirectional=false/.test(location.search), null, { timeout: 30000 });
  // A bidirectional table needs an even bucket count: 7 is named beside its control.
  await page.check('#control-bidirectional');
  await page.fill('#control-num_buckets', '7');
  await page.waitForFunction(() => document.getElementById('error-num_buckets').textContent !== '');
  assert.match(await page.textContent('#error-num_buckets'), /^num_buckets = 7 is invalid: expected an even integer/);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('a learned table marks the positions past max_position_embeddings as missing', async () => {
  const page = await playground.open('?encoding=learned&weights=random&d_model=32&max_position_embeddings=100&n=150');
  assert.match(await page.textContent('#table .note.missing'), /Positions 100–149: no embedding exists \(max_position_embeddings = 100\)/);
  // The canvas is measured when the pointer moves (a formula typeset above it may still move it), and the
  // tooltip read once it names the row pointed at.
  const hover = async (row) => {
    for (let attempt = 0; ; attempt++) {
      const box = await page.locator('#table canvas.matrix').boundingBox();
      await page.mouse.move(box.x + box.width / 2, box.y + ((row + 0.5) / 150) * box.height);
      try {
        // The text read as it matched (a second read could find the tooltip hidden, its lines run together).
        const text = await page.waitForFunction((r) => {
          const shown = document.querySelector('#table .tooltip')?.innerText;
          return shown?.startsWith(`position ${r}\n`) ? shown : null;
        }, row, { timeout: 2000 });
        return text.jsonValue();
      } catch (error) {
        if (attempt === 3) throw error;
      }
    }
  };
  assert.match(await hover(120), /position 120\nno embedding exists/);
  assert.match(await hover(10), /position 10\ndimension 16\nvalue -?0\.0\d+/);
  assert.deepEqual(page.problems, []);
});

test('bad bias values are named beside their control', async () => {
  const page = await playground.open('?encoding=alibi');
  await page.fill('#control-head', '9');
  await page.waitForFunction(() => document.getElementById('error-head').textContent !== '');
  assert.equal(await page.textContent('#error-head'), 'head = 9 is invalid: expected an integer in [0, 7]');
  await navigate(page, '?encoding=kerple&weights=random&variant=power');
  await page.fill('#control-r2', '3');
  await page.waitForFunction(() => document.getElementById('error-r2').textContent !== '');
  assert.equal(await page.textContent('#error-r2'), 'r2 = 3 is invalid: expected a number in (0, 2] (the power variant)');
  assert.deepEqual(page.problems, []);
});

test('CoPE opens on sentences with ends, so its gates count; a sentence without one says so', async () => {
  const page = await playground.open('?encoding=cope');
  assert.equal(await page.inputValue('#control-text'), 'the dog ran . it was fast . the cat sat on the mat . then it slept');
  // The gate panel (the first chart): three sentence ends fire, three bars of height 1; no note.
  const gates = await page.evaluate(() => [...document.querySelector('#cope-count svg').querySelectorAll('[aria-label="bar"] rect')]
    .filter((b) => Number(b.getAttribute('height')) > 1).length);
  assert.equal(gates, 3, 'the three sentence ends open their gates');
  assert.equal(await page.locator('#cope-count .warning-note').count(), 0);
  await page.fill('#control-text', 'the dog chased the cat');
  await page.waitForSelector('#cope-count .warning-note');
  assert.match(await page.textContent('#cope-count .warning-note'), /^No sentence end \(\. ! \?\) in the sentence: no gate fires/);
  assert.deepEqual(page.problems, []);
});

test('trained position parameters by default, the random draw a control away; a link keeps either', async () => {
  const page = await playground.open('?encoding=t5');
  assert.equal(await page.inputValue('#control-weights'), 'trained');
  // Trained: the trained model's settings hold, so its own controls are hidden; the bias is the trained table's.
  assert.equal(await page.locator('#control-num_buckets').isVisible(), false);
  const trained = await page.innerHTML('#bias .figure');
  assert.match(await page.textContent('#decay-comparison .curve-toggles'), /T5 \(trained on Moby-Dick\)/);
  await page.selectOption('#control-weights', 'random');
  await page.waitForFunction((old) => document.querySelector('#bias .figure').innerHTML !== old, trained);
  assert.equal(await page.locator('#control-num_buckets').isVisible(), true);
  await page.waitForFunction(() => /weights=random/.test(location.search), null, { timeout: 30000 });
  // A changed setting of its own: the link then implies the random draw (weights is not written again).
  await page.fill('#control-num_buckets', '16');
  await page.waitForFunction(() => /num_buckets=16/.test(location.search) && !/weights=/.test(location.search), null, { timeout: 30000 });
  await openPlayground(playground, page, `?${new URL(page.url()).searchParams}`);
  assert.equal(await page.inputValue('#control-weights'), 'random');
  assert.equal(await page.inputValue('#control-num_buckets'), '16');
  assert.deepEqual(page.problems, []);
});
