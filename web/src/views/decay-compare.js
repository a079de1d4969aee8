// Every family's decay on one shared axis: how the logit of a key m tokens
// before the query changes with m, normalised so the shapes compare.
import * as Plot from '@observablehq/plot';
import { figureWidth } from '../lib/matrix-figure.js';

export const id = 'compare';
export const title = 'Decay with distance, every family on one axis';
export const caption = 'The change of the logit of a key m tokens back, f(m) − f(0), divided by its largest size over ' +
  'the range, so the shapes compare: f is the bias for ALiBi, T5 and KERPLE, and q·k/√d for q = k = 1 with sinusoidal ' +
  'positions or RoPE. The current encoding is drawn bold; the tooltip gives the raw values.';
export const inputs = (result) => [...result.comparison.map((c) => c.values), result.currentLabel];

/** @param {{comparison: {label: string, values: Float32Array, scale: number}[], currentLabel: string}} result */
export function render(element, result) {
  const rows = [];
  for (const { label, values, scale } of result.comparison) {
    const f0 = values[0] * scale;
    let size = 0;
    for (const v of values) size = Math.max(size, Math.abs(v * scale - f0));
    const step = Math.max(1, Math.floor(values.length / 1500));
    for (let m = 0; m < values.length; m += step) {
      const raw = values[m] * scale;
      rows.push({ m, label, raw, y: size > 0 ? (raw - f0) / size : 0, current: label === result.currentLabel });
    }
  }
  const labels = result.comparison.map((c) => c.label);
  element.replaceChildren(Plot.plot({
    width: figureWidth(element), height: 340, marginLeft: 64, marginBottom: 40, marginRight: 20,
    x: { label: 'distance m (tokens) →', labelAnchor: 'center', labelOffset: 34 },
    y: { label: '↑ (f(m) − f(0)) / max |f − f(0)|', grid: true },
    color: { legend: true, domain: labels, scheme: 'tableau10' },
    marks: [
      Plot.ruleY([0], { stroke: '#999' }),
      Plot.lineY(rows.filter((r) => !r.current), { x: 'm', y: 'y', stroke: 'label', strokeWidth: 1.2, strokeOpacity: 0.75 }),
      Plot.lineY(rows.filter((r) => r.current), { x: 'm', y: 'y', stroke: 'label', strokeWidth: 3 }),
      Plot.tip(rows, Plot.pointer({ x: 'm', y: 'y', stroke: 'label', channels: { 'raw f(m)': 'raw' },
        format: { y: (v) => v.toPrecision(4), 'raw f(m)': (v) => v.toPrecision(6), stroke: true } })),
    ],
  }));
}
