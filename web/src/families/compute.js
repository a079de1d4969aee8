// The families as the engine's worker uses them (engine/calls.js): each family's
// spec() and fields(), by spec `type`. The core's families in the core's order
// (describe()), then `compare` (its configurations read by the page, see
// labs/compare-mode.js), `experiment`, `language_model` and `model_profile`. Each is a
// module of its own, loaded in the worker when a request first names it (loadCompute):
// a view's first figure waits for its own family's file only, not every family's (the
// decay comparison at a range whose references do not ship, and compare mode, which draw every family, load them all
// when they are asked for), nor a lab. Nothing here imports the page's controls, state, presets
// or config reader, nor a lab (tests/unit/imports.test.mjs).
import { FAMILY_TYPES, familyDescription } from '../describe.js';
import { TRAINED_TYPES, shipped, withTrained } from './trained.js';
import { loadReferences, readsShipped } from './references.js';

/**
 * Core family `type`'s page file as the worker computes with it: with its `weights` control when it has a trained set
 * (families/trained.js withTrained).
 * @param {string} type
 * @param {{parameters: object[], spec: Function, fields: Function}} file  families/page/<type>.js
 */
export function computedFamily(type, file) {
  return TRAINED_TYPES.includes(type) ? withTrained(type, file) : file;
}

/**
 * The core families' files, each loaded on its first request: families/page/<type>.js (all.js's list; the bundler
 * splits each into a chunk of its own).
 */
const CORE_LOADERS = Object.fromEntries(FAMILY_TYPES.map((type) => [type,
  () => import(`./page/${type}.js`).then((file) => computedFamily(type, file))]));

/** The labs' fields, each loaded on its first request: {name: () => Promise<{fields(engine, params)}>}. */
const LAB_LOADERS = {
  compare: () => Promise.all([import('../labs/compare-mode-fields.js'), loadCoreFamilies()])
    .then(([{ sideBySideFields }, table]) => ({ fields: (engine, params) => sideBySideFields(engine, params, table) })),
  experiment: () => import('../labs/experiment.js'),
  language_model: () => import('../labs/language-model.js'),
  model_profile: () => import('../labs/model-profile-fields.js'),
};

/** The names the worker computes fields for: the core's families, then the labs (the page's names, catalogue.js). */
export const COMPUTE_NAMES = [...FAMILY_TYPES, ...Object.keys(LAB_LOADERS)];

const computing = new Map();  // name -> Promise of what its fields are computed with
const computed = new Map();   // name -> what its fields are computed with, once loaded

/**
 * What the worker computes family `name`'s fields with, {fields(engine, params), formulaNeeds?, parameters?, spec?},
 * once loaded (loadCompute); null for a name not in COMPUTE_NAMES.
 * @throws {Error}  not loaded yet (a caller that did not await loadCompute first)
 */
export function computeOf(name) {
  if (!COMPUTE_NAMES.includes(name)) return null;
  const family = computed.get(name);
  if (!family) throw new Error(`posenc: the fields of ${JSON.stringify(name)} are not loaded yet (loadCompute first)`);
  return family;
}

/** Loads one name's module, once; a failed fetch (offline) is tried again by the next request. */
function load(name) {
  if (!computing.has(name)) {
    const loading = (CORE_LOADERS[name] ?? LAB_LOADERS[name])().then((family) => { computed.set(name, family); return family; });
    loading.catch(() => computing.delete(name));
    computing.set(name, loading);
  }
  return computing.get(name);
}

/**
 * Every core family's file, loaded (once): {type: what computeOf(type) gives}, in the core's order. The decay
 * comparison's references (comparison.js) and compare mode's lines read them all.
 * @returns {Promise<Record<string, object>>}
 */
export async function loadCoreFamilies() {
  const files = await Promise.all(FAMILY_TYPES.map(load));
  return Object.fromEntries(FAMILY_TYPES.map((type, k) => [type, files[k]]));
}

/** The fields that draw every family's reference curve (families/compare.js comparisonFields). */
export const COMPARISON_NEEDS = ['comparison', 'currentLabel'];

/** Whether a request for `needs` with `params` computes the decay comparison's references (not reads the shipped ones). */
const computesReferences = (needs, params) => needs.some((n) => COMPARISON_NEEDS.includes(n)) && !readsShipped(params?.compare_distance);

/**
 * Loads what family `name`'s fields for `needs` are computed with: its module (once), and for the decay comparison's
 * needs its reference curves: the shipped ones at the default range (families/references.js), else every core family's
 * module.
 * @param {string} name
 * @param {string[]} [needs]
 * @param {object} [params]  the request's (its compare_distance)
 * @returns {Promise<object|null>}  computeOf(name): null for a name not in COMPUTE_NAMES; rejects if a module cannot load
 */
export async function loadCompute(name, needs = [], params = {}) {
  if (!COMPUTE_NAMES.includes(name)) return null;
  const compares = needs.some((n) => COMPARISON_NEEDS.includes(n));
  const [family] = await Promise.all([load(name), computesReferences(needs, params) ? loadCoreFamilies() : null,
    compares && readsShipped(params?.compare_distance) ? loadReferences() : null]);
  return family;
}

/** The families with a trained set and a decay curve: the decay comparison's trained references (comparison.js). */
const DECAY_TRAINED = TRAINED_TYPES.filter((type) => familyDescription(type).computes.includes('decay'));

/**
 * The families whose trained sets a request of family `name` for `needs` computes with (families/trained.js): its
 * own, with weights "trained"; those with a decay curve for the decay comparison's references where it computes them
 * (not at the default range, whose references ship: families/references.js; not learned's table, 23 KB gzip, which
 * has none); for compare mode, those of its lines' families that show their trained set (its
 * read lines, params.slots: labs/compare-mode.js request), none before the lines are read (engine.expect).
 * @returns {string[]}
 */
export function trainedNeeds(name, params, needs) {
  if (name === 'compare') {
    if (!Array.isArray(params.slots)) return [];  // lines not read yet (engine.expect), or not readable: the request fails
    return [...new Set(params.slots.filter((s) => TRAINED_TYPES.includes(s.family) && shipped(s.params?.weights)).map((s) => s.family))];
  }
  const own = TRAINED_TYPES.includes(name) && shipped(params.weights) ? [name] : [];
  if (computesReferences(needs, params)) return [...new Set([...own, ...DECAY_TRAINED])];
  return own;
}
