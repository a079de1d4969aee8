// A family's result is an object of lazy getters: a view reads only the fields
// it needs, and the engine records which parameters those reads touched (its
// dependencies). mergeFields joins several such objects without evaluating them.

/** One object with every getter (and value) of `parts`; later parts win. */
export function mergeFields(...parts) {
  const out = {};
  for (const part of parts) Object.defineProperties(out, Object.getOwnPropertyDescriptors(part));
  return out;
}
