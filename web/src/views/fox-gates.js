// Forgetting Attention's gates on the attention lab's sentence: each word's forget
// gate f_t (top), read off the head's bias as f_t = exp b(t, t − 1), and the last
// word's bias on the keys behind it (bottom), the sum of the gates' logs between them.
// Where the gates differ the decay bends, so FoX's decay depends on the text; the dashed
// line is the mean over random tokens (the core's decay curve), a straight line as
// ALiBi's would be. Nothing is recomputed here: both read the head's bias b(i, j).
import * as Plot from '@observablehq/plot';
import { plot } from '../lib/plot.js';
import { figureWidth } from '../lib/size.js';
import { themeOf } from '../lib/theme.js';
import { countTick } from '../lib/ticks.js';

export const id = 'fox-gates';
export const title = 'FoX: each word’s forget gate, and the decay it makes';
export const caption = 'Top: the forget gate f_t = σ(w·x_t + b) of each word of the attention lab’s sentence, read off the ' +
  'head’s bias as exp b(t, t − 1) (the first word’s gate decays no key). Bottom: the last word’s bias on each key behind it, ' +
  'b = Σ log f over the words between: it drops fast across words whose gate is low (forgetting) and stays flat across ' +
  'words whose gate is near 1. With the trained head off, a dashed line shows the mean over random tokens, m·E[log f], of ' +
  'the untrained head’s gate: a fixed slope like ALiBi’s, which the sentence’s own decay departs from (the trained head ' +
  'learned its own gate, which has no such mean here). Change a word and the decay changes.';
export const needs = ['attention', 'foxMean'];

/** Rows of the sentence: {t, token, gate, logGate} for t ≥ 1, and {m, j, token, bias} of the last query's row. */
export function rowsOf(a) {
  const n = a.tokens.length;
  const b = a.terms.position;
  const gates = [];
  for (let t = 1; t < n; t++) {
    const logGate = b[t * n + t - 1];
    gates.push({ t, token: a.tokens[t], label: `${t} ${a.tokens[t]}`, gate: Math.exp(logGate), logGate });
  }
  const last = [];
  for (let m = 0; m < n; m++) {
    const j = n - 1 - m;
    last.push({ m, j, token: a.tokens[j], bias: b[(n - 1) * n + j] });
  }
  return { gates, last };
}

/**
 * @param {HTMLElement} element
 * @param {{attention: {tokens: string[], terms: {position: Float32Array}}, foxMean: Float64Array|number[]|null}} result
 */
export function render(element, result) {
  const theme = themeOf(element);
  const width = figureWidth(element);
  const { gates, last } = rowsOf(result.attention);
  const n = result.attention.tokens.length;
  const top = gates.length === 0
    ? plot({ width, height: 80, marks: [Plot.text(['One word: no key to decay. Type a longer sentence.'], { frameAnchor: 'middle' })] })
    : plot({
      width, height: 240, marginLeft: 56, marginBottom: 56,
      x: { label: 'word t →', domain: gates.map((g) => g.label), tickRotate: gates.length > 8 ? -40 : 0, labelAnchor: 'center', labelOffset: 50 },
      y: { label: '↑ forget gate f_t', domain: [0, 1], grid: true },
      marks: [
        Plot.ruleY([0]),
        Plot.barY(gates, { x: 'label', y: 'gate', fill: theme.accent, fillOpacity: 0.8 }),
        Plot.tip(gates, Plot.pointerX({ x: 'label', y: 'gate',
          channels: { word: 'token', 'position t': 't', 'log f_t': 'logGate' },
          format: { x: false, y: (v) => v.toPrecision(6), 'log f_t': (v) => v.toPrecision(6) } })),
      ],
    });
  // The mean is of the spec's gate: the untrained head's (a trained head, trainedAccuracy set, learned its own gate).
  const untrained = result.attention.trainedAccuracy === undefined;
  const mean = untrained && result.foxMean ? Array.from({ length: n }, (_, m) => ({ m, bias: result.foxMean[m] })) : [];
  const bottom = plot({
    width, height: 260, marginLeft: 64, marginBottom: 40,
    x: { label: 'distance m back from the last word (tokens) →', labelAnchor: 'center', labelOffset: 34, ticks: Math.min(n - 1, 10),
      tickFormat: countTick },
    y: { label: '↑ bias b(n − 1, n − 1 − m)', grid: true },
    marks: [
      ...(mean.length ? [Plot.lineY(mean, { x: 'm', y: 'bias', stroke: theme.grey, strokeDasharray: '6 4' }),
        Plot.text(mean.slice(-1), { x: 'm', y: 'bias', text: () => 'mean over random tokens', textAnchor: 'end', lineAnchor: 'bottom', dx: -4, dy: -6, fontSize: 11, fill: theme.grey })] : []),
      Plot.lineY(last, { x: 'm', y: 'bias', stroke: theme.accent, strokeWidth: 2 }),
      Plot.dot(last, { x: 'm', y: 'bias', fill: theme.accent, r: 3 }),
      Plot.tip(last, Plot.pointerX({ x: 'm', y: 'bias', channels: { key: 'token', 'key j': 'j' },
        format: { y: (v) => v.toPrecision(6) } })),
    ],
  });
  element.replaceChildren(top, bottom);
}

/** The CSV table: each key of the last query, its word, its distance, its gate and the bias. */
export function table(result) {
  const { last } = rowsOf(result.attention);
  const n = result.attention.tokens.length;
  const b = result.attention.terms.position;
  return {
    columns: ['key_j', 'token', 'distance', 'forget_gate', 'bias_from_last'],
    rows: last.length,
    row: (k) => {
      const { j, token, m, bias } = last[k];
      return [j, token, m, j > 0 ? Math.exp(b[j * n + j - 1]) : '', bias];
    },
  };
}
