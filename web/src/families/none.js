// No positional encoding (NoPE) on the page.
import * as table from '../views/absolute-table.js';
import * as decayCompare from '../views/decay-compare.js';
import { COMPARE_DISTANCE, comparison } from './compare.js';
import { ATTENTION_PARAMETERS, attentionFields, attentionViews } from './attention-lab.js';

export const label = 'none (NoPE)';
export const formula = 'no position information: P = 0. Without a causal mask, attention is then permutation-equivariant ' +
  '<span class="cite">(Kazemnejad et al. 2023 study NoPE with a causal mask)</span>';

export const parameters = [
  { name: 'd_model', kind: 'int', default: 64, min: 1, max: 1024, label: 'd_model' },
  { name: 'n', view: true, kind: 'int', default: 64, min: 1, max: 4096, label: 'positions n' },
  COMPARE_DISTANCE,
  ...ATTENTION_PARAMETERS,
];

export function spec(p) {
  return { type: 'none', d_model: p.d_model };
}

export function compute(engine, p) {
  const s = spec(p);
  return Object.defineProperties({
    spec: s,
    n: p.n,
    maxPositions: Infinity,
    get table() { return engine.table(s, p.n); },
    get comparison() { return comparison(engine, s, p.compare_distance).comparison; },
    get currentLabel() { return comparison(engine, s, p.compare_distance).currentLabel; },
  }, Object.getOwnPropertyDescriptors(attentionFields(engine, p, s, { d_model: p.d_model, d_head: p.d_model })));
}

export const views = [table, decayCompare, ...attentionViews('none')];
