// DeBERTa's relative positions: the bucket delta(i - j) of every query-minus-key
// distance (transformers' make_log_bucket_position), one per distance up to
// position_buckets / 2 (shaded), logarithmic beyond, and from where its
// embedding row clamps at the table's end every farther distance reads the same row.
import { bucketPlot } from '../lib/bucket-plot.js';

export const id = 'deberta-buckets';
export const title = 'DeBERTa relative position buckets';
export const caption = 'Which row of the relative-embedding table a query–key pair reads: its own row while |i − j| ≤ ' +
  'position_buckets / 2 (shaded), then rows that each cover a longer range of distances, up to the table’s last row ' +
  '(2·att_span rows), which every farther distance shares. The row is clamp(δ + att_span, 0, 2·att_span − 1).';
export const needs = ['debertaBuckets'];

/** The region of relative position r with bucket b: its own bucket, logarithmic, or its row clamped. */
function regionOf({ mid, span }) {
  return (r, b) => (b + span <= 0 || b + span >= 2 * span - 1 ? 'saturated' : Math.abs(r) <= mid ? 'exact' : 'logarithmic');
}

/** @param {{debertaBuckets: {positions: Int32Array, buckets: Int32Array, mid: number, span: number, max_relative: number}}} result */
export function render(element, result) {
  const { positions, buckets, mid, span, max_relative: maxRelative } = result.debertaBuckets;
  const region = regionOf(result.debertaBuckets);
  const rows = Array.from(positions, (r, k) => ({ relative: r, bucket: buckets[k], region: region(r, buckets[k]) }));
  bucketPlot(element, {
    rows,
    xLabel: 'relative position i − j (query − key) →',
    yDomain: [Math.min(...buckets), Math.max(...buckets)],
    exact: { x1: -mid - 0.5, x2: mid + 0.5 },
    rules: [-(maxRelative - 1), maxRelative - 1].map((x) => ({ x, label: `max_relative_positions − 1 = ${maxRelative - 1}` })),
    relativeName: 'i − j',
  });
}

/** The CSV table: one row per relative position, its bucket, the embedding row it reads, and its region. */
export function table(result) {
  const { positions, buckets, span } = result.debertaBuckets;
  const region = regionOf(result.debertaBuckets);
  return {
    columns: ['relative_position', 'bucket', 'embedding_row', 'region'], rows: positions.length,
    row: (k) => [positions[k], buckets[k], Math.min(Math.max(buckets[k] + span, 0), 2 * span - 1), region(positions[k], buckets[k])],
  };
}
