// xPos on the page: RoPE's rotation with a per-pair exponential scale.
import { attentionViews } from '../../labs/attention-lab.js';
import { ROTARY_VIEW_PARAMETERS, adjustPair, pairParameter, rotaryFields } from '../rotary.js';
import { coreParameter } from '../../describe.js';


export const parameters = [
  coreParameter('xpos', 'head_dim', { sliderMin: 2, sliderMax: 1024, step: 2 }),
  coreParameter('xpos', 'rope_theta', { sliderMin: 10, sliderMax: 1e7 }),
  coreParameter('xpos', 'scale_base', { sliderMin: 8, sliderMax: 65536, label: 'scale_base γ' }),
  coreParameter('xpos', 'role', { choiceLabels: { query: 'query: ζ^(+n/γ)', key: 'key: ζ^(−m/γ)' } }),
  { name: 'training_length', view: true, kind: 'int', default: 1024, min: 1, max: 1e9, sliderMin: 16, sliderMax: 1048576, log: true,
    label: 'training length (tokens)', help: 'Marked on the decay plot (the paper trains on 1024 tokens).' },
  pairParameter(4),
  { name: 'start', view: true, kind: 'int', default: 0, min: 0, max: 1e9, sliderMax: 4096, label: 'rotation: first position' },
  { name: 'max_distance', view: true, kind: 'int', default: 4096, min: 1, max: 200000, sliderMin: 16, log: true, label: 'decay: max distance' },
  ...ROTARY_VIEW_PARAMETERS,
];

export function spec(params) {
  return { type: 'xpos', head_dim: params.head_dim, rope_theta: params.rope_theta, scale_base: params.scale_base, role: params.role };
}

/** The fields the views read (lazy getters; see rotary.js). */
export function fields(engine, params) {
  return rotaryFields(engine, () => spec(params), params, {
    get trainingLength() { return params.training_length; },
    get maxPositions() { return params.training_length; },
    maxPositionsName: 'the training length',  // xPos has no max_position_embeddings
    get rope() { return { seq_len: params.training_length, ...engine.rotary(spec(params), params.training_length) }; },
  });
}

export const views = ['rotation', 'decay', 'rotated', 'decay-comparison', ...attentionViews('rotary')];

/** Fields every JSON export of this family carries. */
export const jsonFields = ['rope'];

/** Raw values made consistent after a change (see adjustPair). */
export function adjustRaw(raw, changed) {
  return adjustPair(raw, changed);
}
