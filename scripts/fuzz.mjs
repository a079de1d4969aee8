// npm run fuzz: the fuzz of npm test, much longer, then the libFuzzer targets.
//  1. The JS API fuzz of tests/wasm/fuzz.mjs: FUZZ_CALLS calls (1,000,000) from
//     FUZZ_SEED, with the aggressive sizes (legal values up to the core's limits;
//     FUZZ_AGGRESSIVE=0 for npm test's sizes), in slices run by a watched worker: a
//     call that never returns is reported and the run goes on after it.
//  2. tests/fuzz/*.cpp under libFuzzer with ASan and UBSan (CMake preset fuzz,
//     clang-14), each for FUZZ_SECONDS (120) from a corpus of describe()'s specs,
//     going on past crashes (-fork=1): every crash, timeout or sanitizer report
//     is listed. Skipped, and said so, without clang++-14.
// Exits 1 when either found something.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fuzzInWorker } from '../tests/wasm/fuzz-run.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const calls = Number(process.env.FUZZ_CALLS ?? 1000000);
const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2147483647);
const aggressive = process.env.FUZZ_AGGRESSIVE !== '0';
const seconds = Number(process.env.FUZZ_SECONDS ?? 120);
const SLICE = 50000;

let failed = false;

// 1. The JS API.
const counts = {};
const findings = [];
const start = Date.now();
console.log(`fuzz: ${calls} calls of the JS API, seed ${seed}${aggressive ? ', aggressive sizes' : ''} (FUZZ_SEED=${seed} to repeat)`);
for (let from = 0; from < calls;) {
  const to = Math.min(calls, from + SLICE);
  const report = await fuzzInWorker({ seed, from, to, aggressive, limitMs: 2000, maxFindings: 20 }, 5000);
  for (const [k, v] of Object.entries(report.counts)) counts[k] = (counts[k] || 0) + v;
  findings.push(...report.findings);
  from = report.stalled ? report.findings[report.findings.length - 1].index + 1 : to;
  process.stdout.write(`\r  ${from} calls, ${((Date.now() - start) / 1000).toFixed(0)} s, ${findings.length} findings`);
}
console.log(`\nfuzz: ${calls} calls in ${((Date.now() - start) / 1000).toFixed(0)} s: ${Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(', ')}`);
const shown = new Set();
for (const f of findings) {
  const key = `${f.category} ${f.call.split('(')[0]} ${String(f.detail).replace(/\d+/g, '#')}`;
  if (shown.has(key)) continue;
  shown.add(key);
  console.log(`  #${f.index} ${f.category}: ${f.detail}\n      ${f.call}`);
}
if (findings.length) failed = true;

// 2. libFuzzer.
const hasClang = spawnSync('clang++-14', ['--version']).status === 0;
if (!hasClang) {
  console.log('fuzz: clang++-14 is missing (apt-get install clang-14 libclang-rt-14-dev): libFuzzer targets skipped');
} else {
  const build = path.join(root, 'build/fuzz');
  execFileSync('cmake', ['--preset', 'fuzz'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync('cmake', ['--build', '--preset', 'fuzz'], { cwd: root, stdio: 'inherit' });
  const describe = JSON.parse(fs.readFileSync(path.join(root, 'web/generated/describe.json'), 'utf8'));
  // A corpus of one spec per family (its defaults) and one per rope_type, for both targets.
  const specs = [];
  for (const family of describe.families) {
    const spec = { type: family.type };
    for (const key of family.keys) if (key.default !== null && key.kind !== 'object') spec[key.name] = key.default;
    specs.push(spec);
  }
  for (const type of describe.rope_types) {
    const scaling = { rope_type: type.name };
    for (const key of type.keys) scaling[key.name] = key.kind === 'list' ? [1, 1, 1, 1] : key.kind === 'boolean' ? true : 2;
    specs.push({ type: 'rope', head_dim: 8, max_position_embeddings: 64, rope_scaling: scaling });
  }
  specs.push({ text: 'the cat sat', d_model: 8, d_head: 8, encoding: { type: 'rope' } });
  specs.push({ n: 3, d_model: 4, d_head: 4, causal: true, encoding: { type: 'alibi' } });
  for (const target of ['json', 'entry']) {
    const corpus = path.join(build, `corpus-${target}`);
    const artifacts = path.join(build, `artifacts-${target}`);
    fs.rmSync(artifacts, { recursive: true, force: true });
    fs.mkdirSync(corpus, { recursive: true });
    fs.mkdirSync(artifacts, { recursive: true });
    specs.forEach((spec, k) => {
      const text = Buffer.from(JSON.stringify(spec));
      if (target === 'json') fs.writeFileSync(path.join(corpus, `seed-${k}`), text);
      else for (let which = 0; which < 12; which++) fs.writeFileSync(path.join(corpus, `seed-${k}-${which}`), Buffer.concat([Buffer.from([which, 3, 5, 7]), text]));
    });
    console.log(`fuzz: posenc_fuzz_${target} for ${seconds} s`);
    const run = spawnSync(path.join(build, `posenc_fuzz_${target}`),
      ['-fork=1', '-ignore_crashes=1', '-ignore_timeouts=1', '-ignore_ooms=1', `-max_total_time=${seconds}`,
        '-timeout=10', '-rss_limit_mb=4096', `-artifact_prefix=${artifacts}/`, corpus],
      { encoding: 'utf8', env: { ...process.env, ASAN_OPTIONS: 'halt_on_error=1', UBSAN_OPTIONS: 'print_stacktrace=1:halt_on_error=1' }, maxBuffer: 1 << 28 });
    const log = `${run.stdout}${run.stderr}`;
    fs.writeFileSync(path.join(build, `fuzz-${target}.log`), log);
    const summaries = [...new Set(log.split('\n').filter((line) => /^SUMMARY:|ERROR: libFuzzer: (timeout|out-of-memory|deadly signal)|runtime error:/.test(line)))];
    const crashes = fs.readdirSync(artifacts);
    const stats = log.split('\n').filter((line) => /^#\d+/.test(line)).pop() || '';
    console.log(`  ${stats.trim()}`);
    console.log(`  ${crashes.length} artifacts in ${artifacts}${summaries.length ? ':' : ''}`);
    for (const line of summaries.slice(0, 20)) console.log(`    ${line.trim()}`);
    if (crashes.length) failed = true;
  }
}
process.exit(failed ? 1 : 0);
