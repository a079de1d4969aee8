// What the rotary families (rope, xpos) hand their shared views: each field is
// computed by the engine when a view first reads it, so a view whose input
// fails (a pair out of range) does not stop the others.
import { COMPARE_DISTANCE, COMPARE_VALUES, comparisonFields } from './compare.js';
import { ATTENTION_PARAMETERS, attentionFields } from '../labs/attention-lab.js';
import { mergeFields } from './fields.js';

/**
 * The view controls every rotary family ends its parameters with, in the page's order: the rotated heatmap's input
 * and positions (rotaryFields' rotated), the decay comparison's, and the attention lab's.
 */
export const ROTARY_VIEW_PARAMETERS = [
  { name: 'input', view: true, kind: 'choice', default: 'ones', choices: ['ones', 'random'], label: 'heatmap input',
    choiceLabels: { ones: 'all ones', random: 'one random vector' } },
  { name: 'n', view: true, kind: 'int', default: 64, min: 1, max: 2048, label: 'heatmap positions n' },
  COMPARE_DISTANCE,
  COMPARE_VALUES,
  ...ATTENTION_PARAMETERS,
];

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
 * The rotated pairs of raw control values, rotary_dim / 2, for the pair slider's range and adjustPair: the core's rule
 * (rope_config.cpp) read for a slider, which narrows as the reader types: rotary_dim = head_dim · partial_rotary_factor
 * (1 when absent, as for xPos) rounded down to even, or head_dim for rope_type proportional (which zeroes pairs'
 * frequencies instead, and needs one turning pair). A wasm test checks it against the core's own count (ropeInvFreq's inv_freq) over a grid.
 * @param {{head_dim: string, partial_rotary_factor?: string, rope_type?: string}} raw
 * @returns {number}  NaN for values the core refuses (fewer than one pair, not numbers)
 */
export function rotaryPairs(raw) {
  const headDim = Number(raw.head_dim);
  const factor = Number(raw.partial_rotary_factor || 1);
  const turning = Math.floor(Math.floor(headDim * factor) / 2);  // proportional: floor(factor · head_dim / 2), the same
  if (!(turning >= 1)) return NaN;
  return raw.rope_type === 'proportional' ? Math.floor(headDim / 2) : turning;
}

/** The rotation view's pair control: its slider spans the pairs the head has (rotaryPairs). */
export function pairParameter(defaultPair) {
  return { name: 'pair', view: true, kind: 'int', default: defaultPair, min: 0, max: 1023, label: 'rotation: pair i',
    sliderRange: (raw) => ({ max: rotaryPairs(raw) - 1 }) };
}

/**
 * Keeps the rotation view's pair in range when the model's width changes under
 * it (head_dim 128 -> 16 leaves pair 8 pointing past the last pair), or a link
 * loads; a pair the reader typed out of range keeps its error.
 * @param {Record<string, string>} raw  control values
 * @param {string|null} changed  the control the reader changed (null: a loaded link)
 */
export function adjustPair(raw, changed) {
  const pairs = rotaryPairs(raw);
  const pair = Number(raw.pair);
  // Only a change that can change the number of pairs moves the pair.
  const resizes = changed === null || ['head_dim', 'partial_rotary_factor', 'rope_type', 'preset', 'encoding'].includes(changed);
  if (!resizes || !Number.isInteger(pair) || !(pairs >= 1) || pair < pairs) return raw;
  return { ...raw, pair: String(Math.floor(pairs / 2)) };
}
