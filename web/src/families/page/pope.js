// PoPE on the page (Gopalakrishnan et al. 2025): the score of a query and a key over their distance for a few
// random pairs, PoPE's against RoPE's on the same q and k (the content moves RoPE's peak, never PoPE's), the decay
// comparison (q = k = 1), and the attention lab, whose logits split into "what" (the magnitudes) and "where".
import { COMPARE_DISTANCE, COMPARE_VALUES, comparisonFields } from '../compare.js';
import { ATTENTION_PARAMETERS, attentionFields, attentionViews } from '../../labs/attention-lab.js';
import { mergeFields } from '../fields.js';
import { coreParameter } from '../../describe.js';
import { TRAINED_TENSORS } from '../trained.js';

/** The random pairs the phases view draws (seeds 0 .. PAIRS − 1). */
export const PAIRS = 4;

export const parameters = [
  coreParameter('pope', 'head_dim', { sliderMin: 1, sliderMax: 256 }),
  coreParameter('pope', 'theta', { sliderMin: 2, sliderMax: 1e6, log: true, label: 'θ (frequency base)',
    help: 'θ_c = θ^(−c/d): one frequency per component (d of them; RoPE has d/2 pairs).' }),
  { name: 'max_distance', view: true, kind: 'int', default: 96, min: 1, max: 100000, sliderMin: 8, sliderMax: 4096, log: true,
    label: 'distance (tokens)' },
  { name: 'n', view: true, kind: 'int', default: 64, min: 1, max: 4096, label: 'positions n' },
  COMPARE_DISTANCE,
  COMPARE_VALUES,
  ...ATTENTION_PARAMETERS,
];

/** The spec, with the trained phase bias when the trained set is shown (families/trained.js). */
export function spec(p) {
  return { type: 'pope', head_dim: p.head_dim, theta: p.theta, ...(p[TRAINED_TENSORS] ?? {}) };
}

/** The fields the views read (lazy getters). */
export function fields(engine, p) {
  const specOf = () => spec(p);
  return mergeFields({
    get spec() { return specOf(); },
    get n() { return p.n; },
    /** PAIRS random (q, k): PoPE's score over distance and RoPE's on the same pair (the core's decay curves). */
    get popePairs() {
      return Array.from({ length: PAIRS }, (_, seed) => {
        const curves = engine.decay(specOf(), p.max_distance, seed);
        return { seed, pope: curves.random, rope: curves.rope_random };
      });
    },
  }, comparisonFields(engine, p, specOf),
  attentionFields(engine, p, specOf, () => ({ d_model: p.head_dim, d_head: p.head_dim })));
}

export const views = ['pope-pairs', 'decay-comparison', ...attentionViews('polar')];
