// A <posenc-view> keeps to itself on a host page of another origin whose styles would reach any child: right to
// left, large type, wide letters, centred, uppercase, red. The component adds nothing to the host's document outside
// itself (no <link rel=modulepreload> from its chunks, no <style>), adds no font to the host's document.fonts (its
// formula is MathML, lib/katex.js), draws in its own direction, size and colours, and whenReady() after a burst of
// attribute changes resolves with the formula of the last value already shown.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DIST, SUB_PATH, drawn, launchBrowser, serveStatic } from './browser.mjs';

// The host's styles: on the root (rem), on the body and on the component's parent (inherited).
const HOST_PAGE = `<!doctype html>
<html lang="ar" dir="rtl">
<head>
  <meta charset="utf-8">
  <link rel="icon" href="data:,">
  <title>host</title>
  <style>
    html { font-size: 30px; }
    body { direction: rtl; font: italic 700 28px/3 Georgia, serif; letter-spacing: 4px; word-spacing: 12px; text-align: center;
      text-indent: 40px; text-transform: uppercase; color: rgb(200, 0, 0); white-space: pre; }
    article { font-size: 2em; }
  </style>
</head>
<body>
  <p>host text</p>
  <article><posenc-view id="v" view="decay" encoding="rope" max_distance="256"></posenc-view></article>
</body>
</html>`;

let site;
let host;
let hostDir;
let browser;
before(async () => {
  site = await serveStatic(DIST, { prefix: SUB_PATH, cors: true });
  hostDir = fs.mkdtempSync(path.join(os.tmpdir(), 'posenc-host-'));
  fs.writeFileSync(path.join(hostDir, 'host.html'), HOST_PAGE);
  host = await serveStatic(hostDir, { prefix: '/', host: 'localhost' });
  browser = await launchBrowser({ viewport: { width: 900, height: 900 }, colorScheme: 'light' });
});
after(async () => {
  await browser?.close();
  await site?.close();
  await host?.close();
  if (hostDir) fs.rmSync(hostDir, { recursive: true, force: true });
});

/** What the host's document holds outside any shadow root: every element, and the children of its head and body. */
function hostShape() {
  const describe = (e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.rel ? `[rel=${e.rel}]` : ''}`;
  return {
    elements: document.getElementsByTagName('*').length,
    head: [...document.head.children].map(describe),
    body: [...document.body.children].map(describe),
    fonts: document.fonts.size,
    styleSheets: document.styleSheets.length + document.adoptedStyleSheets.length,
  };
}

test('a component on another origin adds no element, font or style to its host, and takes none of its styles', async () => {
  assert.notEqual(new URL(host.url).origin, new URL(site.url).origin);
  const page = await browser.newPage();
  await page.goto(`${host.url}host.html`);
  const before = await page.evaluate(hostShape);
  // Loaded by the test, so the script element of a host page is not counted as the component's.
  await page.evaluate((url) => import(url), `${site.url}posenc-view.js`);
  await page.evaluate(() => document.getElementById('v').whenReady());
  assert.ok(await page.$eval('#v', (v, source) => new Function(`return (${source})`)()(v.shadowRoot), drawn.toString()), 'drawn');
  assert.ok(await page.$eval('#v', (v) => v.shadowRoot.querySelector('.formula math')), 'the formula shows');
  // The formula's fonts would load once it is drawn: wait for them too.
  await page.evaluate(() => document.fonts.ready);
  assert.deepEqual(await page.evaluate(hostShape), before, 'the host document: elements, head, body, fonts, style sheets');

  const inside = await page.$eval('#v', (v) => {
    const read = (selector) => {
      const s = getComputedStyle(v.shadowRoot.querySelector(selector));
      return { direction: s.direction, fontSize: s.fontSize, fontStyle: s.fontStyle, fontWeight: s.fontWeight, lineHeight: s.lineHeight,
        letterSpacing: s.letterSpacing, wordSpacing: s.wordSpacing, textAlign: s.textAlign, textIndent: s.textIndent,
        textTransform: s.textTransform, whiteSpace: s.whiteSpace, color: s.color, fontFamily: s.fontFamily };
    };
    return { root: read('.posenc-root'), caption: read('.caption'), title: read('.view-title') };
  });
  assert.deepEqual({ ...inside.root, fontFamily: inside.root.fontFamily.split(',')[0] }, {
    direction: 'ltr', fontSize: '16px', fontStyle: 'normal', fontWeight: '400', lineHeight: 'normal', letterSpacing: 'normal',
    wordSpacing: '0px', textAlign: 'start', textIndent: '0px', textTransform: 'none', whiteSpace: 'normal',
    color: 'rgb(29, 35, 48)', fontFamily: 'system-ui',
  }, 'the view\'s own type and colour (views.css, light theme), not the host\'s');
  // Sizes relative to the component's own 16 px, not to the host's root (30 px).
  assert.equal(inside.caption.fontSize, `${0.9 * 16}px`, 'the caption: 0.9 of the component\'s size');
  assert.equal(inside.title.fontSize, `${1.1 * 16}px`, 'the title: 1.1 of the component\'s size');
  assert.equal(inside.caption.direction, 'ltr');
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('after 200 rapid attribute changes, whenReady() resolves with the formula of the last value shown', async () => {
  const page = await browser.newPage();
  await page.goto(`${host.url}host.html`);
  await page.evaluate((url) => import(url), `${site.url}posenc-view.js`);
  await page.evaluate(() => document.getElementById('v').whenReady());
  const shown = await page.evaluate(async () => {
    const view = document.getElementById('v');
    // 200 values of rope_theta, a frame apart every ten, so some draws start and are superseded on the way.
    for (let k = 1; k <= 200; k++) {
      view.setAttribute('rope_theta', String(1000 + 37 * k));
      if (k % 10 === 0) await new Promise(requestAnimationFrame);
    }
    await view.whenReady();
    return view.shadowRoot.querySelector('.formula annotation[encoding="application/x-tex"]')?.textContent ?? '';
  });
  assert.ok(shown.includes(`${1000 + 37 * 200}^{-2i/128}`), `the last rope_theta (${1000 + 37 * 200}) in the formula:\n${shown}`);
  assert.ok(!shown.includes(`${1000 + 37 * 199}^`), 'not the one before it');
  assert.deepEqual(page.problems, []);
  await page.close();
});
