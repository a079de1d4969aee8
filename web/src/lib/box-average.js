// Block averages of a matrix: what a screen with fewer pixels than entries
// can show of it. The worker attaches them to large matrices (preview) so the
// page paints a few hundred thousand pixels instead of millions of entries.

/**
 * Averages blocks of ky rows by kx columns (NaN and infinite entries, such as
 * masked logits, left out; a block with none left is NaN): a matrix with more entries than the screen has pixels, reduced
 * to what the screen can show, as the browser would when scaling it down.
 * @returns {{data: Float32Array, rows: number, cols: number}}
 */
export function boxAverage(data, rows, cols, ky, kx) {
  const outRows = Math.ceil(rows / ky);
  const outCols = Math.ceil(cols / kx);
  const sum = new Float32Array(outRows * outCols);
  const count = new Uint32Array(outRows * outCols);
  const column = Int32Array.from({ length: cols }, (_, c) => Math.floor(c / kx));
  for (let r = 0; r < rows; r++) {
    const base = Math.floor(r / ky) * outCols;
    const row = r * cols;
    for (let c = 0; c < cols; c++) {
      const v = data[row + c];
      if (v > -Infinity && v < Infinity) { sum[base + column[c]] += v; count[base + column[c]]++; }
    }
  }
  for (let k = 0; k < sum.length; k++) sum[k] = count[k] ? sum[k] / count[k] : NaN;
  return { data: sum, rows: outRows, cols: outCols };
}

/** The largest preview the engine sends: enough for a 960 x 432 CSS px heatmap at this pixel ratio. */
export function previewLimits(devicePixelRatio = 1) {
  const scale = Math.min(3, Math.max(1, Math.ceil(devicePixelRatio)));
  return { rows: 432 * scale, cols: 960 * scale };
}

/**
 * Adds `preview` ({data, rows, cols, ky, kx}: block averages of ky x kx entries)
 * to every matrix {data: Float32Array, rows, cols} in value (at any depth) that
 * has more rows or columns than the limits.
 */
export function attachPreviews(value, limits) {
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return;
  if (value.data instanceof Float32Array && Number.isInteger(value.rows) && Number.isInteger(value.cols) &&
    value.data.length === value.rows * value.cols && (value.rows > limits.rows || value.cols > limits.cols)) {
    const ky = Math.ceil(value.rows / limits.rows);
    const kx = Math.ceil(value.cols / limits.cols);
    value.preview = { ...boxAverage(value.data, value.rows, value.cols, ky, kx), ky, kx };
    return;
  }
  for (const v of Object.values(value)) attachPreviews(v, limits);
}
