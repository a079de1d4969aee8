// Sources as links: every citation ("Press et al. 2022") in a caption, a control's help or a family's source is a
// link to the paper, and each family's source names its reference implementation as a link; nothing is fetched
// from elsewhere until a link is clicked.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { openPlayground, startPlayground } from './browser.mjs';
import { FAMILY_TYPES } from '../../web/src/describe.js';
import { CITATIONS } from '../../web/src/citations.js';

let playground;
before(async () => { playground = await startPlayground(); });
after(async () => { await playground?.close(); });

/** The citations ("Name et al. 2020") of a text that are not inside a link. */
const UNLINKED = `(root) => {
  const out = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement.closest('a, .katex, script, style')) continue;
    for (const m of node.textContent.matchAll(/[A-Z][a-zA-Z-]+ et al\\. (19|20)\\d\\d/g)) out.push(m[0]);
  }
  return out;
}`;

test('every citation on every family page is a link; each family names its paper and (but NoPE) its reference code', async () => {
  const page = await playground.newPage();
  const external = [];
  page.on('request', (r) => { if (!r.url().startsWith(playground.url)) external.push(r.url()); });
  const known = new Set(CITATIONS.map(([, url]) => url));
  for (const type of FAMILY_TYPES) {
    await openPlayground(playground, page, `?encoding=${type}`);
    await page.waitForSelector('#family-formula .cite');
    const unlinked = await page.evaluate(`(${UNLINKED})(document.body)`);
    assert.deepEqual(unlinked, [], `${type}: citations without a link`);
    const links = await page.$$eval('#family-formula .cite a', (a) => a.map((x) => x.href));
    for (const href of links) assert.ok(known.has(href), `${type}: ${href}`);
    assert.ok(links.some((href) => /arxiv\.org|openai\.com/.test(href)), `${type}: a link to its paper`);
    // NoPE has no code to cite; FIRE's reference is the code in its paper's appendix (the paper's link).
    if (type !== 'none' && type !== 'fire') assert.ok(links.some((href) => href.startsWith('https://github.com/')), `${type}: a link to its reference code`);
  }
  assert.deepEqual(external, [], 'nothing fetched from elsewhere');
  assert.deepEqual(page.problems, []);
  await page.close();
});

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
