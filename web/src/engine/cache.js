// The engine's memory of results: what createCalls (calls.js) remembers of each call, so the views of one change
// share their work, within a byte budget for the whole instance (resultStore), and the same for a job
// (memoizeJobStored: a generator that createServer, server.js, runs a slice at a time).

/** Bytes of typed arrays and strings (keys included) all the memoised calls of one instance keep between requests (resultStore). */
export const CACHE_BYTES = 64 * 2 ** 20;

/** Bytes of the typed arrays and strings in value (each counted once; a string's characters at 2 bytes each). */
function bytesOf(value, seen = new Set()) {
  if (ArrayBuffer.isView(value)) return value.byteLength;
  if (typeof value === 'string') return 2 * value.length;
  if (value === null || typeof value !== 'object' || seen.has(value)) return 0;
  seen.add(value);
  let bytes = 0;
  for (const v of Object.values(value)) bytes += bytesOf(v, seen);
  return bytes;
}

/**
 * The results the calls remember, all calls together: each call keeps its last `size` values, and all of them
 * hold at most `maxBytes` of typed arrays and strings, their keys included (the arguments' JSON: a pasted config's
 * text, a sentence), the least recently used dropped first (the newest value is kept whatever its size: the views of
 * one change share it). Without the byte bound a long session kept the last four [4096, 4096] similarity matrices
 * (256 MiB) and twelve 2048-token attention heads after they were drawn, and the texts of the last four pasted
 * configs and eight sentences as keys.
 */
export function resultStore(maxBytes) {
  const order = new Map();  // entry -> its bytes, least recently used first, over every call's cache
  let total = 0;
  const drop = (entry) => {
    total -= order.get(entry);
    order.delete(entry);
    entry.cache.delete(entry.key);
  };
  return {
    /** Bytes of typed arrays held now. */
    bytes: () => total,
    /** One call's cache: its last `size` values by key. */
    cache(size) {
      const cache = new Map();  // key -> {key, value, cache}, oldest first
      return {
        has: (key) => cache.has(key),
        get(key) {
          const entry = cache.get(key);
          cache.delete(key);
          cache.set(key, entry);
          const bytes = order.get(entry);
          order.delete(entry);
          order.set(entry, bytes);
          return entry.value;
        },
        set(key, value) {
          const entry = { key, value, cache };
          const bytes = bytesOf(value) + bytesOf(key);
          cache.set(key, entry);
          order.set(entry, bytes);
          total += bytes;
          if (cache.size > size) drop(cache.values().next().value);
          for (const oldest of order.keys()) {
            if (total <= maxBytes || oldest === entry) break;
            drop(oldest);
          }
        },
      };
    },
  };
}

/** fn with its last `size` values remembered by arguments (JSON), in `store` (resultStore). */
export function memoizeStored(store, fn, size = 4) {
  const cache = store.cache(size);
  return (...args) => {
    const key = JSON.stringify(args);
    if (cache.has(key)) return cache.get(key);
    const value = fn(...args);  // a throw caches nothing
    cache.set(key, value);
    return value;
  };
}

/**
 * memoize for a job: a generator function that yields progress and returns its value (createServer
 * runs it a slice at a time). A remembered value returns at once, without yielding; a job stopped
 * before its end (the server calls return()) or failing remembers nothing.
 */
export function memoizeJobStored(store, job, size = 4) {
  const cache = store.cache(size);
  return function* memoized(...args) {
    const key = JSON.stringify(args);
    if (cache.has(key)) return cache.get(key);
    const value = yield* job(...args);
    cache.set(key, value);
    return value;
  };
}
