// The sinusoidal family on the page: its controls, its spec, the fields its views read.
import { COMPARE_DISTANCE, COMPARE_VALUES, comparisonFields } from '../compare.js';
import { ATTENTION_PARAMETERS, attentionFields, attentionViews, workedExample } from '../../labs/attention-lab.js';
import { mergeFields } from '../fields.js';
import { coreParameter } from '../../describe.js';


export const parameters = [
  { name: 'n', view: true, kind: 'int', default: 128, min: 1, max: 4096, label: 'positions n' },
  coreParameter('sinusoidal', 'd_model', { pageDefault: 128, why: 'a 128-column table reads on a screen; the paper’s 512 is four times as wide',
    sliderMin: 2, sliderMax: 1024, step: 2, help: 'Width of the embedding; even (sin/cos pairs).' }),
  coreParameter('sinusoidal', 'base', { sliderMin: 10, sliderMax: 1e6,
    help: 'The slowest pair has a wavelength of about 2π·base tokens.' }),
  coreParameter('sinusoidal', 'layout', {
    choiceLabels: { interleaved: 'interleaved: sin, cos, sin, cos, …', concat: 'concat: [sin … | cos …]' } }),
  coreParameter('sinusoidal', 'timescales', {
    choiceLabels: { vaswani: 'vaswani (paper): base^(−2i/d)', tensor2tensor: 'tensor2tensor, fairseq: base^(−i/(d/2−1))' } }),
  { name: 'dims', view: true, kind: 'dims', default: 'auto', label: 'wave dimensions', placeholder: 'auto',
    help: '"auto" or a list such as 0, 1, 20.' },
  { name: 'metric', view: true, kind: 'choice', default: 'dot', choices: ['dot', 'cosine'], label: 'similarity',
    choiceLabels: { cosine: 'cosine', dot: 'dot product' } },
  { name: 'similarity_n', view: true, kind: 'int', default: 128, min: 1, max: 1024, label: 'similarity: positions' },
  { name: 'dot_distance', view: true, kind: 'int', default: 256, min: 1, max: 100000, sliderMin: 8, sliderMax: 16384, log: true,
    label: 'dot product: max distance' },
  COMPARE_DISTANCE,
  COMPARE_VALUES,
  ...ATTENTION_PARAMETERS,
];

/** The spec object sent to the core. */
export function spec(params) {
  return { type: 'sinusoidal', d_model: params.d_model, base: params.base, layout: params.layout, timescales: params.timescales };
}

/**
 * The fields the views read (lazy getters; each may throw the core's message for a bad spec).
 * table/inv_freq/wavelength/sin_column/cos_column: engine.absolute's
 */
export function fields(engine, params) {
  const specOf = () => spec(params);
  const absolute = () => engine.absolute(specOf(), params.n);
  return mergeFields({
    get spec() { return specOf(); },
    get table() { return absolute().table; },
    get inv_freq() { return absolute().inv_freq; },
    get wavelength() { return absolute().wavelength; },
    get sin_column() { return absolute().sin_column; },
    get cos_column() { return absolute().cos_column; },
    get metric() { return params.metric; },
    get dotDecay() { return engine.decay(specOf(), params.dot_distance); },
    get similarity() { return engine.similarity(specOf(), params.similarity_n, params.metric); },
    get worked() { return workedExample(engine, params, 'sinusoidal', params.base); },
  }, comparisonFields(engine, params, specOf),
  attentionFields(engine, params, specOf, () => ({ d_model: params.d_model, d_head: params.d_model })));
}

export const views = ['heatmap', 'waves', 'similarity', 'dot-decay', 'decay-comparison', ...attentionViews('absolute', true)];
