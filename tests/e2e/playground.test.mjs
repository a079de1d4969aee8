// The playground in real headless Chromium: draws, reacts to controls, reports
// bad values beside the control, keeps the state in the URL, logs no errors.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { navigate, openPlayground, startPlayground } from './browser.mjs';

let playground;
before(async () => { playground = await startPlayground(); });
after(async () => { await playground?.close(); });

/** Size, distinct colours and a hash of the heatmap canvas's pixels. */
function heatmapPixels(page) {
  return page.evaluate(() => {
    const canvas = document.querySelector('#heatmap canvas.matrix');
    // Read through a copy so the page's own canvas is never read back.
    const copy = document.createElement('canvas');
    copy.width = canvas.width;
    copy.height = canvas.height;
    const context = copy.getContext('2d', { willReadFrequently: true });
    context.drawImage(canvas, 0, 0);
    const data = context.getImageData(0, 0, canvas.width, canvas.height).data;
    const colours = new Set();
    let hash = 2166136261;
    for (let i = 0; i < data.length; i += 4) {
      const rgba = (data[i] << 24) | (data[i + 1] << 16) | (data[i + 2] << 8) | data[i + 3];
      colours.add(rgba);
      hash = Math.imul(hash ^ rgba, 16777619);
    }
    return { width: canvas.width, height: canvas.height, colours: colours.size, hash };
  });
}

async function waitForRedraw(page, before) {
  await page.waitForFunction((old) => {
    const canvas = document.querySelector('#heatmap canvas.matrix');
    return canvas && `${canvas.width}x${canvas.height}` !== old;
  }, `${before.width}x${before.height}`);
}

test('the heatmap is drawn, not blank, and the waves have one line per dimension', async () => {
  const page = await playground.open();
  const pixels = await heatmapPixels(page);
  assert.equal(pixels.width, 128, 'one canvas column per dimension (d_model = 128)');
  assert.equal(pixels.height, 128, 'one canvas row per position (n = 128)');
  assert.ok(pixels.colours > 50, `expected a colourful map, got ${pixels.colours} colours`);
  // Axis labels, the legend and four wave lines (auto: pairs 0, 8, 16, 32).
  const text = await page.textContent('#heatmap');
  assert.match(text, /position/);
  assert.match(text, /dimension/);
  assert.match(text, /PE value/);
  assert.equal(await page.locator('#waves svg [aria-label="line"] path').count(), 4);
  assert.match(await page.textContent('#waves'), /dim 0 \(sin, i = 0, λ = 6\.28\)/);
  assert.match(await page.textContent('footer'), /SIMD on/);
  assert.deepEqual(page.problems, []);
});

test('changing d_model recomputes in wasm and changes the pixels', async () => {
  const page = await playground.open();
  const before = await heatmapPixels(page);
  await page.fill('#control-d_model', '64');
  await waitForRedraw(page, before);
  const after = await heatmapPixels(page);
  assert.equal(after.width, 64);
  assert.notEqual(after.hash, before.hash);
  // Flipping the timescales changes the colours but not the shape.
  await page.selectOption('#control-timescales', 'tensor2tensor');
  await page.waitForFunction(() => location.search.includes('timescales=tensor2tensor'));
  const t2t = await heatmapPixels(page);
  assert.equal(t2t.width, 64);
  assert.notEqual(t2t.hash, after.hash);
  assert.deepEqual(page.problems, []);
});

test('the d_model slider works from the keyboard', async () => {
  const page = await playground.open();
  const before = await heatmapPixels(page);
  await page.focus('input[name="d_model-slider"]');
  await page.keyboard.press('ArrowRight');
  await waitForRedraw(page, before);
  // A log slider (2 to 1024): one step is 10^0.01, 128 -> 131, rounded to an even width.
  assert.equal(await page.inputValue('#control-d_model'), '132');
  assert.equal((await heatmapPixels(page)).width, 132);
  // What a screen reader announces is the width, not its log10; End and Home reach the true bounds.
  assert.equal(await page.getAttribute('input[name="d_model-slider"]', 'aria-valuetext'), '132');
  await page.keyboard.press('End');
  assert.equal(await page.inputValue('#control-d_model'), '1024');
  assert.equal(await page.getAttribute('input[name="d_model-slider"]', 'aria-valuetext'), '1024');
  await page.keyboard.press('Home');
  assert.equal(await page.inputValue('#control-d_model'), '2');
  // A burst of key presses is one history step: Back returns to where the burst began.
  await navigate(page, '?d_model=64');
  await page.focus('input[name="d_model-slider"]');
  for (let k = 0; k < 4; k++) await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => /d_model=(?!64\b)\d+/.test(location.search));
  await page.waitForTimeout(300);
  await page.goBack();
  await page.waitForFunction(() => document.getElementById('control-d_model').value === '64');
  assert.equal(await page.evaluate(() => location.search), '?d_model=64');
});

test('a bad value shows an inline error naming it and keeps the last good plot', async () => {
  const page = await playground.open('?d_model=32');
  const good = await heatmapPixels(page);
  await page.fill('#control-d_model', '7');
  await page.waitForFunction(() => document.getElementById('error-d_model').textContent !== '');
  assert.equal(await page.textContent('#error-d_model'),
    'd_model = 7 is invalid: expected an even integer in [2, 16777216]');
  assert.deepEqual(await heatmapPixels(page), good, 'the last good heatmap stays');
  assert.match(await page.evaluate(() => location.search), /d_model=32/, 'the URL keeps the last good state');
  // One bad value, one message: every view that reads d_model settles, and none repeats it (the attention lab's four
  // views did); a view with no figure yet says where the message is.
  await page.waitForFunction(() => ![...document.querySelectorAll('section.view')].some((v) => v.getAttribute('aria-busy') === 'true'));
  await page.waitForTimeout(500);
  const messages = await page.$$eval('output.error', (all) => all.filter((e) => e.checkVisibility())
    .map((e) => e.textContent).filter((t) => /d_model = 7/.test(t)));
  assert.deepEqual(messages, ['d_model = 7 is invalid: expected an even integer in [2, 16777216]']);

  // The core names the first bad parameter; with d_model fixed, base's error shows.
  await page.fill('#control-d_model', '32');
  await page.fill('#control-base', '1');
  await page.waitForFunction(() => document.getElementById('error-base').textContent !== '');
  assert.equal(await page.textContent('#error-d_model'), '');
  assert.equal(await page.textContent('#error-base'), 'base = 1 is invalid: expected a finite number > 1 and <= 1e37');
  await page.fill('#control-n', 'abc');
  await page.waitForFunction(() => document.getElementById('error-n').textContent !== '');
  assert.match(await page.textContent('#error-n'), /^n = abc is invalid: expected an integer in \[1, 4096\] \(the page's limit\)$/);
  await page.fill('#control-dims', '0, 40');
  // Fixing every value clears the errors and draws again.
  await page.fill('#control-n', '50');
  await page.fill('#control-base', '100');
  await page.fill('#control-d_model', '16');
  await page.waitForFunction(() => document.querySelector('#heatmap canvas.matrix').width === 16);
  assert.equal(await page.textContent('#error-d_model'), '');
  // dim 40 does not exist at d_model = 16: the waves say so beside their control.
  assert.equal(await page.textContent('#error-dims'), 'dims = 40 is invalid: expected dimension indices in [0, 15]');
  assert.deepEqual(page.problems, []);
});

test('the URL reproduces the state after a reload', async () => {
  const page = await playground.newPage();
  await openPlayground(playground, page);
  await page.fill('#control-n', '64');
  await page.fill('#control-base', '500');
  await page.selectOption('#control-layout', 'concat');
  await page.fill('#control-dims', '1, 3');
  await page.waitForFunction(() => location.search.includes('dims=1,3'));
  const search = await page.evaluate(() => location.search);
  assert.equal(search, '?n=64&base=500&layout=concat&dims=1,3');
  const before = await heatmapPixels(page);
  await page.reload();
  await page.waitForSelector('body[data-ready=true]');
  assert.equal(await page.inputValue('#control-n'), '64');
  assert.equal(await page.inputValue('#control-base'), '500');
  assert.equal(await page.inputValue('#control-layout'), 'concat');
  assert.deepEqual(await heatmapPixels(page), before);
  assert.equal(await page.locator('#waves svg [aria-label="line"] path').count(), 2);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('the heatmap tooltip gives the exact value of the cell under the pointer', async () => {
  const page = await playground.open('?n=16&d_model=8&base=10000');
  // The formula above the figure is typeset when KaTeX has loaded; until then the figure can still move down.
  await page.waitForSelector('#heatmap .formula .katex');
  const canvas = page.locator('#heatmap canvas.matrix');
  const box = await canvas.boundingBox();
  // Cell (position 5, dimension 3): centre of row 5 of 16, column 3 of 8, relative to the canvas where it is
  // when the pointer moves (hover measures it then: a note drawn meanwhile above it once moved it two rows down).
  await canvas.hover({ position: { x: (3.5 / 8) * box.width, y: (5.5 / 16) * box.height } });
  const tip = await page.innerText('#heatmap .tooltip');
  assert.match(tip, /position 5/);
  assert.match(tip, /dimension 3 \(cos\)/);
  assert.match(tip, /pair i 1/);
  const value = Number(/value (\S+)/.exec(tip)[1]);
  assert.ok(Math.abs(value - Math.cos(5 * 0.1)) < 1e-5, `cos(0.5) expected, tooltip says ${value}`);
  assert.match(tip, /wavelength 62\.8319 tokens/);
  assert.match(tip, /= cos\(5 · 0\.1000\) = cos\(0\.50000 rad\)/, 'the terms that make the value');
  // Arrow keys move the probe: one step down is position 6.
  await page.focus('#heatmap canvas.matrix');
  await page.keyboard.press('ArrowDown');
  assert.match(await page.innerText('#heatmap .tooltip'), /position 6\n/);
});

test('the first tab stop skips the controls to the figures', async () => {
  const page = await playground.newPage();
  await openPlayground(playground, page);
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Skip to the figures');
  assert.ok(await page.evaluate(() => document.activeElement.getBoundingClientRect().top >= 0), 'seen when focused');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'views');
  // The next tab stop is in the first figure's frame, not among the sidebar's controls.
  await page.keyboard.press('Tab');
  assert.ok(await page.evaluate(() => document.getElementById('views').contains(document.activeElement)));
  await page.close();
});

test('below 1000 px each view has its own controls beside it, one state with the sidebar\'s', async () => {
  const page = await playground.newPage();
  await page.setViewportSize({ width: 390, height: 900 });
  await openPlayground(playground, page);
  assert.equal(await page.isVisible('#controls'), false, 'the long box is folded');
  await page.click('#heatmap .view-controls summary');
  // The heatmap's own: the controls it reads, not every control of the family.
  assert.deepEqual(await page.$$eval('#heatmap .view-controls .control:not([hidden])', (r) => r.map((x) => x.dataset.name)),
    ['n', 'd_model', 'base', 'layout', 'timescales']);
  const before = await heatmapPixels(page);
  await page.fill('#heatmap--control-d_model', '32');
  await page.waitForFunction(() => document.querySelector('#heatmap canvas.matrix').width === 32);
  assert.notDeepEqual(await heatmapPixels(page), before);
  assert.equal(await page.inputValue('#control-d_model'), '32', 'the sidebar shows it too');
  assert.equal(await page.inputValue('#waves--control-d_model'), '32', 'and every other view that reads it');
  await page.waitForFunction(() => /d_model=32/.test(location.search));
  // A bad value is named beside the control it was typed in.
  await page.fill('#heatmap--control-d_model', '7');
  await page.waitForFunction(() => document.getElementById('heatmap--error-d_model').textContent !== '');
  assert.match(await page.textContent('#heatmap--error-d_model'), /^d_model = 7 is invalid/);
  // From 1000 px the sidebar holds them all, and the views' own are gone.
  await page.setViewportSize({ width: 1280, height: 900 });
  assert.equal(await page.isVisible('#heatmap .view-controls'), false);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('sliders step over valid values only: T5\'s num_buckets by even counts from 4, a head below n_heads, max_distance from num_buckets / 2', async () => {
  const page = await playground.open('?encoding=t5&weights=random&n_heads=8');
  const slider = (name) => page.$eval(`#controls input[name="${name}-slider"]`, (s) => ({ min: Number(s.min), max: Number(s.max), step: Number(s.step) }));
  const buckets = await slider('num_buckets');
  assert.deepEqual(buckets, { min: 4, max: 128, step: 2 }, 'every position even and at least 4: valid bidirectional or not');
  assert.equal((await slider('head')).max, 7, 'heads 0..7 of 8');
  assert.equal(Math.round(10 ** (await slider('max_distance')).min), 17, 'past num_buckets / 2 = 16');
  // Moving n_heads moves the head slider's end with it.
  await page.fill('#controls #control-n_heads', '3');
  await page.waitForFunction(() => document.querySelector('#controls input[name="head-slider"]').max === '2');
  // From the keyboard: End on the num_buckets slider lands on a valid count, and nothing is refused.
  await page.focus('#controls input[name="num_buckets-slider"]');
  for (const key of ['End', 'ArrowLeft', 'ArrowLeft', 'ArrowLeft']) await page.keyboard.press(key);
  await page.waitForFunction(() => new URL(location.href).searchParams.get('num_buckets') === '122');
  assert.equal(await page.textContent('#controls #error-num_buckets'), '');
  assert.deepEqual(page.problems, []);
});
