// ALiBi on the page: the bias of one head, every head side by side, the slopes.
import { biasFamily } from './bias.js';

export const { label, parameters, spec, fields, views } = biasFamily({
  label: 'ALiBi',
  parameters: [
    { name: 'n_heads', kind: 'int', default: 8, sliderMin: 1, sliderMax: 64, label: 'n_heads' },
    { name: 'head', kind: 'int', default: 0, sliderMin: 0, sliderMax: 63, label: 'head' },
  ],
  spec: (p) => ({ type: 'alibi', n_heads: p.n_heads, head: p.head, causal: p.causal }),
  views: ['heads', 'slopes'],
  // The heads view draws at most 64 heads (the core takes up to 4096).
  fields: (engine, p) => ({ get heads() { return engine.alibiHeads(Math.min(p.n, 64), p.n_heads, p.causal, 64); } }),
});
