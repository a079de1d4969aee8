// Transformer-XL's relative attention on the page: the position terms (b) + (d).
import { biasFamily } from './bias.js';

export const { label, formula, parameters, spec, fields, views } = biasFamily({
  label: 'Transformer-XL',
  formula: 'the position terms (b) + (d) = (qᵢ + v)·W<sub>R</sub>R<sub>i−j</sub>, R a sinusoid of the distance; shown for ' +
    'qᵢ = (1, …, 1), W<sub>R</sub> = I <span class="cite">(Dai et al. 2019, §3.3)</span>',
  parameters: [
    { name: 'd_head', kind: 'int', default: 64, sliderMin: 2, sliderMax: 512, step: 2, label: 'd_head' },
    { name: 'seed', kind: 'int', default: 0, sliderMin: 0, sliderMax: 100, label: 'seed (untrained v)' },
  ],
  width: (p) => p.d_head,
  spec: (p) => ({ type: 'transformer_xl', d_head: p.d_head, seed: p.seed, causal: p.causal }),
  causalDefault: true,
});
