// The playground as a reader shares and saves it (the built dist/): each view's
// share control gives a link that reproduces the state, committed changes are
// steps of Back/Forward, #<view> lands on a view, the exports hold the numbers
// the engine computes, bad URL values are named in a warning while the page
// still draws, and switching the encoding keeps the shared settings.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DIST, downloaded, navigate, openPlayground, serveStatic, startPlayground, SUB_PATH } from './browser.mjs';
import { loadPosenc } from '../wasm/load.mjs';

let playground;
let pe;
before(async () => { [playground, pe] = await Promise.all([startPlayground(), loadPosenc()]); });
after(async () => { await playground?.close(); });

/** Saves what clicking `selector` downloads, and returns its name and text. */
async function download(page, selector) {
  const [file] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  const text = (await downloaded(file)).toString('utf8');
  return { name: file.suggestedFilename(), text };
}

test('share: the link, the iframe and the component snippets carry the view and its state', async () => {
  const page = await playground.newPage();
  await openPlayground(playground, page, '?encoding=rope&rope_theta=500000');
  await page.click('#decay .share summary');
  const link = await page.inputValue('#decay [data-share=link]');
  assert.equal(link, `${playground.url}index.html?encoding=rope&rope_theta=500000#decay`);
  const iframe = await page.inputValue('#decay [data-share=iframe]');
  assert.match(iframe, new RegExp(`^<iframe src="${playground.url}embed\\.html\\?view=decay&amp;encoding=rope&amp;rope_theta=500000" title="posenc: Decay`));
  const component = await page.inputValue('#decay [data-share=component]');
  const title = await page.textContent('#decay .view-title');
  assert.equal(component, `<script type="module" src="${playground.url}posenc-view.js"></script>\n` +
    '<posenc-view view="decay" encoding="rope" rope_theta="500000">\n' +
    `  <a href="${playground.url}index.html?encoding=rope&amp;rope_theta=500000#decay">posenc: ${title} (open the live figure)</a>\n` +
    '</posenc-view>');
  // The link reproduces the state and lands on the view.
  const other = await playground.newPage();
  await other.goto(link);
  await other.waitForSelector('body[data-ready=true]');
  assert.equal(await other.inputValue('#control-encoding'), 'rope');
  assert.equal(await other.inputValue('#control-rope_theta'), '500000');
  const top = await other.$eval('#decay', (s) => s.getBoundingClientRect().top);
  assert.ok(Math.abs(top) < 40, `#decay is at the top of the window (${top} px)`);
  assert.deepEqual([...page.problems, ...other.problems], []);
  await page.close();
  await other.close();
});

test('committed changes are history steps: Back and Forward restore them', async () => {
  const page = await playground.newPage();
  // A link with a refused value: its warning, and the URL written without it.
  await openPlayground(playground, page, '?n=32&base=-1');
  assert.match(await page.textContent('#warnings li'), /^base = -1 is invalid/);
  assert.equal(await page.evaluate(() => location.search), '?n=32');
  await page.fill('#control-d_model', '64');
  await page.press('#control-d_model', 'Enter');  // commits (a change event)
  await page.waitForFunction(() => location.search === '?n=32&d_model=64');
  await page.selectOption('#control-layout', 'concat');
  await page.waitForFunction(() => location.search === '?n=32&d_model=64&layout=concat');
  await page.goBack();
  await page.waitForFunction(() => document.getElementById('control-layout').value === 'interleaved');
  assert.equal(await page.evaluate(() => location.search), '?n=32&d_model=64');
  assert.equal(await page.inputValue('#control-d_model'), '64');
  await page.waitForFunction(() => document.querySelector('#heatmap canvas.matrix').width === 64);
  await page.goBack();
  await page.waitForFunction(() => document.getElementById('control-d_model').value === '128');
  await page.waitForFunction(() => document.querySelector('#heatmap canvas.matrix').width === 128);
  // Back at the first entry: its URL holds no refused value, so no warning (the warnings are the shown link's), and
  // the page says when it has drawn it (body[data-ready], as after a first load).
  await page.waitForSelector('body[data-ready=true]');
  assert.equal(await page.locator('#warnings li').count(), 0);
  assert.equal(await page.isHidden('#warnings'), true);
  await page.goForward();
  await page.waitForFunction(() => document.getElementById('control-d_model').value === '64');
  // The table of contents changes the URL's fragment (a step too), and keeps the query.
  await page.click('#toc a[href="#decay-comparison"]');
  assert.equal(await page.evaluate(() => location.hash), '#decay-comparison');
  assert.equal(await page.evaluate(() => location.search), '?n=32&d_model=64');
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('a link shared before the decay comparison was renamed (#compare, view=compare) still lands on it', async () => {
  const page = await playground.newPage();
  await openPlayground(playground, page, '?n=32#compare');
  await page.waitForFunction(() => window.scrollY > 0);
  const top = await page.$eval('#decay-comparison', (s) => s.getBoundingClientRect().top);
  assert.ok(Math.abs(top) < 200, `the decay comparison's top is ${top} px from the window's`);
  await page.goto(`${playground.url}embed.html?view=compare&encoding=alibi`);
  await page.locator('body[data-ready=true]').waitFor();
  assert.equal(await page.textContent('section.view .view-title'), 'Decay with distance, every family on one axis');
  assert.ok(await page.$eval('section#decay-comparison svg [aria-label="line"]', (g) => Boolean(g)));
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('the heatmap CSV holds the values the engine returns for that state; JSON, SVG and PNG export too', async () => {
  const page = await playground.open('?n=12&d_model=10&base=77&layout=concat');
  const csv = await download(page, '#heatmap [data-export=csv]');
  assert.equal(csv.name, 'posenc-sinusoidal-heatmap.csv');
  const lines = csv.text.trim().split('\n');
  assert.equal(lines[0], 'position,dim_0,dim_1,dim_2,dim_3,dim_4,dim_5,dim_6,dim_7,dim_8,dim_9');
  assert.equal(lines.length, 13);
  const expected = pe.positionTable({ type: 'sinusoidal', d_model: 10, base: 77, layout: 'concat' }, 12);
  const values = lines.slice(1).flatMap((line, p) => {
    const [position, ...rest] = line.split(',');
    assert.equal(Number(position), p);
    return rest.map(Number);
  });
  assert.deepEqual(Float32Array.from(values), expected.data, 'every value reads back to the engine float32');

  const json = JSON.parse((await download(page, '#heatmap [data-export=json]')).text);
  assert.match(json.posenc, /^posenc \d+\.\d+\.\d+ \(wasm, SIMD on\)$/);
  assert.deepEqual(json.spec, { type: 'sinusoidal', d_model: 10, base: 77, layout: 'concat', timescales: 'vaswani' });
  assert.equal(json.params.n, 12);
  assert.equal(json.params.text, 'the dog chased the cat', 'every parameter, the view settings too');
  assert.deepEqual(json.data.table.data, Array.from(expected.data));

  const svg = (await download(page, '#heatmap [data-export=svg]')).text;
  assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assert.match(svg, /<image [^>]*href="data:image\/png;base64,/, 'the canvas as an image');
  assert.match(svg, />↓ position \(token\)</, 'the axis label');
  assert.match(svg, />PE value</, 'the legend');
  const [file] = await Promise.all([page.waitForEvent('download'), page.click('#heatmap [data-export=png]')]);
  const bytes = await downloaded(file);
  assert.deepEqual([...bytes.subarray(1, 4)].map((b) => String.fromCharCode(b)).join(''), 'PNG');
  const width = bytes.readUInt32BE(16);
  const figureWidth = await page.$eval('#heatmap .figure', (f) => f.getBoundingClientRect().width);
  assert.ok(Math.abs(width - 2 * Math.ceil(figureWidth)) <= 2, `a 2x picture: ${width} px for a ${figureWidth} px figure`);
  // The ablation's outlines around the identical rows (their stroke comes from the style sheet) are in its SVG.
  await openPlayground(playground, page, '?trained_head=false');
  const ablation = (await download(page, '#ablation [data-export=svg]')).text;
  const outlines = ablation.match(/<rect class="outline" [^>]*>/g) ?? [];
  assert.equal(outlines.length, 2, 'the rows of "the" at 0 and 3');
  for (const rect of outlines) assert.match(rect, / stroke="rgb\(\d+, \d+, \d+\)"/, rect);
  for (const rect of outlines) assert.match(rect, / stroke-width="2px"/, rect);
  // Every view has the four buttons.
  const views = await page.$$eval('section.view', (s) => s.map((x) => [...x.querySelectorAll('[data-export]')].map((b) => b.textContent).join(' ')));
  assert.ok(views.length >= 9);
  for (const tools of views) assert.equal(tools, 'CSV JSON SVG PNG');
  assert.deepEqual(page.problems, []);
});

test('RoPE JSON: inv_freq, attention_factor, logit_scale and the spec, as the engine computes them', async () => {
  const page = await playground.open('?encoding=rope&preset=llama-3.1-8b');
  const json = JSON.parse((await download(page, '#rope-json')).text);
  const expected = pe.ropeInvFreq(json.spec, json.rope.seq_len);
  assert.equal(json.spec.rope_scaling.rope_type, 'llama3');
  assert.deepEqual(json.rope.inv_freq, Array.from(expected.inv_freq));
  assert.equal(json.rope.attention_factor, expected.attention_factor);
  assert.equal(json.rope.logit_scale, expected.logit_scale);
  assert.equal(json.rope.rotary_dim, 128);
});

test('a bad or unknown URL parameter is named in a warning; the default is used and the page draws', async () => {
  const page = await playground.open();
  for (const [query, pattern, check] of [
    ['?d_model=7', /d_model = 7 is invalid: expected an even integer .*; using the default "128"/, '#heatmap canvas.matrix'],
    ['?n=abc', /n = abc is invalid: expected an integer in \[1, 4096\] \(the page's limit\); using the default "128"/, '#heatmap canvas.matrix'],
    ['?layout=diagonal', /layout = "diagonal" is invalid: expected one of interleaved, concat; using the default "interleaved"/, '#heatmap canvas.matrix'],
    ['?encoding=alibi&head=12', /head = 12 is invalid: .*; using the default "0"/, '#bias canvas.matrix'],
    ['?encoding=foo', /encoding = "foo" ignored: expected one of sinusoidal, .*; showing sinusoidal/, '#heatmap canvas.matrix'],
    ['?rope_theta=5&zzz=1', /rope_theta = "5" ignored: Sinusoidal has no parameter rope_theta.*\n.*zzz = "1" ignored: unknown parameter/, '#heatmap canvas.matrix'],
  ]) {
    // Each link shown in place (the file's page): its warnings are its own, the last link's gone.
    await navigate(page, query);
    assert.match(await page.innerText('#warnings'), pattern, query);
    assert.ok(await page.$eval(check, (c) => c.width > 0), `${query}: drawn`);
    assert.equal(await page.$$eval('.error', (e) => e.filter((x) => x.textContent).length), 0, `${query}: no error left`);
  }
});

test('switching the encoding keeps the sentence, the causal switch and the sizes the families share', async () => {
  const page = await playground.open('?d_model=64&text=a+b+a&attn_causal=true&attn_seed=3');
  await page.selectOption('#control-encoding', 'learned');
  await page.waitForFunction(() => location.search.includes('encoding=learned'));
  assert.equal(await page.inputValue('#control-text'), 'a b a');
  assert.equal(await page.isChecked('#control-attn_causal'), true);
  assert.equal(await page.inputValue('#control-attn_seed'), '3');
  assert.equal(await page.inputValue('#control-d_model'), '64', 'd_model carries to the learned table');
  await page.selectOption('#control-encoding', 'rope');
  await page.waitForFunction(() => location.search.includes('encoding=rope'));
  assert.equal(await page.inputValue('#control-text'), 'a b a');
  assert.equal(await page.inputValue('#control-head_dim'), '128', 'RoPE has no d_model: its own default');
  assert.deepEqual(await page.$$eval('#attention svg [aria-label="x-axis tick label"] text', (t) => t.map((x) => x.textContent)), ['a', 'b', 'a']);
  // Back returns to the learned table with the same settings.
  await page.goBack();
  await page.waitForFunction(() => document.getElementById('control-encoding').value === 'learned');
  assert.equal(await page.inputValue('#control-text'), 'a b a');
  assert.deepEqual(page.problems, []);
});

test('every parameter of every family round-trips through the URL', async () => {
  const common = 'compare_distance=100&text=a+b&text2=b+a&trained_head=false&projections=identity&attn_causal=true&attn_seed=4';
  const links = [
    'n=50&d_model=32&base=500&layout=concat&timescales=tensor2tensor&dims=0,3&metric=cosine&similarity_n=40',
    'encoding=learned&d_model=32&max_position_embeddings=40&seed=2&std=0.05&n=50&metric=dot&similarity_n=30',
    'encoding=none&d_model=16&n=20',
    'encoding=rope&head_dim=64&rope_theta=20000&partial_rotary_factor=0.5&layout=interleaved&max_position_embeddings=2048' +
      '&rope_type=yarn&factor=4&original_max_position_embeddings=1024&beta_fast=16&beta_slow=2&truncate=false&mscale=1.5' +
      '&mscale_all_dim=0.5&attention_factor=1.2&seq_len=8192&pair=3&start=5&max_distance=1000&input=random&n=32',
    'encoding=rope&rope_type=llama3&factor=4&original_max_position_embeddings=1024&low_freq_factor=2&high_freq_factor=8',
    'encoding=rope&head_dim=8&rope_type=longrope&factor=4&original_max_position_embeddings=1024&short_factor=1,1.5,2,2.5' +
      '&long_factor=1,2,3,4&attention_factor=1.1&pair=1',
    'encoding=rope&preset=mistral-7b-v0.2&seq_len=1000',
    'encoding=xpos&head_dim=32&rope_theta=5000&scale_base=256&role=key&training_length=512&pair=2&start=3&max_distance=2000&input=random&n=16',
    'encoding=alibi&n_heads=6&head=2&causal=true&n=32',
    'encoding=t5&num_buckets=16&max_distance=64&bidirectional=false&n_heads=4&head=1&seed=3&causal=true&n=32',
    'encoding=shaw&head_dim=16&max_relative_position=8&seed=2&causal=true&n=20',
    'encoding=transformer_xl&d_head=16&seed=2&causal=false&n=20',
    'encoding=kerple&variant=power&r1=2&r2=1.5&causal=true&n=20',
  ];
  const page = await playground.newPage();
  for (const [i, link] of links.entries()) {
    const query = `?${link}&${common}`;
    // One load, then each link in place (as Back and Forward load a state): the same round trip.
    if (i === 0) await openPlayground(playground, page, query);
    else await navigate(page, query);
    assert.equal(await page.innerText('#warnings').catch(() => ''), '', `${link}: no warning`);
    assert.deepEqual(await page.$$eval('.error', (e) => e.map((x) => x.textContent).filter(Boolean)), [], `${link}: no error`);
    // The page writes the same state back (in its own order), and each control shows its value.
    const written = await page.evaluate(() => location.search);
    const sorted = (q) => [...new URLSearchParams(q)].sort(([a], [b]) => a.localeCompare(b));
    assert.deepEqual(sorted(written), sorted(query), link);
    const names = [...new URLSearchParams(query).keys()];
    const shown = await page.evaluate((all) => all.map((name) => {  // each control's value, read in one call
      const control = document.getElementById(`control-${name}`);
      if (!control) return null;
      return control.type === 'checkbox' ? String(control.checked) : control.value.replaceAll(', ', ',');
    }), names);
    for (const [k, [name, value]] of [...new URLSearchParams(query)].entries()) assert.equal(shown[k], value, `${link}: ${name}`);
  }
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('the iframe snippet, pasted into a page on another origin at 390 px, sizes its iframe to the view (not clipped)', async () => {
  const page = await playground.newPage();
  await openPlayground(playground, page, '?encoding=rope&rope_theta=500000');
  await page.click('#decay .share summary');
  const snippet = await page.inputValue('#decay [data-share=iframe]');
  assert.match(snippet, /<\/iframe>\n<script>[\s\S]*posenc:resize[\s\S]*<\/script>$/, 'the resize script comes with the iframe');
  await page.close();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'posenc-host-'));
  fs.writeFileSync(path.join(dir, 'index.html'), `<!doctype html><meta name="viewport" content="width=device-width">
<h1>A post</h1><p>Before the figure.</p>\n${snippet}\n<p>After the figure.</p>`);
  const host = await serveStatic(dir, { host: 'localhost' });  // localhost, not 127.0.0.1: another origin
  try {
    const phone = await playground.newPage();
    await phone.setViewportSize({ width: 390, height: 800 });
    await phone.goto(host.url);
    // The iframe grows to the height the embed posts: its content's full height, more than the snippet's 480 px at 390 px.
    await phone.waitForFunction(() => document.querySelector('iframe').style.height !== '', null, { timeout: 30000 });
    const frame = phone.frames().find((f) => f.url().includes('embed.html'));
    await frame.waitForSelector('body[data-ready=true]', { timeout: 30000 });
    await phone.waitForTimeout(500);
    const outer = await phone.$eval('iframe', (f) => f.getBoundingClientRect().height);
    const inner = await frame.evaluate(() => document.documentElement.scrollHeight);
    assert.ok(Math.abs(outer - inner) <= 2, `iframe ${outer} px, its content ${inner} px`);
    await phone.close();
  } finally {
    await host.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the component snippet on another origin, its module served without CORS: the reader sees its fallback link', async () => {
  const page = await playground.open('?encoding=rope');
  await page.click('#decay .share summary');
  const plain = await serveStatic(DIST, { prefix: SUB_PATH });  // like python3 -m http.server: no CORS header
  const snippet = (await page.inputValue('#decay [data-share=component]')).replaceAll(playground.url, plain.url);
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'posenc-blog-'));
  fs.writeFileSync(path.join(folder, 'post.html'),
    `<!doctype html><html lang="en"><meta charset="utf-8"><title>a post</title><body><p>Before.</p>${snippet}<p>After.</p></body></html>`);
  const blog = await serveStatic(folder, { host: 'localhost' });
  const reader = await playground.newPage();
  await reader.goto(`${blog.url}post.html`);
  await reader.waitForTimeout(1000);
  assert.equal(await reader.evaluate(() => customElements.get('posenc-view') === undefined), true, 'the module was blocked');
  const link = reader.locator('posenc-view > a');
  assert.equal(await link.isVisible(), true);
  assert.match(await link.textContent(), /^posenc: .* \(open the live figure\)$/);
  assert.equal(await link.getAttribute('href'), `${plain.url}index.html?encoding=rope#decay`);
  const box = await reader.locator('posenc-view').boundingBox();
  assert.ok(box.width > 100 && box.height > 10, JSON.stringify(box));
  await Promise.all([plain.close(), blog.close()]);
  await reader.close();
});
