// A bias family's three panels for the sentence: content scores q.k/sqrt(d),
// the position bias b(i, j), and their sum, the biased scores (Press et al.'s figure).
import { figureWidth } from '../lib/size.js';
import { panel, panels, tokenMatrix } from '../lib/token-matrix.js';
import { pairTable } from '../lib/tables.js';
import { themeOf } from '../lib/theme.js';

export const id = 'panels';
export const title = 'Content, bias, biased scores';
export const caption = 'The scores before positions (q·k/√d), what the encoding adds, and the sum the softmax sees. ' +
  'Position enters only through the bias.';
export const needs = ['attention'];

/** @param {{attention: {tokens, logits, terms: {content, position}}}} result */
export function render(element, result) {
  const a = result.attention;
  const size = Math.max(260, Math.min(320, Math.floor((figureWidth(element, 1400) - 32) / 3)));
  const theme = themeOf(element);
  const figure = (data, label) => tokenMatrix({ theme, data, tokens: a.tokens, width: size, height: size - 30, label, legend: true });
  element.replaceChildren(panels(
    panel('content scores q·k/√d', figure(a.terms.content, 'content')),
    panel('bias b(i, j)', figure(a.terms.position, 'bias')),
    panel('biased scores (logits)', figure(a.logits, 'logit')),
  ));
}

/** The CSV table: one row per query-key pair, content score, bias and their sum. */
export function table(result) {
  const { tokens, terms, logits } = result.attention;
  return pairTable(tokens, { content: terms.content, bias: terms.position, logit: logits });
}
