// The curves of the decay comparison: one reference per family that has a
// decay curve (the core's list, describe()), at the page's defaults for it;
// the current encoding's own spec in place of its reference. The families'
// files are handed in (engine/calls.js passes families/compute.js's computeOf),
// so no family file imports this one back.
import { DESCRIPTION, familyName } from '../describe.js';
import { shippedReferences } from './references.js';

// The decay curve each kind of family compares by: q.k of q = k = 1 (rotary), the bias (bias), p_0.p_m (absolute, none).
const CURVE = { rotary: 'ones', polar: 'ones', bias: 'bias', absolute: 'dot', none: 'dot' };

/**
 * The comparison over the core's families with a decay curve, each family's file {parameters, spec} given by
 * `familyOf(type)` (read on the first curve: every one loaded by then, families/compute.js loadCompute): curveOf and
 * comparison, each given the engine's calls (engine/calls.js createCalls) to compute with.
 * @param {(type: string) => {parameters: object[], spec: Function}} familyOf
 */
export function createComparison(familyOf) {
  /**
   * The decay curve family `type` compares by and its scale (1/sqrt(width) for q.k and p.p), from the core's
   * description alone (no family's file, no trained set); null for a family without a decay curve (learned).
   */
  const curveKindOf = (type) => {
    const f = DESCRIPTION.families.find((d) => d.type === type);
    if (!f?.computes.includes('decay')) return null;
    const widthDefault = f.keys.find((k) => k.name === f.width_key)?.default;
    return { curve: CURVE[f.acts],
      scale: f.acts === 'rotary' || f.acts === 'polar' || f.acts === 'absolute' ? (s) => 1 / Math.sqrt(s[f.width_key] ?? widthDefault) : () => 1 };
  };

  /** Label, reference spec, the decay curve to use, and its scale (1/sqrt(width) for q.k and p.p). */
  let references = null;
  const referencesOf = () => {
    references ??= DESCRIPTION.families.filter((f) => f.computes.includes('decay')).map((f) => {
      const { parameters, spec } = familyOf(f.type);
      const params = Object.fromEntries(parameters.map((p) => [p.name, p.default]));
      // A family with a seed key draws its parameters at random: its curve is one draw, untrained, not the family's;
      // unless it shows the parameters the language-model lab trained (weights "trained", families/trained.js).
      const trained = params.weights === 'trained';  // the references' default
      const random = !trained && f.keys.some((k) => k.name === 'seed');
      return {
        type: f.type,
        random,
        label: random ? `${familyName(f.type)} (random draw, untrained)` : trained ? `${familyName(f.type)} (trained on Moby-Dick)` : familyName(f.type),
        spec: spec(params),
        ...curveKindOf(f.type),
      };
    });
    return references;
  };

  /**
   * The decay curve of any spec over distance 0..maxDistance, as the comparison draws it (the curve of its
   * family's reference: q.k/sqrt(d) of q = k = 1 for rotary, p_0.p_m/sqrt(d) for sinusoidal, the bias
   * b(m) for bias families), or null for a family without one (learned).
   * @returns {{values: Float32Array, scale: number}|null}
   */
  function curveOf(calls, spec, maxDistance) {
    const kind = curveKindOf(spec.type);  // not the references: compare mode's lines need no other family's set
    return kind ? { values: calls.decay(spec, maxDistance)[kind.curve], scale: kind.scale(spec) } : null;
  }

  /**
   * The comparison's curves over distance 0..maxDistance.
   * @param {object} calls
   * @param {object|null} current  the current encoding's spec (null: a learned table, which has no curve)
   * @returns {{comparison: {label, type, random: boolean, values: Float32Array, scale: number}[], currentLabel: string|null}}
   *   random: the family draws its parameters at random (a seed key): its curve is one untrained draw
   */
  function comparison(calls, current, maxDistance) {
    let currentLabel = null;
    // At the shipped range the references are read (families/references.js), and only the current curve is computed.
    const shipped = shippedReferences(maxDistance);
    const curves = (shipped ?? referencesOf()).map((ref) => {
      const type = ref.type;
      const mine = current && current.type === type;
      if (mine) currentLabel = ref.label;
      if (shipped && !mine) return ref;
      return { label: ref.label, type, random: ref.random, ...curveOf(calls, mine ? current : ref.spec, maxDistance) };
    });
    return { comparison: curves, currentLabel };
  }

  return { curveOf, comparison };
}
