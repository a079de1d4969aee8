// What every attention-bias family shows: its bias matrix for the chosen head,
// its own extra views, and the decay comparison; with a causal toggle and n.
import * as biasMatrix from '../views/bias-matrix.js';
import * as decayCompare from '../views/decay-compare.js';
import { COMPARE_DISTANCE, comparison } from './compare.js';
import { ATTENTION_PARAMETERS, attentionFields, attentionViews } from './attention-lab.js';

/**
 * @param {object} o
 * @param {string} o.label
 * @param {string} o.formula     HTML
 * @param {object[]} o.parameters the family's own parameters
 * @param {(params) => object} o.spec
 * @param {object[]} [o.views]   views after the bias matrix
 * @param {(engine, params, spec) => object} [o.fields]  extra result fields (getters stay lazy)
 * @param {boolean} [o.causalDefault]
 * @param {(params) => number} [o.width]  the attention head's width (d_model = d_head); 64 by default
 */
export function biasFamily({ label, formula, parameters, spec, views = [], fields = () => ({}), causalDefault = false, width = () => 64 }) {
  return {
    label,
    formula,
    parameters: [
      ...parameters,
      { name: 'causal', kind: 'bool', default: causalDefault, label: 'causal mask', help: 'Hide the keys after each query.' },
      { name: 'n', view: true, kind: 'int', default: 64, min: 1, max: 1024, sliderMax: 512, label: 'positions n' },
      COMPARE_DISTANCE,
      ...ATTENTION_PARAMETERS,
    ],
    spec,
    compute(engine, params) {
      const s = spec(params);
      const result = {
        spec: s,
        n: params.n,
        get bias() { return engine.bias(s, params.n); },
        get comparison() { return comparison(engine, s, params.compare_distance).comparison; },
        get currentLabel() { return comparison(engine, s, params.compare_distance).currentLabel; },
      };
      const d = width(params);
      Object.defineProperties(result, Object.getOwnPropertyDescriptors(attentionFields(engine, params, s, { d_model: d, d_head: d })));
      return Object.defineProperties(result, Object.getOwnPropertyDescriptors(fields(engine, params, s)));
    },
    views: [biasMatrix, ...views, decayCompare, ...attentionViews('bias')],
  };
}
