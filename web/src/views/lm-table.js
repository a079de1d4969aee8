// The language-model lab's results, one row per encoding: the numbers the
// explainers compare (final training and validation loss, perplexity at L_train
// and 4 x L_train, milliseconds per training step). With several seeds, each
// number is the mean over the seeds ± their standard deviation. While the arms
// train, a row appears once its arm's test has ended.
import { element as el } from '../lib/html.js';
import { meanSpread } from '../lib/spread.js';
import { nothingYet } from '../lib/partial.js';

export const id = 'lm-table';
export const title = 'Results per encoding';
export const caption = 'Per encoding: the training loss (mean of the last 20 steps) and the last validation loss, in nats per ' +
  'character; validation perplexity at L_train and at 4 × L_train (the ratio: how much worse it reads four times as far); ' +
  'the wall time of one training step (16 windows, forward and backward, Adam) in this browser, measured while the ' +
  'other arms train on the other cores (one arm per core the browser reports); and, for a family with learned position ' +
  'parameters at the lab’s default settings, whether this run trained the parameters its views show again, bit for bit. ' +
  'With several seeds: mean ± 1 sample standard deviation over the n seeds (the first seed’s model for the last column). ' +
  'CSV and JSON export below.';
export const needs = ['languageModel'];

/** One model's numbers: [train loss, validation loss, perplexity at L, at 4L, ratio, ms per step]. */
function numbersOf(model, trainLength) {
  const tail = model.loss.slice(-20);
  const train = tail.reduce((a, b) => a + b, 0) / tail.length;
  const at = (L) => model.eval.find((e) => e.length === L)?.perplexity;
  const p1 = at(trainLength), p4 = at(4 * trainLength);
  return [train, model.validation.at(-1)?.loss, p1, p4, p4 / p1, model.msPerStep];
}

/**
 * One row per arm whose test ended: [encoding, ...six numbers, reproduces], each number {mean, sd, n} (sd NaN for one
 * seed). With seeds (run.bySeed), over its seeds' models.
 */
function rows({ trainLength, runs }) {
  return runs.filter((r) => r.eval.length).map((r) => {
    const models = r.bySeed?.length ? r.bySeed : [r];
    const columns = models.map((m) => numbersOf(m, trainLength));
    return [r.name, ...columns[0].map((_, k) => {
      const values = columns.map((c) => c[k]).filter((v) => v !== undefined);
      return values.length ? meanSpread(values) : { n: 0, mean: undefined, sd: NaN };
    }), r.reproduces];
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
  if (!body.length) throw nothingYet();  // a partial result before any test ended: the table before it stays
  const seeds = Math.max(1, ...body.flatMap((r) => r.slice(1, 7).map((v) => v.n)));
  const best = (k) => body.reduce((b, r) => (r[k].mean !== undefined && (b === null || r[k].mean < b) ? r[k].mean : b), null);
  const bests = [1, 2, 3, 4, 5, 6].map((k) => best(k));  // the numeric columns
  const cell = (v, k, digits) => {
    const shown = v.mean === undefined || !Number.isFinite(v.mean) ? '–' : v.mean.toFixed(digits);
    const spread = Number.isFinite(v.sd) ? ` ± ${v.sd.toFixed(digits)}` : '';
    const titled = Number.isFinite(v.sd) ? `mean ${v.mean} ± ${v.sd} (1 sample standard deviation) over n = ${v.n} seeds` : null;
    const attributes = { ...(v.mean === bests[k - 1] ? { class: 'best' } : {}),
      ...(titled || v.mean === bests[k - 1] ? { title: [titled, v.mean === bests[k - 1] ? 'the lowest' : null].filter(Boolean).join('; ') } : {}) };
    return el('td', attributes, [shown + spread]);
  };
  const col = (text, title) => el('th', { scope: 'col', ...(title ? { title } : {}) }, [text]);
  const numbers = el('table', { class: 'numbers lm-table' }, [
    el('caption', {}, [`Character-level models on ${result.languageModel.corpus.title}, L_train = ${trainLength} ` +
      `(lower is better in every column; the lowest in bold${seeds > 1 ? `; mean ± 1 sd over n = ${seeds} seeds` : ''})`]),
    el('thead', {}, [el('tr', {}, [col('encoding'), col('train loss'), col('validation loss'), col(`perplexity at ${trainLength}`),
      col(`perplexity at ${4 * trainLength}`), col('ratio 4× / 1×'), col('ms per step'),
      col('the views’ trained set again?', 'Head 0 of layer 0 against the trained parameters the family’s views show (trained by the native build with these settings)')])]),
    el('tbody', {}, body.map((r) => el('tr', {}, [el('th', { scope: 'row' }, [r[0]]), cell(r[1], 1, 3), cell(r[2], 2, 3), cell(r[3], 3, 2),
      cell(r[4], 4, 2), cell(r[5], 5, 2), cell(r[6], 6, 1), el('td', { class: 'reproduced' }, [REPRODUCED[String(r[7] ?? null)]])]))),
  ]);
  // In a box that scrolls on a narrow screen.
  element.replaceChildren(el('div', { class: 'lm-table-box', tabindex: '0', role: 'region', 'aria-label': 'results per encoding' }, [numbers]));
}

/** The CSV table: the rows as drawn, full precision; with seeds, each number's standard deviation after it and n. */
export function table(result) {
  const body = rows(result.languageModel);
  const spread = body.some((r) => r.slice(1, 7).some((v) => v.n > 1));
  const blank = (v) => (v === undefined || v === null || Number.isNaN(v) ? '' : v);
  if (!spread) return { columns: COLUMNS, rows: body.length, row: (k) => body[k].map((v, j) => blank(j >= 1 && j <= 6 ? v.mean : v)) };
  const columns = [COLUMNS[0], ...COLUMNS.slice(1, 7).flatMap((c) => [c, `${c}_sd`]), 'seeds', COLUMNS[7]];
  return { columns, rows: body.length, row: (k) => { const r = body[k];
    return [r[0], ...r.slice(1, 7).flatMap((v) => [blank(v.mean), blank(v.sd)]), Math.max(...r.slice(1, 7).map((v) => v.n)), blank(r[7])]; } };
}
