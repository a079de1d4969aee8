// Compare mode: the decay curves of two to four configurations on one axis.
import { curveChart } from '../lib/curves.js';
import { figureWidth } from '../lib/size.js';
import { themeOf } from '../lib/theme.js';
import { normalised, seriesOf, whyCoincide } from './decay-comparison.js';

export const id = 'compare-decay';
export const title = 'Decay compared: the logit against distance';
export const caption = 'Each configuration’s logit of a key m tokens back: q·k/√d of q = k = 1 for RoPE, xPos and PoPE, the ' +
  'sinusoidal p₀·p_m/√d, or the bias b(m). Normalised (f(m) − f(0)) / max |f − f(0)| so the shapes compare, or raw ' +
  '(the “decay values” control). Each curve has its own dash and its name at its end; untick one to hide it.';
export const needs = ['curves'];

/** @param {{curves: {label, values: Float32Array|null, scale}[]}} result */
export function render(element, result, params) {
  const raw = params.compare_values === 'raw';
  const missing = result.curves.filter((c) => !c.values).map((c) => c.label);
  const chart = curveChart({
    series: seriesOf(result.curves, null, !raw), width: figureWidth(element), theme: themeOf(element),
    x: { label: 'distance m (tokens) →' }, y: { label: raw ? '↑ f(m): logit (q·k/√d or bias)' : '↑ (f(m) − f(0)) / max |f − f(0)|' },
    channels: { 'raw f(m)': 'raw' }, explain: whyCoincide,
  });
  const children = [chart];
  if (missing.length) {
    const note = document.createElement('p');
    note.className = 'note';
    note.textContent = `No decay curve for ${missing.join(', ')}: a learned table has no rule in distance.`;
    children.push(note);
  }
  element.replaceChildren(...children);
}

/** The CSV table: distance m, then each configuration's raw f(m) and normalised curve. */
export function table(result) {
  const curves = result.curves.filter((c) => c.values).map(normalised);
  const columns = ['distance_m', ...curves.flatMap((c) => [`${c.label} f`, `${c.label} normalised`])];
  return { columns, rows: curves[0]?.values.length ?? 0, row: (m) => [m, ...curves.flatMap((c) => [c.values[m] * c.scale, c.y(m)])] };
}
