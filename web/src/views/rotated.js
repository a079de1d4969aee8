// The rotated query [n, head_dim] for a constant or random input vector, in
// both layouts side by side: interleaved pairs (2i, 2i+1) and GPT-NeoX/LLaMA
// halves (i, i + rotary_dim/2). Same rotation, columns permuted.
import { matrixFigure } from '../lib/matrix-figure.js';
import { figureWidth } from '../lib/size.js';
import { themeOf } from '../lib/theme.js';

export const id = 'rotated';
export const title = 'The rotated query, both layouts';
export const caption = 'One query vector (all ones, or one random vector) placed at every position and rotated. ' +
  'Fast pairs change colour from row to row, slow ones barely; dimensions past rotary_dim are not rotated.';
export const previews = true;  // the engine averages its matrix down to the screen's size
export const needs = ['rotated', 'input'];

function pairOf(layout, col, rotaryDim) {
  if (col >= rotaryDim) return null;
  return layout === 'interleaved' ? Math.floor(col / 2) : col % (rotaryDim / 2);
}

/**
 * @param {HTMLElement} element
 * @param {{rotated: {interleaved: {data, rows, cols, rotary}, half: {data, rows, cols, rotary}}, input: string}} result
 */
export function render(element, result) {
  const theme = themeOf(element);
  const width = Math.max(300, Math.floor((figureWidth(element, 1200) - 16) / 2));
  let extent = 0;
  for (const layout of ['interleaved', 'half']) for (const v of result.rotated[layout].data) extent = Math.max(extent, Math.abs(v));
  extent = extent > 0 && Number.isFinite(extent) ? extent : 1;
  const panels = ['interleaved', 'half'].map((layout) => {
    const { data, rows, cols, rotary, preview } = result.rotated[layout];
    const panel = document.createElement('div');
    panel.className = 'panel';
    const heading = document.createElement('h3');
    heading.textContent = layout === 'interleaved' ? 'interleaved: pairs (2i, 2i+1)' : 'half: pairs (i, i + rotary_dim/2)';
    panel.append(heading, matrixFigure({
      theme,
      data, rows, cols, preview, width, height: 320,
      xLabel: 'dimension →', yLabel: '↓ position (token)', extent, legendLabel: `rotated q (${result.input} input)`,
      ariaLabel: `Rotated query, ${layout} layout, ${rows} positions by ${cols} dimensions.`,
      describe: (row, col) => {
        const pair = pairOf(layout, col, rotary.rotary_dim);
        return [['position', row], ['dimension', col], ['value', data[row * cols + col].toPrecision(6)],
          ...(pair === null ? [['not rotated', '(past rotary_dim)']] : [['pair i', pair], ['θᵢ', `${rotary.inv_freq[pair].toPrecision(5)} rad/token`]])];
      },
    }));
    return panel;
  });
  const row = document.createElement('div');
  row.className = 'panels';
  row.append(...panels);
  element.replaceChildren(row);
}

/** The CSV table: the interleaved rows then the half rows, one column per dimension. */
export function table(result) {
  const { interleaved, half } = result.rotated;
  const { rows, cols } = interleaved;
  return {
    columns: ['layout', 'position', ...Array.from({ length: cols }, (_, c) => `dim_${c}`)],
    rows: 2 * rows,
    row: (k) => {
      const [name, m] = k < rows ? ['interleaved', interleaved] : ['half', half];
      const p = k % rows;
      return [name, p, ...m.data.subarray(p * cols, (p + 1) * cols)];
    },
  };
}
