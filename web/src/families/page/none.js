// No positional encoding (NoPE) on the page.
import { COMPARE_DISTANCE, COMPARE_VALUES, comparisonFields } from '../compare.js';
import { ATTENTION_PARAMETERS, attentionFields, attentionViews } from '../../labs/attention-lab.js';
import { mergeFields } from '../fields.js';
import { coreParameter } from '../../describe.js';


export const parameters = [
  coreParameter('none', 'd_model', { sliderMin: 1, sliderMax: 1024 }),
  { name: 'n', view: true, kind: 'int', default: 64, min: 1, max: 4096, label: 'positions n' },
  COMPARE_DISTANCE,
  COMPARE_VALUES,
  ...ATTENTION_PARAMETERS,
];

export function spec(p) {
  return { type: 'none', d_model: p.d_model };
}

/** The fields the views read (lazy getters). */
export function fields(engine, p) {
  const specOf = () => spec(p);
  return mergeFields({
    get spec() { return specOf(); },
    get n() { return p.n; },
    maxPositions: Infinity,
    get table() { return engine.table(specOf(), p.n); },
  }, comparisonFields(engine, p, specOf),
  attentionFields(engine, p, specOf, () => ({ d_model: p.d_model, d_head: p.d_model })));
}

export const views = ['table', 'decay-comparison', ...attentionViews('none')];
