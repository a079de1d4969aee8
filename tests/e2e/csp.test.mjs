// The page under a strict Content-Security-Policy with Trusted Types (web/README.md, "Under a strict
// Content-Security-Policy"): every file of dist/ served with STRICT_CSP as a header (the built pages also carry
// it as a <meta>, which alone enforces it: checked once, without the header); the playground for every family and
// compare mode, embed.html for a few views, and the example post on another origin, under its own policy that names
// posenc's origin, with its iframe and components. No violation, no console error, no dialog, no request off those
// origins; the charts keep Plot's rules (from views.css), KaTeX its sizes and fonts (a component's formulas are
// MathML, with no font). Markup typed into the page, put in a link, pasted as a config.json or opened as a .gguf file
// runs nothing and is shown as text: the audit's link (issue 35), and script payloads through every reader.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { DIST, STRICT_CSP, SUB_PATH, drawn, launchBrowser, navigate, openPlayground, root, serveStatic, styling } from './browser.mjs';
import { T, writeGguf } from '../gguf-writer.mjs';
import { FAMILIES } from '../../web/src/families/index.js';

const MARKUP = '<img src=x onerror=alert(1)>';
const DESCRIBE = JSON.parse(fs.readFileSync(path.join(root, 'web/generated/describe.json'), 'utf8'));
const TYPES = [...DESCRIBE.families.map((f) => f.type), 'compare'];

/**
 * A blog's policy for a page that loads the component from posenc's origin (README): STRICT_CSP with that origin where
 * the page loads from it (the scripts, the .wasm, KaTeX's fonts, the iframe), and a worker-src for the component's
 * worker: a blob: stub (a worker's script must be same-origin) that imports the worker's script from posenc's origin.
 * Trusted Types as on posenc's pages: the component makes the stub's URL with its policy 'posenc'.
 */
function hostPolicy(posencOrigin) {
  return STRICT_CSP.replace("default-src 'self'", `default-src 'self' ${posencOrigin}`)
    .replace("script-src 'self'", `script-src 'self' ${posencOrigin}`).replace("worker-src 'self'", `worker-src 'self' blob: ${posencOrigin}`);
}

let site;
let blog;
let browser;
before(async () => {
  // With every file: the workers (the engine's, the language-model lab's arms) run under it too.
  site = await serveStatic(DIST, { prefix: SUB_PATH, cors: true, headers: { 'content-security-policy': STRICT_CSP } });
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
 * A page that records the dialogs and the requests to any origin but `origins` (browser.mjs records the policy
 * violations of every frame, with the console errors, in page.problems); page.assertClean(what) asserts none of them
 * happened.
 */
async function watchedPage(origins) {
  const page = await browser.newPage();
  const dialogs = [];
  const offOrigin = [];
  page.on('dialog', (dialog) => { dialogs.push(dialog.message()); dialog.dismiss().catch(() => {}); });
  const onRequest = (request) => {
    const url = new URL(request.url());
    if (!['data:', 'blob:'].includes(url.protocol) && !origins.includes(url.origin)) offOrigin.push(request.url());
  };
  browser.context.on('request', onRequest);  // the context's: a worker's requests too
  page.on('close', () => browser.context.off('request', onRequest));
  page.assertClean = async (what) => {
    assert.deepEqual(page.problems, [], `${what}: policy violations, console errors`);
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

// Every family and rope_type under this policy: families.test.mjs, one load each.
test('under the strict policy, a Plot tip is filled with the theme\'s background and a heatmap shows its tooltip', async () => {
  const page = await watchedPage([site.origin]);
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
    'view=decay&encoding=xpos', 'view=decay-comparison&encoding=kerple', 'view=heads&encoding=alibi', 'view=buckets&encoding=t5',
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
  // The components' engine runs in a worker (its blob: stub is allowed), and fetches posenc-view.wasm once,
  // cross-origin, and not posenc.wasm: the sentence's trained head is the shipped one (families/heads.js).
  assert.ok(!notes.some((n) => /computing on the page's thread/.test(n)), notes.join('\n'));
  const wasm = site.requests.filter((r) => r.path.endsWith('.wasm') && r.origin === blog.origin).map((r) => r.path.replace(/^.*\/|-[\w-]{8}\.wasm$/g, ''));
  assert.deepEqual(wasm.sort(), ['posenc-view']);
  const frame = page.frames().find((f) => f.url().includes('embed.html'));
  await frame.waitForSelector('body[data-ready=true]', { timeout: 30000 });
  await formulasTypeset(frame);
  assert.ok(await frame.evaluate(`(${drawn})(document)`), 'the iframe draws its heatmap');
  await page.assertClean('the example post');
  await page.close();
});

test('markup in every URL parameter of every family, and typed in the sentence box, shows as text', async () => {
  const page = await watchedPage([site.origin]);
  for (const [i, type] of TYPES.entries()) {
    // Every control's parameter (the page's table: one link a family, checked against the controls drawn below); one
    // load, then each link shown in place (browser.mjs navigate).
    const names = FAMILIES[type].parameters.map((p) => p.name);
    const query = new URLSearchParams([['encoding', type], ...names.map((n) => [n, MARKUP])]);
    if (i === 0) await openPlayground(site, page, `?${query}`);
    else await navigate(page, `?${query}`);
    const rows = await page.$$eval('#controls [data-name]', (all) => all.map((r) => r.dataset.name));
    assert.deepEqual(rows.filter((n) => n !== 'encoding'), names, `${type}: the controls are the family's parameters`);
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

test('the built pages carry the policy as a <meta>, which alone enforces it: Trusted Types with the one policy "posenc"', async () => {
  for (const file of ['index.html', 'tour.html', 'embed.html']) {
    const html = fs.readFileSync(path.join(DIST, file), 'utf8');
    const metas = [...html.matchAll(/<meta http-equiv="Content-Security-Policy" content="([^"]*)">/g)].map((m) => m[1]);
    assert.deepEqual(metas, [STRICT_CSP], file);
    assert.ok(html.indexOf('<meta http-equiv="Content-Security-Policy"') < html.indexOf('<script'), `${file}: before any script`);
  }
  // Served with no header: the <meta> alone. The engine's worker starts (its URL made by the policy 'posenc'); a string
  // given to a script sink is refused and reported; no other policy, nor a second 'posenc', can be made.
  const bare = await serveStatic(DIST, { prefix: SUB_PATH });
  const page = await browser.newPage();
  try {
    await openPlayground(bare, page, '?encoding=rope');
    await page.waitForFunction(() => /computed in a Web Worker/.test(document.getElementById('status').textContent));
    const { refused, reported } = await page.evaluate(async () => {
      const reports = [];
      let all;
      const arrived = new Promise((resolve) => { all = resolve; });
      document.addEventListener('securitypolicyviolation', (e) => { reports.push(e.effectiveDirective); if (reports.length === 3) all(); });
      const attempts = ['innerHTML', 'policy', 'again'].map((what) => {
        try {
          if (what === 'innerHTML') document.getElementById('status').innerHTML = '<b>bold</b>';
          else window.trustedTypes.createPolicy(what === 'policy' ? 'another' : 'posenc', { createHTML: (s) => s });
          return `${what}: allowed`;
        } catch (error) {
          return `${what}: ${error.name}`;
        }
      });
      await Promise.race([arrived, new Promise((resolve) => { setTimeout(resolve, 5000); })]);
      return { refused: attempts, reported: reports };
    });
    assert.deepEqual(refused, ['innerHTML: TypeError', 'policy: TypeError', 'again: TypeError']);
    assert.deepEqual(reported, ['require-trusted-types-for', 'trusted-types', 'trusted-types']);
  } finally {
    await page.close();
    await bare.close();
  }
});

// Script payloads: each would call window.posencRan(n) (or open a dialog) if a sink parsed it as markup, or followed it
// as a URL (the first: a value that became a link); n tells the uses apart, so no step can find an earlier one's text.
// Each under 40 characters: the page's messages quote that much of a value.
const PAYLOADS = [(n) => `javascript:posencRan(${n})//`, (n) => `<img src=x onerror=posencRan(${n})>`,
  (n) => `<script>posencRan(${n})</script>`, (n) => `"><svg onload=posencRan(${n})>`, (n) => `<iframe src=javascript:posencRan(${n})>`];
let uses = 0;
/** Each payload once, each with a number of its own. */
const payloads = () => PAYLOADS.map((p) => p(++uses));
/** All of them in one string, for the values a link carries (its warnings quote the whole value). */
const polyglot = () => payloads().join(' ');

/**
 * In the page: what a payload would have left in `root` and its shadow roots (elements with an on* attribute, a
 * srcdoc, or a javascript: link or source), and the text shown there (text nodes outside textarea, script and style).
 */
function inspect(root) {
  const injected = [];
  let text = '';
  const visit = (node) => {
    for (const element of node.querySelectorAll('*')) {
      for (const { name, value } of element.attributes) {
        if (/^on/i.test(name) || name === 'srcdoc' || (/^(href|src|action|formaction)$/i.test(name) && /^\s*javascript:/i.test(value))) {
          injected.push(`<${element.localName} ${name}="${value}">`);
        }
      }
      if (element.shadowRoot) visit(element.shadowRoot);
    }
    const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) if (!walker.currentNode.parentElement?.closest('textarea, script, style')) text += `${walker.currentNode.data}\n`;
  };
  visit(root);
  return { injected, text };
}

/**
 * A watched page (no violation, console error, dialog or request off the origin) on which no payload may run:
 * page.expectInert(what, shown) asserts that, that nothing a payload would make is in the DOM, and that each of the
 * strings `shown` is on the page as text (as typed, or quoted as JSON in a message that names it).
 */
async function payloadPage() {
  const page = await watchedPage([site.origin]);
  const ran = [];
  await page.exposeBinding('posencRan', ({ frame }, n) => { ran.push(`payload ${n} ran in ${frame.url()}`); });
  const literally = (text, value) => text.includes(value) || text.includes(JSON.stringify(value).slice(1, -1));
  // Polled from here: a waitForFunction predicate that builds a function from source is refused by the policy.
  page.waitShown = async (values) => {
    for (const start = Date.now(); Date.now() - start < 60000; await page.waitForTimeout(100)) {
      const { text } = await page.evaluate(`(${inspect})(document)`);
      if (values.every((v) => literally(text, v))) return;
    }
    assert.fail(`not shown on ${page.url()}: ${values.join(', ')} (${page.problems.join('; ')})`);
  };
  // settled: false checks a page still computing (a lab's training), as it is.
  page.expectInert = async (what, shown = [], { settled = true } = {}) => {
    if (settled) await page.waitForFunction(() => !document.querySelector('section.busy-view'), null, { timeout: 60000 });
    const seen = await page.evaluate(`(${inspect})(document)`);
    assert.deepEqual(ran, [], what);
    assert.deepEqual(seen.injected, [], `${what}: markup made from input`);
    for (const value of shown) assert.ok(literally(seen.text, value), `${what}: ${value} shown as text`);
    await page.assertClean(what);
  };
  return page;
}

test('the audit\'s link: a config value holding markup, given by a link to the model lab, runs nothing and shows as text', async () => {
  const page = await payloadPage();
  const markup = '<img src=x onerror=alert(1)>';
  const config = JSON.stringify({ model_type: 'llama4_text', num_hidden_layers: 4, head_dim: 128, floor_scale: markup });
  await openPlayground(site, page, `?encoding=model_profile&model=custom&config_json=${encodeURIComponent(config)}`);
  await page.waitShown([markup]);
  await page.expectInert('the audit\'s link', [markup]);
  // The reader refuses the text as floor_scale; the link falls back to the lab's model, said in one warning in which the
  // replaced config texts are cut (the default's is 1.6 KB).
  const warned = await page.$$eval('#warnings li', (items) => items.map((li) => li.textContent));
  assert.equal(warned.length, 1, warned.join('\n'));
  assert.match(warned[0], /^floor_scale = "<img src=x onerror=alert\(1\)>" is invalid: .*; replaced config_json = /);
  assert.ok(warned[0].length < 500, `the warning writes the configs cut: ${warned[0].length} characters`);
  await page.close();
});

test('script payloads in every displayed field of every reader run nothing and show as text', async () => {
  const page = await payloadPage();

  // config.json pasted on a family's page: keys and values, at the top and nested; the names it ignores.
  await openPlayground(site, page, '?encoding=rope');
  await page.click('#paste-config summary');
  // Each case: (a fresh payload p) => [the config, what the page shows of it].
  const pastes = [
    (p) => [{ _name_or_path: p, model_type: p, architectures: [p], [p]: 1, head_dim: 64, rope_theta: 10000 }, [p]],
    (p) => [{ head_dim: 64, rope_theta: p }, [p]],
    (p) => [{ head_dim: 64, rope_scaling: { rope_type: p, factor: 4 } }, [p]],
    (p) => [{ head_dim: 64, rope_scaling: { rope_type: 'yarn', factor: 4, [p]: 1 } }, [p]],
  ];
  for (const p of PAYLOADS) {
    for (const [config, shown] of pastes.map((c) => c(p(++uses)))) {
      await page.fill('#config-text', JSON.stringify(config));
      await page.click('#config-apply');
      await page.waitShown(shown);
      await page.expectInert(`pasted ${JSON.stringify(config)}`, shown);
    }
  }

  // A .gguf file: its name, keys and values.
  const ggufs = [
    (p, name) => [name, [['general.architecture', T.str, p], ['general.name', T.str, p], [p, T.str, p], [`${p}.block_count`, T.u32, 4]], [name, p]],
    (p) => ['model.gguf', [['general.architecture', T.str, 'llama'], ['llama.block_count', T.u32, 4], ['llama.rope.freq_base', T.str, p]], [p]],
    (p) => ['model.gguf', [['general.architecture', T.str, 'llama'], ['llama.block_count', T.u32, 4], ['llama.rope.scaling.type', T.str, p]], [p]],
  ];
  const fileName = () => `${payloads().filter((p) => !p.includes('/'))[uses % 3]}.gguf`;  // a file's name has no slash
  for (const p of PAYLOADS) {
    for (const [name, kv, shown] of ggufs.map((c) => c(p(++uses), fileName()))) {
      await page.setInputFiles('#gguf-file', { name, mimeType: 'application/octet-stream', buffer: Buffer.from(writeGguf(kv)) });
      await page.waitShown(shown);
      await page.expectInert(`GGUF ${name}: ${JSON.stringify(kv)}`, shown);
    }
  }

  // The model lab's config.json: Llama 4's temperature (the layer list wrote floor_scale and attn_scale as markup), the
  // model's name, layer types, rope parameters' keys; a .gguf file's name and architecture there.
  await openPlayground(site, page, '?encoding=model_profile&model=custom');
  const labConfigs = [
    (p) => [{ model_type: 'llama4_text', num_hidden_layers: 4, head_dim: 128, floor_scale: p }, [p]],
    (p) => [{ model_type: 'llama4_text', num_hidden_layers: 4, head_dim: 128, attn_scale: p }, [p]],
    (p) => [{ model_type: p, head_dim: 64 }, [p.split('/').pop()].filter(Boolean)],  // the name: a path's last part
    (p) => [{ model_type: 'gemma3_text', head_dim: 64, num_hidden_layers: 2, layer_types: [p, 'full_attention'] }, [p]],
    (p) => [{ model_type: 'gemma3_text', head_dim: 64, num_hidden_layers: 2, layer_types: ['sliding_attention', 'full_attention'],
      rope_parameters: { [p]: { rope_theta: 100 }, full_attention: { rope_theta: 1e6 }, sliding_attention: { rope_theta: 1e4 } } }, []],  // unused: not shown
  ];
  for (const p of PAYLOADS) {
    for (const [config, shown] of labConfigs.map((c) => c(p(++uses)))) {
      await page.fill('#control-config_json', JSON.stringify(config));
      await page.waitShown(shown);
      await page.expectInert(`the model lab's config ${JSON.stringify(config)}`, shown);
    }
    const [name, architecture] = [fileName(), p(++uses)];
    await page.setInputFiles('#gguf-file', { name, mimeType: 'application/octet-stream',
      buffer: Buffer.from(writeGguf([['general.architecture', T.str, architecture], [`${architecture}.block_count`, T.u32, 3]])) });
    await page.waitShown([name, architecture]);
    await page.expectInert(`${name} in the model lab`, [name, architecture]);
  }

  // Links: a lab's list of encodings, compare mode's configurations (their names, with no space in a line: the legends
  // and the note on curves that coincide), the sentences, a key that no family has and a #fragment, a tour stop.
  const [list, key] = [polyglot(), polyglot()];
  const names = [`<svg/onload=posencRan(${++uses})>`, `<img/src=x/onerror=posencRan(${++uses})>`];
  const links = [
    [`?encoding=language_model&steps=4&train_length=16&encodings=${encodeURIComponent(`rope ${list}`)}`, [`rope ${list}`]],
    [`?encoding=compare&config_a=${encodeURIComponent(`sinusoidal as=${names[0]}`)}&config_b=${encodeURIComponent(`rope as=${names[1]}`)}` +
      '&config_c=&config_d=', names],
    [`?encoding=rope&text=${encodeURIComponent(polyglot())}&text2=${encodeURIComponent(polyglot())}`, []],  // shown as its tokens
    [`?encoding=rope&${encodeURIComponent(key)}=1#${encodeURIComponent(polyglot())}`, [key]],
    [`tour.html?stop=${encodeURIComponent(polyglot())}`, []],
  ];
  for (const [link, shown] of links) {
    const [file, query] = link.startsWith('?') ? ['', link] : link.split(/(?=\?)/);
    if (query.includes('language_model')) {
      // The list is refused whole: the lab falls back to its 8 default arms (about 20 s of training and testing here).
      // Its warning and first figures are up as the arms train: checked then, and the next link's load ends the run.
      await page.goto(`${site.url}${file}${query}`);
      await page.waitForSelector('section.view .figure > *');
      await page.waitShown(shown);
      await page.expectInert(link, shown, { settled: false });
      continue;
    }
    await openPlayground(site, page, query, file);
    await page.waitShown(shown);
    await page.expectInert(link, shown);
  }
  await page.close();
});
