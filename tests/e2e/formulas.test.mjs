// The formula beside every view (web/src/formulas.js, typeset by KaTeX from
// the bundle): it renders for every view of every family, carries the current
// values, follows a changed control, and renders in embed.html and in a
// <posenc-view> shadow root on another origin (as MathML, which needs no
// font in the host's document); it takes the text colour and scrolls inside
// its box on a phone.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { DIST, SUB_PATH, launchBrowser, navigate, openPlayground, serveStatic, startPlayground } from './browser.mjs';

let playground;
before(async () => { playground = await startPlayground(); });
after(async () => { await playground?.close(); });

/** Waits until every view of the page shows a formula; returns {id: TeX source (MathML annotation)}. */
async function formulas(page) {
  await page.waitForFunction(() => [...document.querySelectorAll('section.view')].every((s) => s.querySelector('.formula .katex')),
    null, { timeout: 30000 });
  return page.$$eval('section.view', (sections) => Object.fromEntries(sections.map((s) =>
    [s.id, s.querySelector('.formula annotation[encoding="application/x-tex"]')?.textContent ?? null])));
}

// Every view of every family shows its formula, with no KaTeX error: families.test.mjs, one load per family.

// The current values, written into the formula: [query, view, strings its TeX holds].
const CASES = [
  ['?encoding=rope&rope_theta=500000&head_dim=128', 'spectrum', ['500000^{-2i/128}', 'i = 0,\\dots,63']],
  ['?encoding=rope&rope_theta=500000&head_dim=128', 'decay', ['500000^{-2i/128}', '\\sum_{i=0}^{63} 2\\,\\cos(\\Delta\\,\\theta_i)']],
  ['?encoding=rope&rope_type=yarn&factor=16&original_max_position_embeddings=4096&beta_fast=32&beta_slow=1', 'spectrum',
    ['\\frac{\\theta_i}{16}', 'i_{\\beta} = \\lfloor i(32) \\rfloor = 20', 'i_{\\alpha} = \\lceil i(1) \\rceil = 46', '\\ln(4096/2\\pi r)']],
  ['?encoding=rope&rope_type=llama3&original_max_position_embeddings=8192&factor=8', 'spectrum', ['\\lambda_i < 2048', '\\lambda_i > 8192']],
  ['?encoding=rope&rope_type=proportional&partial_rotary_factor=0.25&factor=1', 'spectrum',
    ['i < 16 = \\lfloor 0.25\\cdot 128/2 \\rfloor', '0 & \\text{else (no position)}']],
  ['?encoding=rope&pair=5', 'rotation', ['\\theta_{5} = 10000^{-2\\cdot 5/128} = 0.487']],
  ['?encoding=sinusoidal&base=500&d_model=64', 'heatmap', ['\\omega_i = 500^{-2i/64}']],
  ['?encoding=sinusoidal&timescales=tensor2tensor&d_model=64', 'heatmap', ['\\omega_i = 10000^{-i/31}']],
  ['?encoding=sinusoidal&d_model=64&trained_head=false', 'attention', ['\\sqrt{64}', 'softmax']],
  ['?encoding=sinusoidal&d_model=64', 'attention', ['\\sqrt{32}', 'W_q, W_k, W_v\\ \\text{trained}']],  // the trained head: d_model 32
  ['?encoding=sinusoidal&trained_head=false', 'terms', ['(w_i + p_i)W_q\\big((w_j + p_j)W_k\\big)^{\\top}', '_{\\text{cc}}', '_{\\text{pp}}']],
  // ALiBi: the rule with H's numbers, and the slope the core computed (2^-3 = 0.125; head 10 of 12: 2^-2.5 = 0.1768).
  ['?encoding=alibi&n_heads=8&head=2', 'bias', ['m_h = 2^{-8(h+1)/8}', 'm_{2} = 0.125']],
  ['?encoding=alibi&n_heads=12&head=10', 'bias', ['m_{8+k} = 2^{-8(2k+1)/16}', 'm_{10} = 0.1768']],
  ['?encoding=t5&num_buckets=16&max_distance=64', 'buckets', ['8\\,[r > 0]', '\\ln(64/4)']],
  ['?encoding=shaw&max_relative_position=8', 'bias', ['\\operatorname{clip}(j-i,\\,-8,\\,8)']],
  ['?encoding=transformer_xl', 'bias', ['_{(b)}', '_{(d)}']],
  ['?encoding=kerple&variant=power&r1=2&r2=0.5', 'bias', ['-2\\,|i-j|^{0.5}']],
  ['?encoding=kerple&r1=3&r2=0.25', 'bias', ['-3\\,\\ln\\big(1 + 0.25\\,|i-j|\\big)']],
  ['?encoding=xpos&scale_base=256', 'decay', ['\\zeta_i^{\\Delta/256}', '\\zeta_i = \\frac{2i/64 + 0.4}{1.4}']],
];

test('the formulas carry the current values', async () => {
  const page = await playground.newPage();
  for (const [i, [query, view, strings]] of CASES.entries()) {
    if (i === 0) await openPlayground(playground, page, query);
    else await navigate(page, query);  // in place, as Back and Forward load a state
    await formulas(page);
    // A formula is typeset from the values first, then again with what its view drew (the core's numbers).
    await page.waitForFunction(([id, wanted]) => {
      const shown = document.querySelector(`#${id} .formula annotation`)?.textContent ?? '';
      return wanted.every((w) => shown.includes(w));
    }, [view, strings], { timeout: 15000 }).catch(() => {});
    const tex = (await formulas(page))[view];
    for (const s of strings) assert.ok(tex.includes(s), `${query} #${view}: expected ${s} in\n${tex}`);
  }
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('a changed control changes the formula', async () => {
  const page = await playground.open('?encoding=rope&rope_theta=500000');
  assert.match((await formulas(page)).spectrum, /500000\^\{-2i\/128\}/);
  await page.fill('#control-head_dim', '64');
  await page.waitForFunction(() => document.querySelector('#spectrum .formula annotation').textContent.includes('500000^{-2i/64}'));
  // A bad value keeps the formula of the last good one, as the figure keeps its last drawing.
  await page.fill('#control-head_dim', 'x');
  await page.waitForTimeout(300);
  assert.match(await page.textContent('#spectrum .formula annotation'), /500000\^\{-2i\/64\}/);
  assert.deepEqual(page.problems, []);
});

/** The rendered formula in `root`: its width, whether KaTeX's CSS applies, its colour, and the KaTeX_Main font's state. */
function inspect(root) {
  const katex = root.querySelector('.formula .katex');
  const mathml = katex.querySelector('.katex-mathml');
  return {
    width: katex.getBoundingClientRect().width,
    fontFamily: getComputedStyle(katex).fontFamily,
    mathmlHidden: getComputedStyle(mathml).position === 'absolute',  // KaTeX's CSS hides the MathML copy
    colour: getComputedStyle(katex).color,
    text: getComputedStyle(root.querySelector('.view-title')).color,
    tex: katex.querySelector('annotation').textContent,
    // document.fonts.check() alone is true for a family no face names: ask for KaTeX's own face, loaded.
    fontLoaded: document.fonts.check('16px KaTeX_Main') &&
      [...document.fonts].some((f) => f.family.replaceAll('"', '') === 'KaTeX_Main' && f.status === 'loaded'),
    errors: root.querySelectorAll('.katex-error').length,
  };
}

test('embed.html: the formula renders with KaTeX fonts from the bundle, in the text colour, also dark', async () => {
  for (const theme of ['light', 'dark']) {
    const page = await playground.newPage();
    await page.goto(`${playground.url}embed.html?view=spectrum&encoding=rope&rope_theta=500000&theme=${theme}`);
    await page.waitForSelector('.formula .katex');
    await page.evaluate(() => document.fonts.ready);
    const seen = await page.evaluate(`(${inspect})(document)`);
    assert.ok(seen.width > 100, `width ${seen.width}`);
    assert.match(seen.fontFamily, /KaTeX_Main/);
    assert.ok(seen.mathmlHidden, 'KaTeX CSS applies');
    assert.ok(seen.fontLoaded, 'KaTeX_Main loaded');
    assert.equal(seen.colour, seen.text, 'the formula takes the text colour');
    assert.ok(seen.tex.includes('500000'));
    assert.equal(seen.errors, 0);
    const fonts = playground.server.requests.filter((r) => r.path.includes('KaTeX_Main'));
    assert.ok(fonts.every((r) => r.path.startsWith(`${SUB_PATH}assets/`)) && fonts.length > 0, 'the fonts come from the bundle');
    assert.deepEqual(page.problems, []);
    await page.close();
  }
});

test('a phone (390 px): a long formula scrolls inside its box, the page does not', async () => {
  const page = await playground.newPage();
  await page.setViewportSize({ width: 390, height: 800 });
  await openPlayground(playground, page, '?encoding=rope&rope_type=yarn&factor=8');
  await formulas(page);
  const box = await page.$eval('#spectrum .formula', (f) => ({ client: f.clientWidth, scroll: f.scrollWidth, right: f.getBoundingClientRect().right }));
  assert.ok(box.scroll > box.client, `the YaRN formula is wider than a phone (${box.scroll} px in ${box.client} px)`);
  assert.ok(box.right <= 390, `the box stays in the window, right edge ${box.right}`);
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 390), 'the page does not scroll sideways');
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('<posenc-view> on another origin: the formula renders in its shadow root as MathML, in the text colour, no font added', async () => {
  const blog = await serveStatic(path.join(DIST, 'examples'), {
    prefix: '/posts/', host: 'localhost',
    rewriteHtml: (file, text) => text.replace('<head>', `<head>\n<base href="${playground.url}examples/">`),
  });
  const browser = await launchBrowser({ viewport: { width: 760, height: 900 } });
  try {
    const page = await browser.newPage();
    playground.server.requests.length = 0;
    await page.goto(`${blog.url}blog-post.html`);
    await page.waitForFunction(() => customElements.get('posenc-view') !== undefined);
    // whenReady() waits for the formulas too.
    await page.evaluate(() => Promise.all([...document.querySelectorAll('posenc-view')].map((v) => v.whenReady())));
    const seen = await page.$$eval('posenc-view', (views) => views.map((v) => {
      const math = v.shadowRoot.querySelector('.formula .katex > math');
      return {
        width: math.getBoundingClientRect().width,
        height: math.getBoundingClientRect().height,
        htmlBoxes: v.shadowRoot.querySelectorAll('.formula .katex-html').length,
        colour: getComputedStyle(math).color,
        text: getComputedStyle(v.shadowRoot.querySelector('.view-title')).color,
        tex: math.querySelector('annotation').textContent,
        errors: v.shadowRoot.querySelectorAll('.katex-error').length,
      };
    }));
    assert.equal(seen.length, 2);
    for (const s of seen) {
      assert.ok(s.width > 100 && s.height > 10, `laid out as MathML: ${s.width} x ${s.height}`);
      assert.equal(s.htmlBoxes, 0, 'no KaTeX HTML (it would need KaTeX\'s fonts)');
      assert.equal(s.colour, s.text, 'the formula takes the text colour');
      assert.equal(s.errors, 0);
    }
    assert.ok(seen[0].tex.includes('500000'), 'the rope view\'s rope_theta attribute is in its formula');
    // Nothing of KaTeX's reaches the host page: no font (document.fonts), no rule.
    await page.evaluate(() => document.fonts.ready);
    assert.equal(await page.evaluate(() => document.fonts.size), 0);
    assert.equal(playground.server.requests.filter((r) => r.path.includes('KaTeX_') && r.origin === blog.origin).length, 0,
      'no KaTeX font fetched by the host page (its iframe, embed.html, fetches its own)');
    assert.equal(await page.evaluate(() => document.adoptedStyleSheets.length + document.querySelectorAll('style').length), 0);
    assert.deepEqual(page.problems, []);
    await page.close();
  } finally {
    await browser.close();
    await blog.close();
  }
});

test('a value the core refuses keeps the last figure and its formula; the next good value moves both', async () => {
  const page = await playground.open('?encoding=kerple&weights=random');
  const formula = () => page.textContent('#bias .formula');
  await page.fill('#control-r1', '2');
  await page.waitForFunction(() => /-2\\,\\ln\\big\(1 \+ 1\\,/.test(document.querySelector('#bias .formula')?.textContent ?? ''));
  await page.fill('#control-r2', '-1');
  await page.waitForFunction(() => document.getElementById('error-r2').textContent !== '');
  // The refused value is typeset first, then the drawn figure's formula once the engine has answered.
  await page.waitForFunction(() => /1 \+ 1\\,\|i-j\|/.test(document.querySelector('#bias .formula')?.textContent ?? ''));
  await page.waitForTimeout(500);  // and it stays (each formula is typeset once the values have rested 120 ms)
  assert.match(await formula(), /-2\\,\\ln\\big\(1 \+ 1\\,\|i-j\|\\big\)/, 'the drawn figure is r1 = 2, r2 = 1');
  assert.doesNotMatch(await formula(), /-1\\,\|i-j\|/);
  await page.fill('#control-r2', '3');
  await page.waitForFunction(() => /1 \+ 3\\,\|i-j\|/.test(document.querySelector('#bias .formula')?.textContent ?? ''));
  assert.deepEqual(page.problems, []);
});
