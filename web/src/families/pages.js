// The core's families as the page shows them: each family's file (all.js, all
// at once, in the core's order; compute.js's computedFamily), RoPE with its model
// presets (rope-presets.js), each named by the core's label (describe.js familyName).
import * as ALL from './all.js';
import { computedFamily } from './compute.js';
import { FAMILY_TYPES, familyName } from '../describe.js';
import { ropePage } from '../config/rope-presets.js';
import { format } from '../lib/format.js';

for (const type of Object.keys(ALL)) {
  if (!FAMILY_TYPES.includes(type)) throw new Error(`families: "${type}" has a page file (all.js) but the core has no such family`);
}

/** The core's families (describe()), in its order: {type: its file, as compute.js computes with it}. */
const CORE_FAMILIES = Object.fromEntries(FAMILY_TYPES.map((type) => {
  if (!ALL[type]) throw new Error(`families: the core's family "${type}" has no page file (all.js)`);
  return [type, computedFamily(type, ALL[type])];
}));

/** {type: the family's page file, with label: its name}, the core's families in the core's order. */
export const FAMILY_PAGES = Object.fromEntries(Object.entries({ ...CORE_FAMILIES, rope: ropePage })
  .map(([type, page]) => [type, { ...page, label: familyName(type) }]));

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
