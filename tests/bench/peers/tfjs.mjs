// TensorFlow.js with its WebAssembly backend in Node: loads tfjs-core and
// tfjs-backend-wasm from node_modules (the SIMD binary, one thread) and returns the
// engine of tfjs-engine.mjs (what it does, and how it is set up to be at its best).
import { createRequire } from 'node:module';
import path from 'node:path';
import { startTfjsWasm, tfjsEngine } from './tfjs-engine.mjs';

const require = createRequire(import.meta.url);

/** {tf, backend}: tfjs-core on its wasm backend, the SIMD binary, one thread (throws when that backend cannot start). */
export async function loadTfjs() {
  const tf = await import('@tensorflow/tfjs-core');
  const backend = await import('@tensorflow/tfjs-backend-wasm');
  const dir = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm'));
  return startTfjsWasm({ tf, backend }, `${dir}/`);   // the .wasm files of node_modules
}

/** The tfjs-wasm engine in this Node. */
export async function create() {
  return tfjsEngine(await loadTfjs());
}
