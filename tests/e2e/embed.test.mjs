// Embedding posenc in a blog post on another origin: the example post
// (web/examples/blog-post.html, copied to dist/examples/) served by a second
// origin whose relative URLs point at the built dist/ on the first, as a blog
// would link a GitHub Pages copy. The iframe and the <posenc-view> components
// draw, the iframe reports its height, the components share one engine (one
// .wasm fetch), and a changed attribute redraws.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { DIST, SUB_PATH, drawn, launchBrowser, serveStatic } from './browser.mjs';

let site;
let blog;
let browser;
before(async () => {
  site = await serveStatic(DIST, { prefix: SUB_PATH, cors: true });
  // The blog: another origin (another port), serving the example post with its relative URLs
  // resolved against the posenc site, as the absolute URLs of a real post would be.
  blog = await serveStatic(path.join(DIST, 'examples'), {
    prefix: '/posts/', host: 'localhost',
    rewriteHtml: (file, text) => text.replace('<head>', `<head>\n<base href="${site.url}examples/">`),
  });
  browser = await launchBrowser({ viewport: { width: 760, height: 900 } });
});
after(async () => {
  await browser?.close();
  await site?.close();
  await blog?.close();
});

test('the example post on another origin: its iframe and components draw, sharing one engine', async () => {
  assert.notEqual(new URL(blog.url).origin, new URL(site.url).origin);
  const page = await browser.newPage();
  site.requests.length = 0;
  await page.addInitScript(() => {
    window.resizeMessages = [];
    addEventListener('message', (event) => { if (event.data?.type === 'posenc:resize') window.resizeMessages.push(event.data.height); });
  });
  await page.goto(`${blog.url}blog-post.html`);
  // A third component, added by the page after load, joins the same engine.
  await page.evaluate(() => {
    const view = document.createElement('posenc-view');
    view.id = 'late-view';
    view.setAttribute('view', 'heatmap');
    view.setAttribute('encoding', 'sinusoidal');
    view.setAttribute('n', '32');
    view.setAttribute('d_model', '32');
    document.querySelector('article').append(view);
  });
  await page.waitForFunction(() => customElements.get('posenc-view') !== undefined);
  await page.evaluate(() => Promise.all([...document.querySelectorAll('posenc-view')].map((v) => v.whenReady())));
  const components = await page.$$eval('posenc-view', (views, source) => {
    const isDrawn = new Function(`return (${source})`)();
    return views.map((v) => ({ id: v.id, drawn: isDrawn(v.shadowRoot), title: v.shadowRoot.querySelector('.view-title')?.textContent }));
  }, drawn.toString());
  assert.deepEqual(components.map((c) => [c.id, c.drawn]), [['rope-view', true], ['alibi-view', true], ['late-view', true]]);
  assert.deepEqual(components.map((c) => c.title),
    ['Decay: q·k against relative distance', 'Ablation: the same sentence without positions', 'Embedding heatmap']);
  // The post says repeated words get identical rows without positions: its ablation (the untrained head, no mask)
  // outlines the two rows of "the" in the panel without positions.
  assert.deepEqual(await page.$eval('#alibi-view', (v) => [...v.shadowRoot.querySelectorAll('.panel')].map((p) =>
    [...p.querySelectorAll('.outlines rect')].map((r) => Number(r.dataset.row)))), [[], [0, 4]]);

  // The iframe: its own page on the posenc origin, drawn, and its height told to the host.
  const frame = page.frames().find((f) => f.url().includes('embed.html'));
  await frame.waitForSelector('body[data-ready=true]', { timeout: 30000 });
  assert.ok(await frame.evaluate(`(${drawn.toString()})(document)`), 'the iframe draws its heatmap');
  await page.waitForFunction(() => window.resizeMessages.length > 0);
  const height = await page.evaluate(() => window.resizeMessages.at(-1));
  const frameHeight = await frame.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));
  assert.equal(height, frameHeight, 'the message gives the embed page its height in CSS px');
  assert.ok(height > 300 && height < 1000, `a heatmap's height, got ${height}`);
  assert.equal(await page.$eval('#sinusoid-frame', (f) => f.getBoundingClientRect().height), height, 'the post sized its iframe');

  // The components fetch the .wasm cross-origin (CORS, with an Origin header), the iframe from its own origin.
  // (The iframe's is its preload's, in CORS mode: Chromium sends its own origin as the Origin header.)
  const wasm = site.requests.filter((r) => r.path.endsWith('.wasm'));
  const sameOrigin = (origin) => (origin === undefined || origin === site.origin ? 'same origin' : origin);
  assert.deepEqual(wasm.map((r) => sameOrigin(r.origin)).sort(), [new URL(blog.url).origin, 'same origin'].sort(),
    'one .wasm fetch for the iframe, one for all three components');
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('changing a component attribute redraws it; a bad one shows a warning in place', async () => {
  const page = await browser.newPage();
  await page.goto(`${blog.url}blog-post.html`);
  await page.waitForFunction(() => customElements.get('posenc-view') !== undefined);
  await page.evaluate(() => document.getElementById('rope-view').whenReady());
  const note = () => page.$eval('#rope-view', (v) => v.shadowRoot.querySelector('.figure').innerHTML);
  const before = await note();
  // whenReady() called in the same task as setAttribute waits for the draw of the new value (the observer's
  // record was still queued then), so the figure read right after it is the new one.
  const redrawn = await page.evaluate(async () => {
    const view = document.getElementById('rope-view');
    view.setAttribute('rope_theta', '10000');
    await view.whenReady();
    return view.shadowRoot.querySelector('.figure').innerHTML;
  });
  assert.notEqual(redrawn, before, 'a new rope_theta redraws the decay before whenReady() resolves');
  // "open in posenc" carries the new state.
  const link = await page.$eval('#rope-view', (v) => v.shadowRoot.querySelector('.open-link').href);
  assert.match(link, /index\.html\?encoding=rope&max_position_embeddings=8192&max_distance=16384#decay$/);

  await page.evaluate(() => document.getElementById('rope-view').setAttribute('head_dim', '7'));
  await page.evaluate(() => document.getElementById('rope-view').whenReady());
  const warning = await page.$eval('#rope-view', (v) => v.shadowRoot.querySelector('.warnings').textContent);
  assert.match(warning, /head_dim = 7 is invalid: expected an even integer/);
  assert.match(warning, /using the default "128"/);
  assert.ok(await page.$eval('#rope-view', (v) => v.shadowRoot.querySelectorAll('.figure svg path').length > 4), 'still drawn');
  await page.close();
});

test('embed.html: one view with its title, caption, legend and link; controls=1 adds its own controls; theme=dark', async () => {
  const page = await browser.newPage();
  await page.goto(`${site.url}embed.html?view=spectrum&encoding=rope&rope_theta=500000&rope_type=llama3&original_max_position_embeddings=8192&controls=1&theme=dark`);
  await page.waitForSelector('body[data-ready=true]');
  assert.equal(await page.locator('section.view').count(), 1);
  assert.equal(await page.textContent('.view-title'), 'Frequency spectrum: the wavelength of each pair');
  assert.match(await page.textContent('.caption'), /Wavelength 2π\/θᵢ/);
  assert.match(await page.innerText('.figure'), /scaled \(llama3\)/, 'the legend names the scaled curve');
  // Its own controls: what the spectrum reads (rope_theta, rope_type, factor, ...), not the decay's or the sentence.
  const shown = await page.$$eval('.inline-controls .control:not([hidden])', (rows) => rows.map((r) => r.dataset.name));
  for (const name of ['head_dim', 'rope_theta', 'rope_type', 'factor', 'low_freq_factor', 'seq_len']) assert.ok(shown.includes(name), name);
  for (const name of ['text', 'max_distance', 'pair', 'encoding']) assert.ok(!shown.includes(name), name);
  assert.equal(await page.inputValue('#control-rope_theta'), '500000');
  const link = await page.getAttribute('.open-link', 'href');
  assert.match(link, /index\.html\?encoding=rope&rope_theta=500000&rope_type=llama3&original_max_position_embeddings=8192#spectrum$/);
  // Dark: the page's background is dark.
  const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const [r, g, b] = background.match(/\d+/g).map(Number);
  assert.ok(0.2126 * r + 0.7152 * g + 0.0722 * b < 60, `dark background, got ${background}`);
  // A control of the embed redraws it.
  await page.fill('#control-factor', '16');
  await page.waitForFunction(() => document.querySelector('.open-link').href.includes('factor=16'));
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('embed.html starts its family group\'s module from its first script, and that one download is what the engine computes with', async () => {
  const page = await browser.newPage();
  site.requests.length = 0;
  await page.goto(`${site.url}embed.html?view=heatmap&encoding=sinusoidal`);
  await page.waitForSelector('body[data-ready=true]');
  // The first script, right after the page's policy: shells/embed-start.js, a module of its own (not the entry's), which
  // starts the download of the query's family group's module (engine/view-groups.js); the worker receives its bytes
  // from the page (engine/view-wasm.js). No preload of posenc-view.wasm: the HTML cannot know the group.
  const first = await page.$eval('head > meta[http-equiv="Content-Security-Policy"] + script',
    (script) => ({ src: script.getAttribute('src'), type: script.type, async: script.async }));
  assert.match(first.src, /^\.\/assets\/embed-start-[\w-]+\.js$/);
  assert.deepEqual([first.type, first.async], ['module', true]);
  assert.equal(await page.$('link[rel=preload][href$=".wasm"]'), null);
  const wasm = site.requests.filter((r) => r.path.endsWith('.wasm')).map((r) => r.path.slice(SUB_PATH.length));
  assert.equal(wasm.length, 1, `one .wasm download, not fetched again by the worker: ${wasm}`);
  assert.match(wasm[0], /^assets\/posenc-view-absolute-[\w-]{8}\.wasm$/, 'sinusoidal\'s group: absolute');
  assert.equal(await page.evaluate(() => document.querySelector('.figure canvas, .figure svg') !== null), true);
  assert.deepEqual(page.problems, [], 'no console warning');
  // Without a family the embed downloads posenc-view.wasm (every family), once.
  site.requests.length = 0;
  await page.goto(`${site.url}embed.html?view=heatmap`);
  await page.waitForSelector('body[data-ready=true]');
  assert.deepEqual(site.requests.filter((r) => r.path.endsWith('.wasm')).map((r) => r.path.replace(/^.*\/|-[\w-]{8}\.wasm$/g, '')), ['posenc-view']);
  await page.close();
});

test('an embedded attention map draws its family\'s shipped trained head with its group\'s view module alone; another task trains on posenc.wasm', async () => {
  const page = await browser.newPage();
  const wasmFetched = () => site.requests.filter((r) => r.path.endsWith('.wasm')).map((r) => r.path.replace(/^.*\/|-[\w-]{8}\.wasm$/g, ''));
  // At the family's defaults the head ships (families/heads.js): no training, no posenc.wasm.
  site.requests.length = 0;
  await page.goto(`${site.url}embed.html?view=attention&encoding=rope`);
  await page.waitForSelector('body[data-ready=true]');
  await page.waitForSelector('.figure canvas');
  assert.match(await page.textContent('.trained-note'), /trained on copy at 32 tokens \(400 steps, seed \d; accuracy (0\.9\d|1\.00) there\)/);
  assert.deepEqual(wasmFetched(), ['posenc-view-rotary']);
  assert.deepEqual(page.problems, []);
  // The induction task's head does not ship: the engine starts on posenc.wasm, trains it, and draws it.
  site.requests.length = 0;
  await page.goto(`${site.url}embed.html?view=attention&encoding=rope&trained_task=induction`);
  await page.waitForSelector('body[data-ready=true]');
  await page.waitForSelector('.trained-note');
  assert.match(await page.textContent('.trained-note'), /trained on induction at 32 tokens \(400 steps, seed \d; accuracy \d\.\d\d there\)/);
  assert.ok(wasmFetched().includes('posenc'), wasmFetched().join(', '));
  await page.close();
});

test('embed.html with an unknown view or a bad value says so in place', async () => {
  const page = await browser.newPage();
  await page.goto(`${site.url}embed.html?view=nope`);
  await page.waitForSelector('body[data-ready=true]');
  assert.match(await page.textContent('.error'), /^view = "nope" is invalid: expected one of heatmap, waves/);
  await page.goto(`${site.url}embed.html?view=bias&encoding=alibi&head=12`);
  await page.waitForSelector('body[data-ready=true]');
  assert.match(await page.textContent('.warnings'), /head = 12 is invalid/);
  assert.equal(await page.$eval('.figure canvas.matrix', (c) => c.width), 64, 'the bias of head 0 is drawn');
  await page.close();
});

// A host that forbids workers, and one that enforces Trusted Types without allowing posenc's policy ('posenc', which
// makes the worker's URL: engine/spawn.js): the worker cannot start, and the components compute on the page's thread.
test('a host page whose policy forbids workers, or refuses posenc\'s Trusted Types policy, still gets its components, computed on its own thread', async () => {
  for (const policy of ["worker-src 'none'", "require-trusted-types-for 'script'; trusted-types 'none'"]) {
    const strict = await serveStatic(path.join(DIST, 'examples'), {
      prefix: '/strict/', host: 'localhost', htmlHeaders: { 'content-security-policy': policy },
      rewriteHtml: (file, text) => text.replace('<head>', `<head>\n<base href="${site.url}examples/">`),
    });
    const page = await browser.newPage();
    const notes = [];
    page.on('console', (m) => notes.push(m.text()));
    await page.goto(`${strict.url}blog-post.html`);
    await page.waitForFunction(() => customElements.get('posenc-view') !== undefined);
    await page.evaluate(() => Promise.all([...document.querySelectorAll('posenc-view')].map((v) => v.whenReady())));
    const drawnViews = await page.$$eval('posenc-view', (views, source) => views.map((v) => new Function(`return (${source})`)()(v.shadowRoot)),
      drawn.toString());
    assert.deepEqual(drawnViews, [true, true], policy);
    assert.ok(notes.some((n) => /posenc: computing on the page's thread/.test(n)), `${policy}: ${notes.join('\n')}`);
    // What the policy refused: the worker, or the policy that would have made its URL; nothing else.
    const refused = page.problems.filter((p) => p.startsWith('violation')).map((p) => p.replace(/^violation in \S+: (\S+) .*$/s, '$1'));
    assert.ok(refused.length > 0, policy);
    assert.deepEqual([...new Set(refused)].sort(), policy.startsWith('worker') ? ['worker-src'] : ['require-trusted-types-for', 'trusted-types'],
      `${policy}: ${page.problems.join('\n')}`);
    await page.close();
    await strict.close();
  }
});
