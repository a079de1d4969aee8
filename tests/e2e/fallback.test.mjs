// Never a blank figure from a link: in the playground, an embed and a <posenc-view>,
// a link's (or attributes') values are drawn by the core together; a set it refuses
// falls back key by key to a valid one, with one warning naming what was replaced,
// and every view draws. Links are generated: for every family, random subsets of its
// keys set to hostile values (each may be valid alone, or not); plus the audit's
// worst links of issue 24, quoted.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { drawn, navigate, serveStatic, startPlayground } from './browser.mjs';
import { FAMILIES, parametersOf } from '../../web/src/families/index.js';
import { FAMILY_TYPES } from '../../web/src/describe.js';
import { parse, visibleNames } from '../../web/src/state.js';
import { seededRandom } from '../../web/src/lib/random.js';

let playground;
let host;
let hostDir;
before(async () => {
  playground = await startPlayground();
  // A blog on another origin, for the component.
  hostDir = fs.mkdtempSync(path.join(os.tmpdir(), 'posenc-host-'));
  fs.writeFileSync(path.join(hostDir, 'host.html'), '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>host</title><body></body>');
  host = await serveStatic(hostDir, { host: 'localhost' });
});
after(async () => {
  await playground?.close();
  await host?.close();
  fs.rmSync(hostDir, { recursive: true, force: true });
});

// Values each a number the page reads (the core judges them): huge, tiny, negative, zero, odd, powers of two.
const NUMBERS = ['1e308', '-1e308', '1e-300', '-1', '0', '1', '2', '3', '0.5', '1.5', '4096', '65536', '16777216', '1e37'];
const LISTS = ['1,2,3', '0', '1e308,1', '-1,-2', '1'];

/** A hostile raw value for parameter p: any number for a key, a list of the wrong length, a valid choice (valid alone). */
function hostile(p, random) {
  const pick = (list) => list[Math.floor(random() * list.length)];
  switch (p.kind) {
    case 'choice': return pick(p.choices);
    case 'bool': return pick(['true', 'false']);
    case 'list': return pick(LISTS);
    case 'int': case 'number': case 'optional-int': case 'optional-number':
      return p.view ? pick([String(p.min), String(p.max)]) : pick(NUMBERS);  // a view setting: its limits, both valid
    default: return null;
  }
}

/** `count` links for `family`: 1 to 4 of its keys (and maybe one view setting) set to hostile values. */
function links(family, count, random) {
  const keys = parametersOf(family).filter((p) => !p.view && !['encoding', 'preset'].includes(p.name) && p.kind !== 'text');
  const settings = parametersOf(family).filter((p) => p.view && (p.kind === 'int' || p.kind === 'number'));
  const out = [];
  for (let i = 0; i < count; i++) {
    const chosen = new Map();
    const size = 1 + Math.floor(random() * 4);
    while (chosen.size < Math.min(size, keys.length)) {
      const p = keys[Math.floor(random() * keys.length)];
      chosen.set(p.name, hostile(p, random));
    }
    if (settings.length && random() < 0.5) {
      const p = settings[Math.floor(random() * settings.length)];
      chosen.set(p.name, hostile(p, random));
    }
    out.push([['encoding', family], ...chosen]);
  }
  return out;
}

const same = (a, b) => a === b || (a !== '' && b !== '' && Number(a) === Number(b));

/**
 * The keys of `entries` (a link) the shell did not keep: the final state (a query) holds another value, for a key
 * that applies there. Keys that do not apply (factor without a scaling) are dropped from a link silently.
 */
function replacedKeys(family, entries, finalQuery) {
  const parameters = parametersOf(family);
  const finalRaw = Object.fromEntries(new URLSearchParams(finalQuery));
  const { params } = parse(parameters, finalRaw);
  const visible = visibleNames(parameters, params);
  const defaults = Object.fromEntries(parameters.map((p) => [p.name, p.default === null ? '' : String(p.default)]));
  // What an absent key reads as: the family's base for the link (a trained family's own settings imply its random draw).
  const base = FAMILIES[family].baseRaw ? FAMILIES[family].baseRaw(defaults, finalRaw) : defaults;
  const out = [];
  for (const [key, value] of entries) {
    if (key === 'encoding' || !visible.has(key)) continue;
    const kept = finalRaw[key] ?? base[key];
    if (!same(kept.replaceAll(', ', ','), value)) out.push(key);
  }
  return out;
}

/** What a shell shows, read in the page: views drawn, views with an error, the warnings, the state's query. */
const READ = `(root, drawnSource) => {
  const isDrawn = new Function('return (' + drawnSource + ')')();
  const sections = [...root.querySelectorAll('section.view')];
  const open = root.querySelector('a.open-link');
  return {
    views: sections.length,
    // Drawn: marks on its figure (browser.mjs drawn), or a figure at all (one head's slope; the worked example's table).
    drawn: sections.filter((s) => isDrawn(s) || s.querySelector('.figure > *')).map((s) => s.id || s.dataset.view),
    errors: sections.map((s) => [...s.querySelectorAll('.error')].map((e) => e.textContent).join('')).filter(Boolean),
    warnings: [...root.querySelectorAll('.warnings li')].map((li) => li.textContent),
    query: open ? new URL(open.href).search : location.search,
  };
}`;

/** The playground with the link `entries`: loaded, or with inPlace, shown in the page already open there (navigate). */
async function readIndex(page, entries, { inPlace = false } = {}) {
  if (inPlace) await navigate(page, `?${new URLSearchParams(entries)}`, 60000);
  else await page.goto(`${playground.url}index.html?${new URLSearchParams(entries)}`);
  await page.waitForSelector('body[data-ready=true]', { timeout: 60000 });
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 50)));
  return page.evaluate(`(${READ})(document, ${JSON.stringify(drawn.toString())})`);
}

async function readEmbed(page, entries) {
  await page.goto(`${playground.url}embed.html?${new URLSearchParams(entries)}`);
  await page.waitForSelector('body[data-ready=true]', { timeout: 60000 });
  return page.evaluate(`(${READ})(document, ${JSON.stringify(drawn.toString())})`);
}

/** Many components on one host page of another origin, each with one link's attributes. */
async function readComponents(page, list) {
  await page.goto(`${host.url}host.html`);
  return page.evaluate(async ({ src, list, read, drawnSource }) => {
    await import(src);
    const elements = list.map((entries) => {
      const element = document.createElement('posenc-view');
      for (const [key, value] of entries) element.setAttribute(key, value);
      document.body.append(element);
      return element;
    });
    await Promise.all(elements.map((element) => element.whenReady()));
    const reader = new Function(`return (${read})`)();
    return elements.map((element) => reader(element.shadowRoot, drawnSource));
  }, { src: `${playground.url}posenc-view.js`, list, read: READ, drawnSource: drawn.toString() });
}

/** Asserts a shell drew every view, without an error, and warned of every key it replaced; returns how many it replaced. */
function check(shell, family, entries, got) {
  const where = `${shell} ${new URLSearchParams(entries)}`;
  assert.deepEqual(got.errors, [], `${where}: views with an error`);
  assert.equal(got.drawn.length, got.views, `${where}: views drawn: ${got.drawn.join(', ')}`);
  assert.ok(got.views >= 1, where);
  const replaced = replacedKeys(family, entries, got.query);
  const warned = got.warnings.join('\n');
  for (const key of replaced) assert.ok(warned.includes(key), `${where}: ${key} was replaced (${got.query}) without a warning naming it:\n${warned}`);
  return replaced.length;
}

const firstView = (family) => FAMILIES[family].views[0];
// A longer sweep than npm test's: POSENC_FALLBACK_SEED=7 POSENC_FALLBACK_LINKS=5 node --test tests/e2e/fallback.test.mjs
const SEED = Number(process.env.POSENC_FALLBACK_SEED ?? 24);
const PER_SHELL = Number(process.env.POSENC_FALLBACK_LINKS ?? 1);

test('generated links, every family, three shells: every view draws, and every replaced key is named', async () => {
  const { uniform: random } = seededRandom(SEED);
  const page = await playground.newPage();
  const index = await playground.newPage();  // one load, then each family's links in place (the audit's below: loads)
  const counts = { links: 0, replaced: 0 };
  const components = [];
  for (const [i, family] of FAMILY_TYPES.entries()) {
    for (const [j, entries] of links(family, PER_SHELL, random).entries()) {
      counts.replaced += check('index', family, entries, await readIndex(index, entries, { inPlace: i + j > 0 }));
      counts.links++;
    }
    for (const entries of links(family, PER_SHELL, random)) {
      counts.replaced += check('embed', family, entries, await readEmbed(page, [['view', firstView(family)], ...entries]));
      counts.links++;
    }
    // Components are cheap (one page, one engine for all): more of them.
    for (const entries of links(family, 4 * PER_SHELL, random)) components.push({ family, entries });
  }
  const shown = await readComponents(page, components.map(({ family, entries }) => [['view', firstView(family)], ...entries]));
  components.forEach(({ family, entries }, i) => {
    counts.replaced += check('component', family, entries, shown[i]);
    counts.links++;
  });
  assert.equal(counts.links, FAMILY_TYPES.length * 6 * PER_SHELL);
  console.log(`${counts.links} generated links, ${counts.replaced} keys replaced`);
  assert.ok(counts.replaced > 10, `the generated links made the shells replace keys (${counts.replaced})`);
  assert.deepEqual([...index.problems, ...page.problems], []);
  await Promise.all([index.close(), page.close()]);
});

// The audit's links (issue 24), each blank in some shell before: [view for the single-view shells, link, keys replaced,
// whether the audit found it blank in embed.html (every one is also loaded in the playground and as a component)].
const AUDIT = [
  ['spectrum', 'encoding=rope&rope_type=yarn&factor=1e308', ['factor'], true],
  // low > high is refused; low_freq_factor back at its default 1 equals high_freq_factor 1, which llama3 takes (Llama 4).
  ['spectrum', 'encoding=rope&rope_type=llama3&original_max_position_embeddings=8192&low_freq_factor=4&high_freq_factor=1',
    ['low_freq_factor']],
  ['spectrum', 'encoding=rope&rope_type=dynamic&factor=1e300', ['factor']],
  // Lists of the wrong length: without them longrope has no factors (its defaults are none), so it goes too.
  ['spectrum', 'encoding=rope&rope_type=longrope&short_factor=1,2,3&long_factor=1,2', ['rope_type']],
  ['spectrum', 'encoding=rope&rope_type=ntk&head_dim=2', ['head_dim']],
  ['bias', 'encoding=shaw&head_dim=4096&max_relative_position=4096&n=1024', null],
  ['heatmap', 'encoding=sinusoidal&n=4096&d_model=16777216', ['n', 'd_model']],
  ['buckets', 'encoding=t5&num_buckets=1e308', ['num_buckets'], true],
  ['bias', 'encoding=kerple&r1=1e308', ['r1'], true],
  ['bias', 'encoding=alibi&n_heads=1e308', ['n_heads'], true],
  ['spectrum', 'encoding=rope&rope_local_base_freq=-5', ['rope_local_base_freq']],
  // Issue 35: the model lab's settings at their controls' limits, refused at compute time by the model they are read
  // against (Gemma-4's 512-wide global layers make the decay at 200000 exceed the core's work limit; it has 2 kinds of
  // layer, not 8). Blank before: what a lab's fields read inside a job was not counted as read.
  ['profile-decay', 'encoding=model_profile&max_distance=200000', ['max_distance']],
  ['profile-stacks', 'encoding=model_profile&layer_kind=7', ['layer_kind']],
];

test('the audit\'s links draw in every shell, naming what they replaced; a bad rope_local_base_freq or layer_kind is named as itself', async () => {
  const page = await playground.newPage();
  const indexPage = await playground.newPage();  // one load, then each link in place (as generated links are)
  for (const [i, [view, link, keys, inEmbed]] of AUDIT.entries()) {
    const entries = [...new URLSearchParams(link)];
    const family = entries[0][1];
    const index = await readIndex(indexPage, entries, { inPlace: i > 0 });
    assert.deepEqual(index.errors, [], link);
    assert.equal(index.drawn.length, index.views, `${link}: ${index.drawn.join(', ')} of ${index.views} drawn`);
    const embed = inEmbed ? await readEmbed(page, [['view', view], ...entries]) : null;
    if (embed) assert.equal(embed.drawn.length, 1, `embed ${link}`);
    for (const got of [index, embed].filter(Boolean)) {
      const replaced = replacedKeys(family, entries, got.query);
      if (keys) assert.deepEqual(replaced.sort(), [...keys].sort(), `${link}: replaced`);
      for (const key of replaced) assert.match(got.warnings.join('\n'), new RegExp(key), `${link}: ${key} named`);
    }
  }
  const components = await readComponents(page, AUDIT.map(([view, link]) => [['view', view], ...new URLSearchParams(link)]));
  components.forEach((got, i) => {
    const [, link, keys] = AUDIT[i];
    const entries = [...new URLSearchParams(link)];
    assert.equal(got.drawn.length, 1, `component ${link}`);
    assert.deepEqual(got.errors, []);
    if (keys) assert.deepEqual(replacedKeys(entries[0][1], entries, got.query).sort(), [...keys].sort(), `component ${link}: replaced`);
  });
  const local = components[AUDIT.findIndex(([, link]) => link.includes('rope_local_base_freq'))];
  assert.match(local.warnings.join('\n'), /^rope_local_base_freq = -5 is invalid: expected a finite number > 1/);
  const kind = components[AUDIT.findIndex(([, link]) => link.includes('layer_kind'))];
  assert.match(kind.warnings.join('\n'), /^layer_kind = 7 is invalid: expected an integer in \[0, 1\] \(this model has 2 kinds of layer\); using the default "where they differ most"/);
  const yarn = components[0].warnings.join('\n');
  assert.match(yarn, /inv_freq\[\d+\] = .*; replaced factor = "1e308" by "8"/);
  assert.deepEqual([...indexPage.problems, ...page.problems], []);
  await Promise.all([indexPage.close(), page.close()]);
});

test('a fragment that is not valid percent-encoding is ignored, not an uncaught URIError', async () => {
  const page = await playground.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${playground.url}index.html?encoding=rope#%E0%A4%A`);
  await page.waitForSelector('body[data-ready=true]', { timeout: 60000 });
  assert.deepEqual(errors, []);
  await page.close();
});

test('a component whose attributes change to a refused set goes back to its last good values', async () => {
  const page = await playground.newPage();
  await page.goto(`${host.url}host.html`);
  const got = await page.evaluate(async ({ src, read, drawnSource }) => {
    await import(src);
    const element = document.createElement('posenc-view');
    element.setAttribute('view', 'heatmap');
    element.setAttribute('encoding', 'sinusoidal');
    element.setAttribute('d_model', '64');
    document.body.append(element);
    await element.whenReady();
    // Each alone valid, not together: n * d_model over the core's bound.
    element.setAttribute('n', '4096');
    element.setAttribute('d_model', '16777216');
    await element.whenReady();
    return new Function(`return (${read})`)()(element.shadowRoot, drawnSource);
  }, { src: `${playground.url}posenc-view.js`, read: READ, drawnSource: drawn.toString() });
  assert.deepEqual(got.errors, []);
  assert.equal(got.drawn.length, 1);
  assert.match(got.warnings.join('\n'), /n = 4096 is invalid/);
  await page.close();
});
