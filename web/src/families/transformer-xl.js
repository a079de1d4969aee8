// Transformer-XL's relative attention on the page: the position terms (b) + (d).
import { biasFamily } from './bias.js';

export const { label, parameters, spec, fields, views } = biasFamily({
  label: 'Transformer-XL',
  parameters: [
    { name: 'd_head', kind: 'int', default: 64, sliderMin: 2, sliderMax: 512, step: 2, label: 'd_head' },
    { name: 'seed', kind: 'int', default: 0, sliderMin: 0, sliderMax: 100, label: 'seed (untrained v)' },
  ],
  width: (p) => p.d_head,
  spec: (p) => ({ type: 'transformer_xl', d_head: p.d_head, seed: p.seed, causal: p.causal }),
  causalDefault: true,
});
