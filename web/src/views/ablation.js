// Ablation: the same sentence with this encoding and with none. Without
// positions, two copies of a word are the same query and the same key, so
// their rows (and columns) of weights are identical.
import { figureWidth } from '../lib/size.js';
import { panel, panels, sharedWeightExtent, tokenMatrix } from '../lib/token-matrix.js';
import { pairTable } from '../lib/tables.js';
import { themeOf } from '../lib/theme.js';

export const id = 'ablation';
export const title = 'Ablation: the same sentence without positions';
export const caption = 'Left with this encoding, right with none. Without positions, attention sees a bag of words: ' +
  'every copy of a repeated word gets exactly the same row.';
export const needs = ['attention', 'ablation'];

/** Groups of positions holding the same token. */
export function repeats(tokens) {
  const at = new Map();
  tokens.forEach((t, i) => at.set(t, [...(at.get(t) ?? []), i]));
  return [...at].filter(([, positions]) => positions.length > 1);
}

function sameRows(weights, n, a, b) {
  for (let j = 0; j < n; j++) if (weights[a * n + j] !== weights[b * n + j]) return false;
  return true;
}

/** @param {{attention, ablation}} result */
export function render(element, result) {
  const size = Math.max(300, Math.min(420, Math.floor((figureWidth(element, 1200) - 16) / 2)));
  const theme = themeOf(element);
  const extent = sharedWeightExtent(result.attention, result.ablation);
  const figure = (a, legend) => tokenMatrix({ theme, data: a.weights, tokens: a.tokens, width: size, height: size - 40, label: 'weight', weights: true, extent, legend });
  const note = document.createElement('p');
  note.className = 'note';
  const found = repeats(result.ablation.tokens);
  note.textContent = found.length === 0
    ? 'No word repeats in this sentence: type one that does (“the dog chased the cat”) to see identical rows.'
    : found.map(([token, positions]) => {
      const equalWithout = sameRows(result.ablation.weights, result.ablation.n, positions[0], positions[1]);
      const equalWith = sameRows(result.attention.weights, result.attention.n, positions[0], positions[1]);
      return `“${token}” at positions ${positions.join(', ')}: rows ${equalWithout ? 'identical' : 'different'} without positions, ` +
        `${equalWith ? 'identical' : 'different'} with them`;
    }).join('; ') + '.';
  element.replaceChildren(note, panels(panel('with this encoding', figure(result.attention, true)), panel('no positional encoding', figure(result.ablation, false))));
}

/** The CSV table: one row per query-key pair, its weight with this encoding and without. */
export function table(result) {
  return pairTable(result.attention.tokens, { weight_with_positions: result.attention.weights, weight_without: result.ablation.weights });
}
