// ALiBi's slope per head on a log axis: a geometric sequence (a straight line)
// for a power of two heads; other counts interleave a second sequence.
import * as Plot from '@observablehq/plot';
import { plot } from '../lib/plot.js';
import { figureWidth } from '../lib/size.js';
import { themeOf } from '../lib/theme.js';

export const id = 'slopes';
export const title = 'ALiBi slopes per head';
export const caption = 'mₕ = 2^(−8(h+1)/n) for a power of two n heads: a straight line on this log axis. Otherwise the ' +
  'closest power of two’s slopes come first, then every other slope of twice as many heads.';
export const needs = ['heads'];

/** @param {{heads: {slopes: Float32Array}}} result */
export function render(element, result) {
  const rows = Array.from(result.heads.slopes, (slope, head) => ({ head, slope }));
  const theme = themeOf(element);
  element.replaceChildren(plot({
    width: Math.min(figureWidth(element), 640), height: 260, marginLeft: 64, marginBottom: 40, inset: 8,  // whole end dots
    x: { label: 'head h →', labelAnchor: 'center', labelOffset: 34, ticks: Math.min(rows.length, 16), tickFormat: 'd' },
    y: { type: 'log', label: '↑ slope mₕ', grid: true, tickFormat: '~g' },
    marks: [
      Plot.ruleY([1 / 256], { stroke: theme.fainter }),
      Plot.dot(rows, { x: 'head', y: 'slope', fill: theme.accent, r: 4, tip: { format: { y: (v) => v.toPrecision(6) } } }),
    ],
  }));
}

/** The CSV table: one row per head, its slope. */
export function table(result) {
  const { slopes } = result.heads;
  return { columns: ['head', 'slope'], rows: slopes.length, row: (h) => [h, slopes[h]] };
}
