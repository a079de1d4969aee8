// The four terms of an absolute encoding's logit: with x = w + p,
// (w + p)W_q ((w + p)W_k)^T = wW_q(wW_k)^T + wW_q(pW_k)^T + pW_q(wW_k)^T + pW_q(pW_k)^T.
import { figureWidth } from '../lib/size.js';
import { largest, panel, panels, tokenMatrix } from '../lib/token-matrix.js';
import { pairTable } from '../lib/tables.js';
import { themeOf } from '../lib/theme.js';

export const id = 'terms';
export const title = 'The four terms of the logit';
export const caption = 'With x = w + p (word plus position), the score splits into content–content, content–position, ' +
  'position–content and position–position terms that sum to the logits. Each panel has its own symmetric colour scale ' +
  '(the “four terms” control switches to one shared scale, where the largest term drowns the others). With identity ' +
  'projections and a sinusoidal encoding the position–position term is p_i·p_j: constant along every diagonal.';
export const needs = ['attention'];

const NAMES = [['cc', 'content–content  w·w'], ['cp', 'content–position  w·p'], ['pc', 'position–content  p·w'], ['pp', 'position–position  p·p']];

/** @param {{attention: {tokens, n, logits, terms: {cc, cp, pc, pp}}}} result */
export function render(element, result, params) {
  const a = result.attention;
  const size = Math.max(240, Math.min(300, Math.floor((figureWidth(element, 1400) - 40) / 3)));
  const theme = themeOf(element);
  const own = params.terms_scale !== 'shared';
  const shared = Math.max(...NAMES.map(([key]) => largest(a.terms[key])), largest(a.logits));
  const figure = (data, label, legend) => tokenMatrix({ theme, data, tokens: a.tokens, width: size, height: size - 30, label,
    extent: own ? undefined : shared, legend: own || legend,
    legendLabel: own ? `${label}, its own scale` : `${label} and every term, one scale` });
  element.replaceChildren(panels(
    ...NAMES.map(([key, label], k) => panel(label, figure(a.terms[key], label.split('  ')[0], k === 0))),
    panel('sum = the logits', figure(a.logits, 'logit', false)),
  ));
}

/** The CSV table: one row per query-key pair, the four terms and their sum. */
export function table(result) {
  const { tokens, terms, logits } = result.attention;
  return pairTable(tokens, { content_content: terms.cc, content_position: terms.cp, position_content: terms.pc, position_position: terms.pp, logit: logits });
}
