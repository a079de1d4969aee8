// Runs a slice of the fuzz (tests/wasm/fuzz.mjs) in a worker thread, so that
// the thread that started it can stop it if a call never returns: the index of
// the call under way is kept in workerData.progress (a shared Int32Array).
import { parentPort, workerData } from 'node:worker_threads';
import { loadPosenc } from './load.mjs';
import { runFuzz } from './fuzz.mjs';

const pe = await loadPosenc();
const progress = new Int32Array(workerData.progress);
const report = runFuzz(pe, { ...workerData.options, progress: (index) => Atomics.store(progress, 0, index),
  snapshot: (partial) => parentPort.postMessage({ partial: true, ...partial }) });
report.heapBytes = pe.HEAPU8.buffer.byteLength;
parentPort.postMessage(report);
