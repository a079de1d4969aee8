// Runs the fuzz of tests/wasm/fuzz.mjs in a worker with a watchdog: a call
// that has not returned after `stallMs` is a hang, reported with the call
// (rebuilt from its index) and the worker is stopped.
import { Worker } from 'node:worker_threads';
import { loadPosenc } from './load.mjs';
import { makeCall, show } from './fuzz.mjs';

export async function fuzzInWorker(options, stallMs = 10000) {
  const progress = new SharedArrayBuffer(4);
  const view = new Int32Array(progress);
  Atomics.store(view, 0, -1);
  const worker = new Worker(new URL('./fuzz-worker.mjs', import.meta.url), { workerData: { options, progress } });
  let last = -1;
  let since = Date.now();
  return new Promise((resolve, reject) => {
    const watchdog = setInterval(async () => {
      const index = Atomics.load(view, 0);
      if (index !== last) {
        last = index;
        since = Date.now();
        return;
      }
      if (index < 0 || Date.now() - since < stallMs) return;
      clearInterval(watchdog);
      await worker.terminate();
      const pe = await loadPosenc();
      const call = makeCall(pe, pe.describe(), options.seed, index, options.aggressive);
      // The calls before it, as the last snapshot counted them, and the hang.
      const counts = { ...partial.counts, hang: (partial.counts.hang || 0) + 1 };
      resolve({ stalled: true, counts, byFunction: partial.byFunction, ms: 0,
        findings: [...partial.findings, { index, category: 'hang', detail: `no answer after ${stallMs} ms (worker stopped)`,
          call: `${call.name}(${call.args.map((a) => show(a)).join(', ')})` }] });
    }, 250);
    let partial = { counts: {}, byFunction: {}, findings: [] };
    worker.on('message', (report) => {
      if (report.partial) {
        partial = report;
        return;
      }
      clearInterval(watchdog);
      worker.terminate();
      resolve(report);
    });
    worker.once('error', (error) => {
      clearInterval(watchdog);
      reject(error);
    });
  });
}
