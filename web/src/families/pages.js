// The core's families as the page shows them, all at once: each family's page file (all.js's
// list, in the core's order; with its `weights` control where it has a trained set,
// trained.js), RoPE with its model presets (rope-presets.js), each named by the core's label
// (describe.js familyName). Loaded only where every family is needed (a pasted config,
// compare mode), each file by its name as catalogue.js loads it: a chunk of its own that an
// embed of one family loads alone (a static import of all.js would make the bundler build a
// namespace of each in its chunk, a chunk level more before a family's figure).
import { FAMILY_TYPES, familyName } from '../describe.js';
import { TRAINED_TYPES, withTrained } from './trained.js';
import { format } from '../lib/format.js';

// RoPE's file (its presets) imported as the others are, on demand: as a static import its chunks (the presets' config
// reader) would arrive before any other family's file is asked for, a request level or two later on a slow network.
const files = await Promise.all(FAMILY_TYPES.map((type) => (type === 'rope' ? import('../config/rope-presets.js').then((m) => m.ropePage)
  : import(`./page/${type}.js`).then((file) => (TRAINED_TYPES.includes(type) ? withTrained(type, file) : file)))));

/** {type: the family's page file, with label: its name}, the core's families in the core's order. */
export const FAMILY_PAGES = Object.fromEntries(FAMILY_TYPES.map((type, k) => [type, { ...files[k], label: familyName(type) }]));

/**
 * Raw control values of family spec.type for a spec (a pasted config's or a
 * preset's, see model-config.js specFromConfig): the family's own rawFromSpec when
 * it has one (rope: both config generations, the sliding-window layers), else
 * each spec key that is one of its controls, as text; weights "random" for a family
 * with trained parameters (a config has a model's settings, not its weights).
 * @param {object} spec  {type, ...keys}
 * @param {?object} [sliding]  specFromConfig's sliding-window layers (rope only)
 * @returns {Record<string, string>}
 */
export function rawFromSpec(spec, sliding = null) {
  const family = FAMILY_PAGES[spec.type];
  // A model's config gives its settings, not its weights: a family with trained parameters shows its random draw at them.
  const untrained = family.parameters.some((p) => p.name === 'weights') ? { weights: 'random' } : {};
  if (family.rawFromSpec) return { ...untrained, ...family.rawFromSpec(spec, sliding) };
  const names = new Set(family.parameters.filter((p) => !p.view).map((p) => p.name));
  return { ...untrained, ...Object.fromEntries(Object.entries(spec).filter(([k]) => names.has(k)).map(([k, v]) => [k, format(v)])) };
}
