// The encoding families the page offers, and the control that picks one: the
// core's families (pages.js), then `compare` (two to four of them side by side),
// `experiment` (train short, test long), `language_model` (the same on a novel) and `model_profile` (a model's layers).
import { FAMILY_PAGES, rawFromSpec } from './pages.js';
import * as compare from '../labs/compare-mode.js';
import * as experiment from '../labs/experiment.js';
import * as languageModel from '../labs/language-model.js';
import * as modelProfile from '../labs/model-profile.js';

export { rawFromSpec };

/** {name: the family's page file}: the core's families in the core's order (describe()), then compare, experiment, language_model,
 *  model_profile. */
export const FAMILIES = { ...FAMILY_PAGES, compare, experiment, language_model: languageModel, model_profile: modelProfile };

export const ENCODING = {
  name: 'encoding', kind: 'choice', default: 'sinusoidal', choices: Object.keys(FAMILIES), label: 'encoding',
  choiceLabels: Object.fromEntries(Object.entries(FAMILIES).map(([k, f]) => [k, f.label])),
};

/** The full parameter list of a family: the encoding picker first. */
export function parametersOf(name) {
  return [ENCODING, ...FAMILIES[name].parameters];
}
