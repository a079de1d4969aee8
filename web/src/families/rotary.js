// What the rotary families (rope, xpos) hand their shared views: each field is
// computed by the engine when a view first reads it, so a view whose input
// fails (a pair out of range) does not stop the others.

/**
 * @param {object} engine
 * @param {object} spec     the family's spec
 * @param {object} params   with pair, start, max_distance, n, input, compare_distance
 * @param {object} fields   the family's own fields (getters stay lazy)
 */
import { comparison } from './compare.js';

export function rotaryResult(engine, spec, params, fields) {
  const result = {
    spec,
    pair: params.pair,
    input: params.input,
    get rotation() { return engine.pairTrajectory(spec, params.pair, params.start, 11); },
    get decay() { return engine.decay(spec, params.max_distance); },
    get comparison() { return comparison(engine, spec, params.compare_distance).comparison; },
    get currentLabel() { return comparison(engine, spec, params.compare_distance).currentLabel; },
    get rotated() {
      return {
        interleaved: engine.rotatedInput({ ...spec, layout: 'interleaved' }, params.n, params.input),
        half: engine.rotatedInput({ ...spec, layout: 'half' }, params.n, params.input),
      };
    },
  };
  return Object.defineProperties(result, Object.getOwnPropertyDescriptors(fields));
}
