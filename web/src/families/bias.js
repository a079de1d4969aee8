// What every attention-bias family shows: its bias matrix for the chosen head,
// its own extra views, and the decay comparison; with a causal toggle and n.
import { COMPARE_DISTANCE, COMPARE_VALUES, comparisonFields } from './compare.js';
import { ATTENTION_PARAMETERS, attentionFields, attentionViews } from '../labs/attention-lab.js';
import { mergeFields } from './fields.js';
import { coreParameter } from '../describe.js';
import { TRAINED_TENSORS } from './trained.js';
import { withValue } from '../lib/reads.js';
import { largest } from '../lib/spread.js';

/**
 * The page's controls of a multi-head bias family's `n_heads` and `head` (the core's keys): the head slider
 * stops at n_heads - 1, so every position of it is a head the model has.
 */
export function headParameters(type) {
  return [
    coreParameter(type, 'n_heads', { sliderMin: 1, sliderMax: 64 }),
    coreParameter(type, 'head', { sliderMin: 0, sliderMax: 63, sliderRange: (raw) => ({ max: Number(raw.n_heads) - 1 }) }),
  ];
}

/**
 * @param {object} o
 * @param {string} o.type  the family's spec `type` (its causal control is the core's key, with the core's default)
 * @param {object[]} o.parameters the family's own parameters
 * @param {(params) => object} o.spec
 * @param {string[]} [o.views]   ids of the views after the bias matrix
 * @param {(engine, params) => object} [o.fields]  extra result fields (lazy getters)
 * @param {(params) => number} [o.width]  the attention head's width (d_model = d_head); 64 by default
 * @param {(params) => {d_model: number, d_head: number}} [o.widths]  the head's widths when they differ (DeBERTa)
 * @param {(spec: object) => Record<string, string>} [o.rawFromSpec]  control values for a spec (hf-config.js), when
 *   its keys are not the controls' own
 * @param {Record<string, *>} [o.labDefaults]  the family's own defaults of attention-lab controls (CoPE's sentence)
 */
export function biasFamily({ type, parameters, spec, views = [], fields = () => ({}), width = () => 64,
  widths = (p) => ({ d_model: width(p), d_head: width(p) }), rawFromSpec, labDefaults = {} }) {
  // The spec with the trained tensors that effective params carry (families/trained.js).
  const full = (p) => ({ ...spec(p), ...(p[TRAINED_TENSORS] ?? {}) });
  return {
    parameters: [
      ...parameters,
      coreParameter(type, 'causal', { label: 'causal mask', help: 'Hide the keys after each query.' }),
      { name: 'n', view: true, kind: 'int', default: 64, min: 1, max: 1024, sliderMax: 512, label: 'positions n' },
      COMPARE_DISTANCE,
      COMPARE_VALUES,
      ...ATTENTION_PARAMETERS.map((p) => (Object.hasOwn(labDefaults, p.name) ? { ...p, default: labDefaults[p.name] } : p)),
    ],
    spec: full,
    fields(engine, params) {
      const specOf = () => full(params);
      // The untrained head's bias is masked by the head's own causal control (one causal control per view); the
      // trained head keeps the family's.
      const untrained = () => withValue(params, 'causal', params.attn_causal);
      const attentionSpec = () => full(params.trained_head ? params : untrained());
      return mergeFields({
        get spec() { return specOf(); },
        get n() { return params.n; },
        get bias() { return engine.bias(specOf(), params.n); },
        /**
         * The largest |b(i, j)| of any head over the attention lab's sentence (the panels' shared colour scale), or
         * null when the family has one head, the head is trained, or n_heads × tokens² passes 2^22 numbers.
         */
        get headsBiasExtent() {
          if (params.trained_head || !('n_heads' in params)) return null;
          const tokens = engine.tokens(params.text).length;
          if (params.n_heads * tokens * tokens > 2 ** 22) return null;
          let extent = 0;
          for (let h = 0; h < params.n_heads; h++) {
            extent = Math.max(extent, largest(engine.bias(full(withValue(untrained(), 'head', h)), tokens).data));
          }
          return extent;
        },
      }, comparisonFields(engine, params, specOf),
      attentionFields(engine, params, attentionSpec, () => widths(params)),
      fields(engine, params));
    },
    views: ['bias', ...views, 'decay-comparison', ...attentionViews('bias')],
    ...(rawFromSpec ? { rawFromSpec } : {}),
  };
}
