// Every tour stop's "Try", performed as a reader would (the stop's controls, on the built tour page), and the change
// the stop promises asserted twice: in the numbers the figure draws (its CSV export) and in the figure's pixels. Each stop,
// as it opens at 1280 x 800 (light), first shows what every stop must (tour-stop.mjs; at 390 x 844: tour.test.mjs).
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { downloaded, openPlayground, startPlayground } from './browser.mjs';
import { STOPS } from '../../web/src/tour/stops.js';
import { assertStopShown } from './tour-stop.mjs';

const SIZE = { width: 1280, height: 800 };
let playground;
before(async () => { playground = await startPlayground({ viewport: SIZE, colorScheme: 'light' }); });
after(async () => { await playground?.close(); });

const stopOf = (id) => STOPS.find((s) => s.id === id);
const shown = new Set();

let tab = null;
/** The file's one tab: each stop loads by its URL in it (a new tab costs about a second more here). */
async function stopPage() {
  if (!tab || tab.isClosed()) tab = await playground.newPage();
  tab.problems.length = 0;
  return tab;
}

/** Opens stop `id` of the tour, waits until it has drawn, and asserts what every stop shows at load (tour-stop.mjs). */
async function openStop(page, id) {
  await openPlayground(playground, page, `?stop=${id}`, 'tour.html');
  await assertStopShown(page, stopOf(id), SIZE);
  shown.add(id);
  return stopOf(id);
}

/** The CSV export of the stop's view: the header's names and the rows, as strings. */
async function csvOf(page, view) {
  const [file] = await Promise.all([page.waitForEvent('download'), page.click(`#stop-view #${view} [data-export=csv]`)]);
  const [head, ...rows] = (await downloaded(file)).toString('utf8').trim().split('\n').map((line) => line.split(','));
  return { head, rows, column: (name) => rows.map((r) => Number(r[head.indexOf(name)])) };
}

/**
 * Runs `change`, then waits until the stop's figure has been drawn again and the view has settled, with `shows` in the
 * figure's text when given (a change of two controls may draw twice: the first one's figure settles before the second's
 * input is read).
 */
async function redrawn(page, change, shows = '') {
  const old = await page.$('#stop-view .figure > *');
  await change();
  await page.waitForFunction((el) => !el.isConnected, old, { timeout: 120000 });
  await page.waitForFunction((text) => !document.querySelector('#stop-view section[aria-busy=true]')
    && document.querySelector('#stop-view .figure').textContent.includes(text), shows, { timeout: 300000 });
}

/** The figure's picture (PNG bytes of its box on the screen). */
const pictureOf = (page) => page.locator('#stop-view .figure').screenshot();

/** The pixels of canvas `k` of the stop's figure: {width, height, data: number[] (RGBA)}. */
const canvasPixels = (page, k) => page.$$eval('#stop-view .figure canvas', (canvases, index) => {
  // Read from a copy, made for reading (the page's own canvases are drawn, not read back).
  const c = canvases[index];
  const copy = Object.assign(document.createElement('canvas'), { width: c.width, height: c.height });
  const context = copy.getContext('2d', { willReadFrequently: true });
  context.drawImage(c, 0, 0);
  return { width: c.width, height: c.height, data: [...context.getImageData(0, 0, c.width, c.height).data] };
}, k);

/**
 * The mean distance of a canvas's painted pixels from a colour (its 0: the neutral middle of a diverging scale);
 * masked cells (transparent: the hatching beneath shows) are left out.
 */
function meanDistance({ data }, [r, g, b]) {
  let sum = 0;
  let count = 0;
  for (let i = 0; i < data.length; i += 4) {
    if (data[i + 3] === 0) continue;
    sum += Math.hypot(data[i] - r, data[i + 1] - g, data[i + 2] - b);
    count++;
  }
  return sum / count;
}

test('stop 1: two sentences of the same words in another order differ with positions, not without', async () => {
  const page = await stopPage();
  const stop = await openStop(page, 'why-order');
  assert.deepEqual(stop.controls, ['text', 'text2']);
  await redrawn(page, async () => {
    await page.fill('#stop-view #control-text', 'a bird saw the old fox');
    await page.fill('#stop-view #control-text2', 'the old fox saw a bird');
  }, '“the old fox saw a bird”');
  const text = await page.textContent('#stop-view .figure');
  assert.match(text, /difference, no positions: largest (0, exactly|\de-\d, float32 rounding)/);
  const withPositions = Number(text.match(/difference, with positions: largest ([0-9.]+)/)[1]);
  assert.ok(withPositions > 0.01, `with positions: ${withPositions}`);
  // The numbers: without positions, the second sentence's weights are the first's, reordered.
  const { rows, head } = await csvOf(page, 'word-order');
  const weight = (sentence, positions, q, k) => Number(rows.find((r) => r[0] === sentence && r[1] === positions &&
    r[head.indexOf('query_token')] === q && r[head.indexOf('key_token')] === k)[head.indexOf('weight')]);
  assert.ok(Math.abs(weight('first', 'without', 'bird', 'fox') - weight('second', 'without', 'bird', 'fox')) < 1e-6);
  assert.ok(Math.abs(weight('first', 'with', 'bird', 'fox') - weight('second', 'with', 'bird', 'fox')) > 1e-4);
  // The pixels: the no-positions difference map (canvas 5) is the scale's blank middle throughout (within one level of
  // 255: its float32 rounding), the with-positions one (canvas 2) is far from it.
  const blank = (await canvasPixels(page, 5)).data.slice(0, 3);
  const farthest = async (k) => { const { data } = await canvasPixels(page, k); let far = 0; for (let i = 0; i < data.length; i += 4) far = Math.max(far, Math.hypot(data[i] - blank[0], data[i + 1] - blank[1], data[i + 2] - blank[2])); return far; };
  assert.ok(await farthest(5) < 2, `no positions: ${await farthest(5)}`);
  assert.ok(await farthest(2) > 60, `with positions: ${await farthest(2)}`);
  assert.deepEqual(page.problems, []);
});

test('stop 2: dragging base stretches the slow dimensions on the right; the fast ones on the left stay', async () => {
  const page = await stopPage();
  await openStop(page, 'sinusoidal');
  const before = await csvOf(page, 'heatmap');
  const picture = await pictureOf(page);
  await redrawn(page, () => page.fill('#stop-view #control-base', '100'));
  const after = await csvOf(page, 'heatmap');
  const span = (csv, name) => Math.max(...csv.column(name)) - Math.min(...csv.column(name));
  assert.deepEqual(after.column('dim_0'), before.column('dim_0'), 'the fastest pair does not depend on base');
  // The slowest sine barely moves over 128 positions at base 10000 (sin(127 · 10000^(-126/128)) = 0.0147)...
  assert.ok(span(before, 'dim_126') < 0.02, `${span(before, 'dim_126')}`);
  // ...and rises most of the way to 1 at base 100 (sin(127 · 100^(-126/128)) = 0.978).
  assert.ok(span(after, 'dim_126') > 0.9, `${span(after, 'dim_126')}`);
  assert.notDeepEqual(await pictureOf(page), picture);
  assert.deepEqual(page.problems, []);
});

test('stop 3: a lower d_model makes the dot-product decay bumpier', async () => {
  const page = await stopPage();
  await openStop(page, 'dot-decay');
  /** The curve's total variation over its value at distance 0: flat 1 for a monotone fall, more with every bump. */
  const bumpiness = (csv) => {
    const y = csv.column(csv.head[1]);
    let total = 0;
    for (let k = 1; k < y.length; k++) total += Math.abs(y[k] - y[k - 1]);
    return total / y[0];
  };
  const smooth = bumpiness(await csvOf(page, 'dot-decay'));
  const picture = await pictureOf(page);
  await redrawn(page, () => page.fill('#stop-view #control-d_model', '16'));
  const bumpy = bumpiness(await csvOf(page, 'dot-decay'));
  assert.ok(bumpy > 1.5 * smooth, `d_model 128: ${smooth}, 16: ${bumpy}`);
  assert.notDeepEqual(await pictureOf(page), picture);
  assert.deepEqual(page.problems, []);
});

test('stop 4: where training started is a table of the trained one\'s shape, ending where it ends, without its row-to-row pattern', async () => {
  const page = await stopPage();
  await openStop(page, 'learned');
  const trained = await csvOf(page, 'table');
  const hatched = await page.$$eval('#stop-view .figure svg [aria-label*="no embedding"], #stop-view .figure .hatched', (e) => e.length);
  await redrawn(page, () => page.selectOption('#stop-view #control-weights', 'initial'));
  const random = await csvOf(page, 'table');
  // The trainer's draw, N(0, 0.02^2) (its stored start: tests/wasm/trained.test.mjs checks it against one step of training).
  const values = random.rows.flatMap((r) => r.slice(1).map(Number));
  const sd = Math.sqrt(values.reduce((a, x) => a + x * x, 0) / values.length);
  assert.ok(Math.abs(sd - 0.02) < 0.001, `sd ${sd}`);
  assert.equal(random.rows.length, trained.rows.length, 'the same rows');
  assert.equal(random.head.length, trained.head.length, 'the same width');
  assert.equal(random.rows.length, 64);
  assert.equal(await page.$$eval('#stop-view .figure svg [aria-label*="no embedding"], #stop-view .figure .hatched', (e) => e.length), hatched,
    'the hatched end stays');
  /** The mean cosine of neighbouring rows: a trained table's neighbours look alike, a random draw's do not. */
  const neighbours = (csv) => {
    const rows = csv.rows.map((r) => r.slice(1).map(Number));
    let sum = 0;
    for (let k = 1; k < rows.length; k++) {
      const [a, b] = [rows[k - 1], rows[k]];
      const dot = a.reduce((s, x, i) => s + x * b[i], 0);
      sum += dot / Math.hypot(...a) / Math.hypot(...b);
    }
    return sum / (rows.length - 1);
  };
  assert.ok(neighbours(trained) > 0.3, `trained: ${neighbours(trained)}`);
  assert.ok(Math.abs(neighbours(random)) < 0.1, `random: ${neighbours(random)}`);
  assert.deepEqual(page.problems, []);
});

test('stop 5: the pair slider spans the head\'s 64 pairs; low pairs turn fast, high pairs barely move', async () => {
  const page = await stopPage();
  await openStop(page, 'rope');
  const slider = page.locator('#stop-view [name=pair-slider]');
  assert.deepEqual([await slider.getAttribute('min'), await slider.getAttribute('max')], ['0', '63']);
  const angles = (csv) => csv.column('angle_rad');
  const fast = angles(await csvOf(page, 'rotation'));
  const picture = await pictureOf(page);
  await redrawn(page, async () => { await slider.focus(); await page.keyboard.press('End'); });
  assert.notDeepEqual(await pictureOf(page), picture);
  assert.equal(await page.inputValue('#stop-view #control-pair'), '63');
  assert.equal(await page.textContent('#stop-view #error-pair'), '');
  const slow = angles(await csvOf(page, 'rotation'));
  assert.equal(fast[1], 1, 'pair 0 turns 1 radian a position');
  assert.ok(slow[1] > 0 && slow[1] < 2e-4, `pair 63 turns ${slow[1]} radians a position`);
  // Head dim 32 narrows the slider to 16 pairs (the box keeps any value, and says when it is out of range).
  await page.click('#stop-view .more-controls summary');
  await redrawn(page, () => page.fill('#stop-view #control-head_dim', '32'));
  assert.equal(await slider.getAttribute('max'), '15');
  assert.deepEqual(page.problems, []);
});

test('stop 6: each rope_type stretches the wavelengths its own way', async () => {
  const page = await stopPage();
  await openStop(page, 'rope-scaling');
  const scaled = {};
  const pictures = new Set();
  for (const type of ['linear', 'dynamic', 'yarn', 'llama3']) {
    const current = await page.inputValue('#stop-view #control-rope_type');
    if (current !== type) await redrawn(page, () => page.selectOption('#stop-view #control-rope_type', type));
    scaled[type] = (await csvOf(page, 'spectrum')).column('wavelength_scaled');
    pictures.add((await pictureOf(page)).toString('base64'));
  }
  assert.equal(pictures.size, 4, 'four different pictures');
  const unscaled = (await csvOf(page, 'spectrum')).column('wavelength_unscaled');
  const last = unscaled.length - 1;
  // linear stretches every pair by the factor 8; YaRN leaves the fastest alone and stretches the slowest by 8;
  // each curve differs from the others.
  assert.ok(Math.abs(scaled.linear[0] / unscaled[0] - 8) < 1e-3);
  assert.ok(Math.abs(scaled.yarn[0] / unscaled[0] - 1) < 1e-6);
  assert.ok(Math.abs(scaled.yarn[last] / unscaled[last] - 8) < 1e-3);
  const types = Object.keys(scaled);
  for (let a = 0; a < types.length; a++) {
    for (let b = a + 1; b < types.length; b++) assert.notDeepEqual(scaled[types[a]], scaled[types[b]], `${types[a]} vs ${types[b]}`);
  }
  assert.deepEqual(page.problems, []);
});

test('stop 7: head 7\'s bias map fades against head 0\'s on one shared colour scale', async () => {
  const page = await stopPage();
  await openStop(page, 'alibi');
  // One causal control: the head's own ("causal attention"); the bias panel masks the keys after the query as the
  // logits do.
  const shown = await page.$$eval('#stop-view .control:not([hidden])', (rows) => rows.map((r) => r.dataset.name));
  assert.ok(!shown.includes('causal'), shown.join());
  const legendOf = () => page.$$eval('#stop-view .figure svg', (svgs) => svgs.map((s) => [...s.querySelectorAll('text')]
    .map((t) => t.textContent).filter((t) => /^[−-]?\d/.test(t)).join(' ')).filter(Boolean));
  const head0 = { csv: await csvOf(page, 'panels'), legends: await legendOf(), bias: await canvasPixels(page, 1) };
  await redrawn(page, () => page.fill('#stop-view #control-head', '7'));
  const head7 = { csv: await csvOf(page, 'panels'), legends: await legendOf(), bias: await canvasPixels(page, 1) };
  assert.deepEqual(head7.legends, head0.legends, 'the same colour scale for both heads');
  assert.equal(new Set(head0.legends).size, 1, 'the three panels share it');
  const largestBias = (csv) => Math.max(...csv.column('bias').filter(Number.isFinite).map(Math.abs));
  assert.equal(largestBias(head0.csv), 2, 'head 0: m = 1/2, 4 tokens back');
  assert.ok(Math.abs(largestBias(head7.csv) - 4 / 256) < 1e-6, 'head 7: m = 1/256');
  assert.deepEqual(head7.csv.column('content'), head0.csv.column('content'), 'the content scores do not depend on the head');
  // Pixels: head 0's bias map sits far from the scale's neutral middle, head 7's on it (the diagonal's b = 0 is neutral).
  const neutral = head0.bias.data.slice(0, 3);
  const far0 = meanDistance(head0.bias, neutral);
  const far7 = meanDistance(head7.bias, neutral);
  assert.ok(far0 > 5 * far7 && far0 > 20, `head 0: ${far0}, head 7: ${far7}`);
  // "normalise each" is a switch away: head 7's own range makes its bias dark again.
  await page.click('#stop-view .more-controls summary');
  await redrawn(page, () => page.selectOption('#stop-view #control-panels_scale', 'own'));
  assert.ok(meanDistance(await canvasPixels(page, 1), neutral) > 3 * far7);
  assert.deepEqual(page.problems, []);
});

test('stop 8: unticking bidirectional leaves no bucket of its own to the keys after the query', async () => {
  const page = await stopPage();
  await openStop(page, 't5');
  const box = page.locator('#stop-view #control-bidirectional');
  assert.equal(await box.isVisible(), true);
  assert.equal(await box.isChecked(), true);
  const buckets = (csv) => new Map(csv.rows.map((r) => [Number(r[0]), Number(r[1])]));
  const both = buckets(await csvOf(page, 'buckets'));
  const picture = await pictureOf(page);
  await redrawn(page, () => box.uncheck());
  const one = buckets(await csvOf(page, 'buckets'));
  const after = (m) => new Set([...m].filter(([r]) => r > 0).map(([, b]) => b));
  const notAfter = (m) => new Set([...m].filter(([r]) => r <= 0).map(([, b]) => b));
  assert.ok(after(both).size >= 10, 'bidirectional: the keys after the query have buckets of their own');
  assert.equal([...after(both)].filter((b) => notAfter(both).has(b)).length, 0);
  assert.deepEqual([...after(one)], [0], 'unidirectional: every later key shares bucket 0 with the query itself');
  assert.equal(one.get(0), 0);
  assert.notDeepEqual(await pictureOf(page), picture);
  assert.deepEqual(page.problems, []);
});

test('stop 9: a sentence added with a full stop counts one more sentence back', async () => {
  const page = await stopPage();
  await openStop(page, 'cope');
  const text = await page.inputValue('#stop-view #control-text');
  const firstPosition = async () => (await csvOf(page, 'cope-count')).column('contextual_position')[0];
  const before = await firstPosition();
  const picture = await pictureOf(page);
  await redrawn(page, () => page.fill('#stop-view #control-text', `${text} . the end came`));
  assert.notDeepEqual(await pictureOf(page), picture);
  const after = await firstPosition();
  assert.ok(Math.abs(after - before - 1) < 0.05, `the first word: ${before} sentences back, then ${after}`);
  assert.deepEqual(page.problems, []);
});

test('stop 10: induction with two attention layers is learned at L_train by RoPE, learned and sinusoidal positions', async () => {
  const page = await stopPage();
  await openStop(page, 'extrapolation');
  const picture = await pictureOf(page);
  await page.selectOption('#stop-view #control-task', 'induction');
  await redrawn(page, () => page.fill('#stop-view #control-layers', '2'));
  await page.waitForSelector('#stop-view .figure .curve-toggles', { timeout: 600000 });
  const { rows } = await csvOf(page, 'train-extrapolation');
  const at = (name) => Number(rows.find((r) => r[0] === name && Number(r[1]) === 32)[2]);
  for (const name of ['rope', 'learned', 'sinusoidal']) assert.ok(at(name) >= 0.95, `${name}: ${at(name)} at L_train`);
  assert.notDeepEqual(await pictureOf(page), picture);
  // The arms that did not learn are drawn faint, without an end label: the labels left are a handful, not 18.
  const ends = await page.$$eval('#stop-view .figure svg text', (t) => t.map((x) => x.textContent).filter((s) => /^[a-z]/.test(s)));
  assert.ok(ends.length <= 12, ends.join(' | '));
  assert.deepEqual(page.problems, []);
});

test('every stop loaded by its URL at 1280 x 800 (light) showed its view, its figure within the first screen', () => {
  assert.deepEqual([...shown].sort(), STOPS.map((s) => s.id).sort());
});
