// The families as the engine's worker uses them (engine/calls.js): each family's
// spec() and fields(), by spec `type`. The core's families in the core's order
// (describe()), then `compare` (its configurations read by the page, see
// labs/compare-mode.js), `experiment`, `language_model` and `model_profile`: the
// labs' fields are modules of their own, loaded in the worker when a request first
// names them (loadCompute), so the worker a view's first figure waits for does not
// hold them. Nothing here imports the page's controls, state, presets or config
// reader, nor a lab (tests/unit/imports.test.mjs).
import { FAMILY_TYPES, familyDescription } from '../describe.js';
import * as ALL from './all.js';
import { TRAINED_TYPES, shipped, withTrained } from './trained.js';

for (const type of Object.keys(ALL)) {
  if (!FAMILY_TYPES.includes(type)) throw new Error(`families: "${type}" has a page file (all.js) but the core has no such family`);
}

/** The core's families (describe()), in its order: {type: the family's file}. */
export const CORE_FAMILIES = Object.fromEntries(FAMILY_TYPES.map((type) => {
  if (!ALL[type]) throw new Error(`families: the core's family "${type}" has no page file (all.js)`);
  // Those with learned position parameters show trained ones by default (families/trained.js).
  return [type, TRAINED_TYPES.includes(type) ? withTrained(type, ALL[type]) : ALL[type]];
}));

/** The labs' fields, each loaded on its first request: {name: () => Promise<{fields(engine, params)}>}. */
const LAB_LOADERS = {
  compare: () => import('../labs/compare-mode-fields.js')
    .then(({ sideBySideFields }) => ({ fields: (engine, params) => sideBySideFields(engine, params, CORE_FAMILIES) })),
  experiment: () => import('../labs/experiment.js'),
  language_model: () => import('../labs/language-model.js'),
  model_profile: () => import('../labs/model-profile-fields.js'),
};

/** The names the worker computes fields for: the core's families, then the labs (the page's names, catalogue.js). */
export const COMPUTE_NAMES = [...Object.keys(CORE_FAMILIES), ...Object.keys(LAB_LOADERS)];

const computing = new Map(Object.entries(CORE_FAMILIES).map(([type, file]) => [type, Promise.resolve(file)]));
const computed = new Map(Object.entries(CORE_FAMILIES));

/**
 * What the worker computes family `name`'s fields with, {fields(engine, params), formulaNeeds?}, once loaded
 * (loadCompute); null for a name not in COMPUTE_NAMES.
 * @throws {Error}  a lab's, not loaded yet (a caller that did not await loadCompute first)
 */
export function computeOf(name) {
  if (!COMPUTE_NAMES.includes(name)) return null;
  const family = computed.get(name);
  if (!family) throw new Error(`posenc: the fields of ${JSON.stringify(name)} are not loaded yet (loadCompute first)`);
  return family;
}

/**
 * Loads what family `name`'s fields are computed with (a lab's module, once; a core family's is loaded already).
 * @returns {Promise<object|null>}  computeOf(name): null for a name not in COMPUTE_NAMES; rejects if its module cannot load
 */
export function loadCompute(name) {
  if (!COMPUTE_NAMES.includes(name)) return Promise.resolve(null);
  if (!computing.has(name)) {
    const loading = LAB_LOADERS[name]().then((family) => { computed.set(name, family); return family; });
    loading.catch(() => computing.delete(name));  // a failed fetch (offline) is tried again by the next request
    computing.set(name, loading);
  }
  return computing.get(name);
}

/** The families with a trained set and a decay curve: the decay comparison's trained references (comparison.js). */
const DECAY_TRAINED = TRAINED_TYPES.filter((type) => familyDescription(type).computes.includes('decay'));

/**
 * The families whose trained sets a request of family `name` for `needs` computes with (families/trained.js): its
 * own, with weights "trained"; those with a decay curve for the decay comparison's references (not learned's table,
 * 23 KB gzip, which has none); every one for compare mode's lines.
 * @returns {string[]}
 */
export function trainedNeeds(name, params, needs) {
  if (name === 'compare') return TRAINED_TYPES;
  const own = TRAINED_TYPES.includes(name) && shipped(params.weights) ? [name] : [];
  if (needs.includes('comparison') || needs.includes('currentLabel')) return [...new Set([...own, ...DECAY_TRAINED])];
  return own;
}
