// Drawing a matrix straight from a Float32Array into a canvas: the one hot path
// of the page that is hand-written (Observable Plot's raster mark calls a scale
// per pixel, too slow for a 4096 x 1024 table on every slider step).
import * as Plot from '@observablehq/plot';

const LUT_SIZE = 256;

/**
 * A colour scale from Observable Plot, and its 256-entry RGBA lookup table for
 * the canvas, so the legend and the pixels use the same colours.
 * @param {number[]} domain  [lo, hi], or [lo, mid, hi] for a piecewise scale
 * @param {object} colours   Plot colour options: {scheme, reverse} or {range, interpolate}
 */
function lookupScale(domain, label, colours) {
  const { piecewise: _, ...rest } = colours;
  const options = { type: 'linear', domain, label, ...rest };
  const scale = Plot.scale({ color: options });
  const lo = domain[0];
  const hi = domain[domain.length - 1];
  const lut = new Uint8ClampedArray(LUT_SIZE * 4);
  for (let i = 0; i < LUT_SIZE; i++) {
    const [r, g, b] = scale.apply(lo + ((hi - lo) * i) / (LUT_SIZE - 1)).match(/\d+/g).map(Number);
    lut.set([r, g, b, 255], i * 4);
  }
  return { options, lut, lo, hi };
}

/** Diverging around 0: values in [-extent, extent], in the theme's colours (lib/theme.js). */
export function divergingScale(extent, label, theme) {
  const colours = theme.diverging;
  return lookupScale(colours.piecewise ? [-extent, 0, extent] : [-extent, extent], label, colours);
}

/** Sequential from the background to strong: values in [0, max] (attention weights). */
export function sequentialScale(max, label, theme) {
  const colours = theme.sequential;
  return lookupScale(colours.piecewise ? [0, max / 2, max] : [0, max], label, colours);
}

/**
 * Paints a [rows, cols] row-major matrix into `canvas`, one pixel per entry
 * (scale it with CSS). NaN entries are drawn transparent.
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
  const last = LUT_SIZE - 1;
  for (let k = 0; k < data.length; k++) {
    const v = data[k];
    if (v !== v) continue;  // NaN: leave transparent
    let i = Math.round((v - colour.lo) * toIndex);
    i = i < 0 ? 0 : i > last ? last : i;
    pixels[k] = lut32[i];
  }
  context.putImageData(image, 0, 0);
}
