// Drawing a matrix straight from a Float32Array into a canvas: the one hot path
// of the page that is hand-written (a plotting library's raster mark calls a
// scale per pixel, too slow for a 4096 x 1024 table on every slider step), and
// the colour legend that goes with it (d3's scale and axis).
import { axisBottom, create, format, rgb, scaleLinear } from 'd3';

const LUT_SIZE = 256;

/**
 * A colour scale: values lo..hi mapped linearly onto t in [0, 1] of a d3
 * interpolator, and its 256-entry RGBA lookup table for the canvas, so the
 * legend and the pixels use the same colours.
 * @param {(t: number) => string} interpolate
 */
function lookupScale(lo, hi, label, interpolate) {
  const lut = new Uint8ClampedArray(LUT_SIZE * 4);
  for (let i = 0; i < LUT_SIZE; i++) {
    const c = rgb(interpolate(i / (LUT_SIZE - 1)));
    lut.set([c.r, c.g, c.b, 255], i * 4);
  }
  return { lut, lo, hi, label, interpolate };
}

/** Diverging around 0: values in [-extent, extent], in the theme's colours (lib/theme.js). */
export function divergingScale(extent, label, theme) {
  return lookupScale(-extent, extent, label, theme.diverging);
}

/** Sequential from the background to strong: values in [0, max] (attention weights). */
export function sequentialScale(max, label, theme) {
  return lookupScale(0, max, label, theme.sequential);
}

/**
 * A colour legend: the scale's label, its ramp and a value axis.
 * @param {{lo: number, hi: number, label: string, interpolate: (t: number) => string}} colour
 * @param {{width?: number, ticks?: number}} [o]
 * @returns {SVGSVGElement}
 */
export function colourLegend(colour, { width = 260, ticks = 5 } = {}) {
  const height = 46;
  const margin = { left: 8, right: 12 };
  const svg = create('svg').attr('width', width).attr('height', height).attr('viewBox', `0 0 ${width} ${height}`)
    .attr('class', 'legend').attr('role', 'img').attr('aria-label', `colour legend: ${colour.label}, ${colour.lo} to ${colour.hi}`)
    .attr('font-family', 'system-ui, sans-serif').attr('font-size', 10).attr('fill', 'currentColor');
  const id = `ramp-${Math.random().toString(36).slice(2, 10)}`;
  const gradient = svg.append('defs').append('linearGradient').attr('id', id);
  for (let k = 0; k <= 16; k++) gradient.append('stop').attr('offset', k / 16).attr('stop-color', colour.interpolate(k / 16));
  svg.append('text').attr('x', margin.left).attr('y', 11).attr('font-weight', 600).text(colour.label);
  svg.append('rect').attr('x', margin.left).attr('y', 16).attr('width', width - margin.left - margin.right).attr('height', 10)
    .attr('fill', `url(#${id})`);
  const scale = scaleLinear().domain([colour.lo, colour.hi]).range([margin.left, width - margin.right]);
  svg.append('g').attr('transform', 'translate(0, 26)').attr('aria-hidden', 'true')
    .call(axisBottom(scale).ticks(ticks).tickSize(4).tickFormat(format('.3~g')))
    .call((g) => g.select('.domain').remove());
  return svg.node();
}

/**
 * Paints a [rows, cols] row-major matrix into `canvas`, one pixel per entry
 * (scale it with CSS). NaN and -Infinity (masked) entries are drawn transparent.
 * @param {HTMLCanvasElement} canvas
 * @param {Float32Array} data  length rows * cols
 * @param {{lut: Uint8ClampedArray, lo: number, hi: number}} colour  from divergingScale or sequentialScale
 */
export function paintMatrix(canvas, data, rows, cols, colour) {
  canvas.width = cols;
  canvas.height = rows;
  const context = canvas.getContext('2d');
  const image = context.createImageData(cols, rows);
  const pixels = new Uint32Array(image.data.buffer);
  const lut32 = new Uint32Array(colour.lut.buffer);
  const toIndex = (LUT_SIZE - 1) / (colour.hi - colour.lo || 1);
  const offset = 0.5 - colour.lo * toIndex;
  const last = LUT_SIZE - 1;
  for (let k = 0; k < data.length; k++) {
    const x = data[k] * toIndex + offset;  // NaN and -Infinity fail both tests below
    if (x >= 1) pixels[k] = lut32[x < last ? x | 0 : last];
    else if (x > -Infinity) pixels[k] = lut32[0];
  }
  context.putImageData(image, 0, 0);
}
