// T5's relative buckets on the page: the bias of one head and the bucket map.
import { biasFamily } from './bias.js';

export const { label, parameters, spec, fields, views } = biasFamily({
  label: 'T5 relative buckets',
  parameters: [
    { name: 'num_buckets', kind: 'int', default: 32, sliderMin: 2, sliderMax: 128, label: 'num_buckets' },
    { name: 'max_distance', kind: 'int', default: 128, sliderMin: 1, sliderMax: 1024, log: true, label: 'max_distance' },
    { name: 'bidirectional', kind: 'bool', default: true, label: 'bidirectional', help: 'Separate buckets for keys after the query (T5’s encoder).' },
    { name: 'n_heads', kind: 'int', default: 8, sliderMin: 1, sliderMax: 64, label: 'n_heads' },
    { name: 'head', kind: 'int', default: 0, sliderMin: 0, sliderMax: 63, label: 'head' },
    { name: 'seed', kind: 'int', default: 0, sliderMin: 0, sliderMax: 100, label: 'seed (untrained table)' },
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
