// T5's relative buckets on the page: the bias of one head and the bucket map.
import { biasFamily, headParameters } from '../bias.js';
import { coreParameter } from '../../describe.js';
import { renamingParam } from '../../errors.js';

export const { parameters, spec, fields, views } = biasFamily({
  type: 't5',
  parameters: [
    // The slider steps over even counts from 4: valid both ways (bidirectional splits the buckets in two).
    coreParameter('t5', 'num_buckets', { sliderMin: 4, sliderMax: 128, step: 2 }),
    // From num_buckets / 2 (T5's rule: max_distance reaches past the exact buckets).
    coreParameter('t5', 'max_distance', { sliderMin: 1, sliderMax: 1024, log: true,
      sliderRange: (raw) => ({ min: Math.floor(Number(raw.num_buckets) / 2) + 1 }) }),
    coreParameter('t5', 'bidirectional', { help: 'Separate buckets for keys after the query (T5’s encoder).' }),
    ...headParameters('t5'),
    coreParameter('t5', 'seed', { sliderMin: 0, sliderMax: 100, label: 'seed (untrained table)' }),
  ],
  spec: (p) => ({ type: 't5', n_heads: p.n_heads, head: p.head, num_buckets: p.num_buckets, max_distance: p.max_distance,
    bidirectional: p.bidirectional, seed: p.seed, causal: p.causal }),
  views: ['buckets'],
  fields: (engine, p) => ({
    get t5() { return { bidirectional: p.bidirectional, num_buckets: p.num_buckets, max_distance: p.max_distance }; },
    get buckets() {
      return renamingParam({ numBuckets: 'num_buckets', maxDistance: 'max_distance' }, () => engine.t5Buckets(p.bidirectional,
        p.num_buckets, p.max_distance, Math.max(1, Math.min(4096, Math.ceil(p.max_distance * 1.5)))));
    },
  }),
});
