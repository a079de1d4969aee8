// FoPE's two changes to RoPE (Hua et al. 2025, section 4), each from the core: the frequency floor (top: every pair's
// period 2π/ω against the training length L; the pairs at or past it are clipped, frequency 0, and carry no
// position), and the Fourier series (bottom: one kept pair d turned over positions 0 .. span − 1, FoPE's
// C_d(t) = Σ_D cos_coef[D, d] cos(tω_D) against RoPE's cos(tω_d), the same pair of the same head_dim and rope_theta).
import * as Plot from '@observablehq/plot';
import { plot } from '../lib/plot.js';
import { figureWidth } from '../lib/size.js';
import { themeOf } from '../lib/theme.js';
import { countTick } from '../lib/ticks.js';

export const id = 'fope-series';
export const title = 'FoPE: the frequencies it keeps, and each pair a Fourier series';
export const caption = 'Top: the period 2π/ω of each rotary pair (log scale) against the training length L. A pair ' +
  'whose period is not shorter than L never completed a turn in training; FoPE clips it to frequency 0 (grey), so it ' +
  'carries no position and cannot meet angles it never saw. Bottom: one pair’s cosine part over positions, FoPE’s ' +
  'C_d(t) = Σ_D cos_coef[D, d]·cos(tω_D), a series over every kept frequency, against RoPE’s single cos(tω_d). Past L ' +
  '(shaded) each kept term only repeats turns it made within L: Hua et al. 2025 (arXiv 2412.17739) call this ' +
  'periodic extension. With the trained set, the series is what the language-model lab’s head learned.';
export const needs = ['fopeSeries'];

/** Rows of the top plot: per pair its period and whether FoPE keeps it. */
export function periodRows(series) {
  return Array.from(series.omega, (w, p) => ({ pair: p, period: (2 * Math.PI) / w, kept: series.kept[p] ? 'kept' : 'clipped (frequency 0)' }));
}

/**
 * @param {HTMLElement} element
 * @param {{fopeSeries: {L: number, pair: number, omega: Float32Array, kept: boolean[],
 *   fope: {a: Float32Array, b: Float32Array, positions: number[]}, rope: {a: Float32Array, b: Float32Array}}}} result
 */
export function render(element, result) {
  const s = result.fopeSeries;
  const theme = themeOf(element);
  const width = figureWidth(element);
  const rows = periodRows(s);
  const top = plot({
    width, height: 220, marginLeft: 64, marginBottom: 40,
    x: { label: 'pair p →', labelAnchor: 'center', labelOffset: 34 },
    y: { type: 'log', label: '↑ period 2π/ω_p (tokens)', grid: true, tickFormat: '~s',
      domain: [Math.min(s.L, ...rows.map((r) => r.period)) / 1.6, Math.max(s.L, ...rows.map((r) => r.period)) * 1.6] },
    color: { legend: true, domain: ['kept', 'clipped (frequency 0)'], range: [theme.accent, theme.rule] },
    marks: [
      Plot.ruleY([s.L], { stroke: theme.red, strokeDasharray: '5,4' }),
      Plot.text([`L = ${s.L.toLocaleString('en')}`], { frameAnchor: 'top-left', dx: 4, dy: 4, fill: theme.redText, fontSize: 11 }),
      Plot.dot(rows, { x: 'pair', y: 'period', fill: 'kept', r: 3.5 }),
      Plot.dot(rows.filter((r) => r.pair === s.pair), { x: 'pair', y: 'period', r: 7, stroke: theme.warm, strokeWidth: 2 }),
      Plot.tip(rows, Plot.pointerX({ x: 'pair', y: 'period', format: { y: (v) => v.toPrecision(5) } })),
    ],
  });
  const kept = s.kept[s.pair];
  const fope = `FoPE C_d(t)${kept ? '' : ' (clipped: 1)'}`;
  const rope = 'RoPE cos(tω_d)';
  const lineRows = s.fope.positions.flatMap((t, k) => [{ t, v: s.fope.a[k], name: fope }, { t, v: s.rope.a[k], name: rope }]);
  const last = s.fope.positions.at(-1);
  const bottom = plot({
    width, height: 240, marginLeft: 56, marginBottom: 40,
    x: { label: `position t (tokens), pair d = ${s.pair} →`, labelAnchor: 'center', labelOffset: 34, tickFormat: countTick },
    y: { label: '↑ cosine part of the turn', grid: true },
    color: { legend: true, domain: [fope, rope], range: [theme.accent, theme.warm] },
    marks: [
      ...(s.L < last ? [Plot.rectX([{ x1: s.L, x2: last }], { x1: 'x1', x2: 'x2', fill: theme.red, fillOpacity: 0.08 })] : []),
      Plot.ruleY([0], { stroke: theme.rule }),
      Plot.lineY(lineRows, { x: 't', y: 'v', stroke: 'name', strokeWidth: 1.5 }),
      Plot.tip(lineRows, Plot.pointer({ x: 't', y: 'v', stroke: 'name', format: { y: (v) => v.toPrecision(6) } })),
    ],
  });
  element.replaceChildren(top, bottom);
}

/** The CSV table: per position, FoPE's C_d(t) and S_d(t) and RoPE's cos and sin of the same pair. */
export function table(result) {
  const s = result.fopeSeries;
  return { columns: ['position', 'fope_C', 'fope_S', 'rope_cos', 'rope_sin'], rows: s.fope.positions.length,
    row: (k) => [s.fope.positions[k], s.fope.a[k], s.fope.b[k], s.rope.a[k], s.rope.b[k]] };
}

/** Its formula (formulas.js formulaOf's `own`): the floor and the series, with the current values. */
export function formula(p, result, { num, join, lines }) {
  const K = result?.fopeSeries?.kept.filter(Boolean).length;
  return lines(join(`\\omega_D = ${num(p.rope_theta)}^{-2D/${p.head_dim}} > \\frac{2\\pi}{${num(p.max_position_embeddings)}}`,
    K === undefined ? '' : `K = ${K}`),
  join(`C_{${p.pair}}(t) = \\sum_{D<K} a_{D,${p.pair}}\\cos(t\\,\\omega_D)`, `S_{${p.pair}}(t) = \\sum_{D<K} b_{D,${p.pair}}\\sin(t\\,\\omega_D)`),
  `(x_{${p.pair}}, x_{${p.pair}+${p.head_dim / 2}}) \\mapsto \\big(x_{${p.pair}}C - x_{${p.pair}+${p.head_dim / 2}}S,\\ x_{${p.pair}+${p.head_dim / 2}}C + x_{${p.pair}}S\\big)`);
}
