// The curves of the decay comparison: one reference spec per family (its
// paper's defaults), the current encoding's own spec in place of its reference.

/** Label, reference spec, the decay curve to use, and its scale (1/sqrt(d) for q.k). */
const REFERENCES = [
  { label: 'sinusoidal', spec: { type: 'sinusoidal', d_model: 128 }, curve: 'dot', scale: (s) => 1 / Math.sqrt(s.d_model ?? 512) },
  { label: 'RoPE', spec: { type: 'rope', head_dim: 128 }, curve: 'ones', scale: (s) => 1 / Math.sqrt(s.head_dim ?? 128) },
  { label: 'xPos', spec: { type: 'xpos', head_dim: 64 }, curve: 'ones', scale: (s) => 1 / Math.sqrt(s.head_dim ?? 64) },
  { label: 'ALiBi', spec: { type: 'alibi', n_heads: 8, head: 0 }, curve: 'bias', scale: () => 1 },
  { label: 'T5', spec: { type: 't5' }, curve: 'bias', scale: () => 1 },
  { label: 'Shaw', spec: { type: 'shaw' }, curve: 'bias', scale: () => 1 },
  { label: 'Transformer-XL', spec: { type: 'transformer_xl' }, curve: 'bias', scale: () => 1 },
  { label: 'KERPLE', spec: { type: 'kerple' }, curve: 'bias', scale: () => 1 },
  { label: 'NoPE', spec: { type: 'none' }, curve: 'dot', scale: () => 1 },
];

/**
 * The decay curve of any spec over distance 0..maxDistance, as the comparison draws it (the curve of its
 * family's reference: q.k/sqrt(d) of q = k = 1 for rotary, p_0.p_m/sqrt(d) for sinusoidal, the bias
 * b(m) for bias families), or null for a family without one (learned).
 * @returns {{values: Float32Array, scale: number}|null}
 */
export function curveOf(engine, spec, maxDistance) {
  const ref = REFERENCES.find((r) => r.spec.type === spec.type);
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
  const curves = REFERENCES.map((ref) => {
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
