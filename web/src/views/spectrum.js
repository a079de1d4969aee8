// The frequency spectrum: wavelength 2 pi / inv_freq[i] (tokens, log axis) of
// every rotary pair, unscaled and scaled on one plot, with the pre-training
// length and the current context marked: which pairs a scaling stretches.
import * as Plot from '@observablehq/plot';
import { plot } from '../lib/plot.js';
import { figureWidth } from '../lib/size.js';
import { themeOf } from '../lib/theme.js';

export const id = 'spectrum';
export const title = 'Frequency spectrum: the wavelength of each pair';
export const caption = 'Wavelength 2π/θᵢ in tokens for each rotary pair i, with rope_theta alone and with the scaling. ' +
  'A pair whose wavelength is far shorter than the training length L has turned many times in training and can be kept; ' +
  'pairs longer than L never completed a turn, and the scalings stretch them by the factor. ' +
  'Proportional RoPE (p-RoPE) gives its last pairs frequency 0: the shaded band, which carries no position.';
export const needs = ['scaled', 'unscaled', 'trainingLength', 'seqLen', 'ropeType', 'local', 'slidingWindow'];

/**
 * @param {HTMLElement} element
 * @param {{scaled: {inv_freq: Float32Array}, unscaled: {inv_freq: Float32Array}, trainingLength: number,
 *   seqLen: number, ropeType: string, local: ?{rope_theta: number, inv_freq: Float32Array},
 *   slidingWindow: ?number}} result  from the rope family's compute; local: the sliding-window
 *   layers' own spectrum (rope_local_base_freq), slidingWindow: their window in tokens
 */
export function render(element, result) {
  const { local } = result;
  const unscaledName = local ? 'global layers, unscaled (rope_theta only)' : 'unscaled (rope_theta only)';
  const scaledName = `${local ? 'global layers, ' : ''}scaled (${result.ropeType}) at context ${result.seqLen.toLocaleString('en')}`;
  const localName = local && `sliding-window layers (rope_local_base_freq = ${local.rope_theta.toLocaleString('en')})`;
  const rows = [];
  // Pairs of frequency 0 (proportional RoPE's non-rotating share) have no wavelength: they carry no position
  // and are drawn as a band, not on the log axis.
  const still = [];
  for (let i = 0; i < result.unscaled.inv_freq.length; i++) {
    const plain = (2 * Math.PI) / result.unscaled.inv_freq[i];
    const scaled = (2 * Math.PI) / result.scaled.inv_freq[i];
    rows.push({ pair: i, wavelength: plain, series: unscaledName, ratio: 1 });
    if (result.ropeType !== 'default') {
      if (result.scaled.inv_freq[i] === 0) still.push(i);
      else rows.push({ pair: i, wavelength: scaled, series: scaledName, ratio: scaled / plain });
    }
    if (local) {
      const own = (2 * Math.PI) / local.inv_freq[i];
      rows.push({ pair: i, wavelength: own, series: localName, ratio: own / plain });
    }
  }
  const stillBand = still.length === 0 ? [] : [{ x1: still[0] - 0.5, x2: still[still.length - 1] + 0.5,
    text: `pairs ${still[0]}–${still[still.length - 1]}: frequency 0, no position (${result.ropeType})` }];
  const theme = themeOf(element);
  const window = result.slidingWindow == null ? []
    : [{ value: result.slidingWindow, text: `sliding window = ${result.slidingWindow.toLocaleString('en')}`, colour: theme.violet }];
  const marks = [...window, ...(result.trainingLength === result.seqLen
    ? [{ value: result.seqLen, text: `training length L = current context = ${result.seqLen.toLocaleString('en')}`, colour: theme.accent }]
    : [{ value: result.trainingLength, text: `training length L = ${result.trainingLength.toLocaleString('en')}`, colour: theme.accent },
      { value: result.seqLen, text: `current context = ${result.seqLen.toLocaleString('en')}`, colour: theme.warm }])];
  const figure = plot({
    width: figureWidth(element), height: 320, marginLeft: 64, marginBottom: 40, marginRight: 20,
    x: { label: 'pair index i →', labelAnchor: 'center', labelOffset: 34 },
    y: { type: 'log', label: '↑ wavelength (tokens)', grid: true, tickFormat: '~s' },
    color: { legend: true, ...seriesColours([[unscaledName, theme.grey], [scaledName, theme.red], [localName, theme.violet]], rows) },
    marks: [
      Plot.rect(stillBand, { x1: 'x1', x2: 'x2', fill: theme.grey, fillOpacity: 0.14 }),
      Plot.text(stillBand, { x: (d) => (d.x1 + d.x2) / 2, text: 'text', frameAnchor: 'top', dy: 14, fill: theme.grey, fontSize: 11 }),
      Plot.ruleY(marks, { y: 'value', stroke: (d) => d.colour, strokeDasharray: '5,4' }),
      Plot.text(marks, { y: 'value', text: 'text', frameAnchor: 'left', dx: 4, dy: -7, fill: (d) => d.colour, fontSize: 11 }),
      Plot.lineY(rows, { x: 'pair', y: 'wavelength', z: 'series', stroke: 'series', strokeWidth: 1.8 }),
      Plot.dot(rows, {
        x: 'pair', y: 'wavelength', stroke: 'series', r: 2.2,
        channels: { 'pair i': 'pair', 'wavelength (tokens)': 'wavelength', 'ratio to unscaled': 'ratio' },
        tip: { format: { x: false, y: false, stroke: true, 'wavelength (tokens)': (v) => v.toPrecision(6), 'ratio to unscaled': (v) => v.toPrecision(4) } },
      }),
    ],
  });
  element.replaceChildren(figure);
}

/** Plot's colour domain and range for the series that have rows, each keeping its own colour. */
function seriesColours(pairs, rows) {
  const present = pairs.filter(([name]) => rows.some((r) => r.series === name));
  return { domain: present.map(([name]) => name), range: present.map(([, colour]) => colour) };
}

/** The CSV table: one row per pair, its frequency and wavelength with and without the scaling (and in the sliding-window layers). */
export function table(result) {
  const { unscaled, scaled, local } = result;
  const columns = ['pair_i', 'inv_freq_unscaled', 'wavelength_unscaled', 'inv_freq_scaled', 'wavelength_scaled'];
  return {
    columns: local ? [...columns, 'inv_freq_sliding_window_layers', 'wavelength_sliding_window_layers'] : columns,
    rows: unscaled.inv_freq.length,
    row: (i) => [i, unscaled.inv_freq[i], (2 * Math.PI) / unscaled.inv_freq[i], scaled.inv_freq[i], (2 * Math.PI) / scaled.inv_freq[i],
      ...(local ? [local.inv_freq[i], (2 * Math.PI) / local.inv_freq[i]] : [])],
  };
}
