// The bench's kernel-path plumbing (tests/bench): the relaxed-SIMD probe module, the
// FMA peak probe's flop count, which paths a module offers, the % of which peak an
// engine is given (the baseline build's too), and the issue 27 targets computed from
// results made up here.
// Nothing here times anything.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { RELAXED_PROBE } from '../bench/peak-core.mjs';
import { kernelPaths, useKernelPath } from '../bench/peers/posenc-engine.mjs';
import { pathRows, peakFor, POSENC_BASELINE, POSENC_SIMD128 } from '../bench/paths.mjs';
import { evaluateTargets } from '../bench/targets.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const FLAG = '--experimental-wasm-relaxed-simd';

/** Runs `code` (an ES module body) in a Node with relaxed SIMD on; returns its stdout. */
function withRelaxed(code) {
  return execFileSync(process.execPath, [FLAG, '--input-type=module', '-e', code], { encoding: 'utf8' }).trim();
}

test('RELAXED_PROBE is a valid module where relaxed SIMD runs, and only its relaxed_madd makes it so', () => {
  assert.equal(withRelaxed(`import { RELAXED_PROBE } from '${new URL('../bench/peak-core.mjs', import.meta.url)}'; process.stdout.write(String(WebAssembly.validate(RELAXED_PROBE)))`), 'true');
  // The same bytes with an opcode no proposal defines (0xfd 0xff 0x03) do not validate: the probe is not valid by accident.
  const broken = Uint8Array.from(RELAXED_PROBE);
  const at = broken.findIndex((b, i) => b === 0xfd && broken[i + 1] === 0x85 && broken[i + 2] === 0x02);
  assert.ok(at > 0);
  broken[at + 1] = 0xff;
  broken[at + 2] = 0x03;
  assert.equal(WebAssembly.validate(broken), false);
});

test('peak-relaxed.wat: peakN does 4 relaxed_madd steps per iteration on each of its N accumulators (32 N flops)', (t) => {
  if (spawnSync('wat2wasm', ['--version']).error) return t.skip('wat2wasm is not installed');
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'posenc-peak-')), 'peak-relaxed.wasm');
  execFileSync('wat2wasm', ['--enable-relaxed-simd', path.join(here, '../bench/peak-relaxed.wat'), '-o', out]);
  // With m = 1 and c = 1 each step adds 1: accumulator i (lanes all i) ends at i + 4 * iterations,
  // and peakN returns the sum over its 4 lanes and N accumulators: 4 (N (N - 1) / 2 + 4 N iterations).
  const sums = JSON.parse(withRelaxed(`import fs from 'node:fs';
    const { instance } = await WebAssembly.instantiate(fs.readFileSync('${out}'));
    process.stdout.write(JSON.stringify([4, 6, 8, 10, 12].map((n) => instance.exports['peak' + n](3, 1, 1))));`));
  assert.deepEqual(sums, [4, 6, 8, 10, 12].map((n) => 4 * (n * (n - 1) / 2 + 4 * n * 3)));
});

/** A module stand-in with the kernel-path API; `relaxed` says whether it can run relaxed SIMD. */
function fakeModule(relaxed) {
  let current = 'simd128';
  return {
    kernelPath: () => current,
    useKernels(p) {
      if (p !== 'simd128' && (p !== 'relaxed-simd' || !relaxed)) {
        throw Object.assign(new RangeError(`no ${p} here`), { param: 'path', value: p, allowed: ['simd128'] });
      }
      current = p;
    },
  };
}

test('kernelPaths: both paths, the relaxed one first, when the module has them; SIMD128 alone otherwise, saying why', () => {
  assert.deepEqual(kernelPaths({}), { paths: ['simd128'], relaxed: 'not in this build' });
  const both = fakeModule(true);
  assert.deepEqual(kernelPaths(both).paths, ['relaxed-simd', 'simd128']);
  assert.equal(both.kernelPath(), 'simd128', 'the module stays on the path it was on');
  const one = kernelPaths(fakeModule(false));
  assert.deepEqual(one.paths, ['simd128']);
  assert.match(one.relaxed, /unavailable here: no relaxed-simd here/);
  assert.equal(useKernelPath(both, 'relaxed-simd').kernelPath(), 'relaxed-simd');
  assert.throws(() => useKernelPath({}, 'relaxed-simd'), (e) => e instanceof RangeError && e.param === 'path');
});

/** An attention workload's result with these medians (ms) per engine; flops chosen so 1 ms = 10 GFLOP/s. */
function attention(id, medians) {
  const flops = 1e7;
  return { id, title: id, flops, engines: Object.fromEntries(Object.entries(medians).map(([name, ms]) => [name, { status: 'ok', medianMs: ms, gflops: flops / (ms * 1e6) }])) };
}

const chromium = (posencMs, simdMs, libMs) => ({
  kernelPaths: { posenc: 'relaxed-simd', [POSENC_SIMD128]: 'simd128' }, relaxed: 'available',
  peak: { gflops: 20 }, peakRelaxed: { gflops: 40 },
  workloads: Object.fromEntries(['attention-d64-n128', 'attention-d64-n512-causal'].map((id, k) => [id,
    attention(id, { posenc: posencMs[k], [POSENC_SIMD128]: simdMs[k], 'tfjs-wasm': libMs[k] * 2, 'ORT-web': libMs[k] })])),
});

test('paths: the relaxed path is a share of the FMA peak, SIMD128 and the peers of the SIMD peak', () => {
  const c = chromium([0.25, 0.5], [0.5, 1], [1, 1]);
  assert.equal(peakFor(c, 'posenc'), 40);
  assert.equal(peakFor(c, POSENC_SIMD128), 20);
  assert.equal(peakFor(c, 'ORT-web'), 20);
  const [row] = pathRows(c);
  assert.deepEqual(row.best, { ms: 1, name: 'ORT-web' });
  assert.deepEqual(row.paths.map((p) => [p.name, p.speedup, p.percentOfPeak]), [['posenc', 4, 100], [POSENC_SIMD128, 2, 100]]);
});

const target = (results, id) => evaluateTargets(results).find((t) => t.id === id);

test('targets: relaxed path in Chromium against the libraries and the FMA peak; not measured, and why, without that path', () => {
  // posenc 2x and 1.25x faster than ORT (the faster library): the worst, 1.25x, misses 1.5x.
  const r = { workloads: {}, chromium: chromium([0.5, 0.8], [1, 1], [1, 1]) };
  const vs = target(r, 'chromium-attention-relaxed-vs-libraries');
  assert.equal(vs.value, 1.25);
  assert.equal(vs.met, false);
  assert.match(vs.detail, /attention-d64-n512-causal vs ORT-web/);
  // n >= 512 only: 0.8 ms = 12.5 GFLOP/s of a 40 GFLOP/s FMA peak.
  const peak = target(r, 'chromium-attention-fma-peak');
  assert.equal(peak.value, 31.25);
  assert.equal(peak.met, false);
  const simdOnly = { workloads: {}, chromium: { ...chromium([0.5, 0.8], [1, 1], [1, 1]), kernelPaths: { posenc: 'simd128' }, relaxed: 'not in this build' } };
  for (const id of ['chromium-attention-relaxed-vs-libraries', 'chromium-attention-fma-peak']) {
    const t = target(simdOnly, id);
    assert.equal(t.met, null);
    assert.equal(t.detail, 'relaxed path: not in this build');
  }
});

test('targets: the SIMD128 path over the baseline build, same run, worst workload; <= 1.05x meets it; not measured, and why, without one', () => {
  // SIMD128 path at 1.04 and 2.2 ms, the baseline build at 1 and 2 ms in the same rounds: 1.04x and 1.10x.
  const withBaseline = (simdMs, baselineMs) => {
    const c = chromium([0.5, 0.8], simdMs, [1, 1]);
    baselineMs.forEach((ms, k) => { Object.values(c.workloads)[k].engines[POSENC_BASELINE] = { status: 'ok', medianMs: ms }; });
    return { ...c, baselineBuild: { dir: '/old', version: '0.9', kernelPath: 'simd128' } };
  };
  const slower = target(withBaseline([1.04, 2.2], [1, 2]), 'simd128-vs-baseline');
  assert.ok(Math.abs(slower.value - 1.1) < 1e-9, String(slower.value));
  assert.equal(slower.met, false);
  assert.match(slower.detail, /^worst attention-d64-n512-causal: posenc \(simd128\) 2\.20 ms, baseline 2\.00 ms; 2 workloads/);
  const within = target(withBaseline([1.04, 2.08], [1, 2]), 'simd128-vs-baseline');
  assert.ok(Math.abs(within.value - 1.04) < 1e-9, String(within.value));
  assert.equal(within.met, true);
  // The baseline's entry is not taken for the SIMD128 path (it is not in kernelPaths), and 'posenc' (relaxed) is not compared.
  assert.equal(target(withBaseline([3, 3], [1, 1]), 'simd128-vs-baseline').value, 3);
  // A module with the SIMD128 path only: 'posenc' is that path.
  const simdOnly = withBaseline([9, 9], [1, 2]);
  simdOnly.kernelPaths = { posenc: 'simd128' };
  assert.equal(target(simdOnly, 'simd128-vs-baseline').value, 0.5, 'posenc at 0.5 and 0.8 ms over 1 and 2 ms');
  // The same in the Chromium section; the Node results have no attention workload, so the Node target is not measured.
  const inChromium = target({ workloads: {}, chromium: withBaseline([1.04, 2.2], [1, 2]) }, 'chromium-simd128-vs-baseline');
  assert.equal(inChromium.met, false);
  assert.equal(target({ workloads: {}, chromium: withBaseline([1.04, 2.2], [1, 2]) }, 'simd128-vs-baseline').met, null);
  // Not measured: no baseline build given, or it did not start.
  const none = target(chromium([0.5, 0.8], [1, 1], [1, 1]), 'simd128-vs-baseline');
  assert.equal(none.met, null);
  assert.match(none.detail, /--baseline-build DIR/);
  const broken = target({ ...chromium([0.5, 0.8], [1, 1], [1, 1]), baselineBuild: { dir: '/old', error: 'no posenc.wasm' } }, 'simd128-vs-baseline');
  assert.equal(broken.met, null);
  assert.equal(broken.detail, 'baseline build /old: no posenc.wasm');
});

test('paths: the baseline build is a row of the paths table, a share of the SIMD peak', () => {
  const c = chromium([0.25, 0.5], [0.5, 1], [1, 1]);
  c.baselineBuild = { dir: '/old', version: '0.9', kernelPath: 'simd128' };
  c.workloads['attention-d64-n128'].engines[POSENC_BASELINE] = { status: 'ok', medianMs: 0.25, gflops: 40 };
  assert.equal(peakFor(c, POSENC_BASELINE), 20);
  const [row] = pathRows(c);
  assert.deepEqual(row.paths.map((p) => [p.name, p.speedup, p.percentOfPeak]), [['posenc', 4, 100], [POSENC_SIMD128, 2, 100], [POSENC_BASELINE, 4, 200]]);
});

test('targets: each embed within 150 KB before its first figure and 400 ms to it, both, or not met', () => {
  const page = (name, kb, ms) => ({ name, view: name, beforeBytes: kb * 1024, firstFigureMs: ms });
  const r = (pages) => ({ workloads: {}, embedWeight: { pages: [...pages, { name: 'playground', view: null, beforeBytes: 900 * 1024, firstFigureMs: 900 }] } });
  const ok = target(r([page('heatmap', 120, 300), page('waves', 140, 390)]), 'embed-first-figure');
  assert.equal(ok.met, true, 'the playground is not an embed');
  assert.equal(ok.value, 140);
  const slow = target(r([page('heatmap', 120, 300), page('waves', 140, 410)]), 'embed-first-figure');
  assert.equal(slow.met, false);
  assert.match(slow.detail, /slowest: waves 410 ms; 1 of 2 miss either/);
});
