// T5's bucket map: the bucket index of every relative position j - i, exact for
// small distances (shaded) and logarithmic up to max_distance, then saturated.
import { bucketPlot } from '../lib/bucket-plot.js';

export const id = 'buckets';
export const title = 'T5 relative position buckets';
export const caption = 'Which learned scalar a query–key pair reads: one bucket per distance while it is small (shaded), ' +
  'then buckets that cover ever longer ranges of distances up to max_distance, beyond which every distance shares the last.';
export const needs = ['buckets', 't5'];

/** The region of a relative position: one bucket per distance, logarithmic, or past max_distance. */
function regionOf({ bidirectional, num_buckets: numBuckets, max_distance: maxDistance }) {
  const maxExact = (bidirectional ? numBuckets / 2 : numBuckets) / 2;
  return (r) => (Math.abs(r) < maxExact && (bidirectional || r <= 0) ? 'exact' : (Math.abs(r) >= maxDistance ? 'saturated' : 'logarithmic'));
}

/** @param {{buckets: {positions: Int32Array, buckets: Int32Array}, t5: {bidirectional, num_buckets, max_distance}}} result */
export function render(element, result) {
  const { positions, buckets } = result.buckets;
  const { bidirectional, num_buckets: numBuckets, max_distance: maxDistance } = result.t5;
  const maxExact = (bidirectional ? numBuckets / 2 : numBuckets) / 2;
  const region = regionOf(result.t5);
  bucketPlot(element, {
    rows: Array.from(positions, (r, k) => ({ relative: r, bucket: buckets[k], region: region(r) })),
    xLabel: 'relative position j − i (key − query) →',
    yDomain: [0, numBuckets - 1],
    exact: bidirectional ? { x1: -maxExact + 0.5, x2: maxExact - 0.5 } : { x1: -maxExact + 0.5, x2: 0 },
    rules: (bidirectional ? [-maxDistance, maxDistance] : [-maxDistance]).map((x) => ({ x, label: `max_distance = ${maxDistance}` })),
  });
}

/** The CSV table: one row per relative position, its bucket and region. */
export function table(result) {
  const { positions, buckets } = result.buckets;
  const region = regionOf(result.t5);
  return { columns: ['relative_position', 'bucket', 'region'], rows: positions.length, row: (k) => [positions[k], buckets[k], region(positions[k])] };
}
