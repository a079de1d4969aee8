// The language-model lab's results, one row per encoding: the numbers the
// explainers compare (final training and validation loss, perplexity at L_train
// and 4 x L_train, milliseconds per training step).
import { element as el } from '../lib/html.js';

export const id = 'lm-table';
export const title = 'Results per encoding';
export const caption = 'Per encoding: the training loss (mean of the last 20 steps) and the last validation loss, in nats per ' +
  'character; validation perplexity at L_train and at 4 × L_train (the ratio: how much worse it reads four times as far); ' +
  'the wall time of one training step (16 windows, forward and backward, Adam) in this browser, measured while the ' +
  'other arms train on the other cores (one arm per core the browser reports); and, for a family with learned position ' +
  'parameters at the lab’s default settings, whether this run trained the parameters its views show again, bit for bit. ' +
  'CSV and JSON export below.';
export const needs = ['languageModel'];

/** One row per arm: [encoding, train loss, validation loss, perplexity at L, at 4L, ratio, ms per step]. */
function rows({ trainLength, runs }) {
  return runs.map((r) => {
    const tail = r.loss.slice(-20);
    const train = tail.reduce((a, b) => a + b, 0) / tail.length;
    const at = (L) => r.eval.find((e) => e.length === L)?.perplexity;
    const p1 = at(trainLength), p4 = at(4 * trainLength);
    return [r.name, train, r.validation.at(-1)?.loss, p1, p4, p4 / p1, r.msPerStep, r.reproduces];
  });
}

const COLUMNS = ['encoding', 'train_loss', 'validation_loss', 'ppl_at_L_train', 'ppl_at_4x_L_train', 'ppl_4x_over_1x', 'ms_per_step',
  'same_as_views_trained_set'];

/** The last column: whether this run trained the parameters the family's views show again (families/trained.js). */
const REPRODUCED = { true: 'yes, bit for bit', false: 'no: they differ', null: '–' };

/** @param {{languageModel: {trainLength: number, runs: object[]}}} result */
export function render(element, result) {
  const { trainLength } = result.languageModel;
  const body = rows(result.languageModel);
  const best = (k, low = true) => body.reduce((b, r) => (r[k] !== undefined && (b === null || (low ? r[k] < b : r[k] > b)) ? r[k] : b), null);
  const bests = [1, 2, 3, 4, 5, 6].map((k) => best(k));  // the numeric columns
  const cell = (v, k, digits) => el('td', v === bests[k - 1] ? { class: 'best', title: 'the lowest' } : {},
    [v === undefined || !Number.isFinite(v) ? '–' : v.toFixed(digits)]);
  const col = (text, title) => el('th', { scope: 'col', ...(title ? { title } : {}) }, [text]);
  const numbers = el('table', { class: 'numbers lm-table' }, [
    el('caption', {}, [`Character-level models on ${result.languageModel.corpus.title}, L_train = ${trainLength} ` +
      '(lower is better in every column; the lowest in bold)']),
    el('thead', {}, [el('tr', {}, [col('encoding'), col('train loss'), col('validation loss'), col(`perplexity at ${trainLength}`),
      col(`perplexity at ${4 * trainLength}`), col('ratio 4× / 1×'), col('ms per step'),
      col('the views’ trained set again?', 'Head 0 of layer 0 against the trained parameters the family’s views show (trained by the native build with these settings)')])]),
    el('tbody', {}, body.map((r) => el('tr', {}, [el('th', { scope: 'row' }, [r[0]]), cell(r[1], 1, 3), cell(r[2], 2, 3), cell(r[3], 3, 2),
      cell(r[4], 4, 2), cell(r[5], 5, 2), cell(r[6], 6, 1), el('td', { class: 'reproduced' }, [REPRODUCED[String(r[7] ?? null)]])]))),
  ]);
  // In a box that scrolls on a narrow screen.
  element.replaceChildren(el('div', { class: 'lm-table-box', tabindex: '0', role: 'region', 'aria-label': 'results per encoding' }, [numbers]));
}

/** The CSV table: the rows as drawn, full precision. */
export function table(result) {
  const body = rows(result.languageModel);
  return { columns: COLUMNS, rows: body.length, row: (k) => body[k].map((v) => (v === undefined || v === null ? '' : v)) };
}
