// Compare mode: the wavelength of every frequency pair of each configuration
// that has frequencies (sinusoidal, RoPE, xPos), on one log axis.
import * as Plot from '@observablehq/plot';
import { curveChart } from '../lib/curves.js';
import { figureWidth } from '../lib/size.js';
import { themeOf } from '../lib/theme.js';

export const id = 'compare-spectrum';
export const title = 'Spectra compared: the wavelength of each pair';
export const caption = 'Wavelength 2π/θᵢ (tokens, log axis) of each pair i, for every configuration with frequencies: where ' +
  'two models or two scalings keep the same pairs and where they stretch them. RoPE’s at its context (seq_len); the ' +
  'dashed rules mark each one’s context.';
export const needs = ['spectra'];

/** @param {{spectra: {label, inv_freq: Float32Array|null, seqLen: number|null}[]}} result */
export function render(element, result) {
  const theme = themeOf(element);
  const withFrequencies = result.spectra.filter((s) => s.inv_freq);
  const series = withFrequencies.map((s) => ({ name: s.label, short: s.short,
    points: Array.from(s.inv_freq, (f, i) => ({ x: i, y: (2 * Math.PI) / f, theta: f })) }));
  // One rule per context length, naming the configurations at it.
  const contexts = [...new Set(withFrequencies.map((s) => s.seqLen).filter(Boolean))]
    .map((value) => ({ value, who: withFrequencies.filter((s) => s.seqLen === value).map((s) => s.short).join(', ') }));
  const children = [];
  if (series.length) {
    children.push(curveChart({
      series, width: figureWidth(element), theme, dots: true,
      x: { label: 'pair index i →' }, y: { type: 'log', label: '↑ wavelength 2π/θᵢ (tokens)', tickFormat: ',' },
      channels: { 'θᵢ (rad/token)': 'theta' },
      explain: () => 'Same base and width give the same θᵢ = base^(−2i/d), whether the pairs are added (sinusoidal) or rotated (RoPE).',
      marks: [
        Plot.ruleY(contexts, { y: 'value', stroke: theme.grey, strokeDasharray: '5,4' }),
        Plot.text(contexts, { y: 'value', text: (d) => `context ${d.value.toLocaleString('en')} (${d.who})`, frameAnchor: 'left', dx: 4, dy: -7, fill: theme.grey, fontSize: 11 }),
      ],
    }));
  }
  const none = result.spectra.filter((s) => !s.inv_freq).map((s) => s.label);
  if (none.length) {
    const note = document.createElement('p');
    note.className = 'note none-note';
    note.textContent = `${none.join(', ')}: no frequencies (not a sinusoid or a rotation).`;
    children.push(note);
  }
  element.replaceChildren(...children);
}

/** The CSV table: one row per configuration and pair. */
export function table(result) {
  const rows = result.spectra.filter((s) => s.inv_freq)
    .flatMap((s) => Array.from(s.inv_freq, (f, i) => [s.label, i, f, (2 * Math.PI) / f]));
  return { columns: ['configuration', 'pair_i', 'inv_freq', 'wavelength'], rows: rows.length, row: (k) => rows[k] };
}
