// A bias family's three panels for the sentence: content scores q.k/sqrt(d),
// the position bias b(i, j), and their sum, the biased scores (Press et al.'s figure).
import { figureWidth } from '../lib/size.js';
import { largest, panel, panels, tokenMatrix } from '../lib/token-matrix.js';
import { pairTable } from '../lib/tables.js';
import { themeOf } from '../lib/theme.js';

export const id = 'panels';
export const title = 'Content, bias, biased scores';
export const caption = 'The scores before positions (q·k/√d), what the encoding adds, and the sum the softmax sees. ' +
  'Position enters only through the bias; DeBERTa’s splits into content-to-position and position-to-content scores, ' +
  'and all its terms share the scale 1/√(3d); CoPE’s is made from gates on the content and the positions they count. ' +
  'The three share one colour scale, the same for every head, so a gentle head’s bias looks pale; “bias panels: colour ' +
  'scale” normalises each panel.';
export const needs = ['attention', 'headsBiasExtent'];

/** The bias's named parts (DeBERTa: c2p, p2c), each [n, n], in the core's order. */
function partsOf(terms) {
  return Object.keys(PARTS).filter((name) => terms[name]);
}

// What each named part of a bias is, for its panel: DeBERTa's two summands, CoPE's gates and
// positions (which make its bias rather than add up to it).
const PARTS = {
  c2p: 'content → position q_i·K_r[δ(i−j)]',
  p2c: 'position → content k_j·Q_r[δ(i−j)]',
  gates: 'gates g_ij = σ(q_i·k_j/√d)',
  positions: 'contextual positions p_ij = Σ_{t=j..i} g_it',
};
const SUMMANDS = new Set(['c2p', 'p2c']);

/** "q·k/√d", or "q·k/√(3d)" when the content scores are scaled down by a factor (DeBERTa's 1 + terms). */
function contentLabel(terms, dHead) {
  const factor = Math.round(1 / (terms.scale * terms.scale * dHead));
  return factor > 1 ? `q·k/√(${factor}d)` : 'q·k/√d';
}

/**
 * The panels' one colour range (panels_scale = shared): the largest |value| of the content scores, the bias (its parts)
 * and the logits; with every head's bias (headsBiasExtent), the largest content score plus the largest bias of any
 * head, which bounds every head's logits, so the range is the same for every head and a gentle head's bias looks pale.
 */
export function sharedExtent(a, headsBiasExtent) {
  const parts = partsOf(a.terms).map((name) => largest(a.terms[name]));
  const content = largest(a.terms.content);
  if (headsBiasExtent != null) return Math.max(content, ...parts, content + headsBiasExtent);
  return Math.max(content, largest(a.terms.position), ...parts, largest(a.logits));
}

/**
 * @param {{attention: {tokens, logits, d_head, terms: {content, position, scale, c2p?, p2c?}}, headsBiasExtent: number|null}} result
 * @param {{panels_scale?: 'shared'|'own'}} [params]
 */
export function render(element, result, params = {}) {
  const a = result.attention;
  const parts = partsOf(a.terms);
  const summands = parts.length > 0 && parts.every((name) => SUMMANDS.has(name));
  const count = 2 + parts.length + (summands ? 0 : 1);
  const size = Math.max(220, Math.min(320, Math.floor((figureWidth(element, 1400) - 32) / count)));
  const theme = themeOf(element);
  const extent = (params.panels_scale ?? 'shared') === 'shared' ? sharedExtent(a, result.headsBiasExtent) : undefined;
  const figure = (data, label) => tokenMatrix({ theme, data, tokens: a.tokens, width: size, height: size - 30, label, legend: true, extent });
  const scale = summands ? `, each /√(${parts.length + 1}d)` : '';
  element.replaceChildren(panels(
    panel(`content scores ${contentLabel(a.terms, a.d_head)}`, figure(a.terms.content, 'content')),
    ...parts.map((name) => panel(`${PARTS[name]}${scale}`, figure(a.terms[name], name))),
    ...(summands ? [] : [panel('bias b(i, j)', figure(a.terms.position, 'bias'))]),
    panel('biased scores (logits)', figure(a.logits, 'logit')),
  ));
}

/** The CSV table: one row per query-key pair, content score, bias (and its parts) and their sum. */
export function table(result) {
  const { tokens, terms, logits } = result.attention;
  const parts = Object.fromEntries(partsOf(terms).map((name) => [name, terms[name]]));
  return pairTable(tokens, { content: terms.content, bias: terms.position, ...parts, logit: logits });
}
