// Transformer-XL's relative attention on the page: the position terms (b) + (d).
import { biasFamily } from '../bias.js';
import { coreParameter } from '../../describe.js';

export const { parameters, spec, fields, views } = biasFamily({
  type: 'transformer_xl',
  parameters: [
    coreParameter('transformer_xl', 'd_head', { sliderMin: 2, sliderMax: 512, step: 2 }),
    coreParameter('transformer_xl', 'seed', { sliderMin: 0, sliderMax: 100, label: 'seed (untrained v)' }),
  ],
  width: (p) => p.d_head,
  spec: (p) => ({ type: 'transformer_xl', d_head: p.d_head, seed: p.seed, causal: p.causal }),
});
