// A matrix drawn as a heatmap: the canvas (one pixel per entry, painted by
// raster.js), d3 axes and a frame over it, a colour legend, and a tooltip that
// follows the pointer or the arrow keys (Shift: 10 cells). d3's scale and axis
// rather than a whole plotting library: a heatmap embedded alone stays small.
import { axisBottom, axisLeft, create, scaleLinear } from 'd3';
import { colourLegend, divergingScale, paintMatrix, sequentialScale } from './raster.js';
import { boxAverage } from './box-average.js';
import { labelledLines } from './html.js';

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
 * @param {(row: number, col: number) => (string|[string, string])[]} o.describe  the tooltip's lines for a cell: [label, text]
 *   or plain text (lib/html.js labelledLines; text, never markup)
 * @param {string} o.ariaLabel
 * @param {string[]} [o.xTickLabels]  labels of the columns (tokens), used when there are at most 48
 * @param {string[]} [o.yTickLabels]  labels of the rows
 * @param {boolean} [o.legend]        draw the colour legend (default true)
 * @param {{data, rows, cols, ky, kx}} [o.preview]  block averages of data made by the engine (box-average.js)
 * @param {object} o.theme           the theme drawn in (lib/theme.js themeOf)
 * @param {{rows: number[], label: string}[]} [o.outlines]  groups of rows to outline (e.g. identical rows), one dash per group
 * @param {{axis: 'x'|'y', at: number, label?: string}[]} [o.rules]  dashed lines across the map at a column (x) or row (y)
 *   boundary, in entries (e.g. at = a training length: between entry at - 1 and entry at), labelled at their end
 * @returns {HTMLElement}
 */
export function matrixFigure(o) {
  const { data, rows, cols, width, height } = o;
  // Token labels where each has room (a cell of 10 px or more); else numbered ticks, the tooltip naming the token.
  const tokenAxes = Boolean(o.xTickLabels) && cols <= 48 && (width - 92) / cols >= 10;
  const MARGIN = tokenAxes ? { top: 8, right: 12, bottom: 72, left: 80 } : PLAIN_MARGIN;
  const plotWidth = width - MARGIN.left - MARGIN.right;
  const plotHeight = height - MARGIN.top - MARGIN.bottom;
  const colour = o.sequential ? sequentialScale(o.extent, o.legendLabel, o.theme) : divergingScale(o.extent, o.legendLabel, o.theme);

  const axes = matrixAxes({ width, height, margin: MARGIN, rows, cols, xLabel: o.xLabel, yLabel: o.yLabel,
    xTickLabels: tokenAxes ? o.xTickLabels : null, yTickLabels: o.yTickLabels && tokenAxes ? o.yTickLabels : null });

  const canvas = document.createElement('canvas');
  canvas.className = 'matrix';
  canvas.tabIndex = 0;
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', `${o.ariaLabel} Arrow keys move the probe.`);
  Object.assign(canvas.style, {
    left: `${MARGIN.left}px`, top: `${MARGIN.top}px`, width: `${plotWidth}px`, height: `${plotHeight}px`,
  });
  // More entries than screen pixels: paint their block averages (what scaling down would show), not every
  // entry; from the engine's preview (averaged in the worker) when it sent one.
  const dpr = Math.max(1, globalThis.devicePixelRatio || 1);
  const source = o.preview ?? { data, rows, cols, ky: 1, kx: 1 };
  const fy = Math.max(1, Math.floor(source.rows / Math.max(1, plotHeight * dpr)));
  const fx = Math.max(1, Math.floor(source.cols / Math.max(1, plotWidth * dpr)));
  const shown = fy > 1 || fx > 1 ? boxAverage(source.data, source.rows, source.cols, fy, fx) : source;
  const ky = source.ky * fy;
  const kx = source.kx * fx;
  paintMatrix(canvas, shown.data, shown.rows, shown.cols, colour);
  canvas.style.imageRendering = plotWidth >= shown.cols && plotHeight >= shown.rows ? 'pixelated' : 'auto';
  if (ky > 1 || kx > 1) canvas.dataset.averaged = `${ky}x${kx}`;

  const tooltip = document.createElement('div');
  tooltip.className = 'tooltip';
  tooltip.hidden = true;
  const probe = { row: 0, col: 0 };
  const show = (row, col) => {
    probe.row = row;
    probe.col = col;
    tooltip.replaceChildren(...labelledLines(o.describe(row, col)));
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
  plotArea.append(axes, canvas);
  if (o.outlines?.length) plotArea.append(rowOutlines(o.outlines, { width, height, margin: MARGIN, rows }));
  if (o.rules?.length) plotArea.append(ruleLines(o.rules, { width, height, margin: MARGIN, rows, cols, colour: o.theme.accent }));
  plotArea.append(tooltip);
  const figure = document.createElement('div');
  figure.className = 'matrix-figure';
  if (o.legend !== false) figure.append(colourLegend(colour));
  figure.append(plotArea);
  if (ky > 1 || kx > 1) {
    const note = document.createElement('p');
    note.className = 'note';
    note.textContent = `${rows} × ${cols} entries on ${shown.rows} × ${shown.cols} pixels: each pixel shows the mean of ` +
      `${ky > 1 ? `${ky} rows` : ''}${ky > 1 && kx > 1 ? ' × ' : ''}${kx > 1 ? `${kx} columns` : ''}, so waves faster than that ` +
      'average out; the tooltip gives every entry.';
    figure.append(note);
  }
  // Still more rows (columns) than screen pixels: the browser blends neighbours, and fine stripes can show moiré.
  const crowded = [[shown.rows, plotHeight, 'rows', ky], [shown.cols, plotWidth, 'columns', kx]]
    .map(([count, css, what, k]) => [count, Math.floor(css * dpr), what, k]).filter(([count, pixels]) => count > pixels);
  if (crowded.length) {
    const note = document.createElement('p');
    note.className = 'note shared-pixels';
    note.textContent = `${crowded.map(([count, pixels, what, k]) => `${count} ${k > 1 ? 'averaged ' : ''}${what} on ${pixels} screen pixels`)
      .join(', ')}: ` +
      `neighbouring ${crowded.map(([, , what]) => what).join(' and ')} share a pixel, so fine stripes can show moiré; ` +
      'hover (or the arrow keys) still gives every exact value.';
    figure.append(note);
  }
  return figure;
}

/**
 * Frames around whole rows, drawn over the canvas: each group in its own dash pattern, named by a
 * <title> (and the figure's note). Pointer events pass through to the canvas.
 * @returns {SVGSVGElement}
 */
function rowOutlines(groups, { width, height, margin, rows }) {
  const y = scaleLinear().domain([0, rows]).range([margin.top, height - margin.bottom]);
  const svg = create('svg').attr('class', 'outlines').attr('width', width).attr('height', height)
    .attr('viewBox', `0 0 ${width} ${height}`).attr('aria-hidden', 'true');
  const dashes = ['none', '6 3', '2 3', '8 3 2 3'];
  groups.forEach((group, g) => {
    for (const row of group.rows) {
      svg.append('rect').attr('class', 'outline').attr('data-row', row)
        .attr('x', margin.left + 1).attr('y', y(row) + 1).attr('width', width - margin.left - margin.right - 2)
        .attr('height', Math.max(2, y(row + 1) - y(row) - 2)).attr('fill', 'none')
        .attr('stroke-dasharray', dashes[g % dashes.length])
        .append('title').text(group.label);
    }
  });
  return svg.node();
}

/**
 * Dashed lines across the map at column (x) or row (y) boundaries, drawn over the canvas, each labelled
 * at its end. Pointer events pass through to the canvas.
 * @returns {SVGSVGElement}
 */
function ruleLines(rules, { width, height, margin, rows, cols, colour }) {
  const x = scaleLinear().domain([0, cols]).range([margin.left, width - margin.right]);
  const y = scaleLinear().domain([0, rows]).range([margin.top, height - margin.bottom]);
  const svg = create('svg').attr('class', 'outlines rules').attr('width', width).attr('height', height)
    .attr('viewBox', `0 0 ${width} ${height}`).attr('aria-hidden', 'true')
    .attr('font-family', 'system-ui, sans-serif').attr('font-size', 10).attr('fill', colour);
  for (const rule of rules) {
    const across = rule.axis === 'x'
      ? { x1: x(rule.at), x2: x(rule.at), y1: margin.top, y2: height - margin.bottom }
      : { x1: margin.left, x2: width - margin.right, y1: y(rule.at), y2: y(rule.at) };
    const line = svg.append('line').attr('class', 'rule').attr('data-axis', rule.axis).attr('data-at', rule.at)
      .attr('stroke', colour).attr('stroke-width', 1.5).attr('stroke-dasharray', '5,4');
    for (const [key, value] of Object.entries(across)) line.attr(key, value);
    if (!rule.label) continue;
    // x: beside the line's bottom end; y: above the line's right end.
    if (rule.axis === 'x') svg.append('text').attr('x', across.x1 + 4).attr('y', across.y2 - 5).text(rule.label);
    else svg.append('text').attr('x', across.x2 - 4).attr('y', across.y1 - 4).attr('text-anchor', 'end').text(rule.label);
  }
  return svg.node();
}

/**
 * The axes and frame of a [rows, cols] heatmap: row 0 at the top, integer ticks,
 * or token labels centred on their cells (the x ones slanted).
 * @returns {SVGSVGElement}
 */
function matrixAxes({ width, height, margin, rows, cols, xLabel, yLabel, xTickLabels, yTickLabels }) {
  const x = scaleLinear().domain([0, cols]).range([margin.left, width - margin.right]);
  const y = scaleLinear().domain([0, rows]).range([margin.top, height - margin.bottom]);
  const integerTicks = (scale, pixels) => scale.ticks(Math.max(2, Math.round(pixels / 70))).filter(Number.isInteger);
  const xAxis = axisBottom(x).tickSizeOuter(0);
  const yAxis = axisLeft(y).tickSizeOuter(0);
  if (xTickLabels) xAxis.tickValues(xTickLabels.map((_, k) => k + 0.5)).tickFormat((d) => xTickLabels[Math.floor(d)]);
  else xAxis.tickValues(integerTicks(x, width - margin.left - margin.right));
  if (yTickLabels) yAxis.tickValues(yTickLabels.map((_, k) => k + 0.5)).tickFormat((d) => yTickLabels[Math.floor(d)]);
  else yAxis.tickValues(integerTicks(y, height - margin.top - margin.bottom));

  const svg = create('svg').attr('class', 'axes').attr('width', width).attr('height', height).attr('viewBox', `0 0 ${width} ${height}`)
    .attr('font-family', 'system-ui, sans-serif').attr('font-size', 10).attr('fill', 'currentColor').attr('aria-hidden', null);
  const xg = svg.append('g').attr('aria-label', 'x-axis tick label').attr('transform', `translate(0, ${height - margin.bottom})`).call(xAxis);
  const yg = svg.append('g').attr('aria-label', 'y-axis tick label').attr('transform', `translate(${margin.left}, 0)`).call(yAxis);
  for (const g of [xg, yg]) g.attr('font-family', null).attr('font-size', null).call((a) => a.select('.domain').remove());
  if (xTickLabels) xg.selectAll('.tick text').attr('text-anchor', 'end').attr('transform', 'rotate(-35)').attr('dx', '-0.3em').attr('dy', '0.5em');
  svg.append('text').attr('x', margin.left + (width - margin.left - margin.right) / 2).attr('y', height - 6).attr('text-anchor', 'middle').text(xLabel);
  svg.append('text').attr('transform', `translate(12, ${margin.top + (height - margin.top - margin.bottom) / 2}) rotate(-90)`)
    .attr('text-anchor', 'middle').text(yLabel);
  svg.append('rect').attr('x', margin.left).attr('y', margin.top).attr('width', width - margin.left - margin.right)
    .attr('height', height - margin.top - margin.bottom).attr('fill', 'none').attr('stroke', 'currentColor');
  return svg.node();
}
