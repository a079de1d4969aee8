// The position-similarity matrix of an absolute encoding: p_i . p_j (or the
// cosine) for every pair of positions. Sinusoidal: a band along the diagonal
// that depends only on i - j; an untrained learned table: noise.
import { matrixFigure } from '../lib/matrix-figure.js';
import { figureWidth } from '../lib/size.js';
import { matrixTable } from '../lib/tables.js';
import { themeOf } from '../lib/theme.js';

export const id = 'similarity';
export const title = 'Position similarity';
export const caption = 'How alike the vectors of two positions are. A fixed sinusoidal table gives a band along the ' +
  'diagonal that depends only on the distance |i − j|; a learned table must learn such structure (untrained, it is noise).';
export const previews = true;  // the engine averages its matrix down to the screen's size
export const needs = ['similarity', 'metric'];

/** @param {{similarity: {data: Float32Array, rows: number, cols: number}, metric: string}} result */
export function render(element, result) {
  const { data, rows, cols } = result.similarity;
  let extent = 0;
  for (const v of data) extent = Math.max(extent, Math.abs(v));
  const label = result.metric === 'cosine' ? 'cos(p_i, p_j)' : 'p_i · p_j';
  element.replaceChildren(matrixFigure({
    theme: themeOf(element),
    data, rows, cols, preview: result.similarity.preview, width: Math.min(figureWidth(element), 560), height: 480,
    xLabel: 'position j →', yLabel: '↓ position i', extent: extent || 1, legendLabel: label,
    ariaLabel: `Position similarity (${result.metric}), ${rows} by ${cols} positions.`,
    describe: (i, j) => [['i', i], ['j', j], ['|i − j|', Math.abs(i - j)], [label, data[i * cols + j].toPrecision(6)]],
  }));
}

/** The CSV table: one row per position i, one column per position j. */
export function table(result) {
  const { data, rows, cols } = result.similarity;
  return matrixTable('i', Array.from({ length: cols }, (_, j) => `j_${j}`), data, rows, cols);
}
