// Compare mode in real headless Chromium: configurations from the URL and the
// controls, overlaid decay curves and spectra, attention maps on one scale,
// the embed, and a bad configuration named beside its own box.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { downloaded, navigate, openPlayground, startPlayground } from './browser.mjs';

let playground;
before(async () => { playground = await startPlayground(); });
after(async () => { await playground?.close(); });

const THREE = '?encoding=compare&config_a=sinusoidal&config_b=rope&config_c=alibi&config_d=';

test('a three-way comparison draws three labelled curves and three attention maps on one scale', async () => {
  const page = await playground.open(THREE);
  assert.equal(await page.inputValue('#control-comparison'), 'custom');
  assert.deepEqual(await page.$$eval('#compare-decay .curve-toggles label', (l) => l.map((x) => x.textContent.trim())),
    ['A: sinusoidal', 'B: rope', 'C: alibi']);
  // Three lines, three dash patterns; each named at its end (sinusoidal and RoPE end together here, so they
  // share a label) and named in the note that says they coincide.
  const dashes = await page.$$eval('#compare-decay svg g[aria-label="line"]', (g) => g.map((x) => x.getAttribute('stroke-dasharray') ?? 'none'));
  assert.equal(dashes.length, 3);
  assert.equal(new Set(dashes).size, 3);
  const ends = await page.$$eval('#compare-decay svg [aria-label="text"] text', (t) => t.map((x) => x.textContent));
  assert.deepEqual(ends.flatMap((e) => e.split(', ')).sort(), ['A', 'B', 'C']);
  assert.match(await page.textContent('#compare-decay .coincide-note'), /A \(sinusoidal\) and B \(rope\) coincide here .*By construction/);
  // Unticking a curve hides it.
  await page.click('#compare-decay .curve-toggles label:nth-child(3) input');
  assert.equal(await page.$$eval('#compare-decay svg g[aria-label="line"]', (g) => g.length), 2);

  assert.deepEqual(await page.$$eval('#compare-attention .panel h3', (h) => h.map((x) => x.textContent)), ['A: sinusoidal', 'B: rope', 'C: alibi']);
  assert.equal(await page.$$eval('#compare-attention .legend', (l) => l.length), 1, 'one colour scale, one legend');
  assert.equal(await page.$$eval('#compare-attention canvas.matrix', (c) => c.length), 3);
  // Spectra: the two with frequencies; ALiBi named as having none.
  assert.deepEqual(await page.$$eval('#compare-spectrum .curve-toggles label', (l) => l.map((x) => x.textContent.trim())), ['A: sinusoidal', 'B: rope']);
  assert.match(await page.textContent('#compare-spectrum p.none-note'), /alibi: no frequencies/);
  assert.deepEqual(page.problems, []);
});

test('a named comparison fills the configurations; editing one makes it custom and lands in the URL', async () => {
  const page = await playground.open('?encoding=compare&comparison=scalings');
  assert.equal(await page.inputValue('#control-comparison'), 'scalings');
  assert.equal(await page.inputValue('#control-config_a'), 'rope rope_type=linear factor=8 seq_len=32768');
  // PI divides every frequency by 8; llama3 keeps the fast pairs: the wavelengths the spectrum draws differ.
  const json = await page.evaluate(() => document.querySelector('#compare-spectrum [data-export=csv]') !== null);
  assert.ok(json);
  const labels = await page.$$eval('#compare-spectrum .curve-toggles label', (l) => l.map((x) => x.textContent.trim()));
  assert.equal(labels.length, 4);
  await page.fill('#control-config_d', 'rope preset=llama-2-7b');
  await page.press('#control-config_d', 'Enter');
  await page.waitForFunction(() => /config_d=rope\+preset%3Dllama-2-7b/.test(location.search));
  assert.match(page.url(), /comparison=custom/);
  assert.equal(await page.inputValue('#control-comparison'), 'custom');
  await page.waitForFunction(() => [...document.querySelectorAll('#compare-spectrum .curve-toggles label')].some((l) => /llama-2-7b/.test(l.textContent)));
  assert.deepEqual(page.problems, []);
});

test('a bad configuration is named beside its box; the embed shows one comparison view', async () => {
  const page = await playground.open('?encoding=compare');
  const drawn = await page.innerHTML('#compare-attention .figure');
  await page.fill('#control-config_b', 'rope rope_theta=-1');
  await page.press('#control-config_b', 'Enter');
  await page.waitForFunction(() => document.getElementById('error-config_b')?.textContent !== '');
  assert.match(await page.textContent('#error-config_b'), /^config_b = "rope rope_theta=-1" is invalid: rope_theta = -1 is invalid/);
  assert.equal(await page.innerHTML('#compare-attention .figure'), drawn, 'the last good maps stay');
  await page.fill('#control-config_b', 'ropes');
  await page.press('#control-config_b', 'Enter');
  await page.waitForFunction(() => /expected an encoding first/.test(document.getElementById('error-config_b')?.textContent));

  await openPlayground(playground, page, `${THREE}&view=compare-attention`, 'embed.html');
  assert.deepEqual(await page.$$eval('.panel h3', (h) => h.map((x) => x.textContent)), ['A: sinusoidal', 'B: rope', 'C: alibi']);
  assert.deepEqual(page.problems, []);
});

test('sinusoidal: the plain dot product against distance is Σ cos(m ω_i); the decay comparison names coinciding curves', async () => {
  const page = await playground.open('?d_model=16&base=100&dot_distance=40');
  const [file] = await Promise.all([page.waitForEvent('download'), page.click('#dot-decay [data-export=csv]')]);
  const lines = (await downloaded(file)).toString('utf8').trim().split('\n');
  assert.equal(lines.length, 42);
  for (const m of [0, 1, 7, 40]) {
    let expected = 0;
    for (let i = 0; i < 8; i++) expected += Math.cos(m * 100 ** (-2 * i / 16));
    const [distance, dot] = lines[1 + m].split(',').map(Number);
    assert.equal(distance, m);
    assert.ok(Math.abs(dot - expected) < 1e-5, `m = ${m}: ${dot} vs ${expected}`);
  }
  // The comparison on the sinusoidal page draws RoPE beside it: the two coincide, and the note says why.
  await navigate(page, '?encoding=sinusoidal');
  assert.match(await page.textContent('#decay-comparison .coincide-note'), /Sinusoidal and RoPE coincide here .*By construction/);
  const dashes = await page.$$eval('#decay-comparison svg g[aria-label="line"]', (g) => g.map((x) => x.getAttribute('stroke-dasharray') ?? 'none'));
  assert.equal(new Set(dashes).size, dashes.length, 'every curve its own dash');
  assert.deepEqual(page.problems, []);
});

test('a pasted config.json keeps its model’s name in the legend, and the link stays short', async () => {
  const page = await playground.open('?encoding=compare&comparison=llama');
  const llama = JSON.stringify({ _name_or_path: 'meta-llama/Llama-3.1-8B', model_type: 'llama', hidden_size: 4096,
    num_attention_heads: 32, max_position_embeddings: 131072, rope_theta: 500000,
    rope_scaling: { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192 } });
  await page.fill('#control-config_b', llama);
  await page.press('#control-config_b', 'Tab');  // commits
  await page.waitForFunction(() => /as=Llama-3\.1-8B/.test(decodeURIComponent(location.search)), null, { timeout: 30000 });
  const query = await page.evaluate(() => location.search);
  assert.ok(query.length < 300, `a short link (${query.length} characters): ${query}`);
  await page.waitForFunction(() => [...document.querySelectorAll('.curve-toggles label')].some((l) => l.textContent.includes('Llama-3.1-8B (rope, llama3)')));
  // The link opens the same comparison, named the same.
  await openPlayground(playground, page, query);
  await page.waitForFunction(() => [...document.querySelectorAll('.curve-toggles label')].some((l) => l.textContent.includes('Llama-3.1-8B (rope, llama3)')));
  assert.deepEqual(page.problems, []);
});

test('the ready-made comparisons: the first shows four different shapes; a random draw is said and drawn faint', async () => {
  const page = await playground.open('?encoding=compare');
  assert.deepEqual(await page.$$eval('#compare-decay .curve-toggles label', (l) => l.map((x) => x.textContent.trim())),
    ['A: sinusoidal d_model=64', 'B: rope head_dim=64 rope_theta=500000', 'C: alibi', 'D: kerple']);
  assert.equal(await page.textContent('#compare-decay .coincide-note'), '', 'no two curves coincide');
  await navigate(page, '?encoding=compare&comparison=bias');
  const t5 = await page.$$eval('#compare-decay .curve-toggles label', (l) => l.map((x) => x.textContent.trim()).find((t) => t.includes('t5')));
  assert.equal(t5, 'B: t5 (random draw, untrained)');
  assert.deepEqual(page.problems, []);
});

// Every family's cross-family decay draws at most four curves at first: families.test.mjs, one load per family.
test('the cross-family decay\'s one scale is a switch away: raw logits, where ALiBi\'s head 0 falls as -0.5 d', async () => {
  const page = await playground.newPage();
  // "One scale" a switch away: the raw logits on one axis, where ALiBi's head 0 falls as -m·d = -0.5 d.
  await openPlayground(playground, page, '?encoding=sinusoidal&compare_values=raw');
  assert.match((await page.$$eval('#decay-comparison svg', (svgs) => svgs.map((s) => s.textContent))).join(' '), /f\(m\): logit/);
  const [file] = await Promise.all([page.waitForEvent('download'), page.click('#decay-comparison [data-export=csv]')]);
  const lines = (await downloaded(file)).toString('utf8').trim().split('\n').map((l) => l.split(','));
  const last = lines[lines.length - 1];
  assert.equal(Number(last[lines[0].indexOf('ALiBi_f')]), -0.5 * Number(last[0]));
  assert.ok(Number(last[0]) >= 255, last[0]);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('an embed of compare mode at its defaults draws the shipped fields with every .wasm download held back, then computes a change', async () => {
  const page = await playground.newPage();
  // Every .wasm request (the page's and its worker's) is held until the figure shows: it can only draw with none.
  const held = [];
  const hold = (route) => { held.push(route); };
  await playground.context.route(/\.wasm$/, hold);
  try {
    await openPlayground(playground, page, '?encoding=compare&view=compare-decay&controls=1', 'embed.html');
    assert.deepEqual(await page.$$eval('.curve-toggles label', (l) => l.map((x) => x.textContent.trim())),
      ['A: sinusoidal d_model=64', 'B: rope head_dim=64 rope_theta=500000', 'C: alibi', 'D: kerple']);
    assert.equal(await page.$$eval('svg g[aria-label="line"]', (g) => g.length), 4);
    // After answering from families/shipped-fields.js the worker asked for posenc-view.wasm, for the next change.
    for (let k = 0; k < 100 && held.length === 0; k++) await page.waitForTimeout(50);
    assert.deepEqual(held.map((r) => r.request().url().replace(/^.*\/|-[\w-]{8}\.wasm$/g, '')), ['posenc-view']);
  } finally {
    for (const route of held) await route.continue();
    await playground.context.unroute(/\.wasm$/, hold);
  }
  // A change is computed on it: the range 64 tokens, its axis' last tick at 60.
  const ticks = () => page.$$eval('svg [aria-label="x-axis tick label"] text', (t) => t.map((x) => Number(x.textContent.replace(/[,\u2009]/g, ''))));
  assert.ok(Math.max(...await ticks()) >= 200, `${await ticks()}`);  // 256 tokens: ticks to 240
  await page.fill('#control-compare_distance', '64');
  await page.press('#control-compare_distance', 'Enter');
  await page.waitForFunction(() => Math.max(...[...document.querySelectorAll('svg [aria-label="x-axis tick label"] text')]
    .map((x) => Number(x.textContent.replace(/[,\u2009]/g, '')))) <= 64);
  assert.deepEqual(page.problems, []);
  await page.close();
});
