// The import graph of web/src: no module imports itself back through others (a
// cycle makes the order modules initialise in depend on which is imported first:
// "Cannot access 'X' before initialization"), the engine's worker bundle holds
// none of the page's controls, state, presets or config reader, and the views
// draw what they are given without reading the page's state.
// Read from the source text: every static `import ... from '...'`, `import '...'`
// and `export ... from '...'` (and, for what a bundle holds, `import('...')`).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web/src');

/** Every .js file under dir, as paths relative to web/src ('families/rope.js'). */
function modules(dir = SRC) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return modules(full);
    return e.name.endsWith('.js') ? [path.relative(SRC, full).split(path.sep).join('/')] : [];
  });
}

// Comments first, so an import written in a comment is not read as one.
const stripComments = (text) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
const STATIC = /(?:^|;|\n)\s*(?:import|export)\s+(?:[\w*\s{},$]*?\s+from\s+)?['"]([^'"]+)['"]/g;
const DYNAMIC = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The web/src modules `file` imports (relative specifiers only; packages and ?query suffixes dropped; .js files only). */
export function importsOf(file, { dynamic = false } = {}) {
  const text = stripComments(fs.readFileSync(path.join(SRC, file), 'utf8'));
  const specifiers = [...text.matchAll(STATIC)].map((m) => m[1]);
  if (dynamic) specifiers.push(...[...text.matchAll(DYNAMIC)].map((m) => m[1]));
  return [...new Set(specifiers
    .filter((s) => s.startsWith('./') || s.startsWith('../'))
    .map((s) => path.posix.normalize(path.posix.join(path.posix.dirname(file), s.split('?')[0])))
    .filter((s) => s.endsWith('.js') && !s.startsWith('..')))];
}

/** {file: [imported files]} over every module of web/src. */
function graphOf(options) {
  return Object.fromEntries(modules().map((f) => [f, importsOf(f, options)]));
}

/** The first cycle found, as [a, b, ..., a], or null. */
function findCycle(graph) {
  const state = new Map();  // 1: on the current path, 2: done
  const stack = [];
  const visit = (node) => {
    state.set(node, 1);
    stack.push(node);
    for (const next of graph[node] ?? []) {
      if (state.get(next) === 1) return [...stack.slice(stack.indexOf(next)), next];
      if (!state.has(next)) {
        const found = visit(next);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(node, 2);
    return null;
  };
  for (const node of Object.keys(graph).sort()) {
    if (!state.has(node)) {
      const found = visit(node);
      if (found) return found;
    }
  }
  return null;
}

/** Every module `from` reaches through the graph, itself excluded. */
function reachable(graph, from) {
  const seen = new Set();
  const todo = [...(graph[from] ?? [])];
  while (todo.length) {
    const f = todo.pop();
    if (seen.has(f)) continue;
    seen.add(f);
    todo.push(...(graph[f] ?? []));
  }
  return seen;
}

test('the reader of imports sees the forms web/src uses, and only those', () => {
  // A module known to import with each form: a named list over lines, a namespace, a ?query suffix, a dynamic import.
  assert.ok(importsOf('families/compute.js').includes('families/rope.js'), 'import * as rope from ./rope.js');
  assert.ok(importsOf('families/pages.js').includes('lib/format.js'), "import { format } from '../lib/format.js'");
  assert.ok(importsOf('engine.js').includes('engine-worker.js'), "import workerUrl from './engine-worker.js?worker&url'");
  assert.ok(!importsOf('engine.js').includes('engine-calls.js'), 'a dynamic import is not a static one');
  assert.ok(importsOf('engine.js', { dynamic: true }).includes('engine-calls.js'));
  assert.ok(!importsOf('engine-worker.js').some((f) => f.startsWith('generated/') || f.startsWith('..')), 'only web/src modules');
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

test("the engine's worker bundle holds none of the page's controls, state, presets or config reader", () => {
  const graph = graphOf({ dynamic: true });
  const worker = reachable(graph, 'engine-worker.js');
  assert.ok(worker.has('engine-calls.js'), 'the worker runs engine-calls.js');
  const pageOnly = ['controls.js', 'state.js', 'presets.js', 'hf-config.js', 'model-config.js', 'stage.js', 'main.js'];
  assert.deepEqual(pageOnly.filter((f) => worker.has(f)), []);
});

test("no view reads the page's state: views draw what they are given", () => {
  const graph = graphOf({ dynamic: true });
  const views = modules().filter((f) => f.startsWith('views/'));
  assert.ok(views.length > 20);
  const readers = views.filter((v) => v === 'views/index.js' ? false : reachable(graph, v).has('state.js'));
  assert.deepEqual(readers, []);
  assert.deepEqual(views.filter((v) => reachable(graph, v).has('controls.js')), []);
});
