// The guided tour (tour.html): every stop draws its view at a phone's width, dark (loaded by its own URL at a
// desktop's, light: tour-try.test.mjs); ← / → and the links move between stops, each a history step; the playground links to it.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { navigate, openPlayground, startPlayground } from './browser.mjs';
import { STOPS } from '../../web/src/tour/stops.js';
import { assertStopShown } from './tour-stop.mjs';

let playground;
before(async () => { playground = await startPlayground(); });
after(async () => { await playground?.close(); });

/** Opens the tour at `query` and waits until its stop has drawn. */
const openTour = (page, query) => openPlayground(playground, page, query, 'tour.html');

// At 1280 x 800 (light) tour-try.test.mjs checks the same of every stop as it loads it by its URL for its Try; here the
// first stop loads, and each next is shown in place, as Back and Forward show it (the tour's popstate).
test('every stop draws its view, its figure within the first screen, at 390 x 844 (dark)', async () => {
  const page = await playground.newPage();
  const size = { width: 390, height: 844 };
  await page.setViewportSize(size);
  await page.emulateMedia({ colorScheme: 'dark' });
  for (const [i, stop] of STOPS.entries()) {
    if (i === 0) await openTour(page, `?stop=${stop.id}`);
    else await navigate(page, `?stop=${stop.id}`);
    await assertStopShown(page, stop, size);
  }
  assert.deepEqual(page.problems, []);
  await page.close();
});

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
  const page = await playground.open();
  const link = page.locator('header .start-here a');
  assert.match(await link.textContent(), /Start with the tour/);
  assert.equal(await link.getAttribute('href'), './tour.html');
});
