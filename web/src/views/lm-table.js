// The language-model lab's results, one row per encoding: the numbers the
// explainers compare (final training and validation loss, perplexity at L_train,
// 4 x and 8 x L_train, milliseconds per training step). With one seed, each
// perplexity ± its standard error over the test's windows; with several, each
// number is the mean over the seeds ± their standard deviation. While the arms
// train, a row appears once its arm's test has ended.
import { element as el } from '../lib/html.js';
import { meanSpread } from '../lib/spread.js';
import { nothingYet } from '../lib/partial.js';

export const id = 'lm-table';
export const title = 'Results per encoding';
export const caption = 'Per encoding: the training loss (mean of the last 20 steps) and the last validation loss, in nats per ' +
  'character; validation perplexity at L_train, 4 × and 8 × L_train, ± its standard error (perplexity × the standard ' +
  'error of the mean loss over the test’s windows), and the ratio 4× / 1× (how much worse it reads four times as far); ' +
  'the wall time of one training step (16 windows, forward and backward, Adam) in this browser, measured while the ' +
  'other arms train on the other cores (one arm per core the browser reports); and, for a family with learned position ' +
  'parameters at the lab’s default settings, whether this run trained the parameters its views show again, bit for bit. ' +
  'With several seeds: mean ± 1 sample standard deviation over the n seeds (the first seed’s model for the last column). ' +
  'CSV and JSON export below.';
export const needs = ['languageModel'];

/** The evaluation lengths of the perplexity columns, in L_train. */
const TIMES = [1, 4, 8];
/** The numeric columns: [train loss, validation loss, perplexity at each of TIMES, ratio 4x / 1x, ms per step]. */
const NUMBERS = 7;
const PERPLEXITIES = TIMES.map((_, k) => 3 + k);  // their places in a row (after the encoding)

/**
 * One model's numbers (NUMBERS of them) and the standard errors of its perplexities (exp(loss) x loss_se: the delta
 * method's, over the test's windows), undefined where a length was not tested.
 */
function numbersOf(model, trainLength) {
  const tail = model.loss.slice(-20);
  const train = tail.reduce((a, b) => a + b, 0) / tail.length;
  const points = TIMES.map((t) => model.eval.find((e) => e.length === t * trainLength));
  const [p1, p4] = points.map((e) => e?.perplexity);
  return { values: [train, model.validation.at(-1)?.loss, ...points.map((e) => e?.perplexity), p4 / p1, model.msPerStep],
    se: points.map((e) => (e ? e.perplexity * e.loss_se : undefined)) };
}

/**
 * One row per arm whose test ended: [encoding, ...NUMBERS numbers, reproduces], each number {mean, sd, n} (sd NaN for
 * one seed) and, in a one-seed run, each perplexity's {se}. With seeds (run.bySeed), over its seeds' models (those done).
 */
function rows({ trainLength, runs }) {
  return runs.filter((r) => r.eval.length).map((r) => {
    const models = r.bySeed?.length ? r.bySeed : [r];
    const columns = models.map((m) => numbersOf(m, trainLength));
    return [r.name, ...columns[0].values.map((_, k) => {
      const values = columns.map((c) => c.values[k]).filter((v) => v !== undefined && !Number.isNaN(v));
      const spread = values.length ? meanSpread(values) : { n: 0, mean: undefined, sd: NaN };
      const at = PERPLEXITIES.indexOf(k + 1);
      // A standard error only in a one-seed run: a run of seeds shows their sd, or nothing while one seed is done.
      return !r.bySeed?.length && at >= 0 ? { ...spread, se: columns[0].se[at] } : spread;
    }), r.reproduces];
  });
}

const COLUMNS = ['encoding', 'train_loss', 'validation_loss', 'ppl_at_L_train', 'ppl_at_4x_L_train', 'ppl_at_8x_L_train',
  'ppl_4x_over_1x', 'ms_per_step', 'same_as_views_trained_set'];

/** The last column: whether this run trained the parameters the family's views show again (families/trained.js). */
const REPRODUCED = { true: 'yes, bit for bit', false: 'no: they differ', null: '–' };

/** @param {{languageModel: {trainLength: number, runs: object[]}}} result */
export function render(element, result) {
  const { trainLength } = result.languageModel;
  const body = rows(result.languageModel);
  if (!body.length) throw nothingYet();  // a partial result before any test ended: the table before it stays
  const seeds = Math.max(1, ...body.flatMap((r) => r.slice(1, NUMBERS + 1).map((v) => v.n)));
  const best = (k) => body.reduce((b, r) => (r[k].mean !== undefined && (b === null || r[k].mean < b) ? r[k].mean : b), null);
  const bests = Array.from({ length: NUMBERS }, (_, k) => best(k + 1));  // the numeric columns
  const cell = (v, k, digits) => {
    const shown = v.mean === undefined || !Number.isFinite(v.mean) ? '–' : v.mean.toFixed(digits);
    const spread = Number.isFinite(v.sd) ? ` ± ${v.sd.toFixed(digits)}` : Number.isFinite(v.se) ? ` ± ${v.se.toFixed(digits)}` : '';
    const titled = Number.isFinite(v.sd) ? `mean ${v.mean} ± ${v.sd} (1 sample standard deviation) over n = ${v.n} seeds`
      : Number.isFinite(v.se) ? `${v.mean} ± ${v.se} (standard error over the test's windows)` : null;
    const attributes = { ...(v.mean === bests[k - 1] ? { class: 'best' } : {}),
      ...(titled || v.mean === bests[k - 1] ? { title: [titled, v.mean === bests[k - 1] ? 'the lowest' : null].filter(Boolean).join('; ') } : {}) };
    return el('td', attributes, [shown + spread]);
  };
  const col = (text, title) => el('th', { scope: 'col', ...(title ? { title } : {}) }, [text]);
  const numbers = el('table', { class: 'numbers lm-table' }, [
    el('caption', {}, [`Character-level models on ${result.languageModel.corpus.title}, L_train = ${trainLength} ` +
      `(lower is better in every column; the lowest in bold; ${seeds > 1 ? `mean ± 1 sd over n = ${seeds} seeds`
        : 'perplexity ± its standard error over the test’s windows'})`]),
    el('thead', {}, [el('tr', {}, [col('encoding'), col('train loss'), col('validation loss'),
      ...TIMES.map((t) => col(`ppl at ${t * trainLength}`, `validation perplexity at ${t * trainLength} characters` +
        `${t > 1 ? ` (${t} × L_train)` : ' (L_train)'}`)), col('ratio 4× / 1×'), col('ms per step'),
      col('views’ set again?', 'Head 0 of layer 0 against the trained parameters the family’s views show (trained by the native build with these settings)')])]),
    el('tbody', {}, body.map((r) => el('tr', {}, [el('th', { scope: 'row' }, [r[0]]), cell(r[1], 1, 3), cell(r[2], 2, 3), cell(r[3], 3, 2),
      cell(r[4], 4, 2), cell(r[5], 5, 2), cell(r[6], 6, 2), cell(r[7], 7, 1),
      el('td', { class: 'reproduced' }, [REPRODUCED[String(r[NUMBERS + 1] ?? null)]])]))),
  ]);
  // In a box that scrolls on a narrow screen.
  element.replaceChildren(el('div', { class: 'lm-table-box', tabindex: '0', role: 'region', 'aria-label': 'results per encoding' }, [numbers]));
}

/**
 * The CSV table: the rows as drawn, full precision; with one seed, each perplexity's standard error after it (_se);
 * with seeds, each number's standard deviation after it (_sd) and n.
 */
export function table(result) {
  const body = rows(result.languageModel);
  const numeric = (r) => r.slice(1, NUMBERS + 1);
  const spread = body.some((r) => numeric(r).some((v) => v.n > 1));
  const blank = (v) => (v === undefined || v === null || Number.isNaN(v) ? '' : v);
  const names = COLUMNS.slice(1, NUMBERS + 1);
  if (!spread) {
    const columns = [COLUMNS[0], ...names.flatMap((c, k) => (PERPLEXITIES.includes(k + 1) ? [c, `${c}_se`] : [c])), COLUMNS.at(-1)];
    return { columns, rows: body.length, row: (k) => { const r = body[k];
      return [r[0], ...numeric(r).flatMap((v, j) => (PERPLEXITIES.includes(j + 1) ? [blank(v.mean), blank(v.se)] : [blank(v.mean)])),
        blank(r.at(-1))]; } };
  }
  const columns = [COLUMNS[0], ...names.flatMap((c) => [c, `${c}_sd`]), 'seeds', COLUMNS.at(-1)];
  return { columns, rows: body.length, row: (k) => { const r = body[k];
    return [r[0], ...numeric(r).flatMap((v) => [blank(v.mean), blank(v.sd)]), Math.max(...numeric(r).map((v) => v.n)), blank(r.at(-1))]; } };
}
