// KERPLE on the page: its log and power kernels of the distance.
import { biasFamily } from '../bias.js';
import { coreParameter } from '../../describe.js';

export const { parameters, spec, fields, views } = biasFamily({
  type: 'kerple',
  parameters: [
    coreParameter('kerple', 'variant'),
    coreParameter('kerple', 'r1', { sliderMin: 0.01, sliderMax: 100, log: true }),
    coreParameter('kerple', 'r2', { sliderMin: 0.01, sliderMax: 2, log: true }),
  ],
  spec: (p) => ({ type: 'kerple', variant: p.variant, r1: p.r1, r2: p.r2, causal: p.causal }),
});
