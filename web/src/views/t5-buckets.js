// T5's bucket map: the bucket index of every relative position j - i, exact for
// small distances (shaded) and logarithmic up to max_distance, then saturated.
import * as Plot from '@observablehq/plot';
import { plot } from '../lib/plot.js';
import { figureWidth } from '../lib/size.js';
import { themeOf } from '../lib/theme.js';

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
  const rows = Array.from(positions, (r, k) => ({ relative: r, bucket: buckets[k], region: region(r) }));
  const exact = bidirectional ? [{ x1: -maxExact + 0.5, x2: maxExact - 0.5 }] : [{ x1: -maxExact + 0.5, x2: 0 }];
  const theme = themeOf(element);
  element.replaceChildren(plot({
    width: figureWidth(element), height: 320, marginLeft: 56, marginBottom: 40,
    x: { label: 'relative position j − i (key − query) →', labelAnchor: 'center', labelOffset: 34 },
    y: { label: '↑ bucket', grid: true, domain: [0, numBuckets - 1] },
    color: { legend: true, domain: ['exact', 'logarithmic', 'saturated'], range: [theme.accent, theme.warm, theme.redText] },
    marks: [
      Plot.rectX(exact, { x1: 'x1', x2: 'x2', fill: theme.accent, fillOpacity: 0.12 }),
      Plot.ruleX(bidirectional ? [-maxDistance, maxDistance] : [-maxDistance], { stroke: theme.redText, strokeDasharray: '4,3' }),
      Plot.text([`max_distance = ${maxDistance}`], { x: -maxDistance, frameAnchor: 'top', dx: 4, dy: 4, textAnchor: 'start', fill: theme.redText, fontSize: 11 }),
      Plot.lineY(rows, { x: 'relative', y: 'bucket', curve: 'step', stroke: theme.rule, strokeWidth: 1 }),
      Plot.dot(rows, { x: 'relative', y: 'bucket', fill: 'region', r: rows.length > 300 ? 1.2 : 2,
        channels: { 'j − i': 'relative', bucket: 'bucket', region: 'region' },
        tip: { format: { x: false, y: false, fill: false } } }),
    ],
  }));
}

/** The CSV table: one row per relative position, its bucket and region. */
export function table(result) {
  const { positions, buckets } = result.buckets;
  const region = regionOf(result.t5);
  return { columns: ['relative_position', 'bucket', 'region'], rows: positions.length, row: (k) => [positions[k], buckets[k], region(positions[k])] };
}
