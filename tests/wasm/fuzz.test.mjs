// npm test's fuzz of the JS API (tests/wasm/fuzz.mjs says what is checked):
// 20,000 seeded calls across every function, in well under a minute. A failure
// prints the calls to rebuild: FUZZ_SEED=<seed> and the index.
import test from 'node:test';
import assert from 'node:assert/strict';
import { apiFunctions, FAILURES } from './fuzz.mjs';
import { fuzzInWorker } from './fuzz-run.mjs';

const seed = Number(process.env.FUZZ_SEED ?? 20261123);
const calls = 20000;

// No per-call time limit here (a loaded machine is slow, not wrong: npm run fuzz keeps its 2 s limit); a call that never
// answers is still caught: the watchdog stops the worker after a minute without progress and names the call.
test(`fuzz: ${calls} seeded calls (seed ${seed}) of every JS API function: no hang, NaN, vague message, non-Error throw or broken instance`, async () => {
  const report = await fuzzInWorker({ seed, to: calls, limitMs: Infinity }, 60000);
  const summary = Object.entries(report.counts).map(([k, v]) => `${k} ${v}`).join(', ');
  console.log(`# fuzz: ${calls} calls in ${(report.ms / 1000).toFixed(1)} s: ${summary}`);
  for (const f of report.findings) console.log(`# fuzz finding #${f.index} ${f.category}: ${f.detail}\n#   ${f.call}`);
  if (!report.stalled) {
    const missed = apiFunctions().filter((name) => name !== 'heapBytesInUse' && !report.byFunction[name]);
    assert.deepEqual(missed, [], 'every function was called');
    assert.ok(report.counts.ok > calls / 5 && report.counts.refused > calls / 5, `both accepted and refused calls: ${summary}`);
  }
  const failed = report.findings.filter((f) => FAILURES.includes(f.category));
  assert.deepEqual(failed.map((f) => `#${f.index} ${f.category}: ${f.detail} in ${f.call}`), []);
});
