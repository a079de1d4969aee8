// The engine's Web Worker: one wasm instance, serving the page's requests off
// the main thread (see engine/calls.js for the protocol, engine.js for the page side).
import createPosenc from '../../generated/posenc.mjs';
import { createServer } from './calls.js';

const serve = createServer(() => createPosenc(), (message, transfer = []) => self.postMessage(message, transfer));
self.onmessage = (event) => serve(event.data);
