// The attention map: the weights [n, n] of one head over the reader's sentence.
import { figureWidth } from '../lib/matrix-figure.js';
import { tokenMatrix } from '../lib/token-matrix.js';

export const id = 'attention';
export const title = 'Attention map';
export const caption = 'How much each query token (row) attends to each key token (column): softmax(q·kᵀ/√d) with this ' +
  'encoding, for a single head with untrained weights. Hover for the exact weight and logit.';
export const inputs = (result) => [result.attention];

/** @param {{attention: {tokens, weights, logits}}} result */
export function render(element, result) {
  const a = result.attention;
  const size = Math.min(figureWidth(element), 600);
  element.replaceChildren(tokenMatrix({
    data: a.weights, tokens: a.tokens, width: size, height: size - 60, label: 'weight', weights: true,
    extra: (i, j) => `<b>logit</b> ${a.logits[i * a.n + j] === -Infinity ? '−∞' : a.logits[i * a.n + j].toPrecision(6)}`,
  }));
}
