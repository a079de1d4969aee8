// The attention lab's trained heads, shipped: for each core family, the head engine/calls.js trainedHead trains at the
// family's defaults (labs/attention-lab.js: its spec at the page's defaults, the default task), trained at build time by
// scripts/heads.mjs (npm run build:wasm) with the same call and written to web/generated/heads/<family>.js, a module
// of its own per family. With it the trained-head views (attention, ablation, word order, FoX's gates) draw their first
// figure on posenc-view.wasm, without training: posenc.wasm (the trainer) is fetched only when the reader asks for a
// head that does not ship (another task, another spec). The engine loads a family's head before it computes
// (engine/server.js, as it loads the trained sets), and calls.js trainedHead takes it where spec and task match.
import { TRAINED_HEAD_FIELDS } from '../engine/modules.js';
import { decodeArrays } from '../lib/base64-arrays.js';

/** Family `family`'s shipped head module (the bundler splits each into a file of its own). */
const load = (family) => import(`../../generated/heads/${family}.js`);

const loaded = new Map();  // family -> {key, head} (null: none ships)
const loading = new Map();  // family -> the promise of its load under way (or done)

/**
 * A value's JSON with every object's keys sorted: a spec's identity whatever order its keys were set in.
 * @param {unknown} value
 * @returns {string}
 */
export function canonicalJson(value) {
  return JSON.stringify(value, (key, v) => (v !== null && typeof v === 'object' && !Array.isArray(v) && !ArrayBuffer.isView(v)
    ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]])) : v));
}

/** The key a head is shipped and found under: its spec and task. */
const keyOf = (spec, task) => canonicalJson({ spec, task });

/**
 * The families whose head a view request of `family` reads: [family] when the attention lab's trained head is on and
 * `needs` has one of its fields (modules.js TRAINED_HEAD_FIELDS), else [].
 * @param {string} family
 * @param {object} params
 * @param {string[]} needs
 * @returns {string[]}
 */
export function headNeeds(family, params, needs) {
  return params?.trained_head === true && needs.some((n) => TRAINED_HEAD_FIELDS.includes(n)) ? [family] : [];
}

/**
 * Loads the shipped heads of `families` (a family without one, or whose file fails to load, is remembered as none:
 * its head is trained), each once: a second call while one is under way waits for the same download (the server starts
 * it as a request arrives, before its module is ready).
 * @param {string[]} families
 * @returns {Promise<void>}
 */
export async function loadHeads(families) {
  for (const family of families) {
    if (!loading.has(family)) {
      loading.set(family, load(family).then(
        (m) => { loaded.set(family, { key: keyOf(m.default.spec, m.default.task), head: decodeArrays(m.default.head) }); },
        () => { loaded.set(family, null); }));
    }
  }
  await Promise.all(families.map((family) => loading.get(family)));
}

/**
 * The shipped head trained with `spec` on `task`, if a loaded family ships it (loadHeads first); else null.
 * @param {object} spec  the spec trainedHead trains (the family's, without a shipped set's tensors)
 * @param {string} task  'copy', 'induction' or 'first_marker'
 * @returns {ReturnType<import('../engine/calls.js').createCalls>['trainedHead'] | null}  the head as trainedHead returns it
 */
export function shippedHead(spec, task) {
  const key = keyOf(spec, task);
  for (const entry of loaded.values()) if (entry?.key === key) return entry.head;
  return null;
}
