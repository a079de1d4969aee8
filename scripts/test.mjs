// npm test's runner: the suite's steps in order (the installs, each build, each tier), each timed, and at the end a
// table of what every step and every test file cost, so whoever adds a test or a build sees its price.
//   node scripts/test.mjs [tier ...]   tiers: unit native asan wasm e2e (npm test: all of them, in that order)
// A step another tier already ran in this call (the wasm build before the browser tier) runs once. The node:test tiers
// write their per-file times to build/test-times/<tier>.json (scripts/test-times.mjs); the table reads them.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const timesDir = path.join(root, 'build', 'test-times');

/** A node:test run of `dir` that prints the spec reporter's lines and writes each file's times for the table. */
const nodeTest = (tier, dir, flags = [], testFlags = []) => ['node', ...flags, '--test', ...testFlags, '--test-reporter=spec',
  '--test-reporter-destination=stdout', '--test-reporter=./scripts/test-times.mjs', `--test-reporter-destination=build/test-times/${tier}.json`, dir];
const cmake = (...args) => ['cmake', ...args];

const BUILD_WASM = { name: 'build wasm (configure, build, describe.json)', run: ['npm', 'run', '--silent', 'build:wasm'] };
const NATIVE_CONFIGURE = { name: 'configure native', run: cmake('--preset', 'native'), quiet: true };

/** The tiers, each its steps: {name, run: argv, quiet: its output only on failure, times: the tier of its file table}. */
export const TIERS = {
  unit: [{ name: 'unit tests', run: nodeTest('unit', 'tests/unit/'), times: 'unit' }],
  native: [NATIVE_CONFIGURE, { name: 'build native (core, tests, dump)', run: cmake('--build', '--preset', 'native', '--target', 'posenc_tests', 'posenc_dump') },
    { name: 'native tests (ctest)', run: ['ctest', '--preset', 'native'] }],
  asan: [{ name: 'configure asan', run: cmake('--preset', 'asan'), quiet: true },
    { name: 'build asan (the test binary)', run: cmake('--build', '--preset', 'asan') },
    { name: 'asan + ubsan tests (ctest)', run: ['ctest', '--preset', 'asan'] }],
  wasm: [BUILD_WASM, NATIVE_CONFIGURE, { name: 'build native posenc_dump', run: cmake('--build', '--preset', 'native', '--target', 'posenc_dump') },
    // Two files at a time: each is one thread of Node on the engine (132 s one at a time, 71 s two, on 2 cores).
    { name: 'wasm tests', run: nodeTest('wasm', 'tests/wasm/', ['--experimental-wasm-relaxed-simd'], ['--test-concurrency=2']), times: 'wasm' }],
  e2e: [BUILD_WASM, { name: 'vite build', run: ['npx', 'vite', 'build', '--logLevel', 'warn'] },
    { name: 'sizes (dist/ against its budget)', run: ['node', 'scripts/sizes.mjs'] },
    // One file at a time: a page keeps both cores busy (two at a time measured 184 s against 193 s for six files). One
    // browser for the run (scripts/with-browser.mjs): each file opens a context of it.
    { name: 'browser tests', run: ['node', 'scripts/with-browser.mjs', ...nodeTest('e2e', 'tests/e2e/', [], ['--test-concurrency=1'])],
      times: 'e2e' }],
};

const seconds = (ms) => (ms / 1000).toFixed(1).padStart(7);

/** The machine's busy and total CPU ticks since boot (Linux /proc/stat; null elsewhere): a step's busy cores. */
function cpuTicks() {
  try {
    const [, ...ticks] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
    const idle = ticks[3] + ticks[4];
    const total = ticks.slice(0, 8).reduce((a, b) => a + b, 0);
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}
const CORES = os.availableParallelism();
/** How many of the machine's cores were busy on average between two cpuTicks() (any process, not only the step's). */
const busyCores = (a, b) => (a && b && b.total > a.total ? ((b.busy - a.busy) / (b.total - a.total)) * CORES : NaN);

function main(args) {
  const unknown = args.filter((a) => !Object.hasOwn(TIERS, a));
  if (unknown.length) {
    console.error(`test.mjs: unknown tier ${unknown.join(', ')} (the tiers: ${Object.keys(TIERS).join(', ')})`);
    return 2;
  }
  const tiers = args.length ? args : Object.keys(TIERS);
  fs.mkdirSync(timesDir, { recursive: true });
  const steps = [{ name: 'bootstrap (Debian packages, npm ci)', run: ['bash', 'scripts/bootstrap.sh', ...(tiers.includes('e2e') ? ['--browser'] : [])] }];
  for (const tier of tiers) for (const step of TIERS[tier]) if (!steps.some((s) => s.run.join(' ') === step.run.join(' '))) steps.push(step);
  // In order, one step at a time. Tried from clean clones here: the other tiers beside the browser tier (which leaves a
  // third of a core idle) took 984 and 1,020 s against 1,086 s in order, but slowed the browser tier from 705 to
  // 880-914 s and shifted the soak's baseline (session.test.mjs) until it failed; at nice 19 they gained nothing (1,068 s).
  const done = [];
  const start = Date.now();
  let failed = null;
  for (const step of steps) {
    if (step.times) fs.rmSync(path.join(timesDir, `${step.times}.json`), { force: true });
    const t = Date.now();
    const ticks = cpuTicks();
    const result = spawnSync(step.run[0], step.run.slice(1), { cwd: root, stdio: step.quiet ? 'pipe' : 'inherit', encoding: 'utf8' });
    done.push({ ...step, ms: Date.now() - t, cores: busyCores(ticks, cpuTicks()) });
    if (result.status !== 0) {
      if (step.quiet) process.stdout.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
      failed = `${step.name} (${step.run.join(' ')}) exited with ${result.status ?? result.signal ?? result.error?.message}`;
      break;
    }
  }
  report(done, Date.now() - start);
  if (failed) console.error(`\nnpm test: FAILED at ${failed}`);
  return failed ? 1 : 0;
}

/** The table: each step's seconds, then each node:test tier's files, the costliest first. */
function report(done, totalMs) {
  console.log(`\n## What the suite cost (seconds, this run; busy: the mean number of the ${CORES} cores in use)\n`);
  for (const s of done) console.log(`${seconds(s.ms)}  ${Number.isNaN(s.cores) ? ' '.repeat(9) : `${s.cores.toFixed(2)} busy`}  ${s.name}`);
  console.log(`${seconds(totalMs)}  total`);
  for (const s of done.filter((d) => d.times)) {
    const file = path.join(timesDir, `${s.times}.json`);
    if (!fs.existsSync(file)) continue;
    const files = JSON.parse(fs.readFileSync(file, 'utf8'));
    console.log(`\n${s.times}: each file's wall time (one file at a time: its process, browser and server set-up included; several: what it\n` +
      'added to the tier\'s time), its tests, and their own time');
    for (const f of files.sort((a, b) => b.wallMs - a.wallMs)) {
      console.log(`${seconds(f.wallMs)}  ${String(f.tests).padStart(3)} tests ${seconds(f.testMs)}  ${path.relative(root, f.file)}`);
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2));
