// Which parameters a computation or a drawing reads: the dependency of a view
// on its parameters, recorded rather than declared (session.js, engine/calls.js).

/**
 * A proxy of params that records the names read through it.
 * @returns {{proxy: object, reads: Set<string>}}
 */
export function tracking(params) {
  const reads = new Set();
  const proxy = new Proxy(params, { get(target, key) { if (typeof key === 'string' && key in target) reads.add(key); return target[key]; } });
  return { proxy, reads };
}
