// What the build ships of the engine's own results (families/heads.js's trained heads, families/references.js's
// curves, families/shipped-fields.js's fields) as JSON: each typed array as the base64 of its little-endian bytes,
// {f32: "..."} for a Float32Array ({f64}, {i32}, {u32}, {u8} for the others): exactly its values, in about a third of
// the text their decimal digits would take (E and W of a head: 14 KB in 19 KB of text, not 40-60 KB), read back to the
// same values.

/** The tag of each typed array kind stored, with its constructor and DataView accessors. */
const KINDS = {
  f32: { type: Float32Array, get: 'getFloat32', set: 'setFloat32' },
  f64: { type: Float64Array, get: 'getFloat64', set: 'setFloat64' },
  i32: { type: Int32Array, get: 'getInt32', set: 'setInt32' },
  u32: { type: Uint32Array, get: 'getUint32', set: 'setUint32' },
  u8: { type: Uint8Array, get: 'getUint8', set: 'setUint8' },
};

/** A typed array's values of kind `tag` (an array of numbers: rounded to it) as base64 of their little-endian bytes. */
function toBase64(values, tag) {
  const { type, set } = KINDS[tag];
  const size = type.BYTES_PER_ELEMENT;
  const view = new DataView(new ArrayBuffer(values.length * size));
  for (let i = 0; i < values.length; i++) view[set](i * size, values[i], true);
  const bytes = new Uint8Array(view.buffer);
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

/** toBase64's inverse: a typed array of kind `tag`. */
function fromBase64(text, tag) {
  const { type, get } = KINDS[tag];
  const binary = atob(text);
  const view = new DataView(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i++) view.setUint8(i, binary.charCodeAt(i));
  return type.from({ length: binary.length / type.BYTES_PER_ELEMENT }, (_, i) => view[get](i * type.BYTES_PER_ELEMENT, true));
}

/** A Float32Array (or an array of numbers, rounded to float32) as base64 of its little-endian bytes. */
export const float32ToBase64 = (values) => toBase64(values, 'f32');

/** base64 of little-endian float32 bytes, read back: a Float32Array. */
export const base64ToFloat32 = (text) => fromBase64(text, 'f32');

/** The tag of a typed array's kind, or undefined for one not stored (BigInt64Array, Float16Array...). */
const tagOf = (v) => Object.keys(KINDS).find((tag) => v.constructor === KINDS[tag].type);

/**
 * A value as it ships: each typed array in it (objects and arrays, at any depth) as {<tag>: base64}; the rest as it is.
 * @param {unknown} value
 * @returns {unknown}  JSON-ready
 * @throws {TypeError} for a typed array of a kind not stored (BigInt64Array...)
 */
export function encodeArrays(value) {
  if (ArrayBuffer.isView(value)) {
    const tag = tagOf(value);
    if (!tag) throw new TypeError(`a ${value.constructor.name} cannot ship: expected one of ${Object.values(KINDS).map((k) => k.type.name).join(', ')}`);
    return { [tag]: toBase64(value, tag) };
  }
  if (Array.isArray(value)) return value.map(encodeArrays);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, encodeArrays(v)]));
  return value;
}

/** encodeArrays's inverse: every {<tag>: base64} (an object of that one key) read back as its typed array. */
export function decodeArrays(stored) {
  if (Array.isArray(stored)) return stored.map(decodeArrays);
  if (stored === null || typeof stored !== 'object') return stored;
  const keys = Object.keys(stored);
  if (keys.length === 1 && Object.hasOwn(KINDS, keys[0]) && typeof stored[keys[0]] === 'string') return fromBase64(stored[keys[0]], keys[0]);
  return Object.fromEntries(keys.map((k) => [k, decodeArrays(stored[k])]));
}
