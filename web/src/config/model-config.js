// A model's config.json -> a posenc spec, with the core's names: the config
// reader (hf-config.js, which imports nothing) given the family types and
// rope_type names of the core's describe() (describe.js).
import { FAMILY_TYPES, ROPE_TYPES } from '../describe.js';
import { parseConfigText, readConfig } from './hf-config.js';

/**
 * hf-config.js readConfig with the core's family and rope_type names: {spec, sliding, notes, used, unmodelled, ignored}.
 * @param {object} config  parsed JSON (hf-config.js parseConfigText)
 */
export function specFromConfig(config) {
  return readConfig(config, { familyTypes: FAMILY_TYPES, ropeTypes: ROPE_TYPES });
}

/** How many ignored keys readConfigText lists (a paste with 400,000 keys would otherwise send and print them all). */
export const IGNORED_LISTED = 40;

/**
 * A pasted config.json's text read: parseConfigText, then specFromConfig. The engine's worker runs it
 * (engine/calls.js readConfig), so a large paste is parsed off the page's thread.
 * @param {string} text
 * @returns {{spec: object, sliding: ?object, notes: string[], used: string[], unmodelled: {key, why}[],
 *   ignored: string[], ignoredCount: number}}  ignored: the first 40 of the ignoredCount ignored keys
 * @throws {Error} .param 'config': not JSON, nested too deeply, or not a config posenc reads
 */
export function readConfigText(text) {
  const read = specFromConfig(parseConfigText(text));
  return { ...read, ignored: read.ignored.slice(0, IGNORED_LISTED), ignoredCount: read.ignored.length };
}

