// The guided tour (tour.html): every stop loads by its own URL and draws its view, at a phone's width and a
// desktop's, in both themes; ← / → and the links move between stops, each a history step; the playground links to it.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { openPlayground, startPlayground } from './browser.mjs';
import { STOPS } from '../../web/src/tour/stops.js';

let playground;
before(async () => { playground = await startPlayground(); });
after(async () => { await playground?.close(); });

/** Opens the tour at `query` and waits until its stop has drawn. */
const openTour = (page, query) => openPlayground(playground, page, query, 'tour.html');

for (const [width, height, scheme] of [[390, 844, 'dark'], [1280, 800, 'light']]) {
  test(`every stop loads by its URL and draws its view, its figure within the first screen, at ${width} x ${height} (${scheme})`, async () => {
    const page = await playground.newPage();
    await page.setViewportSize({ width, height });
    await page.emulateMedia({ colorScheme: scheme });
    for (const [k, stop] of STOPS.entries()) {
      await openTour(page, `?stop=${stop.id}`);
      assert.equal(await page.textContent('#stop-title'), stop.title);
      assert.equal(await page.textContent('#stop-count'), `Stop ${k + 1} of ${STOPS.length}`);
      const section = page.locator(`#stop-view section#${stop.view}`);
      assert.equal(await section.count(), 1, `${stop.id}: its view`);
      assert.ok(await section.locator('.figure').evaluate((f) => f.childElementCount > 0), `${stop.id}: drawn`);
      assert.deepEqual(await page.$$eval('.view-error, .warnings', (e) => e.map((x) => x.textContent).filter(Boolean)), [],
        `${stop.id}: no error or warning`);
      // Nothing wider than the screen.
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth + 1), `${stop.id}: fits ${width} px`);
      // Figure first: it starts within the first screen, with the Try's controls above it and the rest folded below.
      const top = await section.locator('.figure').evaluate((f) => f.getBoundingClientRect().top + scrollY);
      assert.ok(top < height, `${stop.id}: its figure starts at y = ${top}`);
      const strip = await section.locator('.primary-controls .control:not([hidden])').evaluateAll((rows) => rows.map((r) => r.dataset.name));
      assert.deepEqual(strip, stop.controls, `${stop.id}: the Try's controls`);
      assert.equal(await section.locator('details.more-controls').evaluate((d) => d.open), false);
    }
    assert.deepEqual(page.problems, []);
    await page.close();
  });
}

test('← and → move between stops, each a history step; the list and the links go there too', async () => {
  const page = await playground.newPage();
  await openTour(page, '');
  assert.equal(await page.textContent('#stop-title'), STOPS[0].title, 'no stop named: the first');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction((id) => location.search === `?stop=${id}`, STOPS[1].id);
  await page.waitForSelector('body[data-ready=true]');
  assert.equal(await page.textContent('#stop-title'), STOPS[1].title);
  assert.equal(await page.getAttribute('#tour-stops a[aria-current=step]', 'href'), `?stop=${STOPS[1].id}`);
  await page.click('#stop-next');
  await page.waitForFunction((id) => location.search === `?stop=${id}`, STOPS[2].id);
  await page.goBack();
  await page.waitForFunction((title) => document.getElementById('stop-title').textContent === title, STOPS[1].title);
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction((title) => document.getElementById('stop-title').textContent === title, STOPS[0].title);
  // Arrow keys inside a control move the control, not the tour.
  await page.waitForSelector('body[data-ready=true]');
  await page.focus('#stop-view #control-text');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.textContent('#stop-title'), STOPS[0].title);
  await page.click(`#tour-stops a[href="?stop=${STOPS[9].id}"]`);
  await page.waitForFunction((id) => location.search === `?stop=${id}`, STOPS[9].id);
  assert.equal(await page.isVisible('#stop-next'), false, 'no next after the last stop');
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('the playground sends a newcomer to the tour first', async () => {
  const page = await playground.newPage();
  await openPlayground(playground, page);
  const link = page.locator('header .start-here a');
  assert.match(await link.textContent(), /Start with the tour/);
  assert.equal(await link.getAttribute('href'), './tour.html');
  await page.close();
});
