// Press et al.'s Figure 1 in the page: each encoding's language model, trained at
// L_train, read at L_train / 4 to 8 x L_train on held-out text; validation
// perplexity against the evaluation length (log axes), the training length marked.
import * as Plot from '@observablehq/plot';
import { curveChart } from '../lib/curves.js';
import { figureWidth } from '../lib/size.js';
import { themeOf } from '../lib/theme.js';

export const id = 'lm-extrapolation';
export const title = 'Train short, test long: perplexity against length';
export const caption = 'Each encoding’s character-level model, trained on windows of L_train characters (the dashed rule), ' +
  'then run over windows of the held-out last tenth of the book from L_train / 4 to 8 × L_train, without retraining ' +
  '(Press et al. 2022, Figure 1). Perplexity: exp of the mean cross-entropy per character, over every character of the ' +
  'held-out part: ' +
  'lower is better. A curve that stays flat past L_train extrapolates; one that climbs has met positions it never saw. ' +
  'Short windows cost every model some perplexity (less context). One seed, tiny models: a small gap is noise.';
export const needs = ['languageModel'];

/** @param {{languageModel: {trainLength: number, runs: {name, eval: {length, perplexity, loss}[]}[], corpus: object}}} result */
export function render(element, result) {
  const { trainLength, runs } = result.languageModel;
  const theme = themeOf(element);
  const lengths = runs[0].eval.map((e) => e.length);
  element.replaceChildren(curveChart({
    theme, width: figureWidth(element), height: 340, dots: true,
    series: runs.map((r) => ({ name: r.name, points: r.eval.map((e) => ({ x: e.length, y: e.perplexity, loss: e.loss })) })),
    x: { label: 'evaluation length (characters, log scale) →', type: 'log', ticks: lengths, tickFormat: (d) => String(d) },
    y: { label: '↑ validation perplexity (per character, log scale)', type: 'log' },
    channels: { 'loss (nats per character)': 'loss' },
    marks: [Plot.ruleX([trainLength], { stroke: theme.accent, strokeDasharray: '5,4' }),
      Plot.text([`L_train = ${trainLength}`], { x: trainLength, frameAnchor: 'top', dx: 4, dy: 4, textAnchor: 'start', fill: theme.accent, fontSize: 11 })],
  }));
}

/** The CSV table: one row per encoding and evaluation length. */
export function table(result) {
  const rows = result.languageModel.runs.flatMap((r) => r.eval.map((e) => [r.name, e.length, e.perplexity, e.loss, e.accuracy]));
  return { columns: ['encoding', 'eval_length', 'perplexity', 'loss_nats', 'next_char_accuracy'], rows: rows.length, row: (k) => rows[k] };
}
