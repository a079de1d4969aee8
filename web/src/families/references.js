// The decay comparison's reference curves at its default range (COMPARE_DISTANCE.default), shipped:
// web/generated/references.js, written by scripts/references.mjs (npm run build:wasm) with the engine's own
// comparison (families/comparison.js) on posenc.wasm. A comparison at that range reads them and computes only the
// current encoding's curve, so an embed of the decay comparison needs neither every family's module and trained set
// nor every family's code: its family group's view module draws it (engine/view-groups.js). At another range the
// engine computes them all, as before. tests/wasm/references.test.mjs computes them again and compares, bit for bit.
import { COMPARE_DISTANCE, atDefaultRange } from './compare.js';
import { base64ToFloat32, float32ToBase64 } from '../lib/base64-arrays.js';

/** The range (tokens) whose reference curves ship. */
export const SHIPPED_DISTANCE = COMPARE_DISTANCE.default;

let loading = null;
let shipped = null;  // [{label, type, random, values: Float32Array, scale}], once loaded

/**
 * The comparison's references as they ship: each curve's values as base64 of float32 ({f32}), the rest as it is.
 * @param {{label: string, type: string, random: boolean, values: Float32Array, scale: number}[]} comparison
 */
export function encodeReferences(comparison) {
  return comparison.map(({ values, ...rest }) => ({ ...rest, values: { f32: float32ToBase64(values) } }));
}

/** encodeReferences's output read back. */
export function decodeReferences(stored) {
  return stored.map(({ values, ...rest }) => ({ ...rest, values: base64ToFloat32(values.f32) }));
}

/**
 * Loads the shipped references, once (a chunk of its own); a failed load (offline) is tried again by the next call.
 * @returns {Promise<void>}
 */
export function loadReferences() {
  loading ??= import('../../generated/references.js').then((m) => { shipped = decodeReferences(m.default.references); },
    (error) => { loading = null; throw error; });
  return loading;
}

/**
 * The shipped references for a comparison over 0..maxDistance: copies (a reply transfers its arrays), or null at another
 * range or before loadReferences.
 * @param {number} maxDistance
 */
export function shippedReferences(maxDistance) {
  if (maxDistance !== SHIPPED_DISTANCE || !shipped) return null;
  return shipped.map((ref) => ({ ...ref, values: ref.values.slice() }));
}

/** Whether a comparison over `maxDistance` (a request's compare_distance, absent: the default) reads the shipped references. */
export const readsShipped = atDefaultRange;
