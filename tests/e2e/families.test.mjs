// One page per family: every page of the playground (each family, compare mode, the three labs at their light
// settings) and every rope_type, opened once, each checked for all that every family page must have. Before, six files
// each opened every family for one of these checks (csp, formulas, bias, links, compare, consistency: 226 s of the
// browser suite, issue 38); the checks are theirs, made on one load.
//   - under the strict policy, sent as a header too (so the engine's worker runs under it): no violation, no console
//     error, no dialog, no request off the origin; no <style> element; every Plot chart styled by views.css and within
//     its figure; KaTeX with its sizes and fonts;
//   - every view drawn, in the family's order (an explicit list for the absolute and bias families), none with an error;
//   - every view's formula typeset with no KaTeX error, and the family's own formula in the sidebar;
//   - every citation ("Name et al. 2020") a link to a known paper, the family's paper and (but NoPE and FIRE) its code;
//   - the decay comparison: at most four curves at first, the trained families named so; the sinusoid's own bold;
//   - every slider over more than two decades logarithmic.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { DIST, LIGHT_QUERY, STRICT_CSP, SUB_PATH, launchBrowser, navigate, openPlayground, serveStatic, styling } from './browser.mjs';
import { FAMILIES } from '../../web/src/families/index.js';
import { FAMILY_TYPES, ROPE_TYPES } from '../../web/src/describe.js';
import { isCitationUrl } from '../../web/src/citations.js';

const LAB = ['attention', 'ablation', 'word-order'];
/** The views of the absolute and bias families, in the page's order: written out, not read from FAMILIES. */
const EXPECTED_VIEWS = {
  learned: ['table', 'similarity', 'decay-comparison', ...LAB, 'terms'],
  none: ['table', 'decay-comparison', ...LAB],
  alibi: ['bias', 'heads', 'slopes', 'decay-comparison', ...LAB, 'panels'],
  t5: ['bias', 'buckets', 'decay-comparison', ...LAB, 'panels'],
  shaw: ['bias', 'decay-comparison', ...LAB, 'panels'],
  transformer_xl: ['bias', 'decay-comparison', ...LAB, 'panels'],
  kerple: ['bias', 'decay-comparison', ...LAB, 'panels'],
  deberta: ['bias', 'deberta-buckets', 'decay-comparison', ...LAB, 'panels'],
  fire: ['bias', 'fire-sections', 'decay-comparison', ...LAB, 'panels'],
  cope: ['bias', 'cope-count', 'decay-comparison', ...LAB, 'panels'],
  fox: ['bias', 'fox-gates', 'decay-comparison', ...LAB, 'panels'],
  pope: ['pope-pairs', 'decay-comparison', ...LAB],
  sinusoidal: ['heatmap', 'waves', 'similarity', 'dot-decay', 'decay-comparison', 'worked', ...LAB, 'terms'],
};
const LABS = ['compare', 'experiment', 'language_model', 'model_profile'];
/** Every rope_type (their formulas differ: cases, ramps, fractions), through a model preset where it has required keys. */
const PRESETS = { llama3: 'llama-3.1-8b', longrope: 'phi-3-mini-128k' };
const PAGES = [
  ...Object.keys(FAMILIES).map((name) => ({ name, query: `encoding=${name}${LIGHT_QUERY[name] ? `&${LIGHT_QUERY[name]}` : ''}` })),
  ...ROPE_TYPES.map((t) => ({ name: 'rope', query: PRESETS[t] ? `encoding=rope&preset=${PRESETS[t]}` : `encoding=rope&rope_type=${t}` })),
];

let site;
let browser;
before(async () => {
  site = await serveStatic(DIST, { prefix: SUB_PATH, cors: true, headers: { 'content-security-policy': STRICT_CSP } });
  browser = await launchBrowser({ viewport: { width: 1280, height: 1000 } });
});
after(async () => {
  await browser?.close();
  await site?.close();
});

/** The citations ("Name et al. 2020") of the page's text that are not inside a link. */
function unlinkedCitations() {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement.closest('a, .katex, script, style')) continue;
    for (const m of node.textContent.matchAll(/[A-Z][a-zA-Z-]+ et al\. (19|20)\d\d/g)) out.push(m[0]);
  }
  return out;
}

test('every page of every family, once each under the strict policy: drawn, styled, typeset, cited, four curves, log sliders', async () => {
  const page = await browser.newPage();
  const dialogs = [];
  const offOrigin = [];
  page.on('dialog', (dialog) => { dialogs.push(dialog.message()); dialog.dismiss().catch(() => {}); });
  browser.context.on('request', (request) => {  // the context's: a worker's requests too
    const url = new URL(request.url());
    if (!['data:', 'blob:'].includes(url.protocol) && url.origin !== site.origin) offOrigin.push(request.url());
  });
  for (const [i, { name, query }] of PAGES.entries()) {
    const what = `?${query}`;
    // One load, then each page as Back and Forward show it (browser.mjs navigate): the same state, drawn in place.
    if (i === 0) await openPlayground(site, page, what);
    else await navigate(page, what);
    await page.waitForFunction(() => [...document.querySelectorAll('section.view')].every((s) => s.querySelector('.formula .katex')),
      null, { timeout: 30000 });

    // Every view drawn, none with an error; the absolute and bias families' in their order.
    const views = await page.$$eval('#views section.view', (sections) => sections.map((s) => ({ id: s.id,
      children: s.querySelector('.figure').childElementCount, error: s.querySelector('.view-error')?.textContent ?? '' })));
    assert.deepEqual(views.map((v) => v.id).sort(), [...FAMILIES[name].views].sort(), `${what}: the family's views`);
    if (EXPECTED_VIEWS[name]) assert.deepEqual(views.map((v) => v.id), EXPECTED_VIEWS[name], `${what}: in order`);
    for (const v of views) assert.ok(v.children > 0 && !v.error, `${what}: ${v.id} drawn (${v.error})`);

    // Styled under the policy.
    const s = await page.evaluate(`(${styling})(document)`);
    assert.equal(s.styleElements, 0, `${what}: no <style> element`);
    assert.equal(s.unstyled, 0, `${what}: every Plot chart has the rules of views.css`);
    assert.equal(s.clipped, 0, `${what}: no chart wider than its figure`);
    assert.ok(s.struts > 0 && s.katexFonts > 0, `${what}: KaTeX's sizes and fonts, ${JSON.stringify(s)}`);
    if (name === 'sinusoidal') assert.ok(s.charts >= 3, `${what}: waves, dot product and decay are Plot charts`);

    // Every view's formula, and the family's in the sidebar (compare mode and the labs have a description instead).
    const tex = await page.$$eval('section.view', (sections) => sections.map((v) =>
      [v.id, v.querySelector('.formula annotation[encoding="application/x-tex"]')?.textContent ?? '']));
    for (const [id, source] of tex) assert.ok(source.length > 5, `${what} #${id}: formula ${source}`);
    assert.equal(await page.locator('.katex-error').count(), 0, `${what}: a formula KaTeX could not parse`);
    if (!LABS.includes(name)) await page.waitForSelector('#family-formula .katex');

    // Citations: each a link; the family's own paper and (but NoPE and FIRE, whose code is its paper's appendix) code.
    assert.deepEqual(await page.evaluate(unlinkedCitations), [], `${what}: citations without a link`);
    if (FAMILY_TYPES.includes(name)) {
      const links = await page.$$eval('#family-formula .cite a', (a) => a.map((x) => x.href));
      for (const href of links) assert.ok(isCitationUrl(href), `${what}: ${href}`);
      assert.ok(links.some((href) => /arxiv\.org|openai\.com/.test(href)), `${what}: a link to its paper`);
      if (name !== 'none' && name !== 'fire') assert.ok(links.some((href) => href.startsWith('https://github.com/')), `${what}: its code`);
    }

    // The decay comparison: at most four curves at first; a family with learned parameters says they are trained.
    if (FAMILIES[name].views.includes('decay-comparison')) {
      const ticked = await page.$$eval('#decay-comparison .curve-toggles label', (ls) => ls.filter((l) => l.querySelector('input').checked)
        .map((l) => l.textContent.trim()));
      const widths = await page.$$eval('#decay-comparison svg [aria-label="line"]', (gs) => gs.map((g) => g.getAttribute('stroke-width')));
      assert.ok(ticked.length <= 4 && widths.length <= 4, `${what}: ${ticked.join(', ')}`);
      const toggles = await page.$$eval('#decay-comparison .curve-toggles label', (ls) => ls.map((l) => l.textContent.trim()));
      for (const family of ['T5', 'Shaw', 'Transformer-XL', 'DeBERTa', 'FIRE', 'CoPE', 'Forgetting Attention (FoX)', 'PoPE']) {
        const label = toggles.find((t) => t.startsWith(family));
        assert.ok(!label || label.includes('(trained on Moby-Dick)'), `${what}: ${label}`);
      }
      if (name === 'sinusoidal') {  // its own curve bold and first, then RoPE, ALiBi and KERPLE (the trained set's r1, r2) thin
        assert.deepEqual(widths, ['3', '1.8', '1.8', '1.8']);
        assert.deepEqual(ticked, ['Sinusoidal', 'RoPE', 'ALiBi', 'KERPLE (trained on Moby-Dick)']);
      }
    }

    // Every slider over more than two decades is logarithmic.
    const sliders = await page.$$eval('.control:not([hidden]) input[type=range]', (all) => all.map((r) => ({
      name: r.name, scale: r.dataset.scale, min: Number(r.min), max: Number(r.max) })));
    assert.ok(sliders.length > 0, `${what}: sliders`);
    for (const r of sliders) {
      const [lo, hi] = r.scale === 'log' ? [10 ** r.min, 10 ** r.max] : [r.min, r.max];
      if (lo > 0 && hi / lo > 100) assert.equal(r.scale, 'log', `${what} ${r.name}: ${lo} to ${hi}`);
    }
    assert.deepEqual(page.problems, [], `${what}: policy violations, console errors`);
  }
  assert.deepEqual(dialogs, [], 'dialogs');
  assert.deepEqual(offOrigin, [], 'requests off the origin');
  await page.close();
});
