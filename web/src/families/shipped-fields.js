// Fields the build computed: compare mode's default comparison (labs/compare-mode.js COMPARISONS.families, every
// other control at its default) ships its three views' fields (each line's decay curve, spectrum and attention map),
// computed by scripts/shipped-fields.mjs (npm run build:wasm) with the engine's own fields (engine/calls.js
// computeFields) on posenc.wasm and written to web/generated/fields/<name>.js. Compare mode's lines name families of
// every group, so computing them needs posenc-view.wasm (144 KB gzip) and, for the trained heads of its attention maps,
// posenc.wasm: its first figure at its defaults needs neither (engine/server.js answers from these; an embed of it starts
// its engine with module 'deferred', engine/modules.js). Any other value (a line, the sentence, the range) is computed,
// as before. tests/wasm/shipped-fields.test.mjs computes them again on posenc.wasm and posenc-view.wasm and compares,
// bit for bit.
import { canonicalJson } from './heads.js';
import { decodeArrays } from '../lib/base64-arrays.js';

/** The names (families/compute.js COMPUTE_NAMES) whose fields ship at their defaults. */
export const SHIPS_FIELDS = ['compare'];

/** Name `name`'s shipped fields (a module of its own). */
const load = (name) => import(`../../generated/fields/${name}.js`);

const loaded = new Map();  // name -> {[field]: {reads: {[param]: its value's canonical JSON}, value}} (null: none)
const loading = new Map();  // name -> the promise of its load under way (or done)

/**
 * Loads name `name`'s shipped fields, once (nothing for a name that ships none); a failed load (offline) is tried
 * again by the next call, and until then its fields are computed.
 * @param {string} name
 * @returns {Promise<void>}
 */
export function loadShippedFields(name) {
  if (!SHIPS_FIELDS.includes(name)) return Promise.resolve();
  if (!loading.has(name)) {
    loading.set(name, load(name).then((m) => {
      loaded.set(name, Object.fromEntries(Object.entries(m.default.fields).map(([field, { reads, value }]) => [field, {
        reads: Object.fromEntries(Object.entries(reads).map(([param, v]) => [param, canonicalJson(v)])), value: decodeArrays(value) }])));
    }, () => { loading.delete(name); }));
  }
  return loading.get(name);
}

/**
 * The shipped fields `needs` of name `name` for `params`, when every one of them ships and every param it read has
 * the value it was computed with (params it does not read, such as a view's colours, may differ); else null.
 * loadShippedFields first (before it: null).
 * @param {string} name
 * @param {object} params  the request's (compare: with its read lines, labs/compare-mode.js request)
 * @param {string[]} needs
 * @returns {{data: object, reads: string[]} | null}  data: a copy of each field (a reply transfers its arrays); reads:
 *   the params they read, as computeFields gives them
 */
export function shippedFields(name, params, needs) {
  const fields = loaded.get(name);
  if (!fields || needs.length === 0) return null;
  const reads = new Set();
  for (const need of needs) {
    const field = fields[need];
    if (!field || Object.entries(field.reads).some(([param, value]) => canonicalJson(params?.[param]) !== value)) return null;
    for (const param of Object.keys(field.reads)) reads.add(param);
  }
  return { data: Object.fromEntries(needs.map((need) => [need, structuredClone(fields[need].value)])), reads: [...reads] };
}
