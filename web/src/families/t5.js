// T5's relative buckets on the page: the bias of one head and the bucket map.
import { biasFamily } from './bias.js';
import { coreParameter } from '../describe.js';

export const { parameters, spec, fields, views } = biasFamily({
  type: 't5',
  parameters: [
    coreParameter('t5', 'num_buckets', { sliderMin: 2, sliderMax: 128 }),
    coreParameter('t5', 'max_distance', { sliderMin: 1, sliderMax: 1024, log: true }),
    coreParameter('t5', 'bidirectional', { help: 'Separate buckets for keys after the query (T5’s encoder).' }),
    coreParameter('t5', 'n_heads', { sliderMin: 1, sliderMax: 64 }),
    coreParameter('t5', 'head', { sliderMin: 0, sliderMax: 63 }),
    coreParameter('t5', 'seed', { sliderMin: 0, sliderMax: 100, label: 'seed (untrained table)' }),
  ],
  spec: (p) => ({ type: 't5', n_heads: p.n_heads, head: p.head, num_buckets: p.num_buckets, max_distance: p.max_distance,
    bidirectional: p.bidirectional, seed: p.seed, causal: p.causal }),
  views: ['buckets'],
  fields: (engine, p) => ({
    get t5() { return { bidirectional: p.bidirectional, num_buckets: p.num_buckets, max_distance: p.max_distance }; },
    get buckets() {
      return engine.t5Buckets(p.bidirectional, p.num_buckets, p.max_distance, Math.max(1, Math.min(4096, Math.ceil(p.max_distance * 1.5))));
    },
  }),
});
