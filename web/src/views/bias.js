// The bias matrix b(i, j) [n, n] of a bias family for the chosen head: query
// down, key across; masked cells (causal) are left blank and say so.
import { matrixFigure } from '../lib/matrix-figure.js';
import { figureWidth } from '../lib/size.js';
import { matrixTable } from '../lib/tables.js';
import { themeOf } from '../lib/theme.js';

export const id = 'bias';
export const title = 'Bias matrix b(i, j)';
export const caption = 'What the encoding adds to the attention logit of query i (row) and key j (column). Hover or ' +
  'focus the map and use the arrow keys for exact values; with the causal mask, the keys after the query are hidden (−∞).';
export const previews = true;  // the engine averages its matrix down to the screen's size
export const needs = ['bias'];

/**
 * @param {HTMLElement} element
 * @param {{bias: {data: Float32Array, rows: number, cols: number}}} result
 */
export function render(element, result) {
  const { data, rows, cols } = result.bias;
  let extent = 0;
  for (const v of data) if (v > -Infinity) extent = Math.max(extent, Math.abs(v));
  const figure = matrixFigure({
    theme: themeOf(element),
    data, rows, cols, preview: result.bias.preview, width: Math.min(figureWidth(element), 560), height: 480,
    xLabel: 'key position j →', yLabel: '↓ query position i', extent: extent || 1, legendLabel: 'bias b(i, j)',
    ariaLabel: `Attention bias matrix, ${rows} queries by ${cols} keys.`,
    describe: (i, j) => {
      const v = data[i * cols + j];
      return [['query i', i], ['key j', j], ['j − i', j - i], v === -Infinity ? ['masked', '(−∞, causal)'] : ['bias', v.toPrecision(6)]];
    },
  });
  figure.classList.add('masked-background');
  element.replaceChildren(figure);
}

/** The CSV table: one row per query i, one column per key j (-Infinity where masked). */
export function table(result) {
  const { data, rows, cols } = result.bias;
  return matrixTable('query_i', Array.from({ length: cols }, (_, j) => `key_${j}`), data, rows, cols);
}
