// An [n, n] matrix of a sentence (attention weights, logits, one term) as a
// heatmap with the tokens along both axes and a tooltip naming the pair.
import { linkify } from '../citations.js';
import { matrixFigure } from './matrix-figure.js';
import { largest } from './spread.js';

export { largest };

/**
 * @param {object} o
 * @param {Float32Array} o.data      [n, n] row-major, the values the tooltip gives; -Infinity is drawn blank ("masked")
 * @param {Float32Array} [o.paint]   what the colours show, when not data itself (weightColours); NaN is blank
 * @param {string[]} o.tokens
 * @param {number} o.width
 * @param {number} o.height
 * @param {string} o.label           what the values are ("weight", "logit", "content-position")
 * @param {string} [o.legendLabel]   what the colours show, when not o.label
 * @param {boolean} [o.sequential]   a [0, extent] sequential scale instead of a diverging one
 * @param {number} [o.extent]        the colour range; by default the largest |value| painted
 * @param {boolean} [o.legend]
 * @param {{rows: number[], label: string}[]} [o.outlines]  rows to outline (matrix-figure.js)
 * @param {(i: number, j: number) => [string, string][]} [o.extra]  more tooltip lines, [label, text] (matrix-figure.js describe)
 * @param {object} o.theme           lib/theme.js
 */
export function tokenMatrix(o) {
  const n = o.tokens.length;
  const paint = o.paint ?? o.data;
  const extent = o.extent ?? largest(paint);
  const figure = matrixFigure({
    data: paint, rows: n, cols: n, width: o.width, height: o.height, legend: o.legend, theme: o.theme,
    xLabel: 'key →', yLabel: '↓ query', extent: Math.max(extent, 1e-9),
    sequential: o.sequential, legendLabel: o.legendLabel ?? o.label, xTickLabels: o.tokens, yTickLabels: o.tokens,
    outlines: o.outlines,
    ariaLabel: `${o.label} of every query and key of a ${n}-token sentence.`,
    describe: (i, j) => {
      const v = o.data[i * n + j];
      return [['query', `${i} “${o.tokens[i]}”`], ['key', `${j} “${o.tokens[j]}”`],
        v === -Infinity ? ['masked', '(causal)'] : [o.label, v.toPrecision(6)], ...(o.extra?.(i, j) ?? [])];
    },
  });
  figure.classList.add('masked-background');
  if (o.legend === false) {  // keep the map level with a neighbour that has the legend
    const space = document.createElement('div');
    space.className = 'legend-space';
    figure.prepend(space);
  }
  return figure;
}


/**
 * What the colours of an attention map show (the view parameter weight_scale):
 *  - uniform: weight − 1/m, m the keys the row may see (n, or i + 1 under a causal mask), on a diverging
 *    scale: above uniform one way, below the other, uniform itself blank. An untrained head's weights
 *    sit near 1/n, so this is the scale that shows their pattern.
 *  - row: (weight − the row's least) / (its range), 0 to 1: every row's own pattern at full contrast.
 *  - absolute: the weight itself, 0 to the largest weight shown.
 * Masked entries (logit −∞) are NaN: drawn blank.
 * @param {{n: number, weights: Float32Array, logits: Float32Array}} a  an attention result
 * @param {'uniform'|'row'|'absolute'} mode
 * @returns {{paint: Float32Array, sequential: boolean, legendLabel: string, extent: number|null}}
 *   extent null: take the largest |value| over the panels drawn together (sharedExtent)
 */
export function weightColours(a, mode) {
  const n = a.n;
  const paint = new Float32Array(n * n);
  let causal = false;
  for (let i = 0; i < n; i++) {
    let seen = 0;
    let lo = Infinity;
    let hi = -Infinity;
    for (let j = 0; j < n; j++) {
      if (a.logits[i * n + j] === -Infinity) { causal = true; continue; }
      seen++;
      lo = Math.min(lo, a.weights[i * n + j]);
      hi = Math.max(hi, a.weights[i * n + j]);
    }
    for (let j = 0; j < n; j++) {
      const w = a.weights[i * n + j];
      paint[i * n + j] = a.logits[i * n + j] === -Infinity ? NaN
        : mode === 'uniform' ? w - 1 / seen : mode === 'row' ? (hi > lo ? (w - lo) / (hi - lo) : 0) : w;
    }
  }
  if (mode === 'row') return { paint, sequential: true, extent: 1, legendLabel: 'weight, from its row’s least (0) to largest (1)' };
  if (mode === 'absolute') return { paint, sequential: true, extent: null, legendLabel: 'weight' };
  return { paint, sequential: false, extent: null, legendLabel: `weight − uniform (${causal ? '1/(i+1) under the mask' : `1/${n}`})` };
}

/**
 * The weight maps of several attention results coloured alike (weightColours, one extent for all), for
 * panels drawn side by side.
 * @returns {{paint, sequential, legendLabel, extent}[]}
 */
export function sharedWeightColours(mode, ...results) {
  const colours = results.map((a) => weightColours(a, mode));
  const extent = colours[0].extent ?? Math.max(...colours.map((c) => largest(c.paint)));
  const legendLabel = colours.every((c) => c.legendLabel === colours[0].legendLabel) ? colours[0].legendLabel
    : 'weight − uniform (1/n of its sentence, 1/(i+1) under a mask)';
  return colours.map((c) => ({ ...c, extent, legendLabel }));
}

/** A titled panel around a figure. */
export function panel(title, figure) {
  const box = document.createElement('div');
  box.className = 'panel';
  const heading = document.createElement('h3');
  heading.textContent = title;
  box.append(heading, figure);
  return box;
}

/** The panels in a wrapping row. */
export function panels(...boxes) {
  const row = document.createElement('div');
  row.className = 'panels';
  row.append(...boxes);
  return row;
}

/**
 * The tooltip lines that make up one logit: the four terms of an absolute encoding, or content and
 * position for the others (the core's terms), and the softmax that turns it into the weight.
 * @param {{n, logits, weights, terms}} a  an attention result
 */
export function logitParts(a, i, j) {
  const k = i * a.n + j;
  if (a.logits[k] === -Infinity) return [['logit', '−∞ (masked)']];
  const f = (v) => v.toPrecision(4);
  const t = a.terms;
  const parts = t.carrier === 'absolute'
    ? `= ${f(t.cc[k])} (w·w) + ${f(t.cp[k])} (w·p) + ${f(t.pc[k])} (p·w) + ${f(t.pp[k])} (p·p)`
    : t.carrier === 'none' ? '(content only)'
      : t.carrier === 'polar' ? `= ${f(t.content[k])} (what: the magnitudes) + ${f(t.position[k])} (where: the phases’ change)`
        : `= ${f(t.content[k])} (content) + ${f(t.position[k])} (${t.carrier === 'bias' ? 'bias b(i, j)' : 'rotation’s change'})`;
  const ids = a.ids ? [['token ids', `${a.ids[i]} (query) · ${a.ids[j]} (key)`]] : [];  // the trained head's
  return [['logit', `${a.logits[k].toPrecision(6)} ${parts}`], ...ids];
}

/**
 * A note for maps drawn under a causal mask: the mask alone tells positions apart.
 * @returns {HTMLElement|null}
 */
/**
 * The note above an attention view: for the trained head (params.trained_head) what it is and its
 * accuracy at its training length; else the causal mask's note when the mask is on.
 * @param {{trainedAccuracy?: number, trainedSeed?: number, untrainedBecause?: string}} [head]  the head's result: the trained
 *   head's accuracy at 32 tokens and its seed (engine.trainedHead), or why the untrained head is shown in its place
 */
export function headNote(params, head = {}) {
  if (!params.trained_head || head.untrainedBecause) return causalNote(params.attn_causal);
  const accuracy = head.trainedAccuracy;
  const note = document.createElement('p');
  note.className = 'note trained-note';
  note.textContent = `Trained head: one causal attention layer with this encoding, trained on ${params.trained_task} at 32 tokens ` +
    `(400 steps, seed ${head.trainedSeed ?? '?'}; accuracy ${accuracy === undefined ? '?' : accuracy.toFixed(2)} there). Each word is read as one of its 16 token ` +
    'ids, a hash of the word, so the same word is the same id; past 32 tokens the head is tested beyond its training length.';
  return note;
}

/**
 * The untrained head's note (the attention map's): why its pattern looks random, and the switch that shows a trained one
 * (or why the trained head could not be had: head.untrainedBecause).
 * @returns {HTMLElement|null}  null for the trained head
 */
export function untrainedNote(params, head = {}) {
  if (params.trained_head && !head.untrainedBecause) return null;
  const note = document.createElement('p');
  note.className = 'note untrained-note';
  const why = head.untrainedBecause
    ? `The trained head (one layer of d_model 32) cannot take this spec (${head.untrainedBecause}), so this is the untrained one: `
    : 'Untrained head: ';
  note.textContent = `${why}W_q, W_k and W_v are ${params.projections === 'identity' ? 'the identity' : 'random draws'}, ` +
    'so the map’s pattern is mostly noise: nothing has taught the head where to look.' +
    (head.untrainedBecause ? '' : ' Tick “trained head” to see one that learned a task with this encoding.');
  return note;
}

export function causalNote(causal) {
  if (!causal) return null;
  const note = document.createElement('p');
  note.className = 'note causal-note';
  note.append(...linkify('Causal mask on: query i sees keys 0 … i only, so even without any positional encoding two copies ' +
    'of a word see different keys and get different rows. The mask alone breaks the symmetry between orders (it is ' +
    'how NoPE language models still learn positions; Haviv et al. 2022). Turn it off to see the bag of words.'));
  return note;
}
