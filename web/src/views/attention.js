// The attention map: the weights [n, n] of one head over the reader's sentence.
import { figureWidth } from '../lib/size.js';
import { headNote, untrainedNote, logitParts, tokenMatrix, weightColours } from '../lib/token-matrix.js';
import { pairTable } from '../lib/tables.js';
import { themeOf } from '../lib/theme.js';

export const id = 'attention';
export const title = 'Attention map';
export const caption = 'How much each query token (row) attends to each key token (column): softmax(q·kᵀ/√d) with this ' +
  'encoding, for a single head with untrained weights (or, with “trained head” on, a head trained on a task); word embeddings scaled by s·√d_model (sharpness s). ' +
  'Colours: the weight against the uniform 1/n by default (the “weight colours” control). Hover for the weight and the terms of its logit.';
export const needs = ['attention'];

/** @param {{attention: {tokens, n, weights, logits, terms}}} result */
export function render(element, result, params) {
  const a = result.attention;
  const size = Math.min(figureWidth(element), 600);
  const colours = weightColours(a, params.weight_scale);
  const figure = tokenMatrix({
    theme: themeOf(element), ...colours, extent: colours.extent ?? undefined,
    data: a.weights, tokens: a.tokens, width: size, height: size - 60, label: 'weight',
    extra: (i, j) => logitParts(a, i, j),
  });
  element.replaceChildren(...[headNote(params, a), untrainedNote(params, a), figure].filter(Boolean));
}

/** The CSV table: one row per query-key pair, with its weight and logit. */
export function table(result) {
  return pairTable(result.attention.tokens, { weight: result.attention.weights, logit: result.attention.logits });
}
