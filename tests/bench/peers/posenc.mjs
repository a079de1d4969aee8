// posenc's WebAssembly module in Node (web/generated/posenc.{mjs,wasm}, built by
// `npm run build:wasm`), loaded as tests/wasm/load.mjs does; the engine itself
// (what each method calls, the zero-copy variant, the kernel paths) is
// posenc-engine.mjs, which the Chromium bench shares.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { posencEngine, baselineEngine, hasZeroCopy, kernelPaths, useKernelPath } from './posenc-engine.mjs';

export { hasZeroCopy, kernelPaths, useKernelPath };

const generated = new URL('../../../web/generated/', import.meta.url);

/**
 * Loads the module (a fresh instance on each call), or says why it cannot.
 * @param {string} [dir]  a directory holding another build's posenc.mjs and posenc.wasm (default web/generated/)
 */
export async function loadModule(dir) {
  const from = dir ? pathToFileURL(path.resolve(dir) + '/') : generated;
  const wasm = new URL('posenc.wasm', from);
  if (!fs.existsSync(wasm)) throw new Error(dir ? `${dir} has no posenc.wasm` : 'web/generated/posenc.wasm is missing: run `npm run build:wasm`');
  const { default: createPosenc } = await import(new URL('posenc.mjs', from));
  return createPosenc({ wasmBinary: fs.readFileSync(wasm) });
}

/**
 * The posenc engine in this Node (posenc-engine.mjs).
 * @param {{zeroCopy?: boolean, module?: object, name?: string}} options  module: an instance already loaded
 */
export async function create({ zeroCopy = false, module, name } = {}) {
  return posencEngine(module ?? await loadModule(), { zeroCopy, name });
}

/** The 'posenc (baseline)' engine (posenc-engine.mjs baselineEngine) over the build in `dir`. */
export async function createBaseline(dir) {
  return baselineEngine(await loadModule(dir), dir);
}
