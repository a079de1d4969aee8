// What a reader downloads: for each embedded view (embed.html?view=<id> in an
// iframe, or a <posenc-view>) and for the playground, the gzip size of what dist/
// sends before the first figure, and in all once everything loaded lazily has
// come. Read from Vite's manifest, without a browser (tests/bench/embed-weight.mjs
// measures the same in Chromium):
//   before the first figure: the page's static JS and CSS, the page file of the family that shows the view
//     (families/catalogue.js loads it), the view's module and what it imports, the engine's worker with its static
//     imports and its own chunk of the family's fields (families/compute.js, loaded as the page starts: engine.expect),
//     and the first WebAssembly module it instantiates with its glue (the worker imports the glue on demand): an embed
//     of one family's view (embed.html?view=<id>&encoding=<family>, one <posenc-view>) its family group's
//     posenc-view-<group>.wasm (engine/view-groups.js), the playground posenc-view.wasm (FIRST_WASM);
//   in all: also what a view's frame loads after its figure (formulas.js, KaTeX: view-frame.js) and the full module
//     where the first one is smaller (AFTER_WASM). Fonts are not counted:
//     a browser fetches only those a formula uses.
// Run by `npm run build`; `node scripts/sizes.mjs --json` prints the numbers as JSON.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

/** The engine's WebAssembly modules, by the name they are built as (dist/assets/<name>-<hash>.wasm): the one a view
 * draws its first figure with (a smaller module, when the build has one), and the full one. */
const FIRST_WASM_NAMES = ['posenc-view.wasm', 'posenc.wasm'];
const FULL_WASM_NAME = 'posenc.wasm';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = process.env.POSENC_DIST ?? path.join(root, 'dist');
const manifestFile = path.join(dist, '.vite', 'manifest.json');
const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
const AIM = 150 * 1024;
const PLAYGROUND_AIM = 250 * 1024;

const sizes = new Map();
/** Gzip bytes of a file of dist/ (level 6, what static hosts commonly use). */
function gzip(file) {
  if (!sizes.has(file)) sizes.set(file, zlib.gzipSync(fs.readFileSync(path.join(dist, file)), { level: 6 }).length);
  return sizes.get(file);
}

/** dist/'s file for a module built as `name` (posenc.wasm: assets/posenc-<hash>.wasm), or null. */
function builtAs(name) {
  const dot = name.lastIndexOf('.');
  const pattern = new RegExp(`^${name.slice(0, dot).replace(/[-.]/g, '\\$&')}(-[\\w-]{8})?\\${name.slice(dot)}$`);
  const found = fs.readdirSync(path.join(dist, 'assets')).filter((f) => pattern.test(f));
  return found.length ? `assets/${found[0]}` : null;
}
const FIRST_WASM = FIRST_WASM_NAMES.map(builtAs).find(Boolean);
const FULL_WASM = builtAs(FULL_WASM_NAME);
/** The full module's glue (the worker imports it on demand: dist/assets/posenc-<hash>.js). */
const FULL_GLUE = builtAs('posenc.js');
if (!FIRST_WASM || !FULL_WASM) throw new Error(`sizes: no ${FIRST_WASM_NAMES.join(' or ')} in ${dist}/assets`);

/**
 * The files a manifest chunk loads with it: itself, its static imports, their CSS and assets (the worker, with its
 * static imports), recursively.
 */
function closure(key, files = new Set()) {
  const chunk = manifest[key];
  if (!chunk) throw new Error(`sizes: ${key} is not in Vite's manifest`);
  if (files.has(chunk.file)) return files;
  files.add(chunk.file);
  for (const css of chunk.css ?? []) files.add(css);
  for (const asset of chunk.assets ?? []) {
    if (asset.endsWith('.js')) workerClosure(asset, files);
    else if (!/\.(woff2?|ttf|wasm)$/.test(asset)) files.add(asset);  // the .wasm: the one the page downloads, counted apart
  }
  for (const imported of chunk.imports ?? []) closure(imported, files);
  return files;
}

/**
 * A worker script and the chunks it imports statically (`import"./x.js"`, `from"./x.js"`), recursively; not those it
 * imports on demand (`import("./x.js")`: the arm worker, the trained sets, the config reader), nor its .wasm (counted
 * apart: FIRST_WASM before the figure).
 */
const WORKER_FILES = new Set();  // the files workerClosure found: the worker's
function workerClosure(file, files) {
  if (files.has(file)) return files;
  files.add(file);
  WORKER_FILES.add(file);
  const text = fs.readFileSync(path.join(dist, file), 'utf8');
  for (const [, name] of text.matchAll(/(?:\bfrom|\bimport)\s*["'`]\.\/([\w.-]+\.js)["'`]/g)) {
    const next = path.posix.join(path.posix.dirname(file), name);
    if (fs.existsSync(path.join(dist, next))) workerClosure(next, files);
  }
  return files;
}

/**
 * The worker's own chunk of core family `family`'s fields (families/compute.js imports families/page/<type>.js on
 * demand: the worker's bundle maps "./page/<type>.js" to it), with its static imports, added to `files` (which hold
 * the worker's script); nothing for a lab.
 */
function workerFamily(family, files) {
  const chunk = new RegExp(`"\\./page/${family}\\.js":\\(\\)=>import\\(\`\\./([\\w.-]+\\.js)\`\\)`);
  for (const file of [...files].filter((f) => /(^|\/)worker-[\w-]+\.js$/.test(f))) {
    const found = chunk.exec(fs.readFileSync(path.join(dist, file), 'utf8'));
    if (found) workerClosure(path.posix.join(path.posix.dirname(file), found[1]), files);
  }
  return files;
}

/** The worker's chunk of the glue of view module `group`'s (posenc-view-<group>.js; null: posenc-view.js), which it
 * imports on demand (engine/glue.js). */
function workerGlue(group, files) {
  const name = new RegExp(`\\./(posenc-view${group ? `-${group}` : ''}-[\\w-]{8}\\.js)`);
  for (const file of [...files].filter((f) => /(^|\/)worker-[\w-]+\.js$/.test(f))) {
    const found = name.exec(fs.readFileSync(path.join(dist, file), 'utf8'));
    if (found) return workerClosure(path.posix.join(path.posix.dirname(file), found[1]), files);
  }
  throw new Error(`sizes: the worker imports no glue of ${group ?? 'posenc-view'}`);
}

const total = (files) => [...files].reduce((sum, f) => sum + gzip(f), 0);
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

// Each view id's module, as web/src/views/index.js loads it ("heatmap: () => import('./heatmap.js')"), and each
// family's page file, as families/catalogue.js loads it: a core family's as all.js names it
// ("export * as t5 from './page/t5.js'") unless loadCore names another ("type === 'rope' ? import('../config/rope-presets.js')"),
// a lab's by its loader ("compare: { ..., load: () => import('../labs/compare-mode.js') }").
const sourceOf = (file) => fs.readFileSync(path.join(root, 'web/src', file), 'utf8');
const loadersIn = (file) => Object.fromEntries([...sourceOf(file).matchAll(/^\s+'?([\w-]+)'?: .*?\(\) => import\('([.\w/-]+\.js)'\)/gm)]
  .map(([, id, module]) => [id, `src/${path.posix.join(path.posix.dirname(file), module)}`]));
const SHARED_VIEW_MODULES = loadersIn('views/index.js');
const FAMILY_MODULES = {
  ...Object.fromEntries([...sourceOf('families/all.js').matchAll(/^export \* as (\w+) from '\.\/([\w/]+\.js)'/gm)]
    .map(([, type, module]) => [type, `src/families/${module}`])),
  ...Object.fromEntries([...sourceOf('families/catalogue.js').matchAll(/type === '(\w+)'\s*\?\s*import\('([.\w/-]+\.js)'\)/g)]
    .map(([, type, module]) => [type, `src/${path.posix.join('families', module)}`])),
  ...loadersIn('families/catalogue.js'),
};
const { FAMILIES, ENCODING } = await import(path.join(root, 'web/src/families/index.js'));
// Every view: the shared ones (views/index.js) and each family's own, by the family's list (the file ./<id>.js).
const VIEW_IDS = [...new Set(Object.values(FAMILIES).flatMap((f) => f.views))];
const VIEW_MODULES = Object.fromEntries(VIEW_IDS.map((id) => [id, SHARED_VIEW_MODULES[id] ?? `src/views/${id}.js`]));
const { TRAINING_VIEWS, needsFullModule } = await import(path.join(root, 'web/src/engine/modules.js'));
const { viewGroupFor } = await import(path.join(root, 'web/src/engine/view-groups.js'));
const { headNeeds } = await import(path.join(root, 'web/src/families/heads.js'));
const { parse } = await import(path.join(root, 'web/src/state.js'));
const { loadView } = await import(path.join(root, 'web/src/views/index.js'));
/** What each view of TRAINING_VIEWS asks the engine for (its module's needs). */
const TRAINING_NEEDS = Object.fromEntries(await Promise.all(TRAINING_VIEWS.filter((id) => VIEW_IDS.includes(id))
  .map(async (id) => [id, (await loadView(id)).needs])));
const missing = [...VIEW_IDS.filter((id) => !VIEW_MODULES[id]), ...Object.keys(FAMILIES).filter((n) => !FAMILY_MODULES[n])];
if (missing.length) throw new Error(`sizes: no module found for ${missing.join(', ')}`);

/** The family an embed of view `id` shows without `encoding`: the default one, else the first with the view (stage.js). */
const familyOf = (id) => (FAMILIES[ENCODING.default].views.includes(id) ? ENCODING.default
  : Object.keys(FAMILIES).find((n) => FAMILIES[n].views.includes(id)));

// What a view's frame loads after its figure (view-frame.js showFormula), and the page's (the playground's) own.
const LAZY = ['src/formulas.js', 'src/lib/katex.js'];

/**
 * The worker's chunk of family `family`'s shipped trained head (families/heads.js loads web/generated/heads/<family>.js
 * on demand: a chunk named after the family, which holds the script's trained_by line), or null.
 */
function headChunk(family) {
  const pattern = new RegExp(`^${family}-[\\w-]{8}\\.js$`);
  const found = fs.readdirSync(path.join(dist, 'assets')).filter((f) => pattern.test(f))
    .find((f) => fs.readFileSync(path.join(dist, 'assets', f), 'utf8').includes('trainedHead on posenc.wasm'));
  return found ? `assets/${found}` : null;
}

/** Whether view `id` of `family`, at the family's defaults, draws its first figure with the full module; else the
 * shipped heads it reads (families/heads.js), their chunks. */
function firstModule(id, family) {
  if (!TRAINING_VIEWS.includes(id)) return { full: false, heads: [] };
  const params = { encoding: family, ...parse(FAMILIES[family].parameters, {}).params };
  const needs = TRAINING_NEEDS[id];
  const heads = headNeeds(family, params, needs).map(headChunk);
  return { full: needsFullModule(family, params, needs) || heads.includes(null), heads };
}

/**
 * {before, after}: the files before the first figure, and every file once the lazy ones came. A view of
 * TRAINING_VIEWS (engine/modules.js) whose first request trains at the family's defaults, or calls the model lab's
 * functions, draws its first figure with the full module, which the engine then loads alone (with its glue), on a
 * page of that one view; one whose trained head ships (the attention lab's, families/heads.js) with the view module
 * and the head's chunk. The playground draws such views after its first figure (session.js).
 */
function page(entry, family, views, { group = null } = {}) {
  const before = closure(entry);
  closure(FAMILY_MODULES[family], before);
  workerFamily(family, before);
  for (const id of views) closure(VIEW_MODULES[id], before);
  const first = views.length === 1 ? firstModule(views[0], family) : { full: false, heads: [] };
  for (const file of first.heads) if (file) before.add(file);
  if (first.full) {
    before.add(FULL_WASM);
    if (FULL_GLUE) before.add(FULL_GLUE);
  } else {
    const wasm = group ? builtAs(`posenc-view-${group}.wasm`) : FIRST_WASM;
    if (!wasm) throw new Error(`sizes: no posenc-view-${group}.wasm in ${dist}/assets`);
    before.add(wasm);
    workerGlue(group, before);
  }
  const after = new Set(before);
  for (const key of LAZY) closure(key, after);
  after.add(FULL_WASM);
  if (FULL_GLUE) after.add(FULL_GLUE);
  return { before, after };
}

const playground = page('index.html', ENCODING.default, FAMILIES[ENCODING.default].views);
playground.before.add('index.html');
playground.after.add('index.html');
const rows = VIEW_IDS.map((id) => {
  const family = familyOf(id);
  const group = viewGroupFor(id, family);  // an embed that names its family (&encoding=), one component
  const iframe = page('embed.html', family, [id], { group });
  iframe.before.add('embed.html');
  iframe.after.add('embed.html');
  closure('src/shells/embed-start.js', iframe.before);  // its first script
  const component = page('src/shells/posenc-view.js', family, [id], { group });
  return { view: id, family, before: total(iframe.before), after: total(iframe.after), component: total(component.before),
    files: iframe.before };
});

// What dominates one embed: its files by kind.
const kindOf = (file) => (file.endsWith('.wasm') ? 'the .wasm (the C++ core)'
  : WORKER_FILES.has(file) ? 'the worker (wasm glue + engine calls, its family\'s fields)'
    : file.endsWith('.css') || file.endsWith('.html') ? 'HTML and CSS'
      : /lib-plot-/.test(file) ? 'Observable Plot (and the d3 it uses)'
        : /lib-d3-/.test(file) ? 'd3 (scales, axes, colours)' : 'posenc page code');
const breakdown = (files) => {
  const parts = {};
  for (const f of files) parts[kindOf(f)] = (parts[kindOf(f)] ?? 0) + gzip(f);
  return Object.entries(parts).sort((a, b) => b[1] - a[1]);
};

if (process.argv.includes('--json')) {
  console.log(JSON.stringify({ firstWasm: FIRST_WASM, playground: { before: total(playground.before), after: total(playground.after) },
    views: rows.map(({ files: _, ...r }) => r) }, null, 1));
} else {
  const mark = (bytes, aim) => (bytes <= aim ? ' ' : '*');
  console.log(`\nWhat a reader downloads (gzip, level 6): before the first figure (first module: the playground ${path.basename(FIRST_WASM)}, `
    + `an embed its family group's posenc-view-<group>.wasm), and in all once what loads after it came; aims before the figure: ${kb(AIM)} an embed, ${kb(PLAYGROUND_AIM)} the playground`);
  console.log(`  playground (index.html, ${ENCODING.default})        ${kb(total(playground.before)).padStart(10)} `
    + `${mark(total(playground.before), PLAYGROUND_AIM)}  ${kb(total(playground.after)).padStart(10)}`);
  console.log('  embed.html?view=     (&encoding=)      before figure     in all   <posenc-view> before');
  for (const r of rows) {
    console.log(`  ${r.view.padEnd(20)} ${`(${r.family})`.padEnd(17)} ${kb(r.before).padStart(10)} ${mark(r.before, AIM)}  `
      + `${kb(r.after).padStart(10)}   ${kb(r.component).padStart(10)} ${mark(r.component, AIM)}`);
  }
  console.log('  (* over the aim)');
  for (const id of ['heatmap', 'decay']) {
    const files = rows.find((r) => r.view === id).files;
    console.log(`  embed.html?view=${id}, before the figure: ${breakdown(files).map(([k, v]) => `${k} ${kb(v)}`).join(', ')}`);
  }
}
fs.rmSync(path.join(dist, '.vite'), { recursive: true, force: true });  // the manifest is for this report only
