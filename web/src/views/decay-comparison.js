// Every family's decay on one shared axis: how the logit of a key m tokens
// before the query changes with m, normalised so the shapes compare.
import { curveChart } from '../lib/curves.js';
import { figureWidth } from '../lib/size.js';
import { themeOf } from '../lib/theme.js';

export const id = 'decay-comparison';
export const title = 'Decay with distance, every family on one axis';
export const caption = 'The change of the logit of a key m tokens back, f(m) − f(0), divided by its largest size over ' +
  'the range, so the shapes compare: f is the bias for the bias families (FIRE: the row of the query m tokens after key 0, at the largest m; ' +
  'FoX: the mean over random tokens, m·E[log f]), and q·k/√d for q = k = 1 with sinusoidal positions, RoPE or PoPE. The current encoding is drawn bold, with three references; tick the others to add them. A family ' +
  'whose parameters are learned is drawn with its trained set (its name says “trained on Moby-Dick”); one without a ' +
  'trained set would be one random draw, drawn faint, saying nothing of the trained family. The tooltip gives the raw ' +
  'values; “decay values: one scale” draws them, every curve on one axis (then, at the default 256 tokens, ALiBi’s ' +
  'straight fall to −128 dwarfs RoPE’s curve, which spans 11 units, and the sizes of q·k are those of q = k = 1, a ' +
  'choice: which is why each curve is normalised by default).';

/** The references drawn beside the current encoding at first (the first three that are not it): a rotation, a linear and a
 * logarithmic bias, and no positions at all; each teaches a shape (the sinusoid's curve is RoPE's: the note says why). */
export const REFERENCES = ['rope', 'alibi', 'kerple', 'none'];
export const needs = ['comparison', 'currentLabel'];
/** Its references compute with the trained sets (families/compute.js trainedNeeds: 60 KB gzip): on a page of several views,
 * asked for after the page's first figure, or once it is in sight (session.js). */
export const afterFirstFigure = true;

/** A curve's raw values f(m) (scaled) and y(m) = (f(m) - f(0)) / max |f - f(0)|, as drawn. */
export function normalised({ label, values, scale }) {
  const f0 = values[0] * scale;
  let size = 0;
  for (const v of values) size = Math.max(size, Math.abs(v * scale - f0));
  return { label, values, scale, y: (m) => (size > 0 ? (values[m] * scale - f0) / size : 0) };
}

/** Why two decay curves coincide, where the reason is known. */
export function whyCoincide(a, b) {
  const pair = [a, b].map((s) => s.toLowerCase());
  const has = (word) => pair.some((s) => s.startsWith(word));
  if (has('sinusoidal') && has('rope')) {
    return 'By construction: with q = k = 1, RoPE’s q·k is Σᵢ 2cos(m θᵢ), and the sinusoidal position–position term ' +
      'p₀·p_m is Σᵢ cos(m ωᵢ): the same sum when θ = ω (same base and width), so normalised they are one curve.';
  }
  if (has('rope') && has('xpos')) return 'xPos is RoPE’s rotation times a slow exponential ζ^(m/γ): over short distances it barely bends RoPE’s curve.';
  return '';
}

/**
 * The series as curveChart draws them.
 * @param {{label, values: Float32Array, scale: number}[]} curves
 * @param {string|null} bold  the label drawn bold
 */
export function seriesOf(curves, bold, normalise = true, shownAtFirst = null) {
  return curves.filter((c) => c.values).map((c) => {
    const { y } = normalised(c);
    const step = Math.max(1, Math.floor(c.values.length / 1500));
    const points = [];
    for (let m = 0; m < c.values.length; m += step) points.push({ x: m, y: normalise ? y(m) : c.values[m] * c.scale, raw: c.values[m] * c.scale });
    return { name: c.label, short: c.short, points, bold: c.label === bold, faded: Boolean(c.random),
      hidden: shownAtFirst !== null && !shownAtFirst.has(c.label) };
  });
}

/** The labels drawn at first: the current encoding's curve and the first three REFERENCES that are not it. */
export function shownAtFirst(curves, currentLabel) {
  const mine = curves.find((c) => c.label === currentLabel);
  const refs = REFERENCES.filter((type) => type !== mine?.type).slice(0, 3);
  return new Set(curves.filter((c) => c.label === currentLabel || refs.includes(c.type)).map((c) => c.label));
}

/**
 * @param {{comparison: {label: string, values: Float32Array, scale: number}[], currentLabel: string}} result
 * @param {{compare_values?: 'normalised'|'raw'}} [params]  raw: every curve's f(m) on one scale
 */
export function render(element, result, params = {}) {
  const raw = params.compare_values === 'raw';
  element.replaceChildren(curveChart({
    series: seriesOf(result.comparison, result.currentLabel, !raw, shownAtFirst(result.comparison, result.currentLabel)),
    width: figureWidth(element), theme: themeOf(element),
    x: { label: 'distance m (tokens) →' }, y: { label: raw ? '↑ f(m): logit (q·k/√d or bias)' : '↑ (f(m) − f(0)) / max |f − f(0)|' },
    channels: { 'raw f(m)': 'raw' }, explain: whyCoincide,
  }));
}

/** The CSV table: distance m, then each family's raw f(m) and its normalised curve as drawn. */
export function table(result) {
  const curves = result.comparison.map(normalised);
  const columns = ['distance_m', ...curves.flatMap((c) => [`${c.label}_f`, `${c.label}_normalised`])];
  const length = curves[0]?.values.length ?? 0;
  return { columns, rows: length, row: (m) => [m, ...curves.flatMap((c) => [c.values[m] * c.scale, c.y(m)])] };
}
