// A worked example with tiny sizes, every number printed: "the sky is not",
// d_model = d_head = 8, the page's own head (projections, seed, sharpness,
// causal mask) with a sinusoidal encoding (in the sinusoidal family) or RoPE
// (in the RoPE family): x, P, x + P, q, k (each pair before and after its
// rotation for RoPE), v, the scores, the softmax weights and the output.
import { element as el } from '../lib/html.js';

export const id = 'worked';
export const title = 'Worked example: “the sky is not”, d_model = 8';
export const caption = 'Four tokens, eight dimensions, one head: every number it uses, from the engine’s attention() itself. ' +
  'Read top to bottom: inputs, queries and keys, scores, weights, output.';
export const needs = ['worked'];

const D = 8;
const fmt = (v) => (v === -Infinity ? '−∞' : Math.abs(v) < 5e-7 ? '0' : v.toFixed(4));
const SUB = '₀₁₂₃₄₅₆₇';

/**
 * A table of numbers in a box that scrolls sideways on a narrow screen; a cell is text, or a list of text and nodes.
 * @param {string} quantity  names the table (data-quantity) for tests and readers of the DOM
 */
function numbers(quantity, head, rows) {
  const cells = (c) => (Array.isArray(c) ? c : [c]);
  return el('div', { class: 'table-scroll' }, [el('table', { class: 'numbers', 'data-quantity': quantity }, [
    el('thead', {}, [el('tr', {}, head.map((h) => el('th', { scope: 'col' }, [h])))]),
    el('tbody', {}, rows.map((r) => el('tr', {}, r.map((c, k) => (k === 0 ? el('th', { scope: 'row' }, cells(c)) : el('td', {}, cells(c))))))),
  ])]);
}

/** Rows of an [n, cols] matrix, labelled by token. */
function matrixRows(data, tokens, cols) {
  return tokens.map((t, p) => [`${p} ${t}`, ...Array.from(data.subarray(p * cols, p * cols + cols), fmt)]);
}

const dims = (prefix = 'dim') => ['', ...Array.from({ length: D }, (_, c) => `${prefix} ${c}`)];

/** Columns of pair i: (2i, 2i+1) interleaved, (i, i + d/2) half. */
function pairOf(layout, i) {
  return layout === 'interleaved' ? [2 * i, 2 * i + 1] : [i, i + D / 2];
}

/** The rotation table of q or k: for each position and pair, (a, b) before → after, turned by p·θᵢ. */
function rotationRows(before, after, tokens, layout) {
  return tokens.map((t, p) => [`${p} ${t}`, ...Array.from({ length: D / 2 }, (_, i) => {
    const [c0, c1] = pairOf(layout, i);
    return [`(${fmt(before[p * D + c0])}, ${fmt(before[p * D + c1])})`, el('br'), `→ (${fmt(after[p * D + c0])}, ${fmt(after[p * D + c1])})`];
  })]);
}

/** @param {{worked: {type, base, layout, omega: Float32Array, head, scale}}} result */
export function render(element, result) {
  const w = result.worked;
  const h = w.head;
  const tokens = h.tokens;
  const rope = w.type === 'rope';
  const heading = (text) => { const e = document.createElement('h3'); e.textContent = text; return e; };
  const keys = ['', ...tokens.map((t, j) => `key ${j} ${t}`)];
  const parts = [
    heading(`Frequencies θᵢ = ${w.base}^(−2i/8)`),
    numbers('omega', ['pair i', 'θᵢ (rad/token)', 'wavelength 2π/θᵢ (tokens)'],
      Array.from(w.omega, (o, i) => [i, o.toPrecision(6), ((2 * Math.PI) / o).toPrecision(6)])),
    heading(`1. Word embeddings x (drawn N(0, 1/8), times s·√8 = ${w.scale.toPrecision(4)})`),
    numbers('x', dims(), matrixRows(h.x, tokens, D)),
  ];
  if (rope) {
    parts.push(
      heading('2. Angles p·θᵢ (radians) by which pair i of position p turns'),
      numbers('angles', ['', ...Array.from(w.omega, (_, i) => `pair ${i}`)],
        tokens.map((t, p) => [`${p} ${t}`, ...Array.from(w.omega, (o) => fmt(p * o))])),
      heading(`3. q = x W_q, then rotated: each pair (${w.layout === 'interleaved' ? 'dims 2i, 2i+1' : 'dims i, i+4'}) before → after`),
      numbers('q', ['', ...Array.from(w.omega, (_, i) => `pair ${i}`)], rotationRows(h.q_unrotated, h.q, tokens, w.layout)),
      heading('4. k = x W_k, rotated the same way'),
      numbers('k', ['', ...Array.from(w.omega, (_, i) => `pair ${i}`)], rotationRows(h.k_unrotated, h.k, tokens, w.layout)),
    );
  } else {
    parts.push(
      heading('2. Position vectors P: [sin(pθ₀), cos(pθ₀), sin(pθ₁), …]'),
      numbers('positions', dims(), matrixRows(h.positions, tokens, D)),
      heading('3. x + P: what the head sees'),
      numbers('sum', dims(), matrixRows(h.x.map((v, k) => v + h.positions[k]), tokens, D)),
      heading('4. q = (x + P) W_q and k = (x + P) W_k'),
      numbers('q', dims('q'), matrixRows(h.q, tokens, D)),
      numbers('k', dims('k'), matrixRows(h.k, tokens, D)),
    );
  }
  parts.push(
    heading(`5. v = ${rope ? 'x' : '(x + P)'} W_v (never rotated)`),
    numbers('v', dims('v'), matrixRows(h.v, tokens, D)),
    heading('6. Scores q·kᵀ/√8 (rows: queries)'),
    numbers('logits', keys, matrixRows(h.logits, tokens, tokens.length)),
    heading('7. Weights: softmax of each row (each row sums to 1)'),
    numbers('weights', keys, matrixRows(h.weights, tokens, tokens.length)),
    heading('8. Output = weights · v'),
    numbers('output', dims('out'), matrixRows(h.output, tokens, D)),
  );
  const box = document.createElement('div');
  box.className = 'worked';
  box.append(...parts);
  element.replaceChildren(box);
}

/** The CSV table, long: which quantity, its row and column, the value. */
export function table(result) {
  const w = result.worked;
  const h = w.head;
  const n = h.tokens.length;
  const rows = [];
  w.omega.forEach((o, i) => { rows.push(['theta', `pair ${i}`, 'rad/token', o]); });
  const matrix = (name, data, cols, colName) => {
    for (let p = 0; p < n; p++) for (let c = 0; c < cols; c++) rows.push([name, `${p} ${h.tokens[p]}`, colName(c), data[p * cols + c]]);
  };
  const dim = (c) => `dim ${c}`;
  const key = (j) => `key ${j} ${h.tokens[j]}`;
  matrix('x', h.x, D, dim);
  if (h.positions) matrix('P', h.positions, D, dim);
  if (h.q_unrotated) { matrix('q_unrotated', h.q_unrotated, D, dim); matrix('k_unrotated', h.k_unrotated, D, dim); }
  matrix('q', h.q, D, dim);
  matrix('k', h.k, D, dim);
  matrix('v', h.v, D, dim);
  matrix('logit', h.logits, n, key);
  matrix('weight', h.weights, n, key);
  matrix('output', h.output, D, dim);
  return { columns: ['quantity', 'row', 'column', 'value'], rows: rows.length, row: (k) => rows[k] };
}
