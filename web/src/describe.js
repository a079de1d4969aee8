// The core's own list of what it computes (describe(), written to
// web/generated/describe.json by `npm run build:wasm`): every family with where
// it acts and its keys' defaults and ranges, every rope_type with its keys, and
// the core's limits. The page's family list, its controls' ranges and the
// config reader's type names all come from here.
import DESCRIPTION from '../generated/describe.json' with { type: 'json' };

export { DESCRIPTION };

/** Every family's spec `type`, in the core's order. */
export const FAMILY_TYPES = DESCRIPTION.families.map((f) => f.type);

/** Every rope_type name (rope_scaling.rope_type). */
export const ROPE_TYPES = DESCRIPTION.rope_types.map((t) => t.name);

/** The core's description of family `type` ({type, acts, width_key, keys, computes, ...}); undefined if none. */
export function familyDescription(type) {
  return DESCRIPTION.families.find((f) => f.type === type);
}

/** The keys rope_type `name` takes: {required: string[], optional: string[]}. */
export function ropeTypeKeys(name) {
  return DESCRIPTION.rope_types.find((t) => t.name === name);
}

/** The core's description of key `name` of family `type` ({name, kind, default, min?, max?, exclusive_min?, allowed, choices?}). */
export function coreKey(type, name) {
  const key = familyDescription(type)?.keys.find((k) => k.name === name);
  if (!key) throw new Error(`describe: family "${type}" has no key "${name}"`);
  return key;
}

/** The values the core accepts for choice key `name` of family `type`. */
export function coreChoices(type, name) {
  return coreKey(type, name).choices;
}
