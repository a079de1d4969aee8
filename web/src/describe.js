// The core's own list of what it computes (describe(), written to
// web/generated/describe.json by `npm run build:wasm`): every family with where
// it acts and its keys' defaults and ranges, every rope_type with its keys, and
// the core's limits. The page's family list, the families' names (familyName),
// its controls of the core's keys (coreParameter, scalingParameter: kind,
// choices, default) and the config reader's type names all come from here.
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

/** The family's name, as the page shows it: the core's label up to its colon ("RoPE: q and k rotated ..." -> "RoPE"). */
export function familyName(type) {
  return familyDescription(type).label.split(':')[0];
}

/**
 * The keys rope_type `name` takes: {name, required: string[], optional: string[], unread: string[], keys: object[]}
 * (unread: optional keys the core checks but no frequency reads).
 */
export function ropeTypeKeys(name) {
  return DESCRIPTION.rope_types.find((t) => t.name === name);
}

/**
 * Whether rope_type `name` reads rope_scaling key `key`: takes it (required or optional) and some frequency reads its
 * value (not one of the type's `unread` keys, which the core checks and ignores, as transformers does); false for an
 * unknown type.
 */
export function ropeTypeReads(name, key) {
  const type = ropeTypeKeys(name);
  return Boolean(type?.keys.some((k) => k.name === key) && !type.unread.includes(key));
}

/** The core's description of key `name` of family `type` ({name, kind, default, min?, max?, exclusive_min?, allowed, choices?}). */
export function coreKey(type, name) {
  const key = familyDescription(type)?.keys.find((k) => k.name === name);
  if (!key) throw new Error(`describe: family "${type}" has no key "${name}"`);
  return key;
}

/** Any rope_type's description of rope_scaling key `name` (the same in every type that takes it). */
export function scalingKey(name) {
  const key = DESCRIPTION.rope_types.flatMap((t) => t.keys).find((k) => k.name === name);
  if (!key) throw new Error(`describe: no rope_type takes the key "${name}"`);
  return key;
}

// The page's control kind of a core key's kind (state.js); an integer or number the core
// leaves absent by default is an optional one (a blank box).
const PAGE_KIND = { integer: 'int', number: 'number', boolean: 'bool', choice: 'choice', list: 'list' };
const OPTIONAL = { int: 'optional-int', number: 'optional-number' };

/**
 * The page's control of a core key (state.js's parameter object): its kind, choices and
 * default come from describe(); `page` adds what only the page knows (label, help,
 * choiceLabels, placeholder, sliderMin, sliderMax, step, log, when). The key's range stays
 * the core's: the page reads the number and the core checks it (its message, beside the
 * control). A default of the page's own is written `pageDefault` with `why`, so every
 * difference from the core's default is said where it is made.
 * @param {object} key  the core's description of the key (coreKey, scalingKey)
 * @param {object} [page]  {label?, help?, pageDefault?, why?, ...}
 * @returns {object}  {name, kind, default, choices?, coreDefault, why?, label, ...page}
 */
function controlOf(key, { pageDefault, why, ...page } = {}, where = key.name) {
  const own = pageDefault !== undefined;
  if (own && !why) throw new Error(`describe: the page's default of ${where} needs a why`);
  if (own && JSON.stringify(pageDefault) === JSON.stringify(key.default)) throw new Error(`describe: ${where}: the page's default is the core's`);
  const value = own ? pageDefault : key.default;
  const kind = PAGE_KIND[key.kind];
  if (!kind) throw new Error(`describe: ${where} is of kind ${key.kind}, which no page control takes`);
  return {
    name: key.name, kind: value === null ? (OPTIONAL[kind] ?? kind) : kind, default: value,
    ...(key.kind === 'choice' ? { choices: key.choices } : {}),
    coreDefault: key.default, ...(own ? { why } : {}), label: key.name, ...page,
  };
}

/** The page's control of key `name` of family `type` (see controlOf). */
export function coreParameter(type, name, page = {}) {
  return controlOf(coreKey(type, name), page, `${type}.${name}`);
}

/** The page's control of rope_scaling key `name` (see controlOf). */
export function scalingParameter(name, page = {}) {
  return controlOf(scalingKey(name), page, `rope_scaling.${name}`);
}
