// The built playground at the widths its readers have (390 px phone, 760 px
// blog column, 1024 px, 1280 px): nothing overflows sideways, the controls
// never cover a figure, dark mode darkens it, and a heavy change (a [4096, 1024]
// table, a 500-token sentence) is drawn; how long it holds the main thread is
// printed by `npm run bench` (tests/bench/page.mjs), not tested.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { dragSlider, drawn, navigate, openPlayground, startPlayground, typeLongSentence } from './browser.mjs';

let browser;
before(async () => { browser = await startPlayground(); });
after(async () => { await browser?.close(); });
const playground = () => browser;

/** For each view: is the centre of its figure, scrolled into the middle of the window, the figure itself? */
function coveredFigures(page) {
  return page.evaluate(async () => {
    const covered = [];
    for (const figure of document.querySelectorAll('section.view .figure')) {
      figure.scrollIntoView({ block: 'center' });
      await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
      const r = figure.getBoundingClientRect();
      // The middle of the part of the figure inside the window (a tall figure overflows it).
      const x = (Math.max(0, r.left) + Math.min(r.right, window.innerWidth)) / 2;
      const y = (Math.max(0, r.top) + Math.min(r.bottom, window.innerHeight)) / 2;
      const hit = document.elementFromPoint(x, y);
      if (!hit || !figure.contains(hit)) covered.push(`${figure.closest('section').id}: ${hit?.tagName}#${hit?.id}.${hit?.className}`);
    }
    window.scrollTo(0, 0);
    return covered;
  });
}

for (const [width, height] of [[390, 844], [760, 900], [1024, 768], [1280, 900]]) {
  test(`at ${width} px: no sideways overflow, no figure covered, for every family`, async () => {
    const page = await browser.newPage();
    await page.setViewportSize({ width, height });
    for (const [i, encoding] of ['sinusoidal', 'rope', 'alibi', 'learned'].entries()) {
      // One load at this size, then each family in place (as Back and Forward show it: browser.mjs navigate).
      if (i === 0) await openPlayground(playground(), page, `?encoding=${encoding}`);
      else await navigate(page, `?encoding=${encoding}`);
      await page.waitForFunction(() => !document.querySelector('section.busy-view'));
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${encoding} at ${width} px overflows by ${overflow} px`);
      assert.deepEqual(await coveredFigures(page), [], `${encoding} at ${width} px`);
      // The share popover opens inside the window.
      await page.click('section.view .share summary');
      const [left, right] = await page.$eval('section.view .share-body', (b) => { const r = b.getBoundingClientRect(); return [r.left, r.right]; });
      assert.ok(left >= 0 && right <= width, `${encoding} at ${width} px: share popover at ${left}..${right}`);
      await page.click('section.view .share summary');
      if (width < 1000) {
        // The controls sit above the views, folded: the first figure starts within the first screen.
        assert.equal(await page.$eval('#controls-panel', (d) => d.open), false);
        const top = await page.$eval('section.view .figure', (f) => f.getBoundingClientRect().top + window.scrollY);
        assert.ok(top < height, `${encoding}: first figure at ${top} px`);
      }
    }
    assert.deepEqual(page.problems, []);
    await page.close();
  });
}

test('at 1280 x 900, reading the attention map brings the sentence box into sight', async () => {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  await openPlayground(playground(), page, '?encoding=rope');
  await page.$eval('#attention', (s) => s.scrollIntoView({ block: 'start' }));
  await page.waitForFunction(() => {
    const r = document.getElementById('control-text').getBoundingClientRect();
    return r.top >= 0 && r.bottom <= window.innerHeight;
  });
  await page.close();
});

test('dark mode darkens the page and the heatmap keeps its contrast', async () => {
  const page = await browser.newPage();
  await page.emulateMedia({ colorScheme: 'dark' });
  await openPlayground(playground(), page, '?n=16&d_model=16');
  const luminance = (css) => { const [r, g, b] = css.match(/\d+/g).map(Number); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const text = await page.evaluate(() => getComputedStyle(document.body).color);
  assert.ok(luminance(background) < 50, `dark background ${background}`);
  assert.ok(luminance(text) > 180, `light text ${text}`);
  // PE = 0 (position 0, dim 0: sin 0) is drawn near the background; PE = 1 (dim 1: cos 0) bright.
  const [zero, one] = await page.$eval('#heatmap canvas.matrix', (c) => {
    const d = c.getContext('2d').getImageData(0, 0, 2, 1).data;
    return [[d[0], d[1], d[2]], [d[4], d[5], d[6]]];
  });
  const lum = ([r, g, b]) => 0.2126 * r + 0.7152 * g + 0.0722 * b;
  assert.ok(lum(zero) < 60, `0 is dark: ${zero}`);
  assert.ok(lum(one) - lum(zero) > 60, `1 stands out of 0: ${one} vs ${zero}`);
  await page.emulateMedia({ colorScheme: 'light' });
  await page.waitForFunction(() => getComputedStyle(document.body).backgroundColor === 'rgb(255, 255, 255)');
  await page.close();
});

// How long the main thread is held while these two run is a figure of `npm run bench -- --only page`
// (tests/bench/page.mjs), never a test: a loaded machine makes any threshold flaky.
test('n = 4096, d_model = 1024: dragging base redraws the heatmap during the drag, and the link follows', async () => {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  await openPlayground(playground(), page, '?n=4096&d_model=1024');
  // Every view drew (the waves at 4096 positions draw bands, without a dot per position).
  assert.deepEqual(await page.$$eval('section.view .view-error', (e) => e.map((x) => x.textContent).filter(Boolean)), []);
  assert.ok(await page.$eval('#waves .figure svg', (svg) => svg.childElementCount > 0));
  await page.evaluate(() => {
    window.heatmapDraws = 0;
    new PerformanceObserver((list) => { for (const e of list.getEntries()) if (e.name === 'posenc: draw heatmap') window.heatmapDraws++; })
      .observe({ type: 'measure' });
  });
  await dragSlider(page, 'base');
  const base = Number(new URL(page.url()).searchParams.get('base'));
  assert.ok(base > 10000, `dragged right of the middle: base ${base}`);
  assert.equal(Number(await page.inputValue('#control-base')), base, 'the control shows the value the link holds');
  assert.ok(await page.evaluate(() => window.heatmapDraws) >= 2, 'the heatmap follows the drag, not only its end');
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('a computation over 200 ms shows progress over the last figure, which stays until the new one is drawn', async () => {
  // d_model 384: the sinusoidal curve alone is 192 cosines at each of 100,001 distances, near the work budget
  const page = await browser.open('?d_model=384&compare_distance=256');
  const before = await page.innerHTML('#decay-comparison .figure');
  await page.fill('#control-compare_distance', '100000');  // twelve decay curves over 100,001 distances: most of a second of work
  // Read in one frame while the note shows (on a fast machine the work ends a few frames after the note appears).
  const shown = await (await page.waitForFunction((last) => {
    const busy = document.querySelector('#decay-comparison .busy');
    return busy.hidden ? null : { note: busy.innerText, same: document.querySelector('#decay-comparison .figure').innerHTML === last };
  }, before, { timeout: 5000, polling: 'raf' })).jsonValue();
  assert.match(shown.note, /computing…/);
  assert.ok(shown.same, 'the last figure stays under the progress note');
  await page.waitForSelector('#decay-comparison .busy[hidden]', { state: 'attached', timeout: 60000 });
  assert.notEqual(await page.innerHTML('#decay-comparison .figure'), before, 'then the new one replaces it');
  assert.match(await page.innerText('#decay-comparison .figure'), /90,000/, 'the axis runs to the new distance');
});

test('a 500-token sentence: typing draws the attention map of all 500 tokens', async () => {
  const page = await browser.open('?encoding=rope');
  await typeLongSentence(page);
  assert.ok(await page.$eval('#attention', drawn), 'the map has marks');
  assert.deepEqual(page.problems, []);
});
