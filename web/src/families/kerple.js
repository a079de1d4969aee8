// KERPLE on the page: its log and power kernels of the distance.
import { biasFamily } from './bias.js';
import { coreChoices } from '../describe.js';

export const { label, parameters, spec, fields, views } = biasFamily({
  label: 'KERPLE',
  parameters: [
    { name: 'variant', kind: 'choice', default: 'log', choices: coreChoices('kerple', 'variant'), label: 'variant' },
    { name: 'r1', kind: 'number', default: 1, sliderMin: 0.01, sliderMax: 100, log: true, label: 'r1' },
    { name: 'r2', kind: 'number', default: 1, sliderMin: 0.01, sliderMax: 2, log: true, label: 'r2' },
  ],
  spec: (p) => ({ type: 'kerple', variant: p.variant, r1: p.r1, r2: p.r2, causal: p.causal }),
});
