// ONNX Runtime Web with its WebAssembly backend in Node: loads onnxruntime-web and
// its SIMD binary from node_modules and returns the engine of ort-engine.mjs (what
// it does, and how it is set up to be at its best).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { ortEngine } from './ort-engine.mjs';

const require = createRequire(import.meta.url);

/** The ORT-web engine in this Node (one thread, the SIMD binary handed over as bytes: nothing is fetched). */
export async function create() {
  const ort = await import('onnxruntime-web');
  const dist = path.dirname(require.resolve('onnxruntime-web/ort-wasm-simd-threaded.wasm'));
  return ortEngine(ort, fs.readFileSync(path.join(dist, 'ort-wasm-simd-threaded.wasm')));
}
