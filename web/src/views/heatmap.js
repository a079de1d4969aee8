// The embedding heatmap: the table PE [n, d_model] as colours, position down,
// dimension across; the tooltip gives position, dimension, value, pair i and
// its wavelength.
import { matrixFigure } from '../lib/matrix-figure.js';
import { figureWidth } from '../lib/size.js';
import { matrixTable } from '../lib/tables.js';
import { themeOf } from '../lib/theme.js';

export const id = 'heatmap';
export const title = 'Embedding heatmap';
export const caption = 'Each row is the vector added to the token at that position. Fast pairs turn within a few tokens, ' +
  'slow ones over thousands; hover or focus the map and use the arrow keys for exact values.';

export const previews = true;  // the engine averages its matrix down to the screen's size
export const needs = ['table', 'wavelength', 'inv_freq', 'sin_column', 'cos_column'];

/**
 * @param {HTMLElement} element  emptied and filled with the figure
 * @param {{table: {data: Float32Array, rows: number, cols: number}, wavelength: Float32Array,
 *   sin_column: Int32Array, cos_column: Int32Array}} result  from engine.absolute
 */
export function render(element, result) {
  const { data, rows, cols } = result.table;
  const pairOfColumn = new Int32Array(cols);
  const isCosine = new Uint8Array(cols);
  result.sin_column.forEach((c, i) => { pairOfColumn[c] = i; });
  result.cos_column.forEach((c, i) => { pairOfColumn[c] = i; isCosine[c] = 1; });
  element.replaceChildren(matrixFigure({
    theme: themeOf(element),
    data, rows, cols, preview: result.table.preview, width: figureWidth(element), height: 360,
    xLabel: 'dimension →', yLabel: '↓ position (token)', extent: 1, legendLabel: 'PE value',
    ariaLabel: `Heatmap of the position table, ${rows} positions by ${cols} dimensions.`,
    describe: (row, col) => {
      const pair = pairOfColumn[col];
      const omega = result.inv_freq[pair];
      const f = isCosine[col] ? 'cos' : 'sin';
      return [['position', row], ['dimension', `${col} (${f})`],
        ['value', `${data[row * cols + col].toPrecision(6)} = ${f}(${row} · ${omega.toPrecision(4)}) = ${f}(${(row * omega).toPrecision(5)} rad)`],
        ['pair i', pair], ['wavelength', `${result.wavelength[pair].toPrecision(6)} tokens`]];
    },
  }));
}

/** The CSV table: one row per position, one column per dimension. */
export function table(result) {
  const { data, rows, cols } = result.table;
  return matrixTable('position', Array.from({ length: cols }, (_, c) => `dim_${c}`), data, rows, cols);
}
