// What a reader downloads: the gzip size of every file the playground, an
// embedded view (embed.html in an iframe) or a <posenc-view> component loads
// from dist/, following Vite's manifest (the static imports of each entry, the
// chunks of the one view shown, the engine's worker and its .wasm). Run by
// `npm run build`; `node scripts/sizes.mjs --json` prints the numbers as JSON.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = process.env.POSENC_DIST ?? path.join(root, 'dist');
const manifestFile = path.join(dist, '.vite', 'manifest.json');
const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
const AIM = 150 * 1024;

const sizes = new Map();
/** Gzip bytes of a file of dist/ (level 6, what static hosts commonly use). */
function gzip(file) {
  if (!sizes.has(file)) sizes.set(file, zlib.gzipSync(fs.readFileSync(path.join(dist, file)), { level: 6 }).length);
  return sizes.get(file);
}

/** The files a manifest chunk loads with it: itself, its static imports, their CSS and assets (the worker), recursively. */
function closure(key, files = new Set()) {
  const chunk = manifest[key];
  if (!chunk || files.has(chunk.file)) return files;
  files.add(chunk.file);
  for (const css of chunk.css ?? []) files.add(css);
  for (const asset of chunk.assets ?? []) {
    files.add(asset);
    if (asset.endsWith('.js')) for (const ref of referencedAssets(asset)) files.add(ref);  // the worker's .wasm
  }
  for (const imported of chunk.imports ?? []) closure(imported, files);
  return files;
}

/**
 * The files a worker script loads as it starts, found next to it: its .wasm and the chunks it imports statically
 * (`import"./x.js"`, `from"./x.js"`); not those it imports on demand (`import("./x.js")`: the arm worker, the trained
 * sets), which a view that does not ask for them never fetches.
 */
function referencedAssets(file) {
  const text = fs.readFileSync(path.join(dist, file), 'utf8');
  const names = new Set([...(text.match(/[\w.-]+\.wasm(?=[`'"])/g) ?? []),
    ...[...text.matchAll(/(?:\bfrom|\bimport)\s*["'`]\.\/([\w.-]+\.js)["'`]/g)].map((match) => match[1])]);
  return [...names].map((name) => path.posix.join(path.posix.dirname(file), name)).filter((f) => f !== file && fs.existsSync(path.join(dist, f)));
}

const total = (files) => [...files].reduce((sum, f) => sum + gzip(f), 0);
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

// The views, and the families that show them (the playground loads the default family's views).
// Each view id's module, as web/src/views/index.js loads it ("heatmap: () => import('./heatmap.js')").
const loaders = fs.readFileSync(path.join(root, 'web/src/views/index.js'), 'utf8');
const VIEW_MODULES = Object.fromEntries([...loaders.matchAll(/'?([\w-]+)'?: \(\) => import\('\.\/([\w-]+\.js)'\)/g)].map(([, id, file]) => [id, file]));
const viewFile = (id) => `src/views/${VIEW_MODULES[id]}`;
const { FAMILIES, ENCODING } = await import(path.join(root, 'web/src/families/index.js'));
const { VIEW_IDS } = await import(path.join(root, 'web/src/views/index.js'));

const page = (html, entry, views) => {
  const files = closure(entry);
  if (html) files.add(html);
  for (const id of views) closure(viewFile(id), files);
  return files;
};
const playground = page('index.html', 'index.html', FAMILIES[ENCODING.default].views);
const rows = VIEW_IDS.map((id) => {
  const iframe = page('embed.html', 'embed.html', [id]);
  const component = page(null, 'src/shells/posenc-view.js', [id]);
  return { view: id, iframe: total(iframe), component: total(component), files: [...iframe] };
});
const unmapped = VIEW_IDS.filter((id) => !manifest[viewFile(id)]);
if (unmapped.length) throw new Error(`sizes: no built module for the views ${unmapped.join(', ')}`);

// What dominates one embed: its files by kind.
const kindOf = (file) => (file.endsWith('.wasm') ? 'the .wasm (the C++ core)'
  : /(^|\/)worker-/.test(file) ? 'the worker (wasm glue + engine calls)'
    : file.endsWith('.css') || file.endsWith('.html') ? 'HTML and CSS'
      : /lib-plot-/.test(file) ? 'Observable Plot (and the d3 it uses)'
        : /lib-d3-/.test(file) ? 'd3 (scales, axes, colours)' : 'posenc page code');
const breakdown = (files) => {
  const parts = {};
  for (const f of files) parts[kindOf(f)] = (parts[kindOf(f)] ?? 0) + gzip(f);
  return Object.entries(parts).sort((a, b) => b[1] - a[1]);
};

if (process.argv.includes('--json')) {
  console.log(JSON.stringify({ playground: total(playground), views: rows.map(({ files: _, ...r }) => r) }, null, 1));
} else {
  console.log(`\nWhat a reader downloads (gzip, level 6), aim for one embedded view: ${kb(AIM)}`);
  console.log(`  playground (index.html, ${ENCODING.default}, every view): ${kb(total(playground))}`);
  console.log('  one view             iframe (embed.html)   <posenc-view>');
  for (const r of rows) {
    console.log(`  ${r.view.padEnd(20)} ${kb(r.iframe).padStart(10)} ${r.iframe <= AIM ? ' ' : '*'}        ${kb(r.component).padStart(10)} ${r.component <= AIM ? ' ' : '*'}`);
  }
  console.log('  (* over the aim)');
  for (const id of ['heatmap', 'decay']) {
    const files = rows.find((r) => r.view === id).files;
    console.log(`  embed.html?view=${id}: ${breakdown(files).map(([k, v]) => `${k} ${kb(v)}`).join(', ')}`);
  }
}
fs.rmSync(path.join(dist, '.vite'), { recursive: true, force: true });  // the manifest is for this report only
