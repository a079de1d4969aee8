// Sources as links: every citation ("Press et al. 2022") in a caption, a control's help or a family's source is a
// link to the paper, and each family's source names its reference implementation as a link; nothing is fetched
// from elsewhere until a link is clicked.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { openPlayground, startPlayground } from './browser.mjs';

let playground;
before(async () => { playground = await startPlayground(); });
after(async () => { await playground?.close(); });

// Every citation on every family page is a link, to its paper and code: families.test.mjs, one load per family.

test('the playground and the tour link the README, served with the pages', async () => {
  const page = await playground.newPage();
  for (const file of ['index.html', 'tour.html']) {
    await page.goto(`${playground.url}${file}`);
    const href = await page.$eval('footer a[href$="README.txt"]', (a) => a.href);
    const response = await page.request.get(href);
    assert.equal(response.status(), 200, `${file}: ${href}`);
    assert.match(await response.text(), /^# posenc\n/);
  }
  await page.close();
});
