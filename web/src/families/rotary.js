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
import { attentionFields } from './attention-lab.js';

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
  const width = spec.head_dim;  // the rotated width is the head's: d_model = d_head = head_dim
  Object.defineProperties(result, Object.getOwnPropertyDescriptors(attentionFields(engine, params, spec, { d_model: width, d_head: width })));
  return Object.defineProperties(result, Object.getOwnPropertyDescriptors(fields));
}

/**
 * Keeps the rotation view's pair in range when the model's width changes under
 * it (head_dim 128 -> 16 leaves pair 8 pointing past the last pair), or a link
 * loads; a pair the reader typed out of range keeps its error.
 * @param {Record<string, string>} raw  control values
 * @param {string|null} changed  the control the reader changed (null: a loaded link)
 */
export function adjustPair(raw, changed, rotaryDim) {
  const pairs = Math.floor(rotaryDim / 2);
  const pair = Number(raw.pair);
  // Only a change that can change the number of pairs moves the pair.
  const resizes = changed === null || ['head_dim', 'partial_rotary_factor', 'preset', 'encoding'].includes(changed);
  if (!resizes || !Number.isInteger(pair) || pairs < 1 || pair < pairs) return raw;
  return { ...raw, pair: String(Math.floor(pairs / 2)) };
}
