// Every family's decay on one shared axis: how the logit of a key m tokens
// before the query changes with m, normalised so the shapes compare.
import * as Plot from '@observablehq/plot';
import { figureWidth } from '../lib/size.js';
import { themeOf } from '../lib/theme.js';

export const id = 'compare';
export const title = 'Decay with distance, every family on one axis';
export const caption = 'The change of the logit of a key m tokens back, f(m) − f(0), divided by its largest size over ' +
  'the range, so the shapes compare: f is the bias for ALiBi, T5 and KERPLE, and q·k/√d for q = k = 1 with sinusoidal ' +
  'positions or RoPE. The current encoding is drawn bold; the tooltip gives the raw values.';
export const needs = ['comparison', 'currentLabel'];

/** A curve's raw values f(m) (scaled) and y(m) = (f(m) - f(0)) / max |f - f(0)|, as drawn. */
function normalised({ label, values, scale }) {
  const f0 = values[0] * scale;
  let size = 0;
  for (const v of values) size = Math.max(size, Math.abs(v * scale - f0));
  return { label, values, scale, y: (m) => (size > 0 ? (values[m] * scale - f0) / size : 0) };
}

/** @param {{comparison: {label: string, values: Float32Array, scale: number}[], currentLabel: string}} result */
export function render(element, result) {
  const rows = [];
  for (const curve of result.comparison.map(normalised)) {
    const { label, values, scale, y } = curve;
    const step = Math.max(1, Math.floor(values.length / 1500));
    for (let m = 0; m < values.length; m += step) {
      rows.push({ m, label, raw: values[m] * scale, y: y(m), current: label === result.currentLabel });
    }
  }
  const theme = themeOf(element);
  const labels = result.comparison.map((c) => c.label);
  element.replaceChildren(Plot.plot({
    width: figureWidth(element), height: 340, marginLeft: 64, marginBottom: 40, marginRight: 20,
    x: { label: 'distance m (tokens) →', labelAnchor: 'center', labelOffset: 34 },
    y: { label: '↑ (f(m) − f(0)) / max |f − f(0)|', grid: true },
    color: { legend: true, domain: labels, scheme: theme.categorical },
    marks: [
      Plot.ruleY([0], { stroke: theme.rule }),
      Plot.lineY(rows.filter((r) => !r.current), { x: 'm', y: 'y', stroke: 'label', strokeWidth: 1.2, strokeOpacity: 0.75 }),
      Plot.lineY(rows.filter((r) => r.current), { x: 'm', y: 'y', stroke: 'label', strokeWidth: 3 }),
      Plot.tip(rows, Plot.pointer({ x: 'm', y: 'y', stroke: 'label', channels: { 'raw f(m)': 'raw' },
        format: { y: (v) => v.toPrecision(4), 'raw f(m)': (v) => v.toPrecision(6), stroke: true } })),
    ],
  }));
}

/** The CSV table: distance m, then each family's raw f(m) and its normalised curve as drawn. */
export function table(result) {
  const curves = result.comparison.map(normalised);
  const columns = ['distance_m', ...curves.flatMap((c) => [`${c.label}_f`, `${c.label}_normalised`])];
  const length = curves[0]?.values.length ?? 0;
  return { columns, rows: length, row: (m) => [m, ...curves.flatMap((c) => [c.values[m] * c.scale, c.y(m)])] };
}
