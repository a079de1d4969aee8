// The import graph of web/src: no module imports itself back through others (a
// cycle makes the order modules initialise in depend on which is imported first:
// "Cannot access 'X' before initialization"), the engine's worker bundle holds
// none of the page's controls, state or presets (the config reader only as
// a chunk loaded on a paste), and the views
// draw what they are given without reading the page's state.
// The graph is read from the source text (import-graph.mjs).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { findCycle, graphOf, importsOf, modules, reachable } from './import-graph.mjs';

test('the reader of imports sees the forms web/src uses, and only those', () => {
  // A module known to import with each form: a named list over lines, a namespace, a ?query suffix, a dynamic import.
  assert.ok(importsOf('families/all.js').includes('families/page/rope.js'), "export * as rope from './page/rope.js'");
  assert.ok(importsOf('families/pages.js').includes('lib/format.js'), "import { format } from '../lib/format.js'");
  assert.ok(importsOf('engine/page.js').includes('engine/worker.js'), "import workerUrl from './worker.js?worker&url'");
  assert.ok(!importsOf('engine/page.js').includes('engine/server.js'), 'a dynamic import is not a static one');
  assert.ok(importsOf('engine/page.js', { dynamic: true }).includes('engine/server.js'));
  assert.ok(importsOf('families/trained.js', { dynamic: true }).includes('families/trained/t5-initial.js'), 'import(`./trained/${type}-initial.js`)');
  assert.ok(!importsOf('engine/worker.js').some((f) => f.startsWith('generated/') || f.startsWith('..')), 'only web/src modules');
  assert.deepEqual(findCycle({ a: ['b'], b: ['c'], c: ['a'] }), ['a', 'b', 'c', 'a']);
  assert.equal(findCycle({ a: ['b', 'c'], b: ['c'], c: [] }), null);
});

test('web/src has no import cycle (static imports)', () => {
  const cycle = findCycle(graphOf());
  assert.equal(cycle, null, `an import cycle: ${cycle?.join(' -> ')}`);
});

test('web/src has no import cycle through dynamic imports either', () => {
  const cycle = findCycle(graphOf({ dynamic: true }));
  assert.equal(cycle, null, `an import cycle: ${cycle?.join(' -> ')}`);
});

test("the engine's worker bundle holds none of the page's controls, state or presets; the config reader only on a paste", () => {
  const worker = reachable(graphOf(), 'engine/worker.js');
  assert.ok(worker.has('engine/calls.js'), 'the worker runs engine/calls.js');
  const configReader = ['config/hf-config.js', 'config/model-config.js', 'config/profile.js', 'config/profile-text.js', 'config/gguf.js'];
  const pageOnly = ['controls.js', 'state.js', 'config/presets.js', 'config/rope-presets.js', 'stage.js', 'shells/main.js'];
  assert.deepEqual([...pageOnly, ...configReader].filter((f) => worker.has(f)), [], 'statically: the bundle every embed loads');
  // A pasted config.json is parsed in the worker (calls.js readConfig), its reader a chunk of its own loaded then.
  const withDynamic = reachable(graphOf({ dynamic: true }), 'engine/worker.js');
  assert.deepEqual(configReader.filter((f) => !withDynamic.has(f)), [], 'the worker imports the config reader when a config is pasted');
  assert.deepEqual(pageOnly.filter((f) => withDynamic.has(f)), []);
});

test("the engine's worker loads the labs' fields and the arm workers' driver on a lab's first request, not before a view's figure", () => {
  // The arm worker is a bundle of its own (worker.js imports its URL): the worker's graph stops there.
  const worker = reachable({ ...graphOf(), 'engine/arm-worker.js': [] }, 'engine/worker.js');
  const labs = ['labs/experiment.js', 'labs/language-model.js', 'labs/model-profile-fields.js', 'labs/compare-mode-fields.js',
    'labs/rope-scalings.js', 'labs/drope.js', 'labs/schedule.js', 'lib/map-job.js', 'engine/arms.js', 'engine/lab-jobs.js'];
  assert.deepEqual(labs.filter((f) => worker.has(f)), [], 'statically: the bundle every embed loads');
  const withDynamic = reachable(graphOf({ dynamic: true }), 'engine/worker.js');
  assert.deepEqual(labs.filter((f) => !withDynamic.has(f)), [], 'each is a dynamic import of the worker');
});

test("the engine's worker loads a core family's fields when a request first names it: only that family's before a view's figure", () => {
  const worker = reachable({ ...graphOf(), 'engine/arm-worker.js': [] }, 'engine/worker.js');
  const families = importsOf('families/all.js');
  assert.ok(families.length > 10 && families.includes('families/page/rope.js'));
  assert.deepEqual(families.filter((f) => worker.has(f)), [], 'statically: the bundle every embed loads');
  assert.ok(!worker.has('labs/attention-lab.js') && !worker.has('families/all.js'));
  // Each is a dynamic import of the worker (families/compute.js, by the name all.js gives it).
  assert.deepEqual(families.filter((f) => !importsOf('families/compute.js', { dynamic: true }).includes(f)), []);
});

test('the pages load the per-layer profile and GGUF readers only when a config or file is read (in the worker)', () => {
  const graph = graphOf();
  for (const entry of ['shells/main.js', 'shells/embed.js', 'shells/tour.js', 'shells/posenc-view.js']) {
    const loaded = reachable(graph, entry);
    assert.deepEqual(['config/profile.js', 'config/profile-text.js', 'config/gguf.js'].filter((f) => loaded.has(f)), [], entry);
  }
});

test("no view reads the page's state: views draw what they are given", () => {
  const graph = graphOf({ dynamic: true });
  const views = modules().filter((f) => f.startsWith('views/'));
  assert.ok(views.length > 20);
  const readers = views.filter((v) => v === 'views/index.js' ? false : reachable(graph, v).has('state.js'));
  assert.deepEqual(readers, []);
  assert.deepEqual(views.filter((v) => reachable(graph, v).has('controls.js')), []);
});

test("an embed's and a component's static graph hold no family's page file, lab, config reader or controls: loaded when used", () => {
  // The worker is a bundle of its own (engine/page.js imports its URL): the page's graph stops there.
  const graph = { ...graphOf(), 'engine/worker.js': [] };
  // <posenc-view>'s own script holds the engine's page side only, so the worker and .wasm start first (and the decay
  // comparison's two view parameters, families/compare.js, an import-free module: the range its references ship at
  // picks the module, engine/view-groups.js); the views' code (single-view.js) it imports on demand.
  const component = [...reachable(graph, 'shells/posenc-view.js')].sort();
  assert.deepEqual(component.filter((f) => !f.startsWith('engine/') && !['lib/box-average.js', 'families/compare.js'].includes(f)), [],
    component.join(', '));
  assert.deepEqual(importsOf('families/compare.js'), []);
  assert.ok(importsOf('shells/posenc-view.js', { dynamic: true }).includes('shells/single-view.js'));
  for (const entry of ['shells/embed.js', 'shells/single-view.js', 'stage.js']) {
    const loaded = [...reachable(graph, entry)];
    assert.ok(loaded.includes('families/catalogue.js'), `${entry} reaches the families through catalogue.js`);
    const lazy = loaded.filter((f) => (f.startsWith('families/') && !['families/catalogue.js', 'families/trained.js', 'families/compare.js'].includes(f))
      || f.startsWith('labs/') || f.startsWith('config/') || f.startsWith('views/') && f !== 'views/index.js'
      || ['controls.js', 'formulas.js', 'lib/katex.js', 'export.js', 'engine/calls.js', 'engine/server.js', 'lib/plot.js'].includes(f));
    assert.deepEqual(lazy, [], entry);
  }
  // The playground's too: it loads its family's file when it shows it, the config reader's on a paste.
  const playground = reachable(graph, 'shells/main.js');
  assert.deepEqual([...playground].filter((f) => f.startsWith('labs/') || f.startsWith('config/') || f === 'families/index.js'), []);
});

test('catalogue.js loads every family: each loader names a module that exists, and its folder of page files holds the families of all.js only', async () => {
  const loaders = importsOf('families/catalogue.js', { dynamic: true }).filter((f) => !importsOf('families/catalogue.js').includes(f));
  assert.ok(loaders.includes('families/page/sinusoidal.js') && loaders.includes('config/rope-presets.js') && loaders.includes('labs/compare-mode.js'));
  assert.deepEqual(loaders.filter((f) => !modules().includes(f)), []);
  // The bundler splits every file of families/page/ into a chunk catalogue.js may load: each is a family of all.js.
  assert.deepEqual(loaders.filter((f) => f.startsWith('families/page/')).sort(), importsOf('families/all.js').sort());
});

test("each view's file is named by its view id (views/index.js)", () => {
  const text = fs.readFileSync(new URL('../../web/src/views/index.js', import.meta.url), 'utf8');
  const loaders = [...text.matchAll(/^\s+'?([\w-]+)'?: \(\) => import\('\.\/([\w-]+)\.js'\)/gm)].map(([, id, file]) => [id, file]);
  assert.ok(loaders.length > 30, `${loaders.length} loaders read`);
  assert.deepEqual(loaders.filter(([id, file]) => id !== file), []);
});
