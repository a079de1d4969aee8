// One source for each limit, and figures that say what they draw: the message
// beside a control is the core's own for that value; a view setting's limit is
// named as the page's; wide ranges get log sliders; a preset label follows the
// values; the decay plots share their x axis and label the region truthfully;
// ticks read 0, 500, 1k; a heatmap with more rows than pixels says so.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { navigate, openPlayground, startPlayground } from './browser.mjs';
import { loadPosenc } from '../wasm/load.mjs';
import { FAMILIES, parametersOf } from '../../web/src/families/index.js';
import { defaultsOf, parse } from '../../web/src/state.js';

let playground;
let pe;
before(async () => { [playground, pe] = await Promise.all([startPlayground(), loadPosenc()]); });
after(async () => { await playground?.close(); });

/** The core's message for family `name` with raw values over the defaults, for the spec the page sends (null: accepted). */
function coreError(name, raw) {
  const { params } = parse(parametersOf(name), { ...defaultsOf(parametersOf(name)), ...raw });
  const spec = FAMILIES[name].spec(params);
  try {
    if (name === 'sinusoidal') pe.positionTable(spec, params.n);
    else if (name === 'rope' || name === 'xpos') pe.ropeInvFreq(spec, params.seq_len ?? params.training_length);
    else pe.attentionBias(spec, params.n);
    return null;
  } catch (error) {
    return error.message;
  }
}

const shownError = (page, name) => page.textContent(`#error-${name}`);

test('the message beside a control names the core\'s range for that value', async () => {
  const page = await playground.newPage();
  const cases = [
    // [family, query, control, value]: the page's own validation once said [2, 1024], [1, 1e12], [0, 1], ...
    ['sinusoidal', '', 'd_model', '7'],
    ['sinusoidal', '', 'd_model', '20000000'],
    ['sinusoidal', '', 'base', '-1'],
    ['sinusoidal', '', 'base', '1'],
    ['rope', '', 'partial_rotary_factor', '0'],
    ['rope', 'rope_type=llama3&original_max_position_embeddings=8192', 'low_freq_factor', '0'],
    ['xpos', '', 'scale_base', '0'],
    ['alibi', '', 'head', '64'],
    ['alibi', '', 'n_heads', '5000'],
    ['kerple', 'weights=random', 'r1', '0'],  // its own r1: the trained set's controls are hidden
  ];
  for (const [i, [name, query, control, value]] of cases.entries()) {
    const raw = Object.fromEntries(new URLSearchParams(query));
    const expected = coreError(name, { ...raw, [control]: value });
    assert.ok(expected, `${name} ${control} = ${value}: the core refuses it`);
    // One load, then each link in place (as Back and Forward load a state; browser.mjs navigate).
    const link = `?encoding=${name}${query ? `&${query}` : ''}`;
    if (i === 0) await openPlayground(playground, page, link);
    else await navigate(page, link);
    await page.fill(`#control-${control}`, value);
    await page.waitForFunction((c) => document.getElementById(`error-${c}`).textContent !== '', control);
    const message = await shownError(page, control);
    assert.equal(message, expected, `${name} ${control} = ${value}`);
    assert.match(message, new RegExp(`^${control} = ${value} is invalid: expected `));
  }
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('a value the core accepts is not refused by the page', async () => {
  const page = await playground.newPage();
  // d_model = 2000: the page once said [2, 1024]; the core takes it.
  assert.equal(coreError('sinusoidal', { d_model: '2000' }), null);
  await openPlayground(playground, page, '?d_model=2000');
  await page.waitForSelector('#heatmap canvas.matrix');
  assert.equal(await shownError(page, 'd_model'), '');
  assert.equal(await page.inputValue('#control-d_model'), '2000');
  assert.equal(await page.locator('#warnings li').count(), 0, 'no warning: the link is used as it is');
  assert.match(await page.textContent('#heatmap .note'), /128 × 2000 entries/);
  // n_heads = 100: the page once said [1, 64]; the heads view draws the first 64 and says so.
  assert.equal(coreError('alibi', { n_heads: '100' }), null);
  await navigate(page, '?encoding=alibi&n_heads=100');
  await page.waitForSelector('#heads .note');
  assert.equal(await shownError(page, 'n_heads'), '');
  assert.equal(await page.locator('#heads canvas').count(), 64);
  assert.match(await page.textContent('#heads .note'), /^The first 64 of 100 heads \(the page draws at most 64\)/);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('a view setting\'s limit is the page\'s, says so, and matches its slider', async () => {
  const page = await playground.open('');
  await page.fill('#control-n', '5000');
  await page.waitForFunction(() => document.getElementById('error-n').textContent !== '');
  assert.equal(await shownError(page, 'n'), 'n = 5000 is invalid: expected an integer in [1, 4096] (the page\'s limit)');
  const slider = await page.$eval('[name="n-slider"]', (s) => ({ scale: s.dataset.scale, min: Number(s.min), max: Number(s.max) }));
  assert.equal(slider.scale, 'log');
  assert.equal(Math.round(10 ** slider.min), 1);
  assert.equal(Math.round(10 ** slider.max), 4096);
});

// Every slider over more than two decades is logarithmic, on every family's page: families.test.mjs.
test('llama3\'s 1 and 4 sit mid-slider; a log slider of an even integer gives even integers', async () => {
  const page = await playground.open('?encoding=rope&preset=llama-3.1-8b');
  for (const [control, value] of [['low_freq_factor', 1], ['high_freq_factor', 4]]) {
    const at = await page.$eval(`[name="${control}-slider"]`, (s) => (Number(s.value) - Number(s.min)) / (Number(s.max) - Number(s.min)));
    assert.ok(at > 0.25 && at < 0.75, `${control} = ${value} at ${at.toFixed(2)} of its slider`);
  }
  // A log slider of an even integer gives even integers (10^2.5 = 316.2: 316 or 318 on the slider's grid).
  await navigate(page, '');
  await page.$eval('[name="d_model-slider"]', (s) => { s.value = '2.5'; s.dispatchEvent(new Event('input', { bubbles: true })); });
  const dModel = Number(await page.inputValue('#control-d_model'));
  assert.ok(Number.isInteger(dModel) && dModel % 2 === 0 && dModel >= 310 && dModel <= 320, String(dModel));
  assert.deepEqual(page.problems, []);
});

test('a preset label turns "custom" when a value differs from the preset, from a link or a control', async () => {
  const page = await playground.open('?encoding=rope&preset=llama-3.1-8b&rope_theta=10000');
  assert.equal(await page.inputValue('#control-preset'), 'custom');
  assert.equal(await page.inputValue('#control-rope_theta'), '10000');
  assert.equal(await page.inputValue('#control-rope_type'), 'llama3', 'the other values stay Llama-3.1\'s');
  await page.waitForFunction(() => !location.search.includes('preset='));
  // The bare preset link, and one with only a view setting, keep the label.
  for (const query of ['?encoding=rope&preset=llama-3.1-8b', '?encoding=rope&preset=llama-3.1-8b&seq_len=16384&pair=30']) {
    await navigate(page, query);
    assert.equal(await page.inputValue('#control-preset'), 'llama-3.1-8b', query);
    assert.equal(await page.inputValue('#control-rope_theta'), '500000', query);
  }
  await page.fill('#control-rope_theta', '20000');
  await page.waitForFunction(() => document.getElementById('control-preset').value === 'custom');
  await page.waitForFunction(() => location.search.includes('rope_theta=20000') && !location.search.includes('preset='));
  assert.deepEqual(page.problems, []);
});

/** The x positions (page px) and texts of each decay plot's x-axis ticks. */
const decayTicks = (page) => page.$$eval('#decay .figure svg', (svgs) => svgs
  .map((svg) => [...svg.querySelectorAll('[aria-label="x-axis tick label"] text')]
    .map((t) => { const r = t.getBoundingClientRect(); return { text: t.textContent, x: Math.round((r.left + r.right) / 2) }; }))
  .filter((ticks) => ticks.length));

test('the decay plots share their x axis, label ticks 0, 200, ..., 1k, and name the shaded region truthfully', async () => {
  const page = await playground.newPage();
  for (const [i, query] of ['?encoding=rope&max_distance=2000&max_position_embeddings=1000', '?encoding=xpos&max_distance=2000'].entries()) {
    if (i === 0) await openPlayground(playground, page, query);
    else await navigate(page, query);
    const [upper, lower, ...rest] = await decayTicks(page);
    assert.equal(rest.length, 0, query);
    assert.deepEqual(lower, upper, `${query}: the same ticks at the same x`);
    assert.equal(upper[0].text, '0', query);
    assert.ok(upper.some((t) => t.text === '1k'), `${query}: ${upper.map((t) => t.text)}`);
    assert.ok(!upper.some((t) => /^0(\.\d+)?k$/.test(t.text)), `${query}: ${upper.map((t) => t.text)}`);
  }
  // xPos has no max_position_embeddings: its region lies past the training length.
  const xposText = await page.innerText('#decay .figure');
  assert.match(xposText, /extrapolation: past 1,024 tokens\s+\(the training length\)/);
  assert.doesNotMatch(xposText, /max_position_embeddings/);
  await navigate(page, '?encoding=rope&max_distance=2000&max_position_embeddings=1000');
  assert.match(await page.innerText('#decay .figure'), /extrapolation: past 1,000 tokens\s+\(max_position_embeddings\)/);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('a heatmap with more rows or columns than pixels says that neighbours share a pixel', async () => {
  const page = await playground.open('?n=128');
  assert.equal(await page.locator('#heatmap .note').count(), 0, '128 rows fit');
  // 400 rows: fewer than the engine's preview limit, more than the figure's pixels.
  await navigate(page, '?n=400');
  const pixels = await page.$eval('#heatmap canvas.matrix', (c) => Math.floor(c.getBoundingClientRect().height * devicePixelRatio));
  assert.ok(pixels < 400, `${pixels} pixels`);
  assert.equal(await page.textContent('#heatmap .note.shared-pixels'),
    `400 rows on ${pixels} screen pixels: neighbouring rows share a pixel, so fine stripes can show moiré; ` +
    'hover (or the arrow keys) still gives every exact value.');
  // 4096 x 1024: averaged in the worker, and the averages still outnumber the pixels.
  await navigate(page, '?n=4096&d_model=1024');
  assert.match(await page.textContent('#heatmap .note:not(.shared-pixels)'), /^4096 × 1024 entries on \d+ × \d+ pixels: each pixel shows the mean/);
  assert.match(await page.textContent('#heatmap .note.shared-pixels'), /^\d+ averaged rows on \d+ screen pixels.*: neighbouring rows/);
  assert.deepEqual(page.problems, []);
});
