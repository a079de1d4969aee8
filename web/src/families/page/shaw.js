// Shaw et al.'s relative position representations on the page.
import { biasFamily } from '../bias.js';
import { coreParameter } from '../../describe.js';

export const { parameters, spec, fields, views } = biasFamily({
  type: 'shaw',
  parameters: [
    coreParameter('shaw', 'head_dim', { sliderMin: 1, sliderMax: 512 }),
    coreParameter('shaw', 'max_relative_position', { sliderMin: 0, sliderMax: 128, label: 'max_relative_position K' }),
    coreParameter('shaw', 'seed', { sliderMin: 0, sliderMax: 100, label: 'seed (untrained a)' }),
  ],
  width: (p) => p.head_dim,
  spec: (p) => ({ type: 'shaw', head_dim: p.head_dim, max_relative_position: p.max_relative_position, seed: p.seed, causal: p.causal }),
});
