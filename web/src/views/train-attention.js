// The trained attention maps: what one arm's model (map_arm) attends to after
// training, on a fresh sequence at L_train and at 4 x L_train side by side, one
// row per layer; the long map marks L_train, so the reader sees what happens
// past the length the model trained at.
import { matrixFigure } from '../lib/matrix-figure.js';
import { colourLegend, sequentialScale } from '../lib/raster.js';
import { figureWidth } from '../lib/size.js';
import { formatNumber } from '../lib/tables.js';
import { themeOf } from '../lib/theme.js';
import { largest, panel, panels } from '../lib/token-matrix.js';

export const id = 'train-attention';
export const title = 'Trained attention, at L_train and past it';
export const caption = 'The attention weights of one trained model (“trained attention of”) on a fresh test sequence of ' +
  'L_train tokens and on one of 4 × L_train, one pair of maps per layer: row i is how query i shares its attention ' +
  'over the keys j ≤ i (hatched: masked, causal). For copy, a model that has learned the task puts its weight on the previous ' +
  'token: a line one step below the main diagonal. Does that line stay sharp past the dashed L_train, at positions the model ' +
  'never trained on? (Induction: weight on the token after the previous occurrence of the current one; first_marker: a column at the ' +
  'marker.) Hover, or focus a map and use the arrow keys, for i, j, their tokens and the exact weight.';
export const needs = ['trainedMaps'];

const LEGEND = 'attention weight α_ij';

/** The weights with the masked keys (j > i) as NaN: drawn hatched. @returns {Float32Array} [n, n] */
function causalPaint(weights, n) {
  const paint = Float32Array.from(weights);
  for (let i = 0; i < n; i++) paint.fill(NaN, i * n + i + 1, (i + 1) * n);
  return paint;
}

/**
 * @param {HTMLElement} element
 * @param {{trainedMaps: {arm: string, trainLength: number, maps: {length: number, tokens: Int32Array, targets: Int32Array,
 *   weights: Float32Array[]}[]}}} result  maps[0] at L_train, maps[1] at 4 x L_train; weights[layer] is [length, length]
 *   row-major [query i, key j]
 */
export function render(element, result) {
  const { arm, trainLength, maps } = result.trainedMaps;
  const theme = themeOf(element);
  const width = Math.max(300, Math.min(480, Math.floor((figureWidth(element, 1200) - 16) / 2)));
  const extent = Math.max(1e-9, ...maps.flatMap((m) => m.weights.map(largest)));
  const layers = maps[0].weights.length;
  const rows = Array.from({ length: layers }, (_, layer) => panels(...maps.map((m) => {
    const n = m.length;
    const weights = m.weights[layer];
    const times = n / trainLength;
    const heading = `${layers > 1 ? `layer ${layer + 1}: ` : ''}${n} tokens (${times === 1 ? 'L_train' : `${formatNumber(times)} × L_train`})`;
    const token = (p) => `${m.tokens[p]}${m.targets[p] >= 0 ? ` (answer ${m.targets[p]})` : ''}`;
    return panel(heading, matrixFigure({
      theme, data: causalPaint(weights, n), rows: n, cols: n, width, height: width, legend: false,
      xLabel: 'key position j (tokens) →', yLabel: '↓ query position i (tokens)', extent, sequential: true, legendLabel: LEGEND,
      rules: n > trainLength ? [{ axis: 'x', at: trainLength, label: `L_train = ${trainLength}` }, { axis: 'y', at: trainLength }] : [],
      ariaLabel: `Trained attention weights of ${arm}${layers > 1 ? `, layer ${layer + 1}` : ''}, a ${n}-token test sequence.`,
      describe: (i, j) => [['query i', `${i}, token ${token(i)}`], ['key j', `${j}, token ${m.tokens[j]}`],
        j > i ? ['masked', '(causal)'] : ['weight', formatNumber(weights[i * n + j])], ...(i >= trainLength ? ['past L_train'] : [])],
    }));
  })));
  const figure = document.createElement('div');
  figure.className = 'masked-background';
  figure.append(colourLegend(sequentialScale(extent, LEGEND, theme)), ...rows);
  element.replaceChildren(figure);
}

/** The CSV table: every unmasked (query, key) pair of every map, layer by layer. */
export function table(result) {
  const pairs = [];
  for (const m of result.trainedMaps.maps) {
    m.weights.forEach((weights, layer) => {
      for (let i = 0; i < m.length; i++) for (let j = 0; j <= i; j++) pairs.push([m, layer, i, j]);
    });
  }
  return {
    columns: ['arm', 'length', 'layer', 'query_i', 'key_j', 'query_token', 'key_token', 'query_answer', 'weight'],
    rows: pairs.length,
    row: (k) => {
      const [m, layer, i, j] = pairs[k];
      return [result.trainedMaps.arm, m.length, layer + 1, i, j, m.tokens[i], m.tokens[j], m.targets[i], m.weights[layer][i * m.length + j]];
    },
  };
}
