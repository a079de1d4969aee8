// CoPE on the page: the stand-in head's bias, the gate-counting demonstration on
// the typed sentence, and in the attention lab the gates, contextual positions
// and bias of the head over the sentence.
import { biasFamily } from '../bias.js';
import { coreParameter } from '../../describe.js';

export const { parameters, spec, fields, views } = biasFamily({
  type: 'cope',
  parameters: [
    coreParameter('cope', 'head_dim', { sliderMin: 1, sliderMax: 256 }),
    coreParameter('cope', 'npos_max', { sliderMin: 1, sliderMax: 64,
      help: 'How many positions the gates can count to (x-transformers’ cope_max_pos); counts past it are clamped.' }),
    coreParameter('cope', 'seed', { sliderMin: 0, sliderMax: 100, label: 'seed (untrained e)' }),
    { name: 'count', view: true, kind: 'choice', default: 'sentences', choices: ['sentences', 'word'], label: 'gates count (demonstration)',
      choiceLabels: { sentences: 'sentence ends . ! ?', word: 'the word below' } },
    { name: 'count_word', view: true, kind: 'text', default: 'the', label: 'counted word', when: (p) => p.count === 'word' },
    { name: 'target', view: true, kind: 'int', default: 1, min: 0, max: 64, sliderMax: 8, label: 'attend to count back' },
  ],
  // Sentences of different lengths, each with its end: the gates have something to count (the lab's default has none).
  labDefaults: { text: 'the dog ran . it was fast . the cat sat on the mat . then it slept' },
  width: (p) => p.head_dim,
  spec: (p) => ({ type: 'cope', head_dim: p.head_dim, npos_max: p.npos_max, seed: p.seed, causal: p.causal }),
  views: ['cope-count'],
  fields: (engine, p) => ({
    get copeCount() {
      return engine.copeCount(p.text, p.count === 'word' ? p.count_word : null, p.npos_max, p.target);
    },
  }),
});
