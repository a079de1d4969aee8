// Ablation: the same sentence with this encoding and with none. Without
// positions, two copies of a word are the same query and the same key, so
// their rows (and columns) of weights are identical: the figure outlines them.
import { figureWidth } from '../lib/size.js';
import { headNote, logitParts, panel, panels, sharedWeightColours, tokenMatrix } from '../lib/token-matrix.js';
import { pairTable } from '../lib/tables.js';
import { themeOf } from '../lib/theme.js';

export const id = 'ablation';
export const title = 'Ablation: the same sentence without positions';
export const caption = 'Left with this encoding, right with none. Without positions (and without a causal mask), attention ' +
  'sees a bag of words: every copy of a repeated word gets exactly the same row, outlined. With positions those rows differ.';
export const needs = ['attention', 'ablation'];

/** Groups of positions holding the same token. */
export function repeats(tokens) {
  const at = new Map();
  tokens.forEach((t, i) => at.set(t, [...(at.get(t) ?? []), i]));
  return [...at].filter(([, positions]) => positions.length > 1);
}

/** Whether rows a and b of an [n, n] map are equal entry for entry. */
export function sameRows(weights, n, a, b) {
  for (let j = 0; j < n; j++) if (weights[a * n + j] !== weights[b * n + j]) return false;
  return true;
}

/** The repeated words whose rows are all identical in a map: [{token, rows}]. */
function identicalGroups(a) {
  return repeats(a.tokens).filter(([, rows]) => rows.every((r) => sameRows(a.weights, a.n, rows[0], r)))
    .map(([token, rows]) => ({ rows, label: `“${token}”: identical rows ${rows.join(', ')}` }));
}

/** @param {{attention, ablation}} result */
export function render(element, result, params) {
  const size = Math.max(300, Math.min(420, Math.floor((figureWidth(element, 1200) - 16) / 2)));
  const theme = themeOf(element);
  const [withColours, withoutColours] = sharedWeightColours(params.weight_scale, result.attention, result.ablation);
  const figure = (a, colours, legend) => tokenMatrix({ theme, ...colours, data: a.weights, tokens: a.tokens, width: size,
    height: size - 40, label: 'weight', legend, outlines: identicalGroups(a), extra: (i, j) => logitParts(a, i, j) });
  const note = document.createElement('p');
  note.className = 'note';
  const found = repeats(result.ablation.tokens);
  note.textContent = found.length === 0
    ? 'No word repeats in this sentence: type one that does (“the dog chased the cat”) to see identical rows.'
    : found.map(([token, positions]) => {
      const equalWithout = positions.every((p) => sameRows(result.ablation.weights, result.ablation.n, positions[0], p));
      const equalWith = positions.every((p) => sameRows(result.attention.weights, result.attention.n, positions[0], p));
      return `“${token}” at positions ${positions.join(', ')}: rows ${equalWithout ? 'identical (outlined)' : 'different'} ` +
        `without positions${!equalWithout && (params.attn_causal || params.trained_head) ? ' (the causal mask)' : ''}, ` +
        `${equalWith ? 'identical' : 'different'} with them`;
    }).join('; ') + '.';
  element.replaceChildren(...[note, headNote(params, result.attention), panels(
    panel('with this encoding', figure(result.attention, withColours, true)),
    panel('no positional encoding', figure(result.ablation, withoutColours, false)))].filter(Boolean));
}

/** The CSV table: one row per query-key pair, its weight with this encoding and without. */
export function table(result) {
  return pairTable(result.attention.tokens, { weight_with_positions: result.attention.weights, weight_without: result.ablation.weights });
}
