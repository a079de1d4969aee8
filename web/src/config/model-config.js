// A model's config.json -> a posenc spec, with the core's names: the config
// reader (hf-config.js, which imports nothing) given the family types and
// rope_type names of the core's describe() (describe.js).
import { FAMILY_TYPES, ROPE_TYPES } from '../describe.js';
import { readConfig } from './hf-config.js';

/**
 * hf-config.js readConfig with the core's family and rope_type names: {spec, sliding, notes, used, unmodelled, ignored}.
 * @param {object} config  parsed JSON (hf-config.js parseConfigText)
 */
export function specFromConfig(config) {
  return readConfig(config, { familyTypes: FAMILY_TYPES, ropeTypes: ROPE_TYPES });
}
