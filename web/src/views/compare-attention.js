// Compare mode: each configuration's attention map for the same sentence,
// side by side on one colour scale.
import { figureWidth } from '../lib/size.js';
import { causalNote, logitParts, panel, panels, sharedWeightColours, tokenMatrix } from '../lib/token-matrix.js';
import { pairTable } from '../lib/tables.js';
import { themeOf } from '../lib/theme.js';

export const id = 'compare-attention';
export const title = 'Attention compared: one sentence, each encoding';
export const caption = 'The same head (projections, seed, sharpness) over the same sentence, with each configuration’s ' +
  'encoding in its place; one colour scale for all (the “weight colours” control). Hover for the weight and the terms of its logit.';
export const needs = ['maps'];

/** @param {{maps: {label, attention}[]}} result */
export function render(element, result, params) {
  const count = result.maps.length;
  const size = Math.max(260, Math.min(360, Math.floor((figureWidth(element, 1400) - 16 * count) / Math.min(count, 4))));
  const theme = themeOf(element);
  const colours = sharedWeightColours(params.weight_scale, ...result.maps.map((m) => m.attention));
  element.replaceChildren(...[causalNote(params.attn_causal), panels(...result.maps.map((m, k) => panel(`${m.short}: ${m.label}`,
    tokenMatrix({ theme, ...colours[k], data: m.attention.weights, tokens: m.attention.tokens, width: size, height: size - 40,
      label: 'weight', legend: k === 0 ? undefined : false, extra: (i, j) => logitParts(m.attention, i, j) }))))].filter(Boolean));
}

/** The CSV table: one row per query-key pair, each configuration's weight. */
export function table(result) {
  return pairTable(result.maps[0].attention.tokens, Object.fromEntries(result.maps.map((m) => [m.label, m.attention.weights])));
}
