// CoPE counts what its gates fire on: for the last token of the typed sentence,
// the gate of every earlier token, its contextual position p (the gates summed
// from that token to the query) beside the token distance, and where the CoPE
// term alone sends the attention. The gates are set by hand to fire on sentence
// ends (or a chosen word): what a trained CoPE head can learn (Golovneva et al. 2024, §3).
import * as Plot from '@observablehq/plot';
import { plot } from '../lib/plot.js';
import { figureWidth } from '../lib/size.js';
import { themeOf } from '../lib/theme.js';

export const id = 'cope-count';
export const title = 'CoPE: counting sentences, not tokens';
export const caption = 'The last token of the sentence is the query. Each earlier token j gets a gate g (set by hand to fire ' +
  'on sentence ends . ! ?, or on the chosen word), and its contextual position p = Σ g from j to the query counts the ' +
  'sentence ends in between: flat within a sentence, one step per sentence, where the token distance i − j just grows. ' +
  'With e[target] the only non-zero position embedding, the CoPE term alone puts the attention on the whole sentence ' +
  '“target” back, however long it is — which no token position can say.';
export const needs = ['copeCount'];

/** The rows of the last query: token j, its gate, p, distance, bias and the softmax of the bias. */
function rowsOf(c) {
  const i = c.n - 1;
  const bias = Array.from({ length: c.n }, (_, j) => c.bias[i * c.n + j]);
  const top = Math.max(...bias);
  const exp = bias.map((b) => Math.exp(b - top));
  const total = exp.reduce((a, b) => a + b, 0);
  return c.tokens.map((token, j) => ({
    j, token: `${j}: ${token}`, gate: c.gates[i * c.n + j], p: c.positions[i * c.n + j], distance: i - j,
    bias: bias[j], weight: exp[j] / total, counted: c.counted[j],
  }));
}

/** @param {{copeCount: {tokens, counted, n, target, gates, positions, bias}}} result */
export function render(element, result) {
  const c = result.copeCount;
  const rows = rowsOf(c);
  const theme = themeOf(element);
  const width = figureWidth(element);
  const rotate = rows.length > 12 || width / rows.length < 48;  // slanted labels when they would touch
  const x = { label: 'key token j →', domain: rows.map((r) => r.token), tickRotate: rotate ? -50 : 0,
    tickFormat: (t) => (rows.length > 40 ? '' : t.replace(/^\d+: /, '')) };
  const common = { width, height: 170, marginLeft: 56, marginBottom: rotate ? 70 : 34 };
  const tip = { channels: { token: 'token', gate: 'gate', p: 'p', 'i − j': 'distance', 'CoPE term': 'bias', weight: 'weight' },
    tip: { format: { x: false, y: false, fill: false } } };
  const positions = rows.flatMap((r) => [
    { token: r.token, value: r.p, series: 'contextual position p' },
    { token: r.token, value: r.distance, series: 'token distance i − j' },
  ]);
  const figure = document.createElement('div');
  if (!c.counted.some(Boolean)) {  // no gate fires: p is 0 everywhere, nothing to count
    const note = document.createElement('p');
    note.className = 'note warning-note';
    note.textContent = c.countWord !== null
      ? `No “${c.countWord}” in the sentence: no gate fires, so every contextual position is 0. Type the word, or count sentence ends.`
      : 'No sentence end (. ! ?) in the sentence: no gate fires, so every contextual position is 0. End a sentence with a full stop, or count a word.';
    figure.append(note);
  }
  figure.append(
    plot({ ...common, x, y: { label: '↑ gate g', domain: [0, 1], grid: true },
      marks: [Plot.barY(rows, { x: 'token', y: 'gate', fill: (r) => (r.counted ? theme.accent : theme.rule), ...tip }), Plot.ruleY([0])] }),
    plot({ ...common, height: 220, x, y: { label: '↑ position', grid: true },
      color: { legend: true, domain: ['contextual position p', 'token distance i − j'], range: [theme.accent, theme.rule] },
      marks: [
        Plot.lineY(positions, { x: 'token', y: 'value', z: 'series', stroke: 'series', curve: 'step', strokeWidth: 2 }),
        Plot.dot(rows, { x: 'token', y: 'p', fill: theme.accent, r: 2.5, ...tip }),
        Plot.ruleY([c.target], { stroke: theme.warm, strokeDasharray: '4,3' }),
        Plot.text([`target count ${c.target}`], { frameAnchor: 'top-right', dx: -4, dy: 4, textAnchor: 'end', fill: theme.warm, fontSize: 11 }),
      ] }),
    plot({ ...common, x, y: { label: '↑ weight from the CoPE term alone', domain: [0, Math.max(...rows.map((r) => r.weight))], grid: true },
      marks: [Plot.barY(rows, { x: 'token', y: 'weight', fill: theme.warm, ...tip }), Plot.ruleY([0])] }),
  );
  element.replaceChildren(figure);
}

/** The CSV table: the last query's row, one line per key token. */
export function table(result) {
  const rows = rowsOf(result.copeCount);
  return {
    columns: ['key', 'token', 'gate', 'contextual_position', 'token_distance', 'cope_term', 'weight_cope_term_alone'], rows: rows.length,
    row: (k) => [rows[k].j, rows[k].token.replace(/^\d+: /, ''), rows[k].gate, rows[k].p, rows[k].distance, rows[k].bias, rows[k].weight],
  };
}
