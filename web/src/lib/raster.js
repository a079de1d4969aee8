// Drawing a matrix straight from a Float32Array into a canvas: the one hot path
// of the page that is hand-written (Observable Plot's raster mark calls a scale
// per pixel, too slow for a 4096 x 1024 table on every slider step).
import * as Plot from '@observablehq/plot';

const LUT_SIZE = 256;

/**
 * A diverging colour scale from Observable Plot, and its 256-entry RGBA lookup
 * table for the canvas, so the legend and the pixels use the same colours.
 * @param {number} extent  values in [-extent, extent] map across the scheme; 0 is the midpoint
 * @param {string} label   the legend's label
 */
export function divergingScale(extent, label) {
  const options = { type: 'linear', scheme: 'RdBu', reverse: true, domain: [-extent, extent], label };
  const scale = Plot.scale({ color: options });
  const lut = new Uint8ClampedArray(LUT_SIZE * 4);
  for (let i = 0; i < LUT_SIZE; i++) {
    const [r, g, b] = scale.apply(-extent + (2 * extent * i) / (LUT_SIZE - 1)).match(/\d+/g).map(Number);
    lut.set([r, g, b, 255], i * 4);
  }
  return { options, lut, extent };
}

/**
 * Paints a [rows, cols] row-major matrix into `canvas`, one pixel per entry
 * (scale it with CSS). NaN entries are drawn transparent.
 * @param {HTMLCanvasElement} canvas
 * @param {Float32Array} data  length rows * cols
 * @param {{lut: Uint8ClampedArray, extent: number}} colour  from divergingScale
 */
export function paintMatrix(canvas, data, rows, cols, colour) {
  canvas.width = cols;
  canvas.height = rows;
  const context = canvas.getContext('2d');
  const image = context.createImageData(cols, rows);
  const pixels = new Uint32Array(image.data.buffer);
  const lut32 = new Uint32Array(colour.lut.buffer);
  const toIndex = (LUT_SIZE - 1) / (2 * colour.extent);
  const last = LUT_SIZE - 1;
  for (let k = 0; k < data.length; k++) {
    const v = data[k];
    if (v !== v) continue;  // NaN: leave transparent
    let i = Math.round((v + colour.extent) * toIndex);
    i = i < 0 ? 0 : i > last ? last : i;
    pixels[k] = lut32[i];
  }
  context.putImageData(image, 0, 0);
}
