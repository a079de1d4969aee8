// What the compare views read (labs/compare-mode.js is the family's page file): each
// configuration's decay curve, spectrum and attention map, computed in the
// engine's worker from the configurations the page read (params.slots). The
// families' table is handed in (families/compute.js), so none imports this back.
import { familyDescription } from '../describe.js';

/** The attention settings of the comparison, in place of each configuration's own. */
const SHARED = ['text', 'projections', 'attn_causal', 'attn_seed', 'sharpness'];

/**
 * The fields of the comparison views (lazy getters).
 * curves: each one's decay curve (values null: none);
 * spectra: each one's inverse frequencies (null: none); maps: each one's attention result.
 * @param {object} engine  engine/calls.js createCalls
 * @param {object} params  with slots (labs/compare-mode.js request)
 * @param {Record<string, {fields: Function}>} table  the core families' files by spec type
 */
export function sideBySideFields(engine, params, table) {
  const read = () => {
    const { slots } = params;
    if (slots.error) throw Object.assign(new RangeError(slots.error.message), { param: slots.error.param });
    return slots;
  };
  const familyFields = (s) => table[s.family].fields(engine, { ...s.params, ...Object.fromEntries(SHARED.map((k) => [k, params[k]])) });
  /** Each configuration's fn(s, its fields); an error (the core's, for a value out of range) names its line. */
  const each = (fn) => read().map((s) => {
    try {
      return fn(s, familyFields(s));
    } catch (error) {
      throw Object.assign(new RangeError(`${s.slot} = ${JSON.stringify(params[s.slot])} is invalid: ${error.message}`), { param: s.slot });
    }
  });
  return {
    get curves() {
      return each((s, f) => {
        // A family whose parameters are drawn at random (a seed key) shows one untrained draw: said, and drawn faint.
        const random = familyDescription(s.family).keys.some((k) => k.name === 'seed');
        return { label: random ? `${s.label} (random draw, untrained)` : s.label, short: s.short, random,
          ...(engine.curveOf(f.spec, params.compare_distance) ?? { values: null, scale: 1 }) };
      });
    },
    get spectra() {
      return each((s, f) => {
        const spec = f.spec;
        const seqLen = s.params.seq_len ?? s.params.training_length ?? 4096;
        const { acts, computes } = familyDescription(spec.type);
        const invFreq = acts === 'rotary' ? engine.rotary(spec, seqLen).inv_freq
          : computes.includes('positionFrequencies') ? engine.absolute(spec, 1).inv_freq : null;
        return { label: s.label, short: s.short, inv_freq: invFreq, seqLen: acts === 'rotary' ? seqLen : null };
      });
    },
    get maps() { return each((s, f) => ({ label: s.label, short: s.short, attention: f.attention })); },
  };
}
