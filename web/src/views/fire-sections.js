// FIRE's cross-sections: the rows b(i, ·) of the bias at a few query positions i,
// against the distance i − j (top) and against the MLP's input, the normalised
// distance ψ(i − j) / ψ(max(L, i)) (bottom). Every row is the same function f_θ
// of that input, so the curves fall on one another below; past L each row spans
// the whole of [0, 1], however long the context (Li et al. 2023, progressive interpolation).
import * as Plot from '@observablehq/plot';
import { schemeObservable10, schemeTableau10 } from 'd3';
import { plot } from '../lib/plot.js';
import { figureWidth } from '../lib/size.js';
import { themeOf } from '../lib/theme.js';
import { countTick } from '../lib/ticks.js';

export const id = 'fire-sections';
export const title = 'FIRE cross-sections b(i, ·) at several queries';
export const caption = 'The bias of each key for queries at positions i = N/8, N/4, N/2 and N (a dot marks each row’s first key, j = 0). Top: against the distance ' +
  'i − j in tokens; a query past the threshold L divides by its own ψ(i), so its row is stretched over its longer ' +
  'context. Bottom: the same rows against the MLP’s input ψ(i − j)/ψ(max(L, i)): they collapse onto one curve f_θ, ' +
  'and every query past L reads the whole of [0, 1], so a context longer than the training length maps into the ' +
  'range the MLP was trained on (interpolation, not extrapolation).';
export const needs = ['sections', 'fire'];

const MAX_POINTS = 1200;  // per curve: longer rows are sampled evenly (the CSV has every key)
const DASHES = ['none', '7 4', '2 3', '10 3 2 3'];

/** The legend name of the query at position i, with its place against L. */
function nameOf(i, L) {
  return `query i = ${i.toLocaleString('en')} (${i < L ? '< L' : i === L ? '= L' : '> L'})`;
}

/** Rows {name, i, j, m, x, b} of one cross-section, sampled to at most MAX_POINTS. */
function sectionRows({ query, bias, normalized }, name) {
  const step = Math.max(1, Math.ceil(bias.length / MAX_POINTS));
  const rows = [];
  for (let m = 0; m < bias.length; m += step) rows.push({ name, i: query, j: query - m, m, x: normalized[m], b: bias[m] });
  const last = bias.length - 1;
  if (last % step) rows.push({ name, i: query, j: 0, m: last, x: normalized[last], b: bias[last] });
  return rows;
}

/** One panel: the curves against `x` (a row field), a dot at each row's last key (j = 0), a rule at `mark`. */
function panel({ width, height, series, x, xLabel, domain, mark, theme, tickFormat, legend }) {
  const names = series.map((s) => s.name);
  const colours = (theme.dark ? schemeObservable10 : schemeTableau10).slice(0, names.length);
  const all = series.flatMap((s) => s.rows);
  return plot({
    width, height, marginLeft: 64, marginRight: 20, marginBottom: 40,
    x: { label: xLabel, labelAnchor: 'center', labelOffset: 34, domain, tickFormat },
    y: { label: '↑ bias b(i, j)', grid: true },
    color: { legend, domain: names, range: colours },
    marks: [
      Plot.ruleX([mark.at], { stroke: theme.accent, strokeDasharray: '5,4' }),
      Plot.text([mark.text], { x: mark.at, frameAnchor: 'bottom', dx: mark.right ? -4 : 4, dy: -4,
        textAnchor: mark.right ? 'end' : 'start', fill: theme.accent, fontSize: 11 }),
      ...series.map((s, k) => Plot.lineY(s.rows, { x, y: 'b', stroke: colours[k], strokeWidth: 1.6, strokeDasharray: DASHES[k % DASHES.length] })),
      Plot.dot(series.map((s) => s.rows[s.rows.length - 1]), { x, y: 'b', fill: 'name', r: 4, stroke: theme.dark ? '#1c1f26' : 'white' }),
      Plot.tip(all, Plot.pointer({ x, y: 'b', stroke: 'name',
        channels: { 'query i': 'i', 'key j': 'j', 'i − j': 'm', 'ψ(i−j)/ψ(max(L,i))': 'x' },
        format: { x: false, y: (v) => v.toPrecision(6), stroke: true, 'ψ(i−j)/ψ(max(L,i))': (v) => v.toPrecision(6) } })),
    ],
  });
}

/**
 * @param {HTMLElement} element
 * @param {{sections: {query: number, bias: Float32Array, normalized: Float32Array}[], fire: {init_L: number, n: number}}} result
 *   each section the row of the query at position `query`: bias[m] = b(query, query − m), normalized[m] the MLP's input
 */
export function render(element, result) {
  const L = result.fire.init_L;
  const theme = themeOf(element);
  const width = figureWidth(element);
  const series = result.sections.map((s) => {
    const name = nameOf(s.query, L);
    return { name, rows: sectionRows(s, name) };
  });
  const longest = Math.max(...result.sections.map((s) => s.query));
  const maxX = Math.max(1, ...result.sections.map((s) => s.normalized[s.normalized.length - 1]));
  element.replaceChildren(
    panel({ width, height: 300, series, x: 'm', xLabel: 'distance i − j (tokens, key before the query) →', domain: [0, longest],
      mark: { at: L, text: `threshold L = ${L.toLocaleString('en')}`, right: L > longest / 2 }, theme, tickFormat: countTick, legend: true }),
    panel({ width, height: 300, series, x: 'x', xLabel: 'normalised distance ψ(i − j) / ψ(max(L, i)) (the MLP’s input) →',
      domain: [0, maxX], mark: { at: 1, text: 'x = 1: key 0 of a query at or past L', right: true }, theme, legend: false }),
  );
}

/** The CSV table: every key of every cross-section: query i, key j, i − j, the normalised distance, the bias. */
export function table(result) {
  const starts = [];
  let rows = 0;
  for (const s of result.sections) { starts.push(rows); rows += s.bias.length; }
  const row = (k) => {
    let c = starts.length - 1;
    while (starts[c] > k) c -= 1;
    const s = result.sections[c];
    const m = k - starts[c];
    return [s.query, s.query - m, m, s.normalized[m], s.bias[m]];
  };
  return { columns: ['query_i', 'key_j', 'distance', 'normalized_distance', 'bias'], rows, row };
}
