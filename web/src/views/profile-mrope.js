// M-RoPE (Qwen2-VL, Qwen2.5-VL, Qwen3-VL): top, the three position ids (t, h, w)
// of each token of a short prompt with one image, as cells with the id printed
// (image tokens shaded); bottom, the head's rotary pairs coloured by the id that
// turns them (mrope_section, sectioned or interleaved). Text tokens have
// t = h = w, so on text M-RoPE is plain RoPE; an image's tokens share t and
// spread over h (row) and w (column).
// (The maths: the core's mrope::mrope_positions and mrope_pair_axes; the engine's
// `mropePositions` and `mropeAxes` calls.)
import * as Plot from '@observablehq/plot';
import { messageFigure } from '../lib/message-figure.js';
import { plot } from '../lib/plot.js';
import { figureWidth } from '../lib/size.js';
import { themeOf } from '../lib/theme.js';

export const id = 'profile-mrope';
export const title = 'M-RoPE: three position ids, and which one turns each pair';
export const caption = 'Qwen-VL models give each token three position ids: t (time), h (row), w (column). Text tokens ' +
  'count on with t = h = w; the image\'s tokens all take t = its start, and h and w add their row and column in the ' +
  'grid (after the spatial merge); the text after the image resumes at the largest id + 1 (transformers ' +
  'Qwen2VLModel.get_rope_index). Each rotary pair of the head turns by one of the three: mrope_section [t, h, w] gives ' +
  'the first t pairs to t, then h, then w (Qwen2-VL, Qwen2.5-VL), or, with mrope_interleaved (Qwen3-VL), cycles ' +
  't, h, w over the pairs and leaves the tail to t, so every axis has fast and slow frequencies.';
export const needs = ['mropeLayout'];

/** What the figure says for a model without M-RoPE. */
export const ABSENT = 'This model has one position id per token: no M-RoPE. Qwen2-VL and Qwen2.5-VL (mrope_section, ' +
  'sectioned) and Qwen3-VL (interleaved) have three: t, h, w.';

const AXES = ['t', 'h', 'w'];
const AXIS_NAMES = { t: 't (time)', h: 'h (row)', w: 'w (column)' };

/**
 * The cells of the top grid: one per token and axis.
 * @param {{t: Int32Array, h: Int32Array, w: Int32Array, kind: Int32Array}} positions
 * @param {{h: number, w: number}} grid
 */
function cellsOf(positions, grid) {
  const cells = [];
  const n = positions.kind.length;
  let first = -1;
  for (let i = 0; i < n; i++) if (positions.kind[i] === 1 && first < 0) first = i;
  for (let i = 0; i < n; i++) {
    const image = positions.kind[i] === 1;
    const at = image ? i - first : -1;
    const where = image ? `image token (row ${Math.floor(at / grid.w)}, column ${at % grid.w})` : 'text token';
    for (const axis of AXES) cells.push({ token: i, axis, id: positions[axis][i], image, where });
  }
  return cells;
}

/** A token grid wider than this prints no ids (cells too narrow); the tooltip still says them. */
const MAX_LABELLED = 48;

/**
 * @param {HTMLElement} element
 * @param {{mropeLayout: null | {mrope_section: number[], mrope_interleaved: boolean, axes: Int32Array,
 *   positions: {t: Int32Array, h: Int32Array, w: Int32Array, kind: Int32Array}, grid: {h: number, w: number},
 *   model: string}}} result  null: the model has no M-RoPE. axes: the engine's mropeAxes(mrope_section,
 *   mrope_interleaved), one per rotary pair (0 t, 1 h, 2 w); positions: mropePositions(textBefore, grid.h, grid.w,
 *   textAfter); model: its name
 */
export function render(element, result) {
  const layout = result.mropeLayout;
  if (layout == null) {
    element.replaceChildren(messageFigure(element, ABSENT));
    return;
  }
  const theme = themeOf(element);
  const width = figureWidth(element);
  const colours = { domain: AXES.map((a) => AXIS_NAMES[a]), range: [theme.accent, theme.warm, theme.violet] };

  const cells = cellsOf(layout.positions, layout.grid);
  const n = layout.positions.kind.length;
  const labelled = n <= MAX_LABELLED;
  const top = plot({
    width, height: 150, marginLeft: 64, marginBottom: 36, marginTop: 24, marginRight: 16,
    x: { type: 'band', domain: Array.from({ length: n }, (_, i) => i), label: 'token →', labelAnchor: 'center', labelOffset: 30,
      padding: 0.06, ticks: n <= MAX_LABELLED ? undefined : [] },
    y: { type: 'band', domain: AXES, label: null, tickFormat: (a) => `${a} id`, padding: 0.06 },
    marks: [
      Plot.cell(cells.filter((d) => !d.image), { x: 'token', y: 'axis', fill: theme.fainter }),
      Plot.cell(cells.filter((d) => d.image), { x: 'token', y: 'axis', fill: theme.warm, fillOpacity: 0.45 }),
      labelled ? Plot.text(cells, { x: 'token', y: 'axis', text: 'id', fontSize: 11, fill: 'currentColor' }) : null,
      Plot.text([`${layout.model}: text, a ${layout.grid.h} × ${layout.grid.w} image (shaded), text`], {
        frameAnchor: 'top-left', dy: -16, text: (d) => d, fill: theme.grey, fontSize: 11 }),
      Plot.tip(cells, Plot.pointer({
        x: 'token', y: 'axis',
        channels: { token: 'token', kind: 'where', t: (d) => layout.positions.t[d.token], h: (d) => layout.positions.h[d.token],
          w: (d) => layout.positions.w[d.token] },
        format: { x: false, y: false },
      })),
    ],
  });

  const pairs = Array.from(layout.axes, (axis, pair) => ({ pair, axis: AXIS_NAMES[AXES[axis]] }));
  const section = layout.mrope_section;
  const bottom = plot({
    width, height: 110, marginLeft: 64, marginBottom: 36, marginRight: 16,
    x: { type: 'band', domain: pairs.map((d) => d.pair), label: `rotary pair i (of head_dim / 2 = ${pairs.length}) →`,
      labelAnchor: 'center', labelOffset: 30, padding: 0.04, ticks: pairs.filter((d) => d.pair % 8 === 0).map((d) => d.pair) },
    y: { axis: null },
    color: { ...colours, legend: true },
    marks: [
      Plot.cell(pairs, { x: 'pair', fill: 'axis' }),
      Plot.tip(pairs, Plot.pointerX({
        x: 'pair', channels: { 'pair i': 'pair', 'turned by': 'axis' }, format: { x: false },
      })),
    ],
  });
  const note = document.createElement('p');
  note.className = 'note';
  note.textContent = `mrope_section [${section.join(', ')}], ${layout.mrope_interleaved ? 'interleaved (Qwen3-VL)' : 'sectioned (Qwen2-VL)'}: ` +
    AXES.map((a) => `${a} turns ${pairs.filter((d) => d.axis === AXIS_NAMES[a]).length} pairs`).join(', ') +
    `. Pair i is dimensions (i, i + ${pairs.length}) of the head (rotate_half).`;
  element.replaceChildren(top, note, bottom);
}

/** The CSV table: one row per token (its ids and kind), then one per rotary pair (its axis). */
export function table(result) {
  const layout = result.mropeLayout;
  const columns = ['part', 'index', 'kind', 't', 'h', 'w', 'axis'];
  if (layout == null) return { columns, rows: 0, row: () => [] };
  const n = layout.positions.kind.length;
  const { t, h, w, kind } = layout.positions;
  return {
    columns,
    rows: n + layout.axes.length,
    row: (i) => (i < n
      ? ['token', i, kind[i] === 1 ? 'image' : 'text', t[i], h[i], w[i], '']
      : ['pair', i - n, '', '', '', '', AXES[layout.axes[i - n]]]),
  };
}
