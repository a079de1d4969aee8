// Every module of web/src that Node can load (no bundler-only import: a Vite
// ?worker, ?inline or ?raw suffix, a .css file) loads when it is the first one
// imported, in a fresh process: none depends on another having been imported
// before it (what an import cycle does: "Cannot access 'X' before
// initialization"). Here, not in tests/unit: the families read the core's
// describe.json, which the wasm build writes.
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { SRC, graphOf, modules, reachable, specifiersOf } from '../unit/import-graph.mjs';

const bundlerOnly = (file) => file === 'engine/worker.js' || file === 'engine/arm-worker.js'  // workers' entries: they answer `self`'s messages
  || specifiersOf(file).some((s) => s.includes('?') || s.endsWith('.css'));

const graph = graphOf();
const loadable = modules().filter((f) => !bundlerOnly(f) && ![...reachable(graph, f)].some(bundlerOnly));
// A module that imports nothing of web/src cannot depend on the order of others. views/ and lib/ import only views/,
// lib/ and errors.js, and each loads Observable Plot or d3 (seconds in all): the families and the top-level modules are loaded.
const importing = loadable.filter((f) => graph[f].length > 0 && !f.startsWith('views/') && !f.startsWith('lib/'));

test('most of web/src loads in Node: the families, views and lib, the state, formulas, config reader and stage', () => {
  for (const f of ['families/page/rope.js', 'families/index.js', 'families/compute.js', 'state.js', 'formulas.js', 'config/hf-config.js',
    'engine/calls.js', 'stage.js', 'views/waves.js']) {
    assert.ok(loadable.includes(f), f);
  }
});

test('each of them that imports others loads when imported first, in a fresh Node', async () => {
  const load = (file) => promisify(execFile)(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(path.join(SRC, file))});`])
    .then(() => null, (error) => `${file}: ${String(error.stderr).split('\n').find((l) => /^\w*Error\b/.test(l)) ?? error.message}`);
  const failed = [];
  for (let k = 0; k < importing.length; k += 4) failed.push(...(await Promise.all(importing.slice(k, k + 4).map(load))).filter(Boolean));
  assert.deepEqual(failed, []);
});
