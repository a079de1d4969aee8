// PoPE against RoPE on the same random queries and keys: the score of a query and a key
// m tokens before it, for a few random pairs. RoPE's rotation adds each pair's own angle
// (the content) to the position's, so where a pair's score peaks depends on what the
// tokens are; PoPE's content sets only the magnitudes, so with no phase bias every pair
// peaks at distance 0 and only the heights differ (Gopalakrishnan et al. 2025: "what"
// and "where" decoupled). Both curves are the core's (pope decay: random, rope_random).
import * as Plot from '@observablehq/plot';
import { schemeObservable10, schemeTableau10 } from 'd3';
import { plot } from '../lib/plot.js';
import { figureWidth } from '../lib/size.js';
import { themeOf } from '../lib/theme.js';
import { countTick } from '../lib/ticks.js';

export const id = 'pope-pairs';
export const title = 'PoPE and RoPE on the same random q and k: where the score peaks';
export const caption = 'The score q·k (before the 1/√d) of a query and a key m tokens before it, for four random pairs ' +
  '(q, k ~ N(0, I)), through RoPE (top) and PoPE (bottom). RoPE turns each pair of components by the position and ' +
  'keeps the content’s own angle, so each pair’s peak (the dot) lands at a distance set by what the tokens are. PoPE ' +
  'keeps the content in the magnitudes, softplus(q)·softplus(k) ≥ 0, and the position in the phases, so with no phase ' +
  'bias every pair peaks at distance 0: what the tokens are no longer says where to look (a phase bias δ_c moves each ' +
  'component’s peak, the same for every pair).';
export const needs = ['popePairs'];

/** Rows {pair, m, score} of one family's curves, and each pair's peak {pair, m, score}. */
export function rowsOf(pairs, key) {
  const rows = [];
  const peaks = [];
  for (const pair of pairs) {
    const name = `pair ${pair.seed + 1}`;
    const values = pair[key];
    let best = 0;
    for (let m = 0; m < values.length; m++) {
      rows.push({ pair: name, m, score: values[m] });
      if (values[m] > values[best]) best = m;
    }
    peaks.push({ pair: name, m: best, score: values[best] });
  }
  return { rows, peaks };
}

function panel({ pairs, key, label, width, theme }) {
  const { rows, peaks } = rowsOf(pairs, key);
  const names = pairs.map((p) => `pair ${p.seed + 1}`);
  const colours = (theme.dark ? schemeObservable10 : schemeTableau10).slice(0, names.length);
  return plot({
    width, height: 240, marginLeft: 56, marginBottom: 40,
    x: { label: 'distance m, the key before the query (tokens) →', labelAnchor: 'center', labelOffset: 34, tickFormat: countTick },
    y: { label: `↑ ${label} score q·k`, grid: true },
    color: { legend: key === 'rope', domain: names, range: colours },
    marks: [
      Plot.ruleY([0], { stroke: theme.rule }),
      Plot.lineY(rows, { x: 'm', y: 'score', stroke: 'pair', strokeWidth: 1.5 }),
      Plot.dot(peaks, { x: 'm', y: 'score', fill: 'pair', r: 5, stroke: theme.dark ? '#1c1f26' : 'white' }),
      Plot.tip(rows, Plot.pointer({ x: 'm', y: 'score', stroke: 'pair', format: { y: (v) => v.toPrecision(6) } })),
    ],
  });
}

/**
 * @param {HTMLElement} element
 * @param {{popePairs: {seed: number, pope: Float32Array, rope: Float32Array}[]}} result
 */
export function render(element, result) {
  const theme = themeOf(element);
  const width = figureWidth(element);
  const pairs = result.popePairs;
  element.replaceChildren(
    panel({ pairs, key: 'rope', label: 'RoPE', width, theme }),
    panel({ pairs, key: 'pope', label: 'PoPE', width, theme }),
  );
}

/** The CSV table: per pair and distance, RoPE's and PoPE's score. */
export function table(result) {
  const pairs = result.popePairs;
  const length = pairs[0]?.pope.length ?? 0;
  return {
    columns: ['pair', 'distance', 'rope_score', 'pope_score'],
    rows: pairs.length * length,
    row: (k) => {
      const pair = pairs[Math.floor(k / length)];
      const m = k % length;
      return [pair.seed + 1, m, pair.rope[m], pair.pope[m]];
    },
  };
}
