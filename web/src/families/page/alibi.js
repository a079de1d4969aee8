// ALiBi on the page: the bias of one head, every head side by side, the slopes.
import { biasFamily, headParameters } from '../bias.js';

export const { parameters, spec, fields, views } = biasFamily({
  type: 'alibi',
  parameters: [
    ...headParameters('alibi'),
    { name: 'heads_show', view: true, kind: 'choice', default: 'kept', choices: ['kept', 'bias'], label: 'every head shows',
      choiceLabels: { kept: 'e^b: what the bias keeps of a key’s weight', bias: 'the bias b (one scale: flat heads look blank)' } },
  ],
  spec: (p) => ({ type: 'alibi', n_heads: p.n_heads, head: p.head, causal: p.causal }),
  views: ['heads', 'slopes'],
  // The heads view draws at most 64 heads (the core takes up to 4096); every head's slope, for the formulas.
  fields: (engine, p) => ({
    get heads() { return engine.alibiHeads(Math.min(p.n, 64), p.n_heads, p.causal, 64); },
    get slopes() { return engine.alibiSlopes(p.n_heads); },
  }),
});

/** The fields every view's result carries, beside its own needs: the slopes its formula shows (formulas.js). */
export const formulaNeeds = ['slopes'];
