// A matrix drawn as a heatmap: the canvas (one pixel per entry, painted by
// raster.js), Plot's axes and frame over it, a diverging colour legend, and a
// tooltip that follows the pointer or the arrow keys (Shift: 10 cells).
import * as Plot from '@observablehq/plot';
import { divergingScale, paintMatrix, sequentialScale } from './raster.js';

export { figureWidth } from './size.js';

const PLAIN_MARGIN = { top: 8, right: 12, bottom: 40, left: 64 };

/**
 * @param {object} o
 * @param {Float32Array} o.data      [rows, cols] row-major
 * @param {number} o.rows
 * @param {number} o.cols
 * @param {number} o.width           CSS pixels of the whole figure
 * @param {number} o.height
 * @param {string} o.xLabel          e.g. "dimension →"
 * @param {string} o.yLabel          e.g. "↓ position (token)"
 * @param {number} o.extent          values in [-extent, extent] span the colours
 * @param {boolean} [o.sequential]    values in [0, extent] on a sequential scale (weights)
 * @param {string} o.legendLabel
 * @param {(row: number, col: number) => string} o.describe  tooltip HTML of a cell
 * @param {string} o.ariaLabel
 * @param {string[]} [o.xTickLabels]  labels of the columns (tokens), used when there are at most 48
 * @param {string[]} [o.yTickLabels]  labels of the rows
 * @param {boolean} [o.legend]        draw the colour legend (default true)
 * @param {object} o.theme           the theme drawn in (lib/theme.js themeOf)
 * @returns {HTMLElement}
 */
export function matrixFigure(o) {
  const { data, rows, cols, width, height } = o;
  const tokenAxes = Boolean(o.xTickLabels) && cols <= 48;
  const MARGIN = tokenAxes ? { top: 8, right: 12, bottom: 72, left: 80 } : PLAIN_MARGIN;
  const plotWidth = width - MARGIN.left - MARGIN.right;
  const plotHeight = height - MARGIN.top - MARGIN.bottom;
  const colour = o.sequential ? sequentialScale(o.extent, o.legendLabel, o.theme) : divergingScale(o.extent, o.legendLabel, o.theme);

  // Token labels centred on their cells, while they fit.
  const labelled = (labels, count) => (labels && count <= 48
    ? { ticks: Array.from({ length: count }, (_, k) => k + 0.5), tickFormat: (d) => labels[Math.floor(d)] }
    : {});
  const axes = Plot.plot({
    width, height, marginTop: MARGIN.top, marginRight: MARGIN.right, marginBottom: MARGIN.bottom, marginLeft: MARGIN.left,
    x: { domain: [0, cols], label: o.xLabel, labelAnchor: 'center', labelOffset: tokenAxes ? 66 : 34, ...labelled(o.xTickLabels, cols),
      ...(o.xTickLabels && cols <= 48 ? { tickRotate: -35 } : {}) },
    y: { domain: [0, rows], reverse: true, label: o.yLabel, labelAnchor: 'center', labelOffset: tokenAxes ? 72 : 52, ...labelled(o.yTickLabels, rows) },
    marks: [Plot.frame()],
  });
  axes.classList.add('axes');

  const canvas = document.createElement('canvas');
  canvas.className = 'matrix';
  canvas.tabIndex = 0;
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', `${o.ariaLabel} Arrow keys move the probe.`);
  Object.assign(canvas.style, {
    left: `${MARGIN.left}px`, top: `${MARGIN.top}px`, width: `${plotWidth}px`, height: `${plotHeight}px`,
    // Crisp cells when magnified, averaged when many entries share a pixel.
    imageRendering: plotWidth >= cols && plotHeight >= rows ? 'pixelated' : 'auto',
  });
  paintMatrix(canvas, data, rows, cols, colour);

  const tooltip = document.createElement('div');
  tooltip.className = 'tooltip';
  tooltip.hidden = true;
  const probe = { row: 0, col: 0 };
  const show = (row, col) => {
    probe.row = row;
    probe.col = col;
    tooltip.innerHTML = o.describe(row, col);
    tooltip.hidden = false;
    const x = MARGIN.left + ((col + 0.5) / cols) * plotWidth;
    const y = MARGIN.top + ((row + 0.5) / rows) * plotHeight;
    tooltip.style.left = `${Math.max(0, Math.min(x + 12, width - 210))}px`;
    tooltip.style.top = `${Math.min(y + 12, height - 70)}px`;
  };
  const clamp = (v, hi) => Math.min(hi - 1, Math.max(0, v));
  canvas.addEventListener('pointermove', (event) => {
    show(clamp(Math.floor((event.offsetY / plotHeight) * rows), rows), clamp(Math.floor((event.offsetX / plotWidth) * cols), cols));
  });
  canvas.addEventListener('pointerleave', () => { tooltip.hidden = true; });
  canvas.addEventListener('focus', () => show(probe.row, probe.col));
  canvas.addEventListener('blur', () => { tooltip.hidden = true; });
  canvas.addEventListener('keydown', (event) => {
    const step = event.shiftKey ? 10 : 1;
    const moves = { ArrowUp: [-step, 0], ArrowDown: [step, 0], ArrowLeft: [0, -step], ArrowRight: [0, step] };
    const move = moves[event.key];
    if (!move) return;
    event.preventDefault();
    show(clamp(probe.row + move[0], rows), clamp(probe.col + move[1], cols));
  });

  const plotArea = document.createElement('div');
  plotArea.className = 'plot-area';
  plotArea.style.width = `${width}px`;
  plotArea.style.height = `${height}px`;
  plotArea.append(axes, canvas, tooltip);
  const figure = document.createElement('div');
  figure.className = 'matrix-figure';
  if (o.legend !== false) figure.append(Plot.legend({ color: colour.options, width: 260, ticks: 5, tickFormat: '.3~g' }));
  figure.append(plotArea);
  return figure;
}

