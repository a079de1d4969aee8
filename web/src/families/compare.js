// The decay comparison every family's page shows: its own curve among one
// reference curve per family. What a family's fields need of it; the curves
// themselves are the engine's (engine.comparison, from comparison.js), so this
// module knows no family and the families can import it.

/** The fields the comparison view reads, for a family whose spec is specOf() (null: none); computed once for both. */
export function comparisonFields(engine, params, specOf) {
  let curves = null;
  const once = () => { curves ??= engine.comparison(specOf(), params.compare_distance); return curves; };
  return {
    get comparison() { return once().comparison; },
    get currentLabel() { return once().currentLabel; },
  };
}

/** The view parameter for the comparison's range. */
/**
 * How a decay comparison draws its curves: each normalised to its own range (their shapes compare: the default, since on
 * one raw axis ALiBi's −m·d reaches −128 at 256 tokens against RoPE's ±1 and the others flatten), or raw on one scale.
 */
export const COMPARE_VALUES = {
  name: 'compare_values', view: true, kind: 'choice', default: 'normalised', choices: ['normalised', 'raw'], label: 'decay values',
  choiceLabels: { normalised: 'normalise each curve', raw: 'one scale: raw f(m)' },
  help: 'Normalise each: (f(m) − f(0)) / max |f − f(0)|, every curve from 0 to ±1, so the shapes compare. One scale: the logit ' +
    'or bias itself, so the sizes compare.',
};

/**
 * Whether a compare_distance value (raw or parsed; absent: the control's default) is the default range, the one whose
 * reference curves ship (families/references.js).
 */
export function atDefaultRange(maxDistance) {
  return maxDistance === undefined || maxDistance === null || Number(maxDistance) === COMPARE_DISTANCE.default;
}

export const COMPARE_DISTANCE = {
  name: 'compare_distance', view: true, kind: 'int', default: 256, min: 1, max: 100000, sliderMin: 8, sliderMax: 8192, log: true,
  label: 'comparison: max distance',
};
