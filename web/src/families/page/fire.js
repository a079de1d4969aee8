// FIRE on the page (Li et al. 2023): the bias of one head of its MLP, and its
// cross-sections b(i, ·) at a few query positions, against the distance and
// against the MLP's input, the normalised distance.
import { biasFamily, headParameters } from '../bias.js';
import { coreParameter } from '../../describe.js';

/** The view setting: the context whose queries the cross-sections are taken at. */
const SECTIONS_N = {
  name: 'sections_n', view: true, kind: 'int', default: 2048, min: 8, max: 1000000, sliderMin: 8, sliderMax: 65536, log: true,
  label: 'cross-sections: context N',
  help: 'The cross-sections are the rows of the queries at positions N/8, N/4, N/2 and N.',
};

/** The query positions of the cross-sections: N/8, N/4, N/2, N (rounded, distinct, at least 1). */
export function sectionQueries(n) {
  return [...new Set([n / 8, n / 4, n / 2, n].map((x) => Math.max(1, Math.round(x))))];
}

export const { parameters, spec, fields, views } = biasFamily({
  type: 'fire',
  parameters: [
    ...headParameters('fire'),
    coreParameter('fire', 'mlp_width', { sliderMin: 1, sliderMax: 256, log: true,
      help: 'Hidden units of the MLP f_θ: Linear(1, mlp_width), ReLU, Linear(mlp_width, n_heads).' }),
    coreParameter('fire', 'init_c', { sliderMin: 0.001, sliderMax: 100, log: true, label: 'c (init_c)',
      help: 'ψ(x) = log(c·x + 1): larger c spreads the nearby distances apart.' }),
    coreParameter('fire', 'init_L', { sliderMin: 1, sliderMax: 65536, log: true, label: 'L (init_L, tokens)',
      help: 'The threshold: queries at positions up to L share the normaliser ψ(L) (the training length in the paper).' }),
    coreParameter('fire', 'seed', { sliderMin: 0, sliderMax: 100, label: 'seed (untrained MLP)' }),
    SECTIONS_N,
  ],
  spec: (p) => ({ type: 'fire', n_heads: p.n_heads, head: p.head, mlp_width: p.mlp_width, init_c: p.init_c, init_L: p.init_L,
    seed: p.seed, causal: p.causal }),
  views: ['fire-sections'],
  fields: (engine, p) => ({
    get fire() { return { init_c: p.init_c, init_L: p.init_L, n: p.sections_n }; },
    get sections() {
      const s = spec(p);
      return sectionQueries(p.sections_n).map((query) => {
        const { bias, normalized_distance: normalized } = engine.decay(s, query);
        return { query, bias, normalized };
      });
    },
  }),
});
