// Word order: two sentences with the same words in another order, with and
// without positions. Without positions the second map is only the first one
// with its rows and columns shuffled: the model cannot tell them apart.
import { figureWidth } from '../lib/size.js';
import { panel, panels, sharedWeightExtent, tokenMatrix } from '../lib/token-matrix.js';
import { pairTable } from '../lib/tables.js';
import { themeOf } from '../lib/theme.js';

export const id = 'word-order';
export const title = 'Word order: the same words, another order';
export const caption = 'Top: with this encoding; bottom: without. Without positions, each word attends to the others ' +
  'exactly as before, whatever the order; with them, the weights change with where the words stand.';
export const needs = ['wordOrder'];

/** @param {{wordOrder: {a, b, a0, b0}}} result */
export function render(element, result) {
  const { a, b, a0, b0 } = result.wordOrder;
  const size = Math.max(280, Math.min(360, Math.floor((figureWidth(element, 1200) - 16) / 2)));
  const theme = themeOf(element);
  const extent = sharedWeightExtent(a, b, a0, b0);
  const figure = (x, legend = false) => tokenMatrix({ theme, data: x.weights, tokens: x.tokens, width: size, height: size - 40, label: 'weight', weights: true, extent, legend });
  const quote = (x) => `“${x.tokens.join(' ')}”`;
  element.replaceChildren(
    panels(panel(`${quote(a)}, with positions`, figure(a, true)), panel(`${quote(b)}, with positions`, figure(b))),
    panels(panel(`${quote(a0)}, no positions`, figure(a0)), panel(`${quote(b0)}, no positions`, figure(b0))),
  );
}

/** The CSV table: the four maps, long: sentence, positions or not, query, key, weight. */
export function table(result) {
  const { a, b, a0, b0 } = result.wordOrder;
  const parts = [['first', 'with', a], ['second', 'with', b], ['first', 'without', a0], ['second', 'without', b0]]
    .map(([sentence, positions, x]) => ({ sentence, positions, x, t: pairTable(x.tokens, { weight: x.weights }) }));
  const offsets = [];
  let total = 0;
  for (const p of parts) { offsets.push(total); total += p.t.rows; }
  return {
    columns: ['sentence', 'positions', ...parts[0].t.columns],
    rows: total,
    row: (k) => {
      let i = parts.length - 1;
      while (offsets[i] > k) i--;
      return [parts[i].sentence, parts[i].positions, ...parts[i].t.row(k - offsets[i])];
    },
  };
}
