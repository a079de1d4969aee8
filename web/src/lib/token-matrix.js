// An [n, n] matrix of a sentence (attention weights, logits, one term) as a
// heatmap with the tokens along both axes and a tooltip naming the pair.
import { matrixFigure } from './matrix-figure.js';
import { escapeHtml } from './html.js';

/**
 * @param {object} o
 * @param {Float32Array} o.data      [n, n] row-major; -Infinity is drawn blank ("masked")
 * @param {string[]} o.tokens
 * @param {number} o.width
 * @param {number} o.height
 * @param {string} o.label           what the values are ("weight", "logit", "content-position")
 * @param {boolean} [o.weights]      a [0, 1] sequential scale instead of a diverging one
 * @param {number} [o.extent]        the colour range; by default the data's largest |value|
 * @param {boolean} [o.legend]
 * @param {(i: number, j: number) => string} [o.extra]  more tooltip lines
 * @param {object} o.theme           lib/theme.js
 */
export function tokenMatrix(o) {
  const n = o.tokens.length;
  let extent = o.extent ?? 0;
  if (!o.extent) for (const v of o.data) if (v > -Infinity) extent = Math.max(extent, Math.abs(v));
  const figure = matrixFigure({
    data: o.data, rows: n, cols: n, width: o.width, height: o.height, legend: o.legend, theme: o.theme,
    xLabel: 'key →', yLabel: '↓ query', extent: o.weights ? Math.max(extent, 1e-6) : extent || 1,
    sequential: o.weights, legendLabel: o.label, xTickLabels: o.tokens, yTickLabels: o.tokens,
    ariaLabel: `${o.label} of every query and key of a ${n}-token sentence.`,
    describe: (i, j) => {
      const v = o.data[i * n + j];
      return `<b>query</b> ${i} “${escapeHtml(o.tokens[i])}”<br><b>key</b> ${j} “${escapeHtml(o.tokens[j])}”<br>` +
        (v === -Infinity ? '<b>masked</b> (causal)' : `<b>${o.label}</b> ${v.toPrecision(6)}`) +
        (o.extra ? `<br>${o.extra(i, j)}` : '');
    },
  });
  figure.classList.add('masked-background');
  return figure;
}

/** A titled panel around a figure. */
export function panel(title, figure) {
  const box = document.createElement('div');
  box.className = 'panel';
  const heading = document.createElement('h3');
  heading.textContent = title;
  box.append(heading, figure);
  return box;
}

/** The panels in a wrapping row. */
export function panels(...boxes) {
  const row = document.createElement('div');
  row.className = 'panels';
  row.append(...boxes);
  return row;
}

/** The largest weight over several attention results: one colour scale for panels side by side. */
export function sharedWeightExtent(...results) {
  let max = 0;
  for (const r of results) for (const v of r.weights) max = Math.max(max, v);
  return max;
}
