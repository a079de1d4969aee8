// What every tour stop must show once it is up (shown in place: tour.test.mjs at 390 x 844; loaded by its own URL: tour-try.test.mjs at
// 1280 x 800, before each Try): its title and place, its view drawn, no error or warning, nothing wider than the
// screen, and the figure first: within the first screen, the Try's controls above it and the rest folded below.
import assert from 'node:assert/strict';
import { STOPS } from '../../web/src/tour/stops.js';

/** Asserts the above for `stop` on `page`, whose viewport is width x height. */
export async function assertStopShown(page, stop, { width, height }) {
  const k = STOPS.indexOf(stop);
  assert.equal(await page.textContent('#stop-title'), stop.title);
  assert.equal(await page.textContent('#stop-count'), `Stop ${k + 1} of ${STOPS.length}`);
  const section = page.locator(`#stop-view section#${stop.view}`);
  assert.equal(await section.count(), 1, `${stop.id}: its view`);
  assert.ok(await section.locator('.figure').evaluate((f) => f.childElementCount > 0), `${stop.id}: drawn`);
  assert.deepEqual(await page.$$eval('.view-error, .warnings', (e) => e.map((x) => x.textContent).filter(Boolean)), [],
    `${stop.id}: no error or warning`);
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth + 1), `${stop.id}: fits ${width} px`);
  const top = await section.locator('.figure').evaluate((f) => f.getBoundingClientRect().top + scrollY);
  assert.ok(top < height, `${stop.id}: its figure starts at y = ${top}`);
  const strip = await section.locator('.primary-controls .control:not([hidden])').evaluateAll((rows) => rows.map((r) => r.dataset.name));
  assert.deepEqual(strip, stop.controls, `${stop.id}: the Try's controls`);
  assert.equal(await section.locator('details.more-controls').evaluate((d) => d.open), false);
}
