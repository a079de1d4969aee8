// The curves of the decay comparison: one reference per family that has a
// decay curve (the core's list, describe()), at the page's defaults for it;
// the current encoding's own spec in place of its reference.
import { DESCRIPTION } from '../describe.js';
import { FAMILIES } from './index.js';  // a cycle: read only inside functions
import { defaultsOf, parse } from '../state.js';

// The decay curve each kind of family compares by: q.k of q = k = 1 (rotary), the bias (bias), p_0.p_m (absolute, none).
const CURVE = { rotary: 'ones', bias: 'bias', absolute: 'dot', none: 'dot' };

/** Label, reference spec, the decay curve to use, and its scale (1/sqrt(width) for q.k and p.p). */
let references = null;
function referencesOf() {
  references ??= DESCRIPTION.families.filter((f) => f.computes.includes('decay')).map((f) => {
    const { params } = parse(FAMILIES[f.type].parameters, defaultsOf(FAMILIES[f.type].parameters));
    const widthDefault = f.keys.find((k) => k.name === f.width_key)?.default;
    return {
      label: f.label.split(':')[0],
      spec: FAMILIES[f.type].spec(params),
      curve: CURVE[f.acts],
      scale: f.acts === 'rotary' || f.acts === 'absolute' ? (s) => 1 / Math.sqrt(s[f.width_key] ?? widthDefault) : () => 1,
    };
  });
  return references;
}

/**
 * The decay curve of any spec over distance 0..maxDistance, as the comparison draws it (the curve of its
 * family's reference: q.k/sqrt(d) of q = k = 1 for rotary, p_0.p_m/sqrt(d) for sinusoidal, the bias
 * b(m) for bias families), or null for a family without one (learned).
 * @returns {{values: Float32Array, scale: number}|null}
 */
export function curveOf(engine, spec, maxDistance) {
  const ref = referencesOf().find((r) => r.spec.type === spec.type);
  return ref ? { values: engine.decay(spec, maxDistance)[ref.curve], scale: ref.scale(spec) } : null;
}

/**
 * The comparison's curves over distance 0..maxDistance.
 * @param {object} engine
 * @param {object|null} current  the current encoding's spec (null: a learned table, which has no curve)
 * @returns {{comparison: {label, values: Float32Array, scale: number}[], currentLabel: string|null}}
 */
export function comparison(engine, current, maxDistance) {
  let currentLabel = null;
  const curves = referencesOf().map((ref) => {
    const mine = current && current.type === ref.spec.type;
    if (mine) currentLabel = ref.label;
    return { label: ref.label, ...curveOf(engine, mine ? current : ref.spec, maxDistance) };
  });
  return { comparison: curves, currentLabel };
}

/** The fields the comparison view reads, for a family whose spec is specOf() (null: none); computed once for both. */
export function comparisonFields(engine, params, specOf) {
  let curves = null;
  const once = () => { curves ??= comparison(engine, specOf(), params.compare_distance); return curves; };
  return {
    get comparison() { return once().comparison; },
    get currentLabel() { return once().currentLabel; },
  };
}

/** The view parameter for the comparison's range. */
export const COMPARE_DISTANCE = {
  name: 'compare_distance', view: true, kind: 'int', default: 256, min: 1, max: 100000, sliderMin: 8, sliderMax: 8192, log: true,
  label: 'comparison: max distance',
};
