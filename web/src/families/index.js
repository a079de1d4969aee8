// The encoding families the page offers, and the control that picks one.
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
import * as compare from './side-by-side.js';

// Keys are the spec `type` names, and `compare`: two to four of them side by side.
export const FAMILIES = { sinusoidal, learned, none, rope, xpos, alibi, t5, shaw, transformer_xl: transformerXl, kerple, compare };

export const ENCODING = {
  name: 'encoding', kind: 'choice', default: 'sinusoidal', choices: Object.keys(FAMILIES), label: 'encoding',
  choiceLabels: Object.fromEntries(Object.entries(FAMILIES).map(([k, f]) => [k, f.label])),
};

/** The full parameter list of a family: the encoding picker first. */
export function parametersOf(name) {
  return [ENCODING, ...FAMILIES[name].parameters];
}
