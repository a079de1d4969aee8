// The engine's server (web/src/engine/server.js createServer) over the real modules, for the wasm tests: what it
// posts, the modules it loaded, in order, and each request's answer.
import { createServer } from '../../web/src/engine/server.js';
import { loadPosenc } from './load.mjs';

/**
 * A server over the real modules (load(which, group): posenc-view.wasm, a group's posenc-view-<group>.wasm or
 * posenc.wasm), the messages it posts, and the modules it loaded, in order ('view', 'view <group>', 'full').
 * @param {object} [options]  createServer's
 * @param {{failFull?: boolean}} [o]  failFull: loading posenc.wasm fails (offline)
 * @returns {{serve: (message: object) => void, reply: (id: number) => Promise<object>, loaded: string[], messages: object[]}}
 *   reply: the request's answer (not its 'started' or progress messages)
 */
export function startServer(options = {}, { failFull = false } = {}) {
  const loaded = [];
  const messages = [];
  const waiting = [];
  const post = (message) => {
    messages.push(message);
    for (const w of waiting.splice(0)) w();
  };
  const load = async (which, group = null) => {
    if (which === 'full' && failFull) throw new Error('offline');
    loaded.push(group ? `${which} ${group}` : which);
    return loadPosenc(which, group);
  };
  const serve = createServer(load, post, options);
  async function reply(id) {
    for (;;) {
      const found = messages.find((m) => m.id === id && !m.started && !m.progress);
      if (found) return found;
      await new Promise((resolve) => waiting.push(resolve));
    }
  }
  return { serve, reply, loaded, messages };
}
