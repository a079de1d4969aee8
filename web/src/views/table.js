// An absolute position table [n, d_model] as a heatmap: a learned table (or
// NoPE's zeros), with the positions past max_position_embeddings drawn as
// missing, since a table has no row for them.
import { matrixFigure } from '../lib/matrix-figure.js';
import { figureWidth } from '../lib/size.js';
import { matrixTable } from '../lib/tables.js';
import { themeOf } from '../lib/theme.js';

export const id = 'table';
export const title = 'The position table';
export const caption = 'Each row is the vector added to the token at that position. NoPE adds none: its table is all ' +
  'zeros, one colour. A learned table starts as noise (GPT-2’s N(0, 0.02²)) and has exactly max_position_embeddings ' +
  'rows: past them, no embedding exists (hatched).';
export const previews = true;  // the engine averages its matrix down to the screen's size
export const needs = ['table', 'n', 'maxPositions'];

/** The engine's preview of the stored rows, with missing (NaN) rows down to position n - 1. */
function padPreview(preview, n) {
  if (!preview) return undefined;
  const rows = Math.ceil(n / preview.ky);
  const data = new Float32Array(rows * preview.cols).fill(NaN);
  data.set(preview.data.subarray(0, Math.min(preview.data.length, data.length)));
  return { ...preview, data, rows };
}

/** @param {{table: {data: Float32Array, rows: number, cols: number}, n: number, maxPositions: number}} result */
export function render(element, result) {
  const { data, rows: existing, cols } = result.table;
  const rows = result.n;
  const preview = padPreview(result.table.preview, rows);
  let padded = data;
  if (!preview) {
    padded = new Float32Array(rows * cols).fill(NaN);
    padded.set(data);
  }
  let extent = 0;
  for (const v of data) extent = Math.max(extent, Math.abs(v));
  const figure = matrixFigure({
    theme: themeOf(element),
    data: padded, rows, cols, preview, width: figureWidth(element), height: 360,
    xLabel: 'dimension →', yLabel: '↓ position (token)', extent: extent || 1, legendLabel: 'table value',
    ariaLabel: `Position table, ${rows} positions by ${cols} dimensions, ${existing} of them stored.`,
    describe: (row, col) => (row >= existing
      ? [['position', row], ['no embedding exists:', `the table has max_position_embeddings = ${result.maxPositions} rows`]]
      : [['position', row], ['dimension', col], ['value', data[row * cols + col].toPrecision(6)]]),
  });
  figure.classList.add('masked-background');
  const parts = [figure];
  if (existing < rows) {
    const note = document.createElement('p');
    note.className = 'note missing';
    note.textContent = `Positions ${existing}–${rows - 1}: no embedding exists (max_position_embeddings = ${result.maxPositions}).`;
    parts.unshift(note);
  }
  if (extent === 0) {
    const note = document.createElement('p');
    note.className = 'note';
    note.textContent = 'Every entry is 0: without positions, attention is permutation-equivariant, so shuffling the tokens ' +
      'shuffles the outputs the same way and the model cannot tell “dog bites man” from “man bites dog” (without a causal mask).';
    parts.unshift(note);
  }
  element.replaceChildren(...parts);
}

/** The CSV table: one row per stored position, one column per dimension. */
export function table(result) {
  const { data, rows, cols } = result.table;
  return matrixTable('position', Array.from({ length: cols }, (_, c) => `dim_${c}`), data, rows, cols);
}
