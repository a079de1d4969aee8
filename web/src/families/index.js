// The encoding families the page offers, and the control that picks one.
import { format } from '../state.js';
import { FAMILY_TYPES } from '../describe.js';
import * as sinusoidal from './sinusoidal.js';
import * as learned from './learned.js';
import * as none from './none.js';
import * as rope from './rope.js';
import * as xpos from './xpos.js';
import * as alibi from './alibi.js';
import * as t5 from './t5.js';
import * as shaw from './shaw.js';
import * as transformerXl from './transformer-xl.js';
import * as kerple from './kerple.js';
import * as deberta from './deberta.js';
import * as fire from './fire.js';
import * as cope from './cope.js';
import * as compare from './side-by-side.js';
import * as experiment from './experiment.js';

// The page file of each core family, by its spec `type`.
const PAGES = { sinusoidal, learned, none, rope, xpos, alibi, t5, shaw, transformer_xl: transformerXl, kerple, deberta, fire, cope };

// The core's families in the core's order (describe()), then `compare` (two to four of them side by side)
// and `experiment` (train short, test long).
export const FAMILIES = Object.fromEntries([...FAMILY_TYPES.map((type) => {
  if (!PAGES[type]) throw new Error(`families: the core's family "${type}" has no page file`);
  return [type, PAGES[type]];
}), ['compare', compare], ['experiment', experiment]]);

export const ENCODING = {
  name: 'encoding', kind: 'choice', default: 'sinusoidal', choices: Object.keys(FAMILIES), label: 'encoding',
  choiceLabels: Object.fromEntries(Object.entries(FAMILIES).map(([k, f]) => [k, f.label])),
};

/** The full parameter list of a family: the encoding picker first. */
export function parametersOf(name) {
  return [ENCODING, ...FAMILIES[name].parameters];
}

/**
 * Raw control values of family spec.type for a spec (a pasted config's or a
 * preset's, see hf-config.js specFromConfig): the family's own rawFromSpec when
 * it has one (rope: both config generations, the sliding-window layers), else
 * each spec key that is one of its controls, as text.
 * @param {object} spec  {type, ...keys}
 * @param {?object} [sliding]  specFromConfig's sliding-window layers (rope only)
 * @returns {Record<string, string>}
 */
export function rawFromSpec(spec, sliding = null) {
  const family = FAMILIES[spec.type];
  if (family.rawFromSpec) return family.rawFromSpec(spec, sliding);
  const names = new Set(family.parameters.filter((p) => !p.view).map((p) => p.name));
  return Object.fromEntries(Object.entries(spec).filter(([k]) => names.has(k)).map(([k, v]) => [k, format(v)]));
}
