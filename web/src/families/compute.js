// The families as the engine's worker uses them (engine/calls.js): each family's
// spec() and fields(), by spec `type`. The core's families in the core's order
// (describe()), then `compare` (its configurations read by the page, see
// labs/compare-mode.js), `experiment` and `language_model`. Nothing here imports the page's controls,
// state, presets or config reader (tests/unit/imports.test.mjs).
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
import * as experiment from '../labs/experiment.js';
import * as languageModel from '../labs/language-model.js';
import * as modelProfile from '../labs/model-profile-fields.js';
import { sideBySideFields } from '../labs/compare-mode-fields.js';
import { TRAINED_TYPES, withTrained } from './trained.js';

// The file of each core family, by its spec `type`; those with learned position parameters show trained ones by
// default (families/trained.js).
const FILES = { sinusoidal, learned: withTrained('learned', learned), none, rope, xpos, alibi, t5: withTrained('t5', t5),
  shaw: withTrained('shaw', shaw), transformer_xl: withTrained('transformer_xl', transformerXl), kerple: withTrained('kerple', kerple),
  deberta: withTrained('deberta', deberta), fire: withTrained('fire', fire), cope: withTrained('cope', cope) };

for (const type of Object.keys(FILES)) {
  if (!FAMILY_TYPES.includes(type)) throw new Error(`families: "${type}" has a page file but the core has no such family`);
}

/** The core's families (describe()), in its order: {type: the family's file}. */
export const CORE_FAMILIES = Object.fromEntries(FAMILY_TYPES.map((type) => {
  if (!FILES[type]) throw new Error(`families: the core's family "${type}" has no page file`);
  return [type, FILES[type]];
}));

/** What the worker computes a family's fields with: {name: {fields(engine, params)}}, the page's names. */
export const COMPUTE = {
  ...CORE_FAMILIES,
  compare: { fields: (engine, params) => sideBySideFields(engine, params, CORE_FAMILIES) },
  experiment,
  language_model: languageModel,
  model_profile: modelProfile,
};

/**
 * The families whose trained sets a request of family `name` for `needs` computes with (families/trained.js): its
 * own, with weights "trained"; every one for the decay comparison's references and for compare mode's lines.
 * @returns {string[]}
 */
export function trainedNeeds(name, params, needs) {
  if (name === 'compare' || needs.includes('comparison') || needs.includes('currentLabel')) return TRAINED_TYPES;
  return TRAINED_TYPES.includes(name) && params.weights === 'trained' ? [name] : [];
}
