// The language-model lab's training step, timed per encoding: the lab's own request (requestOf: the quick model,
// d 64, 2 layers x 4 heads, MLP 256, RMSNorm, 16 windows of 64 characters a step) for each encoding, on Moby-Dick
// (train-lm.mjs's benchText), in this process's wasm module (one thread), as the page's worker trains it. The
// validation is off (validation_every 0): only the step is timed. Each round times `steps` steps of every encoding
// in turn, after `warmup` untimed ones; an encoding's ms per step is the median of its rounds' means, in wall time
// and in this process's CPU time (user + system: less sensitive to other processes on a loaded machine).
//   node --experimental-wasm-relaxed-simd tests/bench/train-step.mjs [--module DIR] [rounds] [steps] [encoding ...]
// --module DIR: the posenc.mjs and posenc.wasm of DIR instead of web/generated's (a build kept from before a change,
// to time both in the same minutes).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadPosenc } from '../wasm/load.mjs';
import { benchText } from './train-lm.mjs';
import { DEFAULT_ENCODINGS, requestOf } from '../../web/src/labs/language-model.js';
import { TRAINED_FAMILIES } from '../../web/src/families/trained.js';

/**
 * {load: [1, 5, 15 min], tokensPerStep, rows: [{encoding, msPerStep: number[] (wall, per round), median, cpuMedian,
 * tokensPerSecond (wall)}]}.
 */
export async function measureTrainStep({ encodings = DEFAULT_ENCODINGS, rounds = 5, steps = 10, warmup = 2, size = 'quick',
  trainLength = 64, module } = {}) {
  const pe = module ? await (await import(pathToFileURL(path.resolve(module, 'posenc.mjs')).href)).default({
    wasmBinary: fs.readFileSync(path.resolve(module, 'posenc.wasm')) }) : await loadPosenc();
  const { text } = benchText();
  const base = { ...requestOf({ size, train_length: trainLength, steps: 1000, seed: 0 }), validation_every: 0 };
  const tokensPerStep = base.batch_size * base.train_length;
  const trainers = encodings.map((type) => pe.trainer({ ...base, task: 'text', text, encoding: TRAINED_FAMILIES[type] ?? { type } }));
  const times = encodings.map(() => []), cpu = encodings.map(() => []);
  try {
    // A trainer's call takes stepsPerCall steps at most (its work budget): more in a few calls.
    const run = (t, count) => { for (let left = count; left > 0; left -= Math.min(left, t.stepsPerCall)) t.step(Math.min(left, t.stepsPerCall)); };
    for (const t of trainers) run(t, warmup);
    for (let round = 0; round < rounds; round++) {
      trainers.forEach((t, k) => {
        const start = performance.now(), used = process.cpuUsage();
        run(t, steps);
        times[k].push((performance.now() - start) / steps);
        const { user, system } = process.cpuUsage(used);
        cpu[k].push((user + system) / 1000 / steps);
      });
    }
  } finally {
    for (const t of trainers) t.free();
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  return { load: os.loadavg(), tokensPerStep, rows: encodings.map((encoding, k) => ({ encoding, msPerStep: times[k],
    median: median(times[k]), cpuMedian: median(cpu[k]), tokensPerSecond: tokensPerStep / (median(times[k]) / 1000) })) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const module = args[0] === '--module' ? args.splice(0, 2)[1] : undefined;
  const [rounds = '5', steps = '10', ...names] = args;
  const before = os.loadavg();
  const out = await measureTrainStep({ rounds: Number(rounds), steps: Number(steps), module,
    ...(names.length ? { encodings: names } : {}) });
  console.log(`load average before ${before.map((x) => x.toFixed(2)).join(' ')}, after ${out.load.map((x) => x.toFixed(2)).join(' ')}; ` +
    `${out.tokensPerStep} tokens a step; median of ${rounds} rounds of ${steps} steps`);
  for (const r of out.rows) {
    console.log(`${r.encoding.padEnd(15)} ${r.median.toFixed(2).padStart(7)} ms/step (cpu ${r.cpuMedian.toFixed(2).padStart(6)})  ${Math.round(r.tokensPerSecond).toString().padStart(7)} tokens/s` +
      `   rounds: ${r.msPerStep.map((x) => x.toFixed(1)).join(' ')}`);
  }
}
