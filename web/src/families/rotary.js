// What the rotary families (rope, xpos) hand their shared views: each field is
// computed by the engine when a view first reads it, so a view whose input
// fails (a pair out of range) does not stop the others.
import { comparisonFields } from './compare.js';
import { attentionFields } from '../labs/attention-lab.js';
import { mergeFields } from './fields.js';

/**
 * @param {object} engine
 * @param {() => object} specOf   the family's spec
 * @param {object} params   with pair, start, max_distance, n, input, compare_distance
 * @param {object} own      the family's own fields (getters stay lazy)
 */
export function rotaryFields(engine, specOf, params, own) {
  const width = () => specOf().head_dim;  // the rotated width is the head's: d_model = d_head = head_dim
  return mergeFields({
    get spec() { return specOf(); },
    get pair() { return params.pair; },
    get input() { return params.input; },
    get rotation() { return engine.pairTrajectory(specOf(), params.pair, params.start, 11); },
    get decay() { return engine.decay(specOf(), params.max_distance); },
    get rotated() {
      const spec = specOf();
      return {
        interleaved: engine.rotatedInput({ ...spec, layout: 'interleaved' }, params.n, params.input),
        half: engine.rotatedInput({ ...spec, layout: 'half' }, params.n, params.input),
      };
    },
  }, comparisonFields(engine, params, specOf),
  attentionFields(engine, params, specOf, () => ({ d_model: width(), d_head: width() })), own);
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
