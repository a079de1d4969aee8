// Forgetting Attention (FoX) on the page: the forget gates' bias over a stand-in
// sentence of random tokens, the mean decay m·E[log f] in the decay comparison,
// and in the attention lab the bias over the typed sentence, whose gates read its words
// (the fox-gates view: each word's gate and the last word's decay, against the mean).
import { biasFamily } from '../bias.js';
import { coreParameter } from '../../describe.js';

export const { parameters, spec, fields, views } = biasFamily({
  type: 'fox',
  parameters: [
    coreParameter('fox', 'hidden_size', { sliderMin: 1, sliderMax: 256, label: 'hidden_size (the gate’s input width)' }),
    coreParameter('fox', 'fgate_bias', { sliderMin: -4, sliderMax: 8, label: 'gate bias b (fgate_bias)',
      help: 'f = σ(w·x + b): larger b keeps more of the past (b = 3: f ≈ 0.95 at w·x = 0, a decay time of about 20 tokens).' }),
    coreParameter('fox', 'seed', { sliderMin: 0, sliderMax: 100, label: 'seed (untrained gate w)' }),
  ],
  // FoX is causal: its lab head masks the keys after each query, as the paper's. Its sentence repeats words, so the
  // gate view shows the same word with the same gate wherever it is, and different words with different ones.
  labDefaults: { attn_causal: true, text: 'the cat sat . the dog ran . the cat slept' },
  width: (p) => p.hidden_size,
  spec: (p) => ({ type: 'fox', hidden_size: p.hidden_size, fgate_bias: p.fgate_bias, seed: p.seed, causal: p.causal }),
  views: ['fox-gates'],
  fields: (engine, p) => ({
    /**
     * The mean over random tokens (the core's decay curve "bias", m E[log f]) of this spec's gate at the sentence's
     * length: the untrained head's (the view leaves it out when the head was trained, whose gate is its own).
     */
    get foxMean() {
      const n = engine.tokens(p.text).length;
      return engine.decay(spec(p), Math.max(1, n - 1)).bias;
    },
  }),
});
