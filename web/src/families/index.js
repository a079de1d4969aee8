// The encoding families the page offers, and the control that picks one.
import * as sinusoidal from './sinusoidal.js';
import * as rope from './rope.js';
import * as xpos from './xpos.js';

export const FAMILIES = { sinusoidal, rope, xpos };

export const ENCODING = {
  name: 'encoding', kind: 'choice', default: 'sinusoidal', choices: Object.keys(FAMILIES), label: 'encoding',
  choiceLabels: Object.fromEntries(Object.entries(FAMILIES).map(([k, f]) => [k, f.label])),
};

/** The full parameter list of a family: the encoding picker first. */
export function parametersOf(name) {
  return [ENCODING, ...FAMILIES[name].parameters];
}
