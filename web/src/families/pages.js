// The core's families as compare mode's lines and a pasted config read them: each family's page file (all.js's list;
// with its `weights` control where it has a trained set, trained.js), RoPE with its model presets (rope-presets.js),
// each named by the core's label (describe.js familyName). Each file is loaded by its name as catalogue.js loads it (a
// chunk of its own that an embed of one family loads alone; catalogue.js loads compare mode, so this cannot import it
// back), and only for the families asked for: compare mode's lines name two to four, and on a phone network every
// family's files (16, six at a time) took 0.3 s more before its first figure (issue 40).
import { FAMILY_TYPES, familyName } from '../describe.js';
import { TRAINED_TYPES, withTrained } from './trained.js';
import { format } from '../lib/format.js';

const loading = new Map();  // type -> the promise of its file
const loaded = new Map();  // type -> its file, with label

/** Core family `type`'s file, loaded (once; a failed load is tried again by the next call). */
function load(type) {
  if (!loading.has(type)) {
    const file = type === 'rope' ? import('../config/rope-presets.js').then((m) => m.ropePage)
      : import(`./page/${type}.js`).then((m) => (TRAINED_TYPES.includes(type) ? withTrained(type, m) : m));
    loading.set(type, file.then((m) => { loaded.set(type, { ...m, label: familyName(type) }); }, (error) => {
      loading.delete(type);
      throw error;
    }));
  }
  return loading.get(type);
}

/**
 * Loads the page files of core families `types` (each once; a name that is no core family is left out).
 * @param {string[]} [types]  default: every core family
 * @returns {Promise<void>}  rejects if a file cannot load (offline); a later call tries again
 */
export async function loadFamilyPages(types = FAMILY_TYPES) {
  await Promise.all(types.filter((type) => FAMILY_TYPES.includes(type)).map(load));
}

/**
 * Core family `type`'s page file, once loadFamilyPages has loaded it: {label, parameters, views, spec, fields, ...}.
 * @param {string} type
 * @throws {Error}  no core family, or not loaded yet (a caller that did not await loadFamilyPages first)
 */
export function familyPage(type) {
  const file = loaded.get(type);
  if (!file) throw new Error(`posenc: the page file of ${JSON.stringify(type)} is not loaded (loadFamilyPages first), or it is no core family`);
  return file;
}

/**
 * Raw control values of family spec.type for a spec (a pasted config's or a
 * preset's, see model-config.js specFromConfig): the family's own rawFromSpec when
 * it has one (rope: both config generations, the sliding-window layers), else
 * each spec key that is one of its controls, as text; weights "random" for a family
 * with trained parameters (a config has a model's settings, not its weights).
 * @param {object} spec  {type, ...keys}: its family's page file loaded (loadFamilyPages)
 * @param {?object} [sliding]  specFromConfig's sliding-window layers (rope only)
 * @returns {Record<string, string>}
 */
export function rawFromSpec(spec, sliding = null) {
  const family = familyPage(spec.type);
  // A model's config gives its settings, not its weights: a family with trained parameters shows its random draw at them.
  const untrained = family.parameters.some((p) => p.name === 'weights') ? { weights: 'random' } : {};
  if (family.rawFromSpec) return { ...untrained, ...family.rawFromSpec(spec, sliding) };
  const names = new Set(family.parameters.filter((p) => !p.view).map((p) => p.name));
  return { ...untrained, ...Object.fromEntries(Object.entries(spec).filter(([k]) => names.has(k)).map(([k, v]) => [k, format(v)])) };
}
