// The spectra of a model's layer kinds on one axis: the wavelength 2π/θᵢ of every rotary pair of each kind that rotates
// (Gemma's local and global layers, a proportional RoPE's turning and still pairs), with each kind's attention window.
import * as Plot from '@observablehq/plot';
import { plot } from '../lib/plot.js';
import { figureWidth } from '../lib/size.js';
import { themeOf } from '../lib/theme.js';
import { kindColours } from '../lib/kind-colours.js';
import { pytorchSnippet } from '../export.js';

export const id = 'profile-spectrum';
export const title = 'The layer kinds’ spectra on one axis';
export const caption = 'Wavelength 2π/θᵢ in tokens of each rotary pair i, one line per layer kind that rotates, at the chosen context. ' +
  'A dashed line marks a kind’s window: within a sliding window or a chunk, a pair slower than the window never completes a turn, ' +
  'so it tells positions apart only coarsely there. Pairs of frequency 0 (proportional RoPE) carry no position: the shaded bands.';
export const needs = ['layers', 'seqLen', 'version'];

/** @param {{layers: {model: string, kinds: object[]}}} result */
export function render(element, result) {
  const { kinds, model } = result.layers;
  const theme = themeOf(element);
  const colours = kindColours(theme, kinds);
  const turning = kinds.filter((k) => k.rope);
  const rows = [];
  const still = [];
  for (const k of turning) {
    const zero = [];
    k.rope.inv_freq.forEach((f, i) => {
      if (f > 0) rows.push({ pair: i, wavelength: (2 * Math.PI) / f, kind: k.name, theta: f });
      else zero.push(i);
    });
    if (zero.length) still.push({ kind: k.name, x1: zero[0] - 0.5, x2: zero.at(-1) + 0.5, text: `${k.name}: pairs ${zero[0]}–${zero.at(-1)} have frequency 0 (no position)` });
  }
  if (!turning.length) {
    const p = document.createElement('p');
    p.className = 'view-message';
    p.textContent = `${model}: no layer rotates, so there is no spectrum to draw (its layers carry no position encoding).`;
    element.replaceChildren(p);
    return;
  }
  const windows = turning.filter((k) => k.window.kind !== 'global')
    .map((k) => ({ kind: k.name, value: k.window.size, text: `${k.name}: ${k.window.kind} window ${k.window.size.toLocaleString('en')}` }));
  const figure = plot({
    width: figureWidth(element), height: 340, marginLeft: 64, marginBottom: 40, marginRight: 20,
    x: { label: 'pair index i →', labelAnchor: 'center', labelOffset: 34 },
    y: { type: 'log', label: '↑ wavelength (tokens)', grid: true, tickFormat: '~s' },
    color: { domain: colours.domain.filter((n) => turning.some((k) => k.name === n)), range: colours.range.filter((_, i) => kinds[i].rope), legend: true },
    marks: [
      Plot.rect(still, { x1: 'x1', x2: 'x2', fill: 'kind', fillOpacity: 0.12 }),
      Plot.text(still, { x: (d) => (d.x1 + d.x2) / 2, text: 'text', frameAnchor: 'top', dy: 14, fill: theme.grey, fontSize: 11, lineWidth: 14 }),
      Plot.ruleY(windows, { y: 'value', stroke: 'kind', strokeDasharray: '5,4' }),
      Plot.text(windows, { y: 'value', text: 'text', frameAnchor: 'left', dx: 4, dy: -7, fill: 'kind', fontSize: 11 }),
      Plot.lineY(rows, { x: 'pair', y: 'wavelength', z: 'kind', stroke: 'kind', strokeWidth: 1.8 }),
      Plot.dot(rows, { x: 'pair', y: 'wavelength', stroke: 'kind', r: 2,
        channels: { kind: 'kind', 'pair i': 'pair', 'θᵢ (rad/token)': 'theta', 'wavelength (tokens)': 'wavelength' },
        tip: { format: { x: false, y: false, stroke: false, kind: true, 'θᵢ (rad/token)': (v) => v.toPrecision(6), 'wavelength (tokens)': (v) => v.toPrecision(6) } } }),
    ],
  });
  // The numbers for an engine developer: JSON is the frame's export; this is the same as a PyTorch snippet.
  const snippet = document.createElement('details');
  snippet.className = 'snippet';
  const code = document.createElement('pre');
  code.textContent = pytorchSnippet({ model, seqLen: result.seqLen, version: result.version, kinds: turning });
  const copy = document.createElement('button');
  copy.type = 'button';
  copy.className = 'tool';
  copy.textContent = 'copy';
  copy.addEventListener('click', () => navigator.clipboard?.writeText(code.textContent).then(() => { copy.textContent = 'copied'; }, () => {}));
  const summary = document.createElement('summary');
  summary.textContent = 'PyTorch snippet: these frequencies per layer kind, to check your stack in one line';
  snippet.append(summary, copy, code);
  element.replaceChildren(figure, snippet);
}

/** The CSV table: one row per kind and pair (wavelength Infinity where the frequency is 0). */
export function table(result) {
  const rows = result.layers.kinds.filter((k) => k.rope)
    .flatMap((k) => Array.from(k.rope.inv_freq, (f, i) => [k.name, i, f, (2 * Math.PI) / f]));
  return { columns: ['kind', 'pair_i', 'inv_freq', 'wavelength'], rows: rows.length, row: (i) => rows[i] };
}
