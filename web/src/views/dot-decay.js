// The sinusoidal table's dot product against distance: p_n . p_(n+m) =
// sum_i cos(m w_i), the same for every n (the figure the explainers start from,
// before RoFormer's bound).
import { curveChart } from '../lib/curves.js';
import { figureWidth } from '../lib/size.js';
import { themeOf } from '../lib/theme.js';

export const id = 'dot-decay';
export const title = 'Dot product against distance';
export const caption = 'p_n · p_(n+m) for the sinusoidal table: Σᵢ cos(m·ωᵢ), the same for every position n, so it ' +
  'tells the model how far apart two tokens are, not where they are. It starts at d_model/2 (m = 0) and falls, with ' +
  'ripples, as the fast pairs fall out of step; it never rises back to d_model/2.';
export const needs = ['dotDecay', 'spec'];

/** @param {{dotDecay: {distance: Float32Array, dot: Float32Array}, spec: {d_model: number}}} result */
export function render(element, result) {
  const { distance, dot } = result.dotDecay;
  const step = Math.max(1, Math.floor(dot.length / 1500));
  const points = [];
  for (let k = 0; k < dot.length; k += step) points.push({ x: distance[k], y: dot[k], share: dot[k] / (result.spec.d_model / 2) });
  element.replaceChildren(curveChart({
    series: [{ name: `d_model = ${result.spec.d_model}`, points }], width: figureWidth(element), theme: themeOf(element),
    x: { label: 'distance m (tokens) →' }, y: { label: '↑ p_n · p_(n+m)' }, channels: { 'of d_model/2': 'share' },
  }));
}

/** The CSV table: distance m and the dot product. */
export function table(result) {
  const { distance, dot } = result.dotDecay;
  return { columns: ['distance_m', 'dot_p_n_p_n_plus_m'], rows: dot.length, row: (k) => [distance[k], dot[k]] };
}
