// The encodings the page offers, by name, each family's page file loaded when it
// is first shown: the core's families (describe.js, in the core's order; RoPE
// with its model presets, config/rope-presets.js), then `compare`, `experiment`,
// `language_model` and `model_profile`. Their names and labels are here at once
// (the encoding control); their parameters, views and code come with loadFamily,
// so an embed of one view downloads its own family's file before its figure, not
// every family's and lab's (tests/unit/imports.test.mjs). families/index.js has
// them all loaded, for the tests and scripts.
import { FAMILY_TYPES, familyName } from '../describe.js';
import { TRAINED_TYPES, withTrained } from './trained.js';

/**
 * The page file of core family `type`: families/page/<type>.js, the file all.js lists (the same as compute.js's, which
 * the worker uses); RoPE's with its model presets. The bundler splits each file of that folder into a chunk of its own,
 * loaded on first use.
 */
const loadCore = (type) => (type === 'rope'
  ? import('../config/rope-presets.js').then((m) => m.ropePage)
  : import(`./page/${type}.js`));

/** The labs, after the core's families: their label and page file. */
const LABS = {
  compare: { label: 'compare 2–4 configurations', load: () => import('../labs/compare-mode.js') },
  experiment: { label: 'train short, test long (experiment)', load: () => import('../labs/experiment.js') },
  language_model: { label: 'language model on Moby-Dick (train short, test long)', load: () => import('../labs/language-model.js') },
  model_profile: { label: 'a model’s layers (per-layer profile, three stacks)', load: () => import('../labs/model-profile.js') },
};

/** Every encoding's name: the core's families in the core's order, then the labs. */
export const FAMILY_NAMES = [...FAMILY_TYPES, ...Object.keys(LABS)];

const LABELS = Object.fromEntries(FAMILY_NAMES.map((name) => [name, LABS[name]?.label ?? familyName(name)]));

/** The name the page shows for encoding `name` (the core's label up to its colon for a core family). */
export function familyLabel(name) {
  return LABELS[name];
}

/** The control that picks the encoding. */
export const ENCODING = {
  name: 'encoding', kind: 'choice', default: 'sinusoidal', choices: FAMILY_NAMES, label: 'encoding', choiceLabels: LABELS,
};

const loading = new Map();  // name -> Promise of its page file
const loaded = new Map();   // name -> its page file

/**
 * Loads encoding `name`'s page file (once): {label, parameters, views, spec?, fields?, adjustRaw?, baseRaw?, request?, ...};
 * a family with trained position parameters gets its `weights` control (families/trained.js withTrained).
 * @returns {Promise<object>}  rejects with a RangeError (.param 'encoding') for an unknown name
 */
export function loadFamily(name) {
  if (!FAMILY_NAMES.includes(name)) {
    return Promise.reject(Object.assign(new RangeError(`encoding = ${JSON.stringify(name)} is invalid: expected one of ${FAMILY_NAMES.join(', ')}`),
      { param: 'encoding', value: name, allowed: FAMILY_NAMES }));
  }
  if (!loading.has(name)) {
    const file = LABS[name] ? LABS[name].load() : loadCore(name);
    loading.set(name, file.then((m) => {
      const family = { ...(TRAINED_TYPES.includes(name) ? withTrained(name, m) : m), label: LABELS[name] };
      loaded.set(name, family);
      return family;
    }));
  }
  return loading.get(name);
}

/** Loads every encoding's page file: [family], in FAMILY_NAMES's order. */
export function loadFamilies() {
  return Promise.all(FAMILY_NAMES.map(loadFamily));
}

/**
 * Encoding `name`'s page file, once loadFamily has loaded it.
 * @throws {Error}  not loaded yet (a caller that did not await loadFamily first)
 */
export function loadedFamily(name) {
  const family = loaded.get(name);
  if (!family) throw new Error(`posenc: the encoding ${JSON.stringify(name)} is not loaded yet (loadFamily first)`);
  return family;
}

/** The full parameter list of a loaded family: the encoding picker first. */
export function parametersOf(name) {
  return [ENCODING, ...loadedFamily(name).parameters];
}
