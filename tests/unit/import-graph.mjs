// The import graph of web/src, read from the source text: every static
// `import ... from '...'`, `import '...'` and `export ... from '...'` (and, for
// what a bundle holds, `import('...')` and `import(`./folder/${name}.js`)`, every
// file of the folder the bundler can name). Used by tests/unit/imports.test.mjs and
// tests/wasm/load-first.test.mjs.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web/src');

/** Every .js file under dir, as paths relative to web/src ('families/page/rope.js'). */
export function modules(dir = SRC) {
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
// A template of one folder, import(`./page/${type}.js`): what the bundler reads as every file it can name there.
const TEMPLATE = /\bimport\(\s*`([^`$]*)\$\{[^}`]*\}([^`$]*)`\s*\)/g;

/** The modules of web/src a template import in `file` can name: its folder's files with the prefix and suffix. */
function templateTargets(file, [, before, after]) {
  const folder = path.posix.dirname(path.posix.join(path.posix.dirname(file), before + 'x'));
  const stem = path.posix.basename(before + 'x').slice(0, -1);
  return modules().filter((m) => path.posix.dirname(m) === folder && path.posix.basename(m).startsWith(stem) && m.endsWith(after))
    .map((m) => `./${path.posix.relative(path.posix.dirname(file), m)}`);
}

/** The specifiers of `file`'s static imports, as written ('./engine-worker.js?worker&url', 'd3'). */
export function specifiersOf(file) {
  const text = stripComments(fs.readFileSync(path.join(SRC, file), 'utf8'));
  return [...new Set([...text.matchAll(STATIC)].map((m) => m[1]))];
}

/** The web/src modules `file` imports (relative specifiers only; packages and ?query suffixes dropped; .js files only). */
export function importsOf(file, { dynamic = false } = {}) {
  const text = stripComments(fs.readFileSync(path.join(SRC, file), 'utf8'));
  const specifiers = [...text.matchAll(STATIC)].map((m) => m[1]);
  if (dynamic) {
    specifiers.push(...[...text.matchAll(DYNAMIC)].map((m) => m[1]));
    specifiers.push(...[...text.matchAll(TEMPLATE)].flatMap((m) => templateTargets(file, m)));
  }
  return [...new Set(specifiers
    .filter((s) => s.startsWith('./') || s.startsWith('../'))
    .map((s) => path.posix.normalize(path.posix.join(path.posix.dirname(file), s.split('?')[0])))
    .filter((s) => s.endsWith('.js') && !s.startsWith('..')))];
}

/** {file: [imported files]} over every module of web/src. */
export function graphOf(options) {
  return Object.fromEntries(modules().map((f) => [f, importsOf(f, options)]));
}

/** The first cycle found, as [a, b, ..., a], or null. */
export function findCycle(graph) {
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
export function reachable(graph, from) {
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
