// npm test's runner: the suite's steps in order (the installs, each build, each tier), each timed, and at the end a
// table of what every step and every test file cost, so whoever adds a test or a build sees its price.
//   node scripts/test.mjs [tier ...]   tiers: unit native asan wasm e2e (npm test: all of them, in that order)
// A step another tier already ran in this call (the wasm build before the browser tier) runs once. The node:test tiers
// write their per-file times to build/test-times/<tier>.json (scripts/test-times.mjs); the table reads them.
import { spawn } from 'node:child_process';
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
    { name: 'wasm tests', needs: BUILD_WASM, run: nodeTest('wasm', 'tests/wasm/', ['--experimental-wasm-relaxed-simd'], ['--test-concurrency=2']), times: 'wasm' }],
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

/**
 * Runs one step: {status, signal, output} (output: what it printed, when `captured`; otherwise it printed as it ran).
 */
function runStep(step, { captured }, children) {
  return new Promise((resolve) => {
    const child = spawn(step.run[0], step.run.slice(1), { cwd: root, stdio: captured ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    children.add(child);
    let output = '';
    child.stdout?.on('data', (d) => { output += d; });
    child.stderr?.on('data', (d) => { output += d; });
    child.on('error', (error) => { children.delete(child); resolve({ status: null, signal: error.message, output }); });
    child.on('close', (status, signal) => { children.delete(child); resolve({ status, signal, output }); });
  });
}

/** The processes under `pid` (its children, theirs, ...), from /proc (Linux; elsewhere none). */
function descendants(pid) {
  const children = new Map();
  for (const p of fs.existsSync('/proc') ? fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)) : []) {
    try {
      const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(p)]);
    } catch { /* gone */ }
  }
  const found = [];
  for (const queue = [pid]; queue.length;) for (const c of children.get(queue.shift()) ?? []) { found.push(c); queue.push(c); }
  return found;
}

/** Stops every step still running, and everything each started. */
function stopAll(children) {
  for (const child of children) {
    for (const pid of [child.pid, ...descendants(child.pid)]) try { process.kill(pid, 'SIGTERM'); } catch { /* gone */ }
  }
}

async function main(args) {
  const unknown = args.filter((a) => !Object.hasOwn(TIERS, a));
  if (unknown.length) {
    console.error(`test.mjs: unknown tier ${unknown.join(', ')} (the tiers: ${Object.keys(TIERS).join(', ')})`);
    return 2;
  }
  const tiers = args.length ? args : Object.keys(TIERS);
  fs.mkdirSync(timesDir, { recursive: true });
  const bootstrap = { name: 'bootstrap (Debian packages, npm ci)', run: ['bash', 'scripts/bootstrap.sh', ...(tiers.includes('e2e') ? ['--browser'] : [])] };
  const steps = [];
  for (const tier of tiers) for (const step of TIERS[tier]) if (!steps.some((s) => s.run.join(' ') === step.run.join(' '))) steps.push(step);
  // Two lanes when the browser tier runs with others: the browser tier (its builds first), and every other step beside
  // it, their output printed after the browser tier's; a failure in either stops both. Alone, a tier's steps run in
  // order. Measured from clean clones on this 2-core machine: in order 1,086 s; two lanes 984 and 1,020 s. The browser tier
  // leaves a third of a core idle on average, but whatever runs beside it slows it (its 705 s became 914 s), so the
  // lanes gain less than that idle time; with the other lane at nice 19 (its own scheduler autogroup at 19 too, or
  // Chromium's autogroup takes half the cores whatever the nice) the browser still slowed to 853 s and the run took
  // 1,068 s: the lanes share the cores evenly.
  const front = tiers.includes('e2e') && tiers.length > 1 ? steps.filter((s) => TIERS.e2e.includes(s)) : steps;
  const back = steps.filter((s) => !front.includes(s));
  const done = [];
  const children = new Set();
  const onSignal = (signal) => { stopAll(children); process.exit(signal === 'SIGINT' ? 130 : 143); };
  process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
  const start = Date.now();
  let failed = null;
  // Each step's end, for a step of the other lane that needs it (the wasm tests, the wasm build).
  const ended = new Map(steps.map((step) => { let end; const promise = new Promise((r) => { end = r; }); return [step, { promise, end }]; }));
  const runLane = async (lane, background) => {
    for (const step of lane) {
      if (step.needs) await ended.get(step.needs)?.promise;
      if (failed) return;
      if (step.times) fs.rmSync(path.join(timesDir, `${step.times}.json`), { force: true });
      const t = Date.now();
      const ticks = cpuTicks();
      const result = await runStep(step, { captured: step.quiet || background }, children);
      const record = { ...step, background, at: t - start, ms: Date.now() - t, cores: busyCores(ticks, cpuTicks()), output: background ? result.output : '' };
      done.push(record);
      ended.get(step)?.end();
      if (result.status !== 0 && !failed) {
        if (step.quiet || background) process.stdout.write(`\n## ${step.name}: its output\n${result.output}`);
        record.output = '';  // printed
        failed = `${step.name} (${step.run.join(' ')}) exited with ${result.status ?? result.signal}`;
        stopAll(children);
      }
      if (failed) return;
    }
  };
  await runLane([bootstrap], false);
  if (!failed) {
    // The back lane starts once the wasm build is done: beside it, that build (the browser tier's start) took 121 s
    // instead of 54.
    const afterWasm = async () => { if (front.includes(BUILD_WASM) && back.length) await ended.get(BUILD_WASM).promise; return runLane(back, true); };
    await Promise.all([runLane(front, false), afterWasm()].map((lane) => lane.finally(() => {
      if (failed) for (const { end } of ended.values()) end();  // a lane waiting on a step that will not run stops
    })));
  }
  for (const d of done.filter((s) => s.background && !s.quiet && s.output)) {
    process.stdout.write(`\n## ${d.name} (beside the browser tests): its output\n${d.output}`);
  }
  report(done, Date.now() - start);
  if (failed) console.error(`\nnpm test: FAILED at ${failed}`);
  return failed ? 1 : 0;
}

/** The table: each step's seconds, then each node:test tier's files, the costliest first. */
function report(done, totalMs) {
  console.log(`\n## What the suite cost (seconds, this run; from: its start, in seconds from the first step's; busy: the mean\n` +
    `number of the machine's ${CORES} cores in use meanwhile, by any step)\n`);
  for (const s of done.sort((a, b) => a.at - b.at)) {
    console.log(`${seconds(s.ms)}  from ${seconds(s.at).trim().padStart(6)}  ${Number.isNaN(s.cores) ? '         ' : `${s.cores.toFixed(2)} busy`}  ${s.name}${s.background ? ' (beside the browser tests)' : ''}`);
  }
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

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = await main(process.argv.slice(2));
