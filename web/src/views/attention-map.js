// The attention map: the weights [n, n] of one head over the reader's sentence.
import { figureWidth } from '../lib/size.js';
import { tokenMatrix } from '../lib/token-matrix.js';
import { pairTable } from '../lib/tables.js';
import { themeOf } from '../lib/theme.js';

export const id = 'attention';
export const title = 'Attention map';
export const caption = 'How much each query token (row) attends to each key token (column): softmax(q·kᵀ/√d) with this ' +
  'encoding, for a single head with untrained weights. Hover for the exact weight and logit.';
export const needs = ['attention'];

/** @param {{attention: {tokens, weights, logits}}} result */
export function render(element, result) {
  const a = result.attention;
  const size = Math.min(figureWidth(element), 600);
  element.replaceChildren(tokenMatrix({
    theme: themeOf(element),
    data: a.weights, tokens: a.tokens, width: size, height: size - 60, label: 'weight', weights: true,
    extra: (i, j) => `<b>logit</b> ${a.logits[i * a.n + j] === -Infinity ? '−∞' : a.logits[i * a.n + j].toPrecision(6)}`,
  }));
}

/** The CSV table: one row per query-key pair, with its weight and logit. */
export function table(result) {
  return pairTable(result.attention.tokens, { weight: result.attention.weights, logit: result.attention.logits });
}
