// Shaw et al.'s relative position representations on the page.
import { biasFamily } from './bias.js';

export const { label, parameters, spec, fields, views } = biasFamily({
  label: 'Shaw relative positions',
  parameters: [
    { name: 'head_dim', kind: 'int', default: 64, sliderMin: 1, sliderMax: 512, label: 'head_dim' },
    { name: 'max_relative_position', kind: 'int', default: 16, sliderMin: 0, sliderMax: 128, label: 'max_relative_position K' },
    { name: 'seed', kind: 'int', default: 0, sliderMin: 0, sliderMax: 100, label: 'seed (untrained a)' },
  ],
  width: (p) => p.head_dim,
  spec: (p) => ({ type: 'shaw', head_dim: p.head_dim, max_relative_position: p.max_relative_position, seed: p.seed, causal: p.causal }),
});
