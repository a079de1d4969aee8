// What every attention-bias family shows: its bias matrix for the chosen head,
// its own extra views, and the decay comparison; with a causal toggle and n.
import * as biasMatrix from '../views/bias-matrix.js';
import * as decayCompare from '../views/decay-compare.js';
import { COMPARE_DISTANCE, comparison } from './compare.js';

/**
 * @param {object} o
 * @param {string} o.label
 * @param {string} o.formula     HTML
 * @param {object[]} o.parameters the family's own parameters
 * @param {(params) => object} o.spec
 * @param {object[]} [o.views]   views after the bias matrix
 * @param {(engine, params, spec) => object} [o.fields]  extra result fields (getters stay lazy)
 * @param {boolean} [o.causalDefault]
 */
export function biasFamily({ label, formula, parameters, spec, views = [], fields = () => ({}), causalDefault = false }) {
  return {
    label,
    formula,
    parameters: [
      ...parameters,
      { name: 'causal', kind: 'bool', default: causalDefault, label: 'causal mask', help: 'Hide the keys after each query.' },
      { name: 'n', view: true, kind: 'int', default: 64, min: 1, max: 1024, sliderMax: 512, label: 'positions n' },
      COMPARE_DISTANCE,
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
      return Object.defineProperties(result, Object.getOwnPropertyDescriptors(fields(engine, params, s)));
    },
    views: [biasMatrix, ...views, decayCompare],
  };
}
