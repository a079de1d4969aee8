// The typed arrays of a reply, copied once each and listed for transfer: shared by the
// engine's server (server.js) and the arm workers (arm-worker.js).

/**
 * Copies of the typed arrays in `value` (each shared array copied once, so the
 * structure is kept), and their buffers to transfer: the caches keep their own,
 * the page receives arrays it owns without a copy on its side.
 */
export function detach(value, copies = new Map(), transfer = []) {
  if (ArrayBuffer.isView(value)) {
    if (!copies.has(value)) {
      const copy = value.slice();
      copies.set(value, copy);
      transfer.push(copy.buffer);
    }
    return { value: copies.get(value), transfer };
  }
  if (Array.isArray(value)) return { value: value.map((v) => detach(v, copies, transfer).value), transfer };
  if (value !== null && typeof value === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = detach(v, copies, transfer).value;
    return { value: out, transfer };
  }
  return { value, transfer };
}
