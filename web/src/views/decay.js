// Decay: q.k against relative distance for the rotary family, with the training
// length marked and the region past the positions the model was made for shaded
// (RoPE's max_position_embeddings, xPos's training length); below it, RoFormer's
// relative upper bound (section 3.4.3), which falls with distance. The two plots
// share their x axis: one domain, one width, the same margins.
import * as Plot from '@observablehq/plot';
import { plot } from '../lib/plot.js';
import { figureWidth } from '../lib/size.js';
import { themeOf } from '../lib/theme.js';
import { countTick } from '../lib/ticks.js';

export const id = 'decay';
export const title = 'Decay: q·k against relative distance';
export const caption = 'The score of a query and a key that differ only in their positions. For q = k = 1 (also the ' +
  'average over random vectors) it is Σᵢ 2cos(m·θᵢ): high nearby, falling and oscillating with distance m. ' +
  'The lower plot is RoFormer’s relative upper bound (1/(d/2))·Σⱼ|Sⱼ|. Over long ranges each curve is drawn as the band ' +
  'it sweeps (its least and largest value per pixel) with its running mean as a line.';
export const needs = ['decay', 'trainingLength', 'maxPositions', 'maxPositionsName'];

const MAX_POINTS = 2400;

/** Rows for a curve: every point, or per-bucket min and max when there are too many. */
function curveRows(distance, values, name) {
  const n = values.length;
  if (n <= MAX_POINTS) return Array.from(values, (v, k) => ({ m: distance[k], lo: v, hi: v, v, name }));
  const size = Math.ceil(n / (MAX_POINTS / 2));
  const rows = [];
  for (let start = 0; start < n; start += size) {
    let lo = Infinity;
    let hi = -Infinity;
    let sum = 0;
    const end = Math.min(n, start + size);
    for (let k = start; k < end; k++) { lo = Math.min(lo, values[k]); hi = Math.max(hi, values[k]); sum += values[k]; }
    rows.push({ m: distance[start], lo, hi, v: values[start], sum, count: end - start, name });
  }
  // The trend through the band: the mean over a window of about 1% of the range on either side.
  const w = Math.max(1, Math.round(rows.length / 100));
  rows.forEach((r, k) => {
    let sum = 0;
    let count = 0;
    for (let j = Math.max(0, k - w); j <= Math.min(rows.length - 1, k + w); j++) { sum += rows[j].sum; count += rows[j].count; }
    r.mean = sum / count;
  });
  return rows;
}

function regionMarks(result, maxDistance, theme, width) {
  const marks = [];
  if (result.maxPositions < maxDistance) {
    marks.push(Plot.rectX([{ x1: result.maxPositions, x2: maxDistance }], { x1: 'x1', x2: 'x2', fill: theme.red, fillOpacity: 0.1 }));
    // On a narrow figure the label takes two lines, so it stays inside the frame.
    marks.push(Plot.text([`extrapolation: past ${result.maxPositions.toLocaleString('en')} tokens${width < 560 ? '\n' : ' '}(${result.maxPositionsName})`],
      { frameAnchor: 'top-right', dx: -4, dy: 4, textAnchor: 'end', fill: theme.redText, fontSize: 11 }));
  }
  if (result.trainingLength <= maxDistance) {
    const right = result.trainingLength > maxDistance / 2;  // label on the side with room
    marks.push(Plot.ruleX([result.trainingLength], { stroke: theme.accent, strokeDasharray: '5,4' }));
    marks.push(Plot.text([`training length L = ${result.trainingLength.toLocaleString('en')}`],
      { x: result.trainingLength, frameAnchor: 'bottom', dx: right ? -4 : 4, dy: -4, textAnchor: right ? 'end' : 'start',
        fill: theme.accent, fontSize: 11 }));
  }
  return marks;
}

/** The x axis both plots share: the same domain, ticks and margins, so their ticks line up. */
function sharedX(maxDistance) {
  return {
    margins: { marginLeft: 64, marginRight: 20 },
    x: { label: 'relative distance m (tokens) →', labelAnchor: 'center', labelOffset: 34, domain: [0, maxDistance], tickFormat: countTick },
  };
}

function curvePlot(width, height, rows, yLabel, result, maxDistance, colours, theme) {
  const banded = rows.some((r) => r.lo !== r.hi);
  const { margins, x } = sharedX(maxDistance);
  return plot({
    width, height, ...margins, marginBottom: 40, x,
    y: { label: yLabel, grid: true },
    color: { legend: colours.length > 1, domain: colours.map((c) => c[0]), range: colours.map((c) => c[1]) },
    marks: [
      ...regionMarks(result, maxDistance, theme, width),
      Plot.ruleY([0], { stroke: theme.rule }),
      ...(banded
        ? [Plot.areaY(rows, { x: 'm', y1: 'lo', y2: 'hi', fill: 'name', fillOpacity: 0.3, z: 'name' }),
          Plot.lineY(rows, { x: 'm', y: 'mean', stroke: 'name', z: 'name', strokeWidth: 2 })]
        : [Plot.lineY(rows, { x: 'm', y: 'v', stroke: 'name', z: 'name', strokeWidth: 1.4 })]),
      Plot.tip(rows, Plot.pointerX({ x: 'm', y: 'v', stroke: 'name',
        channels: banded ? { 'min in bucket': 'lo', 'max in bucket': 'hi', 'running mean': 'mean' } : {},
        format: { y: (v) => v.toPrecision(6), stroke: true } })),
    ],
  });
}

/**
 * @param {HTMLElement} element
 * @param {{decay: {distance: Float32Array, ones: Float32Array, random: Float32Array, upper_bound: Float32Array},
 *   trainingLength: number, maxPositions: number, maxPositionsName: string}} result
 *   maxPositionsName: what the shaded region lies past, e.g. "max_position_embeddings"
 */
export function render(element, result) {
  const { distance } = result.decay;
  const maxDistance = distance[distance.length - 1];
  const width = figureWidth(element);
  const theme = themeOf(element);
  const ones = 'q = k = 1';
  const random = 'one random q = k';
  const dots = [...curveRows(distance, result.decay.ones, ones), ...curveRows(distance, result.decay.random, random)];
  const bound = curveRows(distance, result.decay.upper_bound, 'relative upper bound');
  element.replaceChildren(
    curvePlot(width, 300, dots, '↑ q·k', result, maxDistance, [[ones, theme.accent], [random, theme.warm]], theme),
    curvePlot(width, 200, bound, '↑ (1/(d/2))·Σ|Sⱼ|', result, maxDistance, [['relative upper bound', theme.violet]], theme),
  );
}

/** The CSV table: one row per distance, the three curves. */
export function table(result) {
  const { distance, ones, random, upper_bound: bound } = result.decay;
  return { columns: ['distance_m', 'qk_ones', 'qk_random', 'relative_upper_bound'], rows: distance.length,
    row: (k) => [distance[k], ones[k], random[k], bound[k]] };
}
