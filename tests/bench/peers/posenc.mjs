// posenc's WebAssembly module in Node (web/generated/posenc.{mjs,wasm}, built by
// `npm run build:wasm`), loaded as tests/wasm/load.mjs does; the engine itself
// (what each method calls, the zero-copy variant, the kernel paths) is
// posenc-engine.mjs, which the Chromium bench shares.
import fs from 'node:fs';
import { posencEngine, hasZeroCopy, kernelPaths, useKernelPath } from './posenc-engine.mjs';

export { hasZeroCopy, kernelPaths, useKernelPath };

const generated = new URL('../../../web/generated/', import.meta.url);

/** Loads the module (a fresh instance on each call), or says why it cannot. */
export async function loadModule() {
  const wasm = new URL('posenc.wasm', generated);
  if (!fs.existsSync(wasm)) throw new Error('web/generated/posenc.wasm is missing: run `npm run build:wasm`');
  const { default: createPosenc } = await import(new URL('posenc.mjs', generated));
  return createPosenc({ wasmBinary: fs.readFileSync(wasm) });
}

/**
 * The posenc engine in this Node (posenc-engine.mjs).
 * @param {{zeroCopy?: boolean, module?: object, name?: string}} options  module: an instance already loaded
 */
export async function create({ zeroCopy = false, module, name } = {}) {
  return posencEngine(module ?? await loadModule(), { zeroCopy, name });
}
