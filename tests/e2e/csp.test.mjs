// The page under a strict Content-Security-Policy (README, "Under a strict
// Content-Security-Policy"): every HTML page of dist/ served with STRICT_CSP;
// the playground for every family and compare mode, embed.html for a few
// views, and the example post on another origin, under its own policy that
// names posenc's origin, with its iframe and components. No violation, no
// console error, no dialog, no request off those origins; the charts keep
// Plot's rules (from views.css), KaTeX its sizes and fonts (a component's
// formulas are MathML, with no font); markup typed into
// the page or put in a link is shown as text.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { DIST, STRICT_CSP, SUB_PATH, drawn, launchBrowser, openPlayground, root, serveStatic } from './browser.mjs';

const MARKUP = '<img src=x onerror=alert(1)>';
const DESCRIBE = JSON.parse(fs.readFileSync(path.join(root, 'web/generated/describe.json'), 'utf8'));
const TYPES = [...DESCRIBE.families.map((f) => f.type), 'compare'];

/**
 * A blog's policy for a page that loads the component from posenc's origin (README): STRICT_CSP with that origin where
 * the page loads from it (the scripts, the .wasm, KaTeX's fonts, the iframe), and a worker-src for the component's
 * worker: a blob: stub (a worker's script must be same-origin) that imports the worker's script from posenc's origin.
 */
function hostPolicy(posencOrigin) {
  return `${STRICT_CSP.replace("default-src 'self'", `default-src 'self' ${posencOrigin}`)
    .replace("script-src 'self'", `script-src 'self' ${posencOrigin}`)}; worker-src 'self' blob: ${posencOrigin}`;
}

let site;
let blog;
let browser;
before(async () => {
  site = await serveStatic(DIST, { prefix: SUB_PATH, cors: true, htmlHeaders: { 'content-security-policy': STRICT_CSP } });
  // The blog, on another origin; base-uri 'none' forbids a <base>, so the post's relative links to posenc become absolute.
  blog = await serveStatic(path.join(DIST, 'examples'), {
    prefix: '/posts/', host: 'localhost', htmlHeaders: { 'content-security-policy': hostPolicy(site.origin) },
    rewriteHtml: (file, text) => text.replaceAll('"../', `"${site.url}`),
  });
  browser = await launchBrowser({ viewport: { width: 1280, height: 1000 } });
});
after(async () => {
  await browser?.close();
  await site?.close();
  await blog?.close();
});

/**
 * A page that records, from the start of every document (frames too), the CSP violations, and the dialogs and the
 * requests to any origin but `origins`; page.assertClean(what) asserts none of them happened, nor a console error.
 */
async function watchedPage(origins) {
  const page = await browser.newPage();
  const violations = [];
  const dialogs = [];
  const offOrigin = [];
  await page.exposeBinding('posencViolation', ({ frame }, text) => { violations.push(`${frame.url()}: ${text}`); });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      window.posencViolation(`${e.effectiveDirective} ${e.blockedURI} at ${e.sourceFile}:${e.lineNumber} ${e.sample}`);
    }, true);
  });
  page.on('dialog', (dialog) => { dialogs.push(dialog.message()); dialog.dismiss().catch(() => {}); });
  const onRequest = (request) => {
    const url = new URL(request.url());
    if (!['data:', 'blob:'].includes(url.protocol) && !origins.includes(url.origin)) offOrigin.push(request.url());
  };
  browser.context.on('request', onRequest);  // the context's: a worker's requests too
  page.on('close', () => browser.context.off('request', onRequest));
  page.assertClean = async (what) => {
    assert.deepEqual(violations, [], `${what}: CSP violations`);
    assert.deepEqual(page.problems, [], `${what}: console errors`);
    assert.deepEqual(dialogs, [], `${what}: dialogs`);
    assert.deepEqual(offOrigin, [], `${what}: requests off the origin`);
  };
  return page;
}

/** Waits until every view of a page or frame, or of the shadow root of the element `host` (an id), shows its formula. */
async function formulasTypeset(target, host = null) {
  await target.waitForFunction((id) => {
    const views = [...(id ? document.getElementById(id).shadowRoot : document).querySelectorAll('section.view')];
    return views.length > 0 && views.every((s) => s.querySelector('.formula .katex'));
  }, host, { timeout: 30000 });
}

/**
 * What the policy would break, read in the page for a root (document or shadow root): <style> elements, Plot charts
 * without the rules of views.css or wider than their figure (clipped), KaTeX boxes without their sizes, MathML-only
 * formulas, and KaTeX's fonts loaded in the document.
 */
async function styling(r) {
  await document.fonts.ready;
  const charts = [...r.querySelectorAll('svg.posenc-plot')];
  return {
    styleElements: r.querySelectorAll('style').length,
    charts: charts.length,
    unstyled: charts.filter((svg) => getComputedStyle(svg).maxWidth !== '100%' || getComputedStyle(svg).display !== 'block').length,
    clipped: charts.filter((svg) => svg.getBoundingClientRect().right > svg.closest('.figure').getBoundingClientRect().right + 0.5).length,
    struts: [...r.querySelectorAll('.katex [class*=strut]')].filter((s) => s.style.height).length,
    mathmlOnly: r.querySelectorAll('.formula .katex > math').length,  // a component's formulas (lib/katex.js)
    katexFonts: [...document.fonts].filter((f) => f.family.startsWith('KaTeX') && f.status === 'loaded').length,
  };
}

test('the playground draws every family and compare mode under the strict policy: no violation, Plot and KaTeX styled', async () => {
  const page = await watchedPage([site.origin]);
  // Every family, compare mode, and every rope_type (their formulas differ: cases, ramps, fractions); a rope_type with
  // required keys past `factor` (which has a default) through a model preset that has it.
  const PRESETS = { llama3: 'llama-3.1-8b', longrope: 'phi-3-mini-128k' };
  const queries = [...TYPES.map((type) => `encoding=${type}`), ...DESCRIBE.rope_types.map((t) => (PRESETS[t.name]
    ? `encoding=rope&preset=${PRESETS[t.name]}` : `encoding=rope&rope_type=${t.name}`))];
  for (const query of queries) {
    const type = query;
    await openPlayground(site, page, `?${query}`);
    await formulasTypeset(page);
    const s = await page.evaluate(`(${styling})(document)`);
    assert.equal(s.styleElements, 0, `${type}: no <style> element`);
    assert.equal(s.unstyled, 0, `${type}: every Plot chart has the rules of views.css`);
    assert.equal(s.clipped, 0, `${type}: no chart wider than its figure`);
    assert.ok(s.struts > 0 && s.katexFonts > 0, `${type}: KaTeX's sizes and fonts, ${JSON.stringify(s)}`);
    const empty = await page.$$eval('section.view', (sections) => sections.filter((v) => !v.querySelector('.figure').childElementCount
      || v.querySelector('.view-error').textContent).map((v) => `${v.id}: ${v.querySelector('.view-error').textContent}`));
    assert.deepEqual(empty, [], `${type}: every view drawn`);
    if (type === 'encoding=sinusoidal') assert.ok(s.charts >= 3, `${type}: waves, dot product and decay are Plot charts`);
  }
  // A Plot tip: its box is filled with the theme's background (views.css's --plot-background), not black.
  await openPlayground(site, page, '?encoding=rope#decay');
  const chart = page.locator('#decay svg.posenc-plot').first();
  const box = await chart.boundingBox();
  await chart.hover({ position: { x: box.width / 3, y: box.height / 2 } });
  const fill = await page.waitForFunction(() => {
    const tip = document.querySelector('#decay [aria-label=tip] path');
    return tip && getComputedStyle(tip).fill;
  });
  assert.equal(await fill.jsonValue(), 'rgb(255, 255, 255)');
  // A heatmap's tooltip.
  await page.locator('#rotated canvas.matrix').first().hover({ position: { x: 20, y: 20 } });
  await page.waitForSelector('#rotated .tooltip:not([hidden])');
  await page.assertClean('the playground');
  await page.close();
});

test('embed.html under the strict policy: a heatmap, a spectrum with its controls, decays, ALiBi heads, compare and a sentence', async () => {
  const page = await watchedPage([site.origin]);
  for (const query of ['view=heatmap&encoding=sinusoidal&n=64&d_model=64',
    'view=spectrum&encoding=rope&rope_theta=500000&rope_type=llama3&original_max_position_embeddings=8192&controls=1&theme=dark',
    'view=decay&encoding=xpos', 'view=compare&encoding=kerple', 'view=heads&encoding=alibi', 'view=buckets&encoding=t5',
    'view=compare-attention&config_a=sinusoidal&config_b=rope&config_c=alibi&config_d=',
    `view=attention&encoding=shaw&text=${encodeURIComponent(MARKUP)}`]) {
    await page.goto(`${site.url}embed.html?${query}`);
    await page.waitForSelector('body[data-ready=true]', { timeout: 30000 });
    await formulasTypeset(page);
    assert.ok(await page.evaluate(`(${drawn})(document)`), `${query}: drawn`);
    assert.deepEqual(page.problems, [], query);
    const s = await page.evaluate(`(${styling})(document)`);
    assert.deepEqual([s.styleElements, s.unstyled, s.clipped], [0, 0, 0], `${query}: ${JSON.stringify(s)}`);
  }
  assert.equal(await page.evaluate(() => document.querySelectorAll('img').length), 0);
  await page.goto(`${site.url}embed.html?view=${encodeURIComponent(MARKUP)}`);
  await page.waitForSelector('body[data-ready=true]');
  assert.match(await page.textContent('.error'), /^view = "<img src=x onerror=alert\(1\)>" is invalid/);
  await page.assertClean('embed.html');
  await page.close();
});

test('the example post on another origin, under its own strict policy: the iframe and the components draw, with a worker', async () => {
  const page = await watchedPage([site.origin, blog.origin]);
  const notes = [];
  page.on('console', (m) => notes.push(m.text()));
  site.requests.length = 0;
  await page.goto(`${blog.url}blog-post.html`);
  await page.waitForFunction(() => customElements.get('posenc-view') !== undefined);
  // A component added by the page, with markup in its sentence.
  await page.evaluate((text) => {
    const view = document.createElement('posenc-view');
    view.id = 'markup-view';
    for (const [k, v] of Object.entries({ view: 'attention', encoding: 'alibi', text })) view.setAttribute(k, v);
    document.querySelector('article').append(view);
  }, MARKUP);
  await page.evaluate(() => Promise.all([...document.querySelectorAll('posenc-view')].map((v) => v.whenReady())));
  for (const id of ['rope-view', 'alibi-view', 'markup-view']) {
    const shadow = `document.getElementById('${id}').shadowRoot`;
    await formulasTypeset(page, id);
    const s = await page.evaluate(`(${styling})(${shadow})`);
    assert.deepEqual([s.styleElements, s.unstyled, s.clipped], [0, 0, 0], `${id}: ${JSON.stringify(s)}`);
    assert.ok(s.mathmlOnly > 0 && s.katexFonts === 0, `${id}: MathML, no font added to the host, ${JSON.stringify(s)}`);
    assert.ok(await page.evaluate(`(${drawn})(${shadow})`), `${id}: drawn`);
  }
  assert.equal(await page.$eval('#markup-view', (v) => v.shadowRoot.querySelectorAll('img').length), 0);
  assert.match(await page.$eval('#markup-view', (v) => v.shadowRoot.querySelector('.figure').textContent), /img/, 'the tokens, as text');
  // The components' engine runs in a worker (its blob: stub is allowed), and fetches each .wasm once, cross-origin:
  // posenc-view.wasm, and posenc.wasm for the sentence's trained head (engine/calls.js createServer).
  assert.ok(!notes.some((n) => /computing on the page's thread/.test(n)), notes.join('\n'));
  const wasm = site.requests.filter((r) => r.path.endsWith('.wasm') && r.origin === blog.origin).map((r) => r.path.replace(/^.*\/|-[\w-]{8}\.wasm$/g, ''));
  assert.deepEqual(wasm.sort(), ['posenc', 'posenc-view']);
  const frame = page.frames().find((f) => f.url().includes('embed.html'));
  await frame.waitForSelector('body[data-ready=true]', { timeout: 30000 });
  await formulasTypeset(frame);
  assert.ok(await frame.evaluate(`(${drawn})(document)`), 'the iframe draws its heatmap');
  await page.assertClean('the example post');
  await page.close();
});

test('markup in every URL parameter of every family, and typed in the sentence box, shows as text', async () => {
  const page = await watchedPage([site.origin]);
  for (const type of TYPES) {
    await openPlayground(site, page, `?encoding=${type}`);
    const names = (await page.$$eval('#controls [data-name]', (rows) => rows.map((r) => r.dataset.name))).filter((n) => n !== 'encoding');
    const query = new URLSearchParams([['encoding', type], ...names.map((n) => [n, MARKUP])]);
    await openPlayground(site, page, `?${query}`);
    const shown = await page.evaluate(() => ({
      warnings: document.getElementById('warnings').textContent,
      values: Object.fromEntries([...document.querySelectorAll('#controls [data-name]')]
        .map((r) => [r.dataset.name, r.querySelector('input[type=text], textarea')?.value])),
      images: document.querySelectorAll('img').length,
    }));
    assert.equal(shown.images, 0, type);
    for (const name of names) {
      assert.ok(shown.warnings.includes(`${name} = "${MARKUP}" is invalid`) || shown.warnings.includes(`${name} = ${MARKUP} is invalid`)
        || shown.values[name] === MARKUP, `${type}: ${name} is named with its value as text, or holds it`);
    }
  }
  await openPlayground(site, page, `?encoding=${encodeURIComponent(MARKUP)}`);
  const warning = await page.textContent('#warnings');
  assert.ok(warning.includes(`encoding = "${MARKUP}" ignored`), warning);

  // Typed: the sentence box keeps it, the attention map's tokens and tooltip show its pieces as text.
  await openPlayground(site, page, '?encoding=rope#attention');
  await page.fill('#control-text', MARKUP);
  await page.waitForFunction(() => new URL(location.href).searchParams.get('text')?.startsWith('<img'));
  await page.waitForSelector('body[data-ready=true]');
  await page.waitForFunction(() => document.querySelector('#attention .figure').textContent.includes('img'));
  await page.locator('#attention canvas.matrix').first().hover({ position: { x: 5, y: 5 } });
  const tooltip = await page.waitForSelector('#attention .tooltip:not([hidden])');
  assert.match(await tooltip.textContent(), /query 0 “<”/);
  assert.equal(await page.inputValue('#control-text'), MARKUP);
  assert.equal(await page.evaluate(() => document.querySelectorAll('img').length), 0);

  // Pasted: a config.json whose values are markup is refused, the markup named as text.
  await openPlayground(site, page, '?encoding=rope');
  await page.click('#paste-config summary');
  await page.fill('#config-text', JSON.stringify({ model_type: MARKUP, architectures: [MARKUP], rope_theta: MARKUP }));
  await page.click('#config-apply');
  await page.waitForFunction(() => document.getElementById('error-config').textContent || document.getElementById('config-notes').textContent);
  assert.ok((await page.textContent('#paste-config')).includes(MARKUP), await page.textContent('#paste-config'));
  assert.equal(await page.evaluate(() => document.querySelectorAll('img').length), 0);
  await page.assertClean('markup');
  await page.close();
});
