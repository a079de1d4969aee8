// The waves: PE(pos, dim) against position for a few dimensions, from the
// fastest pair (wavelength 2*pi tokens) to slow ones, the progression that lets
// a model read position at several scales.
import * as Plot from '@observablehq/plot';
import { plot } from '../lib/plot.js';
import { figureWidth } from '../lib/size.js';
import { themeOf } from '../lib/theme.js';
import { badParam } from '../errors.js';

export const id = 'waves';
export const title = 'Waves of chosen dimensions';
export const caption = 'PE(position, dimension) along the sequence: from wavelength 2π tokens (pair 0) to ever slower ' +
  'pairs, like the hands of a clock. Dots: the table’s values at each position; the curve passes through them.';
export const needs = ['table', 'sin_column', 'cos_column', 'wavelength'];

/**
 * Which columns to draw: the given list, or for "auto" the sine columns of four
 * pairs spread over the spectrum (i = 0, d/16, d/8, d/4).
 * @throws {Error} "dims = ... is invalid: ..." when a column is outside [0, d_model)
 */
export function chooseColumns(result, dims) {
  const cols = result.table.cols;
  if (dims === 'auto') {
    const half = result.sin_column.length;
    const pairs = [...new Set([0, half / 8, half / 4, half / 2].map((x) => Math.min(half - 1, Math.floor(x))))];
    return pairs.map((i) => result.sin_column[i]);
  }
  const bad = dims.filter((d) => d >= cols);
  if (bad.length) throw badParam('dims', bad.join(', '), `dimension indices in [0, ${cols - 1}]`);
  return dims;
}

/**
 * @param {HTMLElement} element  emptied and filled with the figure
 * @param {object} result  from engine.absolute (table, wavelength, sin_column, cos_column)
 * @param {{dims: 'auto' | number[]}} params
 * @throws {Error} as chooseColumns, before touching the element
 */
export function render(element, result, params) {
  const columns = chooseColumns(result, params.dims);
  const { data, rows, cols } = result.table;
  const pairOf = new Map();
  result.sin_column.forEach((c, i) => pairOf.set(c, [i, 'sin']));
  result.cos_column.forEach((c, i) => pairOf.set(c, [i, 'cos']));

  const width = figureWidth(element);
  // More positions than pixels: per two pixels, the positions where the wave is lowest and highest
  // (real points, in order), which draw the same band as every point would.
  const bucket = rows > (width - 76) ? Math.ceil(rows / ((width - 76) / 2)) : 1;
  const points = [];
  for (const col of columns) {
    const [pair, fn] = pairOf.get(col);
    const wavelength = result.wavelength[pair];
    const series = `dim ${col} (${fn}, i = ${pair}, λ = ${wavelength.toPrecision(3)})`;
    const add = (pos) => points.push({ position: pos, value: data[pos * cols + col], series, dimension: col, pair, wavelength });
    for (let start = 0; start < rows; start += bucket) {
      if (bucket === 1) { add(start); continue; }
      let lo = start;
      let hi = start;
      for (let pos = start + 1; pos < Math.min(rows, start + bucket); pos++) {
        if (data[pos * cols + col] < data[lo * cols + col]) lo = pos;
        if (data[pos * cols + col] > data[hi * cols + col]) hi = pos;
      }
      add(Math.min(lo, hi));
      if (lo !== hi) add(Math.max(lo, hi));
    }
  }
  const theme = themeOf(element);
  const figure = plot({
    width, height: 280, marginLeft: 56, marginBottom: 40,
    x: { label: 'position (token) →', labelAnchor: 'center', labelOffset: 34, domain: [0, Math.max(1, rows - 1)] },
    y: { label: '↑ PE(position, dimension)', domain: [-1.05, 1.05], grid: true },
    color: { legend: true, type: 'categorical', scheme: theme.categorical, domain: [...new Set(points.map((p) => p.series))] },
    marks: [
      Plot.ruleY([0], { stroke: theme.rule }),
      // Every position drawn: a smooth curve through them (a natural spline: the fastest wave, 2π tokens long, is
      // a wave, not a zigzag between integers), and a dot at each position, the table's own value.
      Plot.lineY(points, {
        x: 'position', y: 'value', z: 'series', stroke: 'series', strokeWidth: 1.5, curve: bucket === 1 ? 'natural' : 'linear',
        channels: { dimension: 'dimension', 'pair i': 'pair', 'wavelength (tokens)': 'wavelength' },
        tip: { format: { stroke: false, x: true, y: (v) => v.toPrecision(6), 'wavelength (tokens)': (v) => v.toPrecision(6) } },
      }),
      ...(bucket === 1 && rows <= 256 ? [Plot.dot(points, { x: 'position', y: 'value', fill: 'series', r: rows <= 64 ? 2.5 : 1.6 })] : []),
    ],
  });
  element.replaceChildren(figure);
}

/** The CSV table: position, then the value of each drawn dimension. */
export function table(result, params) {
  const columns = chooseColumns(result, params.dims);
  const { data, rows, cols } = result.table;
  return { columns: ['position', ...columns.map((c) => `dim_${c}`)], rows, row: (p) => [p, ...columns.map((c) => data[p * cols + c])] };
}
