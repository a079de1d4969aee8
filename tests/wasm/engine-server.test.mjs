// The engine's request loop (web/src/engine-calls.js createServer) on the real
// module: a request that grows the wasm memory past the server's limit makes it
// load a fresh instance, which answers the next request correctly; small
// requests never do.
import assert from 'node:assert/strict';
import test from 'node:test';
import { createServer } from '../../web/src/engine-calls.js';
import { loadPosenc } from './load.mjs';

/** A server over fresh instances of the module, the messages it posts, and its instances. */
function startServer(memoryLimit) {
  const instances = [];
  const messages = [];
  const waiting = [];
  const post = (message) => {
    messages.push(message);
    for (const w of waiting.splice(0)) w();
  };
  const serve = createServer(() => loadPosenc().then((pe) => { instances.push(pe); return pe; }), post, { memoryLimit });
  /** The reply to request `id` (its final message). */
  async function reply(id) {
    for (;;) {
      const found = messages.find((m) => m.id === id && !m.started);
      if (found) return found;
      await new Promise((resolve) => waiting.push(resolve));
    }
  }
  /** The first message with op `op`. */
  async function event(op) {
    for (;;) {
      const found = messages.find((m) => m.op === op);
      if (found) return found;
      await new Promise((resolve) => waiting.push(resolve));
    }
  }
  return { serve, reply, event, instances, messages };
}

test('a request that grows memory past the limit is answered, then the server starts a fresh instance', async () => {
  const limit = 64 * 2 ** 20;
  const server = startServer(limit);
  // sinusoidal [4096, 4096]: a 64 MiB result, so the heap grows past 64 MiB.
  server.serve({ id: 1, op: 'call', method: 'table', args: [{ type: 'sinusoidal', d_model: 4096 }, 4096] });
  const big = await server.reply(1);
  assert.equal(big.value.data.length, 4096 * 4096);
  assert.equal(big.value.data[4096 + 1], Math.fround(Math.cos(1)));  // row 1 (position 1), column 1: cos(1 * 1)
  const restarted = await server.event('restarted');
  assert.ok(restarted.memoryBytes > limit, `dropped ${restarted.memoryBytes} bytes`);
  assert.equal(server.instances.length, 2);
  assert.ok(server.instances[1].HEAPU8.buffer.byteLength < limit);

  // The fresh instance answers: row 2 of a d_model 4 table is sin 2, cos 2, sin 0.02, cos 0.02.
  server.serve({ id: 2, op: 'call', method: 'table', args: [{ type: 'sinusoidal', d_model: 4 }, 3] });
  const small = await server.reply(2);
  assert.deepEqual(Array.from(small.value.data.slice(8)), [Math.sin(2), Math.cos(2), Math.sin(0.02), Math.cos(0.02)].map(Math.fround));
  assert.equal(server.instances.length, 2);
});

test('requests that stay under the limit keep one instance (and its caches)', async () => {
  const server = startServer(64 * 2 ** 20);
  for (let id = 1; id <= 50; id++) server.serve({ id, op: 'call', method: 'bias', args: [{ type: 'alibi', n_heads: 8 }, 8 + id] });
  const last = await server.reply(50);
  assert.equal(last.value.rows, 58);
  assert.equal(last.value.data[1], -0.5);  // head 0 of 8: slope 2^-1, b(0, 1) = -slope * 1
  assert.equal(server.instances.length, 1);
  assert.equal(server.messages.filter((m) => m.op === 'restarted').length, 0);
});
