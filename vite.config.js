// Vite serves web/ in development (npm start) and bundles it into dist/ (npm run build):
// index.html (the playground), tour.html (the guided tour), embed.html (one view, for iframes) and posenc-view.js
// (the web component, under a fixed name so a blog can link it). Every URL is
// relative, so dist/ works copied under any sub-path of any static host.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { PAGE_POLICY } from './scripts/csp.mjs';

const web = (file) => fileURLToPath(new URL(`./web/${file}`, import.meta.url));

/** web/examples/ (a blog post embedding posenc) is copied as it is, next to the built files, and the README (the
 * pages' footers link it: what posenc is, how to run, test and embed it). */
const copyExamples = {
  name: 'posenc-copy-examples',
  apply: 'build',
  writeBundle(options) {
    fs.cpSync(web('examples'), `${options.dir}/examples`, { recursive: true });
    fs.copyFileSync(fileURLToPath(new URL('./README.md', import.meta.url)), `${options.dir}/README.txt`);  // .txt: every static host serves it as text
  },
};

/**
 * The built pages' Content-Security-Policy (scripts/csp.mjs), in each page's <head> right after its charset, before
 * anything it governs (a <meta> policy applies to what follows it). Build only: the dev server (npm start) injects
 * <style> elements and an error overlay written as markup, which the policy refuses.
 */
const contentSecurityPolicy = {
  name: 'posenc-content-security-policy',
  apply: 'build',
  transformIndexHtml(html, { filename }) {
    const charset = '<meta charset="utf-8">';
    if (!html.includes(charset)) throw new Error(`${filename}: no ${charset} to put the Content-Security-Policy after`);
    return html.replace(charset, `${charset}\n  <meta http-equiv="Content-Security-Policy" content="${PAGE_POLICY}">`);
  },
};

/** html with `tag` right after its Content-Security-Policy <meta> (which governs it), before the page's scripts and styles. */
function afterPolicy(html, filename, tag) {
  const policy = /<meta http-equiv="Content-Security-Policy"[^>]*>/.exec(html);
  if (!policy) throw new Error(`${filename}: no Content-Security-Policy to put ${tag} after`);
  const at = policy.index + policy[0].length;
  return `${html.slice(0, at)}\n  ${tag}${html.slice(at)}`;
}

/**
 * Each built page starts downloading its first view module as early as it can; the file's hashed name is known once
 * the bundle is written, hence here (build only: in development the engine starts the download itself).
 * - The playground and the tour: posenc-view.wasm, as their HTML arrives: a <link rel="preload" as="fetch"
 *   crossorigin> that engine/view-wasm.js's fetch takes over (same URL, mode and credentials). Without it the download
 *   waits for the page's scripts: on a phone network about 1 s later (issue 40, tests/bench/embed-weight.mjs --phone).
 * - embed.html: its family group's module (engine/view-groups.js), which its HTML cannot know, from its first script,
 *   shells/embed-start.js (an entry of its own, before the page's entry): a module script of its own runs once its one
 *   import (the view modules' URLs and groups, a 1 KB chunk) has arrived, not after the page's whole entry (the shell,
 *   24 KB more). Vite would merge a second <script> of embed.html into its entry.
 */
const startViewWasm = {
  name: 'posenc-start-view-wasm',
  apply: 'build',
  transformIndexHtml: {
    order: 'post',
    handler(html, { bundle, filename }) {
      if (/[\\/]embed\.html$/.test(filename)) {
        const start = Object.values(bundle ?? {}).filter((chunk) => chunk.type === 'chunk' && chunk.isEntry && chunk.name === 'embed-start');
        if (start.length !== 1) throw new Error(`${filename}: expected one embed-start entry in the bundle, found ${start.length}`);
        return afterPolicy(html, filename, `<script type="module" async crossorigin src="./${start[0].fileName}"></script>`);
      }
      const wasm = Object.keys(bundle ?? {}).filter((file) => /(^|\/)posenc-view-[\w-]{8}\.wasm$/.test(file));  // not a group's (-<group>-<hash>)
      if (wasm.length !== 1) throw new Error(`${filename}: expected one posenc-view .wasm in the bundle, found ${wasm.length}`);
      return afterPolicy(html, filename, `<link rel="preload" href="./${wasm[0]}" as="fetch" type="application/wasm" fetchpriority="low" crossorigin>`);
    },
  },
};

// @huggingface/gguf (the GGUF header reader) and its @huggingface/tasks declare no sideEffects, so the bundler would
// keep all of tasks (70 KB gzip); they have none: 9 KB gzip for the reader's chunk. The worker's bundle (where the
// reader runs) and the page's (its fallback without workers) both say so.
const HUGGINGFACE_TREESHAKE = { moduleSideEffects: (id) => !/node_modules[\\/]@huggingface[\\/]/.test(id) };

export default defineConfig({
  root: 'web',
  base: './',
  publicDir: false,
  build: {
    outDir: process.env.POSENC_DIST ?? '../dist',
    emptyOutDir: true,
    target: 'es2022',
    reportCompressedSize: false,  // scripts/sizes.mjs reports what a reader downloads, from the manifest
    manifest: true,
    // Vite preloads a dynamic import's dependencies by adding <link rel=modulepreload> to document.head at run time.
    // The chunks are shared by the pages and by <posenc-view>, whose document is a host's: it must add nothing there
    // (README, "Embed in your post"), so dynamic imports preload nothing (each loads its own imports, a round trip more per
    // level). The pages keep the <link rel=modulepreload> written into their HTML for their entries' static imports.
    modulePreload: { resolveDependencies: (file, deps, { hostType }) => (hostType === 'html' ? deps : []) },
    // Fonts stay files: a data: URL font (Vite inlines assets under 4 KB, as one of KaTeX's is) needs font-src data:
    // in a host's Content-Security-Policy; a file is 'self'.
    assetsInlineLimit: (file) => (/\.(woff2?|ttf)$/.test(file) ? false : undefined),
    rollupOptions: {
      treeshake: HUGGINGFACE_TREESHAKE,
      input: { index: web('index.html'), tour: web('tour.html'), embed: web('embed.html'), 'embed-start': web('src/shells/embed-start.js'),
        'posenc-view': web('src/shells/posenc-view.js') },
      output: {
        // What every page needs before it can ask for its view, in two chunks: the engine's page side (engine/page.js and
        // what it imports: all <posenc-view>'s script imports before it starts the worker and the .wasm) and the rest
        // of the shells' static imports (state, stage, session, describe.json, the view and family registries,
        // single-view.js; the bundler's helpers), the entries (each runs its page), the tour's stops and the style sheets
        // left out. Split automatically, they were 15 files of 0.1-12 KB shared by the entries in different sets, which
        // a phone network fetched six at a time (HTTP/1.1), sharing its bandwidth with the .wasm, before the view's, the
        // family's and the worker's files could be asked for: about 0.3 s later (issue 40, tests/bench/embed-weight.mjs
        // --phone).
        codeSplitting: { groups: [
          // What embed-start.js (embed.html's first script) runs: the view modules' URLs and groups (and the decay
          // comparison's range control, families/compare.js, and which module a view starts on, engine/modules.js),
          // 1 KB of its own.
          { name: 'view-wasm', tags: ['$initial'], priority: 2,
            test: /[\\/]engine[\\/](view-wasm|view-groups|modules)\.js$|[\\/]view-groups\.json|[\\/]posenc-view[\w-]*\.wasm\?url$|[\\/]families[\\/]compare\.js$/ },
          { name: 'engine-page', tags: ['$initial'], priority: 1, test: /[\\/]web[\\/]src[\\/]engine[\\/]/ },
          // The helpers the families' page files share (families/bias.js, rotary.js, fields.js and what they import),
          // one file of 2 KB, not five of 0.1-0.8 KB a level below the families': compare mode, which reads every
          // family's file before its first figure, fetched them two levels later, six at a time.
          { name: 'family-helpers', includeDependenciesRecursively: false,
            test: /[\\/]families[\\/](bias|rotary|fields)\.js$|[\\/]lib[\\/]spread\.js$/ },
          { name: 'shell', tags: ['$initial'],
            test: (id) => !/node_modules|\.(html|css)($|\?)|[\\/]tour[\\/]|[\\/]shells[\\/](main|embed|embed-start|tour|posenc-view)\.js$/.test(id) },
        ] },
        entryFileNames: (chunk) => (chunk.name === 'posenc-view' ? 'posenc-view.js' : 'assets/[name]-[hash].js'),
        // Chunks that hold the plotting libraries are named for them (scripts/sizes.mjs reports them so);
        // the bundler decides the split: a heatmap alone loads d3's scales and axes, not Observable Plot.
        chunkFileNames: (chunk) => {
          const ids = chunk.moduleIds ?? [];
          if (ids.some((id) => /node_modules[\\/]@observablehq/.test(id))) return 'assets/lib-plot-[hash].js';
          if (ids.some((id) => /node_modules[\\/]d3/.test(id))) return 'assets/lib-d3-[hash].js';
          return 'assets/[name]-[hash].js';
        },
      },
    },
  },
  plugins: [copyExamples, contentSecurityPolicy, startViewWasm],
  // d3-geo (map projections, which no view draws) left out of Observable Plot's chunk: web/src/lib/no-d3-geo.js.
  resolve: { alias: [{ find: /^d3-geo$/, replacement: web('src/lib/no-d3-geo.js') }] },
  worker: { format: 'es', rollupOptions: { treeshake: HUGGINGFACE_TREESHAKE } },
  // Pre-bundle Plot up front so the first page load never reloads itself.
  optimizeDeps: { include: ['@observablehq/plot'] },
  server: { host: 'localhost' },
  preview: { host: 'localhost' },
});
