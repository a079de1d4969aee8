// Llama 4's attention temperature on its NoPE layers: the factor each query is
// multiplied by, scale(p) = log1p(floor((p + 1) / floor_scale)) * attn_scale + 1,
// against the number of tokens p + 1 up to the query (log axis): flat for the
// first floor_scale tokens, then a staircase that climbs by attn_scale per
// e-fold of the context, so far queries are sharpened logarithmically.
// (The maths: the core's nope::attention_temperature; the engine's `temperature` call.)
import * as Plot from '@observablehq/plot';
import { messageFigure } from '../lib/message-figure.js';
import { plot } from '../lib/plot.js';
import { figureWidth } from '../lib/size.js';
import { themeOf } from '../lib/theme.js';

export const id = 'profile-temperature';
export const title = 'Attention temperature: the query scale of the NoPE layers';
export const caption = 'Llama 4 multiplies the query of the token at position p by log1p(⌊(p + 1) / floor_scale⌋) · attn_scale + 1 ' +
  'on its layers without RoPE (transformers Llama4TextAttention, attn_temperature_tuning). The scale stays 1 for the first ' +
  'floor_scale tokens, then steps up at every multiple of floor_scale: on a log axis of the context the staircase climbs ' +
  'along a straight line, attn_scale per e-fold, so the logits sharpen logarithmically with distance and the softmax does ' +
  'not flatten over a long context. Keys and values are not scaled. The dashed line is the same formula without the floor.';
export const needs = ['temperatureCurve'];

/** What the figure says for a model without the scale: which models have it. */
export const ABSENT = 'This model scales no query with position. Llama 4 (Scout, Maverick: attn_temperature_tuning, ' +
  'floor_scale 8192, attn_scale 0.1) does, on its NoPE layers: every fourth layer.';

/**
 * The step points as rows: x = p + 1 (tokens up to and including the query), the scale from there on.
 * @param {{floor_scale: number, attn_scale: number, positions: Float64Array, scale: Float32Array}} curve
 */
function rowsOf(curve) {
  const rows = [];
  for (let i = 0; i < curve.positions.length; i++) {
    const p = curve.positions[i];
    rows.push({ p, tokens: p + 1, step: Math.floor((p + 1) / curve.floor_scale), scale: curve.scale[i] });
  }
  return rows;
}

/** The continuous formula 1 + attn_scale log1p(x / floor_scale) at 200 points spaced evenly on the log axis [first, last]. */
function envelope(curve, first, last) {
  const rows = [];
  for (let i = 0; i <= 200; i++) {
    const tokens = first * Math.exp((Math.log(last / first) * i) / 200);
    rows.push({ tokens, scale: 1 + curve.attn_scale * Math.log1p(tokens / curve.floor_scale) });
  }
  return rows;
}

/**
 * Marks at floor_scale times 1, 2, 4, 8, ... up to last (all multiples would crowd a log axis); each `every`-th
 * of them labelled k×, so that labels `spacing` px apart on the axis do not overlap.
 */
function multiples(floorScale, last, spacing) {
  const every = Math.max(1, Math.ceil(34 / spacing));
  const marks = [];
  for (let j = 0; floorScale * 2 ** j <= last && j < 48; j++) {
    marks.push({ tokens: floorScale * 2 ** j, text: j > 0 && j % every === 0 ? `${2 ** j}×` : '' });
  }
  return marks;
}

/**
 * @param {HTMLElement} element
 * @param {{temperatureCurve: null | {floor_scale: number, attn_scale: number, positions: Float64Array,
 *   scale: Float32Array, layers: number[], model: string, sampled?: boolean}}} result  null: the model has no such
 *   layers. positions (tokens, 0-based) and scale: the engine's temperature(floor_scale, attn_scale, maxPosition);
 *   layers: the indices of the layers that scale their queries; model: its name
 */
export function render(element, result) {
  const curve = result.temperatureCurve;
  if (curve == null) {
    element.replaceChildren(messageFigure(element, ABSENT));
    return;
  }
  const theme = themeOf(element);
  const rows = rowsOf(curve);
  const last = rows[rows.length - 1].tokens;
  // The axis starts 64 times below floor_scale: the flat stretch shows, and most of the width goes to the climb.
  const first = Math.min(Math.max(1, curve.floor_scale / 64), last / 2);
  const width = figureWidth(element);
  const marginLeft = 64, marginRight = 24;
  const marks = multiples(curve.floor_scale, last, ((width - marginLeft - marginRight) * Math.LN2) / Math.log(last / first));
  const layers = curve.layers ?? [];
  const who = `${curve.model}: ${layers.length} layer${layers.length === 1 ? '' : 's'}` +
    (layers.length ? ` (${layers.length > 16 ? `${layers.slice(0, 16).join(', ')}, …` : layers.join(', ')})` : '') +
    ` · floor_scale ${curve.floor_scale.toLocaleString('en')} · attn_scale ${curve.attn_scale}` +
    (curve.sampled ? ' · steps sampled on the log axis' : '');
  const figure = plot({
    width, height: 340, marginLeft, marginBottom: 42, marginRight, marginTop: 36,
    x: { type: 'log', domain: [first, last], label: 'tokens up to the query, p + 1 (log scale) →', labelAnchor: 'center',
      labelOffset: 36, tickFormat: '~s' },
    y: { label: '↑ query scale (×)', grid: true, nice: true },
    marks: [
      Plot.ruleX(marks, { x: 'tokens', stroke: theme.accent, strokeOpacity: 0.45, strokeDasharray: '3,4' }),
      Plot.text(marks, { x: 'tokens', text: 'text', frameAnchor: 'bottom', dy: -4, dx: 3, textAnchor: 'start', fill: theme.accent, fontSize: 10 }),
      Plot.text(marks.slice(0, 1), { x: 'tokens', text: () => `p + 1 = floor_scale = ${curve.floor_scale.toLocaleString('en')}`,
        frameAnchor: 'top', dy: 6, dx: -4, textAnchor: 'end', fill: theme.accent, fontSize: 11 }),
      Plot.ruleY([1], { stroke: theme.rule }),
      Plot.line(envelope(curve, first, last), { x: 'tokens', y: 'scale', stroke: theme.grey, strokeDasharray: '5,4' }),
      Plot.line(rows, { x: 'tokens', y: 'scale', curve: 'step-after', stroke: theme.red, strokeWidth: 2, clip: true }),
      Plot.text([who], { frameAnchor: 'top-right', dy: -26, textAnchor: 'end', text: (d) => d, fill: theme.grey, fontSize: 11 }),
      Plot.tip(rows.filter((d) => d.tokens >= first), Plot.pointerX({
        x: 'tokens', y: 'scale',
        channels: { 'position p': 'p', 'step ⌊(p+1)/floor_scale⌋': 'step', 'query scale': 'scale' },
        format: { x: false, y: false, 'position p': (v) => v.toLocaleString('en'), 'step ⌊(p+1)/floor_scale⌋': (v) => v.toLocaleString('en'),
          'query scale': (v) => v.toPrecision(8) },
      })),
    ],
  });
  element.replaceChildren(figure);
}

/** The CSV table: each step point, its position, step index and scale (empty for a model without the scale). */
export function table(result) {
  const curve = result.temperatureCurve;
  if (curve == null) return { columns: ['position', 'step', 'scale'], rows: 0, row: () => [] };
  return {
    columns: ['position', 'step', 'scale'],
    rows: curve.positions.length,
    row: (i) => [curve.positions[i], Math.floor((curve.positions[i] + 1) / curve.floor_scale), curve.scale[i]],
  };
}
