// Rotation: one 2-D pair of a vector drawn as arrows across 11 consecutive
// positions. RoPE turns the pair by theta_i per token: equal lengths, equal
// angle steps (xPos also shrinks or grows them by zeta_i^(position / scale_base)).
import * as Plot from '@observablehq/plot';
import { plot } from '../lib/plot.js';
import { themeOf } from '../lib/theme.js';

export const id = 'rotation';
export const title = 'Rotation of one pair across 11 positions';
export const caption = 'The pair (1, 0) of a query as the core rotates it at 11 consecutive positions: the angle grows ' +
  'by θᵢ per token, so the angle between two arrows depends only on how far apart their positions are.';
export const needs = ['rotation', 'pair'];

/**
 * @param {HTMLElement} element
 * @param {{rotation: {positions: number[], a: Float32Array, b: Float32Array, inv_freq: number,
 *   attention_factor: number}, pair: number}} result
 */
export function render(element, result) {
  const t = result.rotation;
  const points = t.positions.map((position, k) => {
    const angle = position * t.inv_freq;
    return { position, a: t.a[k], b: t.b[k], length: Math.hypot(t.a[k], t.b[k]),
      angle: `${angle.toPrecision(5)} rad = ${((angle * 180) / Math.PI).toPrecision(5)}°` };
  });
  const reach = Math.max(1, ...points.map((p) => p.length)) * 1.18;
  const circle = Array.from({ length: 121 }, (_, k) => ({ x: Math.cos((k * Math.PI) / 60), y: Math.sin((k * Math.PI) / 60) }));
  const size = Math.max(300, Math.min(element.clientWidth || 420, 440));
  const degrees = ((t.inv_freq * 180) / Math.PI).toPrecision(4);
  const note = document.createElement('p');
  note.className = 'note';
  const first = points[0].length;
  const last = points.at(-1).length;
  note.textContent = `pair i = ${result.pair}: θᵢ = ${t.inv_freq.toPrecision(6)} rad (${degrees}°) per token; ` +
    `positions ${t.positions[0]}–${t.positions.at(-1)}` +
    (Math.abs(last / first - 1) > 1e-6 ? `; lengths change from ${first.toPrecision(4)} to ${last.toPrecision(4)} (xPos scale)`
      : Math.abs(first - 1) > 1e-6 ? `; every length ${first.toPrecision(5)}: the attention factor` : '; every length 1');
  const theme = themeOf(element);
  const figure = plot({
    width: size, height: size, marginLeft: 44, marginBottom: 40,
    x: { domain: [-reach, reach], label: 'first component →', labelAnchor: 'center', labelOffset: 34 },
    y: { domain: [-reach, reach], label: '↑ second component' },
    color: { type: 'sequential', interpolate: theme.ordered, domain: [t.positions[0], t.positions.at(-1)], legend: true, label: 'position' },
    marks: [
      Plot.ruleX([0], { stroke: theme.faint }),
      Plot.ruleY([0], { stroke: theme.faint }),
      Plot.line(circle, { x: 'x', y: 'y', stroke: theme.rule, strokeDasharray: '3,3' }),
      Plot.arrow(points, { x1: 0, y1: 0, x2: 'a', y2: 'b', stroke: 'position', strokeWidth: 2, headLength: 10 }),
      Plot.text(points, { x: (p) => p.a * 1.09, y: (p) => p.b * 1.09, text: (p) => String(p.position), fontSize: 10, fill: 'position' }),
      Plot.tip(points, Plot.pointer({ x: 'a', y: 'b', channels: { position: 'position', angle: 'angle', length: 'length' },
        format: { x: (v) => v.toPrecision(5), y: (v) => v.toPrecision(5), length: (v) => v.toPrecision(5) } })),
    ],
  });
  element.replaceChildren(note, figure);
}

/** The CSV table: one row per position, the pair's two components, its angle and length. */
export function table(result) {
  const t = result.rotation;
  return {
    columns: ['position', 'first_component', 'second_component', 'angle_rad', 'length'],
    rows: t.positions.length,
    row: (k) => [t.positions[k], t.a[k], t.b[k], t.positions[k] * t.inv_freq, Math.hypot(t.a[k], t.b[k])],
  };
}
