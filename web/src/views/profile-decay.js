// How q·k falls with distance in each layer kind of a model, on one axis: RoFormer's all-ones curve of each rotating kind
// normalised to 1 at distance 0, flat for a layer without position encoding, cut where a window ends.
import * as Plot from '@observablehq/plot';
import { plot } from '../lib/plot.js';
import { figureWidth } from '../lib/size.js';
import { themeOf } from '../lib/theme.js';
import { kindColours } from '../lib/kind-colours.js';

export const id = 'profile-decay';
export const title = 'The layer kinds’ decay with distance';
export const caption = 'q·k at relative distance m for all-ones q = k, divided by its value at m = 0, one curve per layer kind: a kind whose ' +
  'pairs turn fast falls fast; a NoPE layer is flat at 1 (its scores do not see distance at all). A dashed line marks where a ' +
  'kind’s sliding window or chunk ends: past it, that layer does not attend at all.';
export const needs = ['kindDecay', 'layers'];

/** @param {{kindDecay: {maxDistance: number, kinds: object[]}, layers: {kinds: object[]}}} result */
export function render(element, result) {
  const { kinds } = result.kindDecay;
  const theme = themeOf(element);
  const colours = kindColours(theme, result.layers.kinds);
  const rows = kinds.flatMap((k) => Array.from(k.value, (v, m) => ({ m: k.distance[m], value: v, kind: k.name })));
  const ends = kinds.filter((k) => k.window.kind !== 'global' && k.window.size <= result.kindDecay.maxDistance)
    .map((k) => ({ kind: k.name, m: k.window.size, text: `${k.name}: ${k.window.kind} window ends` }));
  const present = colours.domain.filter((n) => kinds.some((k) => k.name === n));
  const half = rows.reduce((a, r) => Math.max(a, r.m), 0) / 2;
  const figure = plot({
    width: figureWidth(element), height: 320, marginLeft: 56, marginBottom: 40, marginRight: 20,
    x: { label: 'relative distance m (tokens) →', labelAnchor: 'center', labelOffset: 34 },
    y: { label: '↑ q·k / q·k at m = 0', grid: true },
    color: { domain: present, range: present.map(colours.of), legend: true },
    marks: [
      Plot.ruleY([0], { stroke: theme.rule }),
      Plot.ruleX(ends, { x: 'm', stroke: 'kind', strokeDasharray: '5,4' }),
      // Each label on the side of its rule with room: a window in the left half is labelled to its right.
      Plot.text(ends.filter((e) => e.m < half), { x: 'm', text: 'text', frameAnchor: 'top', dy: 10, dx: 4, textAnchor: 'start', fill: 'kind', fontSize: 11 }),
      Plot.text(ends.filter((e) => e.m >= half), { x: 'm', text: 'text', frameAnchor: 'top', dy: 10, dx: -4, textAnchor: 'end', fill: 'kind', fontSize: 11 }),
      Plot.lineY(rows, { x: 'm', y: 'value', z: 'kind', stroke: 'kind', strokeWidth: 1.6 }),
      Plot.tip(rows, Plot.pointerX({ x: 'm', y: 'value', stroke: 'kind', channels: { kind: 'kind' },
        format: { x: true, y: (v) => v.toPrecision(5), stroke: false, kind: true } })),
    ],
  });
  element.replaceChildren(figure);
}

/** The CSV table: one row per kind and distance. */
export function table(result) {
  const rows = result.kindDecay.kinds.flatMap((k) => Array.from(k.value, (v, m) => [k.name, k.distance[m], v]));
  return { columns: ['kind', 'distance', 'qk_normalised'], rows: rows.length, row: (i) => rows[i] };
}
