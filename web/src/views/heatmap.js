// The embedding heatmap: the table PE [n, d_model] as colours, position down,
// dimension across, with a colour legend and a tooltip (pointer or arrow keys)
// that gives position, dimension, value, pair i and its wavelength.
import * as Plot from '@observablehq/plot';
import { divergingScale, paintMatrix } from '../lib/raster.js';

const MARGIN = { top: 8, right: 12, bottom: 40, left: 64 };
const HEIGHT = 360;

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

  const width = Math.max(320, Math.min(element.clientWidth || 720, 960));
  const plotWidth = width - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const colour = divergingScale(1, 'PE value');

  const axes = Plot.plot({
    width, height: HEIGHT, marginTop: MARGIN.top, marginRight: MARGIN.right,
    marginBottom: MARGIN.bottom, marginLeft: MARGIN.left,
    x: { domain: [0, cols], label: 'dimension →', labelAnchor: 'center', labelOffset: 34 },
    y: { domain: [0, rows], reverse: true, label: '↓ position (token)', labelAnchor: 'center', labelOffset: 52 },
    marks: [Plot.frame()],
  });
  axes.classList.add('axes');

  const canvas = document.createElement('canvas');
  canvas.className = 'matrix';
  canvas.tabIndex = 0;
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', `Heatmap of the position table, ${rows} positions by ${cols} dimensions. Arrow keys move the probe.`);
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
    const pair = pairOfColumn[col];
    const value = data[row * cols + col];
    tooltip.innerHTML =
      `<b>position</b> ${row}<br><b>dimension</b> ${col} (${isCosine[col] ? 'cos' : 'sin'})<br>` +
      `<b>value</b> ${value.toPrecision(6)}<br><b>pair i</b> ${pair}<br>` +
      `<b>wavelength</b> ${result.wavelength[pair].toPrecision(6)} tokens`;
    tooltip.hidden = false;
    const x = MARGIN.left + ((col + 0.5) / cols) * plotWidth;
    const y = MARGIN.top + ((row + 0.5) / rows) * plotHeight;
    tooltip.style.left = `${Math.min(x + 12, width - 200)}px`;
    tooltip.style.top = `${Math.min(y + 12, HEIGHT - 60)}px`;
  };
  canvas.addEventListener('pointermove', (event) => {
    const row = Math.min(rows - 1, Math.max(0, Math.floor((event.offsetY / plotHeight) * rows)));
    const col = Math.min(cols - 1, Math.max(0, Math.floor((event.offsetX / plotWidth) * cols)));
    show(row, col);
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
    show(Math.min(rows - 1, Math.max(0, probe.row + move[0])), Math.min(cols - 1, Math.max(0, probe.col + move[1])));
  });

  const plotArea = document.createElement('div');
  plotArea.className = 'plot-area';
  plotArea.style.width = `${width}px`;
  plotArea.style.height = `${HEIGHT}px`;
  plotArea.append(axes, canvas, tooltip);
  const legend = Plot.legend({ color: colour.options, width: 280, ticks: 5 });
  element.replaceChildren(legend, plotArea);
}
