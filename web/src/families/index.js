// Every encoding the page offers, loaded at once (families/catalogue.js loads
// them one by one, as the pages show them): for the tests and scripts, which read
// every family's parameters and views. {name: its page file}, in the order of
// catalogue.js's FAMILY_NAMES (the core's families in the core's order, then
// compare, experiment, language_model, model_profile).
import { FAMILY_NAMES, loadFamilies } from './catalogue.js';
import { loadFamilyPages } from './pages.js';

export { ENCODING, familyLabel, parametersOf } from './catalogue.js';
export { rawFromSpec } from './pages.js';

await loadFamilyPages();  // rawFromSpec's (and compare mode's readSlot's): every core family's

/** {name: the family's page file, with its label}. */
export const FAMILIES = Object.fromEntries((await loadFamilies()).map((family, k) => [FAMILY_NAMES[k], family]));
