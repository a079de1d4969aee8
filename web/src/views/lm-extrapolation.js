// Press et al.'s Figure 1 in the page: each encoding's language model, trained at
// L_train, read at L_train / 4 to 8 x L_train on held-out text; validation
// perplexity against the evaluation length (log axes), the training length marked.
// With several seeds, each encoding's mean and ±1 standard deviation; with one,
// each point's own standard error where the result has it. While the arms train,
// each curve appears once its arm's test has ended.
import * as Plot from '@observablehq/plot';
import { curveChart } from '../lib/curves.js';
import { element as el } from '../lib/html.js';
import { meanSpread, standardErrorBand } from '../lib/spread.js';
import { figureWidth } from '../lib/size.js';
import { nothingYet } from '../lib/partial.js';
import { themeOf } from '../lib/theme.js';
import { EVAL_CHARACTERS } from '../labs/lm-test.js';

export const id = 'lm-extrapolation';
export const title = 'Train short, test long: perplexity against length';
export const caption = 'Each encoding’s character-level model, trained on windows of L_train characters (the dashed rule), ' +
  'then run over windows of the held-out last tenth of the book from L_train / 4 to 8 × L_train, without retraining ' +
  '(Press et al. 2022, Figure 1). Perplexity: exp of the mean cross-entropy per character, over ' +
  `${EVAL_CHARACTERS.toLocaleString('en')} characters or more of the held-out part at each length (windows of L spread ` +
  'evenly over it): ' +
  'lower is better. A curve that stays flat past L_train extrapolates; one that climbs has met positions it never saw. ' +
  'Short windows cost every model some perplexity (less context). The shaded band: with several seeds, the mean ± 1 ' +
  'sample standard deviation over the n seeds (the note under the plot gives n); with one seed, exp(loss ± 1 standard ' +
  'error) of each point’s own test. Tiny models: a gap inside the bands is noise.';
export const needs = ['languageModel'];

/**
 * One encoding's points: per evaluation length, the perplexity (the mean over its seeds, with seeds) and its band.
 * @param {{eval: {length, perplexity, loss, loss_se?}[], bySeed?: {eval: {perplexity}[]}[]}} run  a finished run
 * @returns {{x: number, y: number, lo?: number, hi?: number, loss: number, n: number, sd?: number}[]}
 */
export function pointsOf(run) {
  const seeds = run.bySeed?.length > 1 ? run.bySeed : null;
  return run.eval.map((e, i) => {
    if (seeds) {
      const s = meanSpread(seeds.map((r) => r.eval[i].perplexity));
      return { x: e.length, y: s.mean, lo: s.mean - s.sd, hi: s.mean + s.sd, sd: s.sd, n: s.n, loss: e.loss };
    }
    return { x: e.length, y: e.perplexity, loss: e.loss, n: 1, ...(standardErrorBand(e) ?? {}) };
  });
}

/** The note under the plot: what the bands are, with n. */
function bandNote(runs) {
  const counts = [...new Set(runs.map((r) => r.bySeed?.length ?? 1))].sort((a, b) => a - b);
  if (counts.some((n) => n > 1)) {
    return `Curves: the mean over n = ${counts.join(' or ')} seeds per encoding; band: ± 1 sample standard deviation (n − 1).`;
  }
  return runs.some((r) => r.eval.some((e) => Number.isFinite(e.loss_se)))
    ? 'One seed: band exp(loss ± 1 standard error of the loss over the test windows).' : 'One seed: no spread to draw.';
}

/** @param {{languageModel: {trainLength: number, runs: {name, eval: {length, perplexity, loss, loss_se?}[], bySeed?: object[]}[]}}} result */
export function render(element, result) {
  const { trainLength } = result.languageModel;
  const runs = result.languageModel.runs.filter((r) => r.eval.length);  // while they train: the arms whose test ended
  if (!runs.length) throw nothingYet();  // a partial result before any test ended: the figure before it stays
  const theme = themeOf(element);
  const lengths = runs[0].eval.map((e) => e.length);
  const spread = runs.some((r) => r.bySeed?.length > 1);
  element.replaceChildren(curveChart({
    theme, width: figureWidth(element), height: 340, dots: true,
    series: runs.map((r) => ({ name: r.name, band: true, points: pointsOf(r) })),
    x: { label: 'evaluation length (characters, log scale) →', type: 'log', ticks: lengths, tickFormat: (d) => String(d) },
    y: { label: `↑ validation perplexity (per character${spread ? ', mean over seeds' : ''}, log scale)`, type: 'log' },
    channels: { 'loss (nats per character)': 'loss', 'band low': 'lo', 'band high': 'hi', ...(spread ? { 'sd over seeds': 'sd', seeds: 'n' } : {}) },
    marks: [Plot.ruleX([trainLength], { stroke: theme.accent, strokeDasharray: '5,4' }),
      Plot.text([`L_train = ${trainLength}`], { x: trainLength, frameAnchor: 'top', dx: 4, dy: 4, textAnchor: 'start', fill: theme.accent, fontSize: 11 })],
  }), el('p', { class: 'note band-note' }, [bandNote(runs)]));
}

/** The CSV table: one row per encoding and evaluation length (with seeds: per seed, and a seed column). */
export function table(result) {
  const runs = result.languageModel.runs.filter((r) => r.eval.length);
  if (runs.some((r) => r.bySeed?.length > 1)) {
    const rows = runs.flatMap((r) => r.bySeed.flatMap((s) => s.eval.map((e) => [r.name, s.seed, e.length, e.perplexity, e.loss, e.accuracy])));
    return { columns: ['encoding', 'seed', 'eval_length', 'perplexity', 'loss_nats', 'next_char_accuracy'], rows: rows.length, row: (k) => rows[k] };
  }
  const rows = runs.flatMap((r) => r.eval.map((e) => [r.name, e.length, e.perplexity, e.loss, e.accuracy]));
  return { columns: ['encoding', 'eval_length', 'perplexity', 'loss_nats', 'next_char_accuracy'], rows: rows.length, row: (k) => rows[k] };
}
