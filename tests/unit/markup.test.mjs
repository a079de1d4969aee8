// The page writes no markup (README, "Under a strict Content-Security-Policy"): no module of web/src gives a string to
// an HTML sink; Trusted Types have one policy, in engine/spawn.js; the README documents the policy the built pages
// carry (scripts/csp.mjs). The browser tests enforce the policy on every page they open (tests/e2e/browser.mjs) and
// feed script payloads through every reader (tests/e2e/csp.test.mjs); this finds a sink on a path they do not take.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { SRC, modules } from './import-graph.mjs';
import { PAGE_POLICY } from '../../scripts/csp.mjs';

// Comments first: a sink named in a comment is not a use of it.
const code = (file) => fs.readFileSync(path.join(SRC, file), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');

// Every way a string becomes markup or script in a page: element and document sinks, d3's selection.html, a parser,
// an iframe's srcdoc, an inline event handler set as an attribute.
const SINKS = [/\.(innerHTML|outerHTML)\s*\+?=/, /\binsertAdjacentHTML\s*\(/, /\bcreateContextualFragment\s*\(/, /\bDOMParser\b/,
  /\bsetHTMLUnsafe\s*\(/, /\bparseHTMLUnsafe\s*\(/, /\.html\s*\(/, /\bsrcdoc\b/, /\bdocument\.write(ln)?\s*\(/,
  /setAttribute\(\s*['"`]on/i];

test('the sink patterns match what they are for, and not ordinary text', () => {
  const hits = (text) => SINKS.filter((s) => s.test(text)).length;
  for (const sink of ['e.innerHTML = s', 'e.outerHTML += s', 'e.insertAdjacentHTML("beforeend", s)', 'new DOMParser()',
    'd3.select(e).html(s)', 'frame.srcdoc = s', 'document.write(s)', "e.setAttribute('onclick', s)", 'e.setHTMLUnsafe(s)']) {
    assert.equal(hits(sink), 1, sink);
  }
  for (const fine of ['e.textContent = s', 'e.append(s)', "e.setAttribute('title', s)", 'const html = 1', 'katex.html']) {
    assert.equal(hits(fine), 0, fine);
  }
});

test('no module of web/src gives a string to an HTML sink', () => {
  const found = modules().flatMap((file) => code(file).split('\n').flatMap((line, k) => (SINKS.some((s) => s.test(line))
    ? [`${file}:${k + 1}: ${line.trim()}`] : [])));
  assert.deepEqual(found, []);
});

test('Trusted Types: one policy, "posenc", made in engine/spawn.js', () => {
  const makers = modules().filter((file) => /\bcreatePolicy\s*\(/.test(code(file)));
  assert.deepEqual(makers, ['engine/spawn.js']);
  assert.deepEqual([...code('engine/spawn.js').matchAll(/createPolicy\(\s*'([^']*)'/g)].map((m) => m[1]), ['posenc']);
  assert.match(PAGE_POLICY, /(^|; )trusted-types posenc($|;)/);
  assert.match(PAGE_POLICY, /(^|; )require-trusted-types-for 'script'($|;)/);
  assert.doesNotMatch(PAGE_POLICY, /'unsafe-eval'|'unsafe-inline'|'allow-duplicates'|trusted-types [^;]*default/);
});

test('the README documents the policy the built pages carry', () => {
  const readme = fs.readFileSync(path.join(SRC, '../../README.md'), 'utf8');
  assert.ok(readme.includes(`\nContent-Security-Policy: ${PAGE_POLICY}\n`), 'the header in "Under a strict Content-Security-Policy"');
});
