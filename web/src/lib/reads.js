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

/**
 * params with one key's value replaced, without reading the original's value of it (so a tracked params does not
 * record it): a family's spec built for another head, or with another control's causal mask.
 */
export function withValue(params, key, value) {
  return new Proxy(params, { get: (target, k) => (k === key ? value : target[k]) });
}
