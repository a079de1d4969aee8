// Word order: two sentences with the same words in another order, with and
// without positions. Without positions the second map is only the first one
// with its rows and columns shuffled: put back in the first sentence's order,
// it is the same map, and their difference is blank.
import { figureWidth } from '../lib/size.js';
import { headNote, largest, logitParts, panel, panels, sharedWeightColours, tokenMatrix } from '../lib/token-matrix.js';
import { pairTable } from '../lib/tables.js';
import { themeOf } from '../lib/theme.js';

export const id = 'word-order';
export const title = 'Word order: the same words, another order';
export const caption = 'Top: with this encoding; bottom: without. The third map puts the second sentence’s weights back in the ' +
  'first sentence’s word order and subtracts the first’s: without positions (and without a causal mask) the difference is ' +
  'zero, blank (at most a float32 rounding, under 1e-6: the softmax adds the same terms in another order): the head ' +
  'cannot tell the orders apart. With positions it is not. A causal head’s mask is a position signal of its own: ' +
  'without positions its difference is not zero.';
export const needs = ['wordOrder'];

/** Differences below this are float32 rounding: the same terms summed in another order (the softmax's row sums). */
const ROUNDING = 1e-6;

/**
 * Where each token of `a` stands in `b` when b is a reordering of a (the k-th copy of a word to the
 * k-th copy), or null when the two do not hold the same tokens.
 * @param {string[]} a
 * @param {string[]} b
 * @returns {number[]|null}  order[i] = the position in b of a's token i
 */
export function reordering(a, b) {
  if (a.length !== b.length) return null;
  const at = new Map();
  b.forEach((t, j) => at.set(t, [...(at.get(t) ?? []), j]));
  const order = [];
  for (const t of a) {
    const free = at.get(t);
    if (!free?.length) return null;
    order.push(free.shift());
  }
  return order;
}

/** b's weights in a's order minus a's: [n, n]; masked pairs NaN. */
export function alignedDifference(a, b, order) {
  const n = a.n;
  const out = new Float32Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const masked = a.logits[i * n + j] === -Infinity || b.logits[order[i] * n + order[j]] === -Infinity;
      out[i * n + j] = masked ? NaN : b.weights[order[i] * n + order[j]] - a.weights[i * n + j];
    }
  }
  return out;
}

/** What differs between the two sentences' words, in a sentence. */
function wordsDiffer(a, b) {
  const count = (tokens) => tokens.reduce((m, t) => m.set(t, (m.get(t) ?? 0) + 1), new Map());
  const ca = count(a);
  const cb = count(b);
  const only = (x, y) => [...x].filter(([t, c]) => (y.get(t) ?? 0) < c).map(([t]) => `“${t}”`);
  const parts = [];
  if (a.length !== b.length) parts.push(`${a.length} tokens against ${b.length}`);
  const first = only(ca, cb).slice(0, 5);
  const second = only(cb, ca).slice(0, 5);
  if (first.length) parts.push(`only in the first: ${first.join(', ')}`);
  if (second.length) parts.push(`only in the second: ${second.join(', ')}`);
  return parts.join('; ');
}

/** Whether an attention result masks any pair (a causal head). */
const masked = (x) => x.logits.some((v) => v === -Infinity);

/** @param {{wordOrder: {a, b, a0, b0}}} result */
export function render(element, result, params) {
  const { a, b, a0, b0 } = result.wordOrder;
  const order = reordering(a.tokens, b.tokens);
  const columns = order ? 3 : 2;
  const size = Math.max(240, Math.min(340, Math.floor((figureWidth(element, 1200) - 16 * columns) / columns)));
  const theme = themeOf(element);
  // Same words: one colour scale for the four maps. Different words: each its own (a long sentence's weights are small).
  const colours = order ? sharedWeightColours(params.weight_scale, a, b, a0, b0)
    : [a, b, a0, b0].map((x) => sharedWeightColours(params.weight_scale, x)[0]);
  const figure = (x, k) => tokenMatrix({ theme, ...colours[k], data: x.weights, tokens: x.tokens, width: size, height: size - 40,
    label: 'weight', legend: k === 0 || !order, extra: (i, j) => logitParts(x, i, j) });
  const quote = (x) => `“${x.tokens.length > 8 ? `${x.tokens.slice(0, 8).join(' ')} …` : x.tokens.join(' ')}”`;
  const rows = [[a, b, 'with positions', 0], [a0, b0, 'no positions', 2]].map(([x, y, how, k]) => {
    const boxes = [panel(`${quote(x)}, ${how}`, figure(x, k)), panel(`${quote(y)}, ${how}`, figure(y, k + 1))];
    return { boxes, x, y, how };
  });
  const children = [headNote(params, a)];
  if (order) {
    const differences = rows.map(({ x, y }) => alignedDifference(x, y, order));
    const extent = Math.max(...differences.map(largest));
    rows.forEach((row, r) => {
      const biggest = largest(differences[r]);
      const shown = biggest === 0 ? '0, exactly' : biggest < ROUNDING ? `${biggest.toPrecision(1)}, float32 rounding` : biggest.toPrecision(3);
      // Without positions a causal mask still tells the orders apart: each word sees only the words before it.
      const why = r === 1 && biggest >= ROUNDING && masked(row.x) ? ': the causal mask is a position signal (each word sees only ' +
        'the words before it)' : '';
      row.boxes.push(panel(`difference, ${row.how}: largest ${shown}${why}`,
        tokenMatrix({ theme, data: differences[r], tokens: a.tokens, width: size, height: size - 40, label: 'second − first',
          legendLabel: 'weight: second − first (first’s order)', extent, legend: r === 0 })));
    });
  } else {
    const note = document.createElement('p');
    note.className = 'note warning-note';
    note.textContent = `These two sentences do not hold the same words (${wordsDiffer(a.tokens, b.tokens)}), so this is ` +
      'not a question of order: type the same words in another order as the second sentence to compare.';
    children.push(note);
  }
  element.replaceChildren(...children.filter(Boolean), ...rows.map((row) => panels(...row.boxes)));
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
