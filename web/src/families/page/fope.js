// FoPE on the page (Hua et al. 2025): which RoPE frequencies survive the floor of the training length, and how one
// pair turns by its Fourier series against RoPE's single cosine (fope-series); the decay comparison (q = k = 1, the
// query at Δ and the key at 0) and the attention lab, whose q and k the core turns by the head's series.
import { COMPARE_DISTANCE, COMPARE_VALUES, comparisonFields } from '../compare.js';
import { ATTENTION_PARAMETERS, attentionFields, attentionViews } from '../../labs/attention-lab.js';
import { mergeFields } from '../fields.js';
import { coreParameter } from '../../describe.js';
import { TRAINED_TENSORS } from '../trained.js';

export const parameters = [
  coreParameter('fope', 'head_dim', { sliderMin: 2, sliderMax: 512, step: 2 }),
  coreParameter('fope', 'rope_theta', { sliderMin: 10, sliderMax: 1e7 }),
  coreParameter('fope', 'max_position_embeddings', { sliderMin: 8, sliderMax: 65536, log: true, label: 'training length L (max_position_embeddings)',
    help: 'The frequency floor: a pair whose period 2π/ω is not shorter than L never completes a turn in training, and FoPE clips it.' }),
  coreParameter('fope', 'rope_fourier_init_norm_gain', { sliderMin: 0, sliderMax: 2, step: 0.05, label: 'coefficient noise (init gain)',
    help: 'The drawn cos_coef and sin_coef are I plus N(0, gain²/K) (the paper’s xavier-normal start, gain 0.3).' }),
  coreParameter('fope', 'seed', { sliderMax: 100 }),
  { name: 'pair', view: true, kind: 'int', default: 1, min: 0, max: 255, label: 'series: pair d',
    sliderRange: (raw) => ({ max: Math.max(0, Math.floor(Number(raw.head_dim) / 2) - 1) }) },
  { name: 'span', view: true, kind: 'int', default: 160, min: 2, max: 20000, sliderMin: 16, sliderMax: 4096, log: true,
    label: 'series: positions' },
  COMPARE_DISTANCE,
  COMPARE_VALUES,
  ...ATTENTION_PARAMETERS,
];

/** The spec, with the trained coefficients when the trained set is shown (families/trained.js). */
export function spec(p) {
  return { type: 'fope', head_dim: p.head_dim, rope_theta: p.rope_theta, max_position_embeddings: p.max_position_embeddings,
    rope_fourier_init_norm_gain: p.rope_fourier_init_norm_gain, seed: p.seed, ...(p[TRAINED_TENSORS] ?? {}) };
}

/** The fields the views read (lazy getters). */
export function fields(engine, p) {
  const specOf = () => spec(p);
  return mergeFields({
    get spec() { return specOf(); },
    /**
     * Every pair's RoPE frequency and whether FoPE keeps it (the core's ropeInvFreq: 0 for a clipped pair), and pair
     * p.pair over positions 0 .. span − 1 as the core turns (1, 0): FoPE's (C_d(t), S_d(t)) and RoPE's (cos, sin).
     * @throws {RangeError} "pair = ... is invalid" (engine pairTrajectory) for a pair past head_dim / 2
     */
    get fopeSeries() {
      const s = specOf();
      const rope = { type: 'rope', head_dim: s.head_dim, rope_theta: s.rope_theta, layout: 'half' };
      const fope = engine.rotary(s, s.max_position_embeddings);
      const omega = engine.rotary(rope, s.max_position_embeddings).inv_freq;
      return {
        L: s.max_position_embeddings,
        pair: p.pair,
        omega,
        kept: Array.from(fope.inv_freq, (w) => w > 0),
        fope: engine.pairTrajectory(s, p.pair, 0, p.span),
        rope: engine.pairTrajectory(rope, p.pair, 0, p.span),
      };
    },
  }, comparisonFields(engine, p, specOf),
  attentionFields(engine, p, specOf, () => ({ d_model: p.head_dim, d_head: p.head_dim })));
}

export const views = ['fope-series', 'decay-comparison', ...attentionViews('rotary')];
