// The extrapolation plot: for each encoding, the accuracy of its trained model
// against the test length (log axis), with the training length marked.
import * as Plot from '@observablehq/plot';
import { curveChart } from '../lib/curves.js';
import { figureWidth } from '../lib/size.js';
import { themeOf } from '../lib/theme.js';
import { nothingYet } from '../lib/partial.js';

export const id = 'train-extrapolation';
export const title = 'Train short, test long: accuracy against length';
export const caption = 'Each encoding’s model, trained at L_train (the dashed rule) and tested on fresh sequences of ' +
  '1, 2, 4 and 8 times that length without retraining. A flat curve extrapolates; a falling one has learned positions ' +
  'only up to the length it saw. “rope + PI” and the like: the RoPE model, tested with that scaling by 8 (applied at every ' +
  'test length, which is why it can cost accuracy at L_train too). An arm below 0.9 at L_train did not learn the task: it is drawn ' +
  'faint and named so. Toy models, one seed: run other seeds before reading much into small gaps. While the arms train, each ' +
  'curve appears once its arm’s test has ended.';
export const needs = ['experiment'];

/**
 * The accuracy at L_train below which an arm has not learned the task: its curve past L_train says nothing about
 * extrapolation. (A copy or induction head that learned reaches 0.97-1.00 at L_train in the default experiment; those
 * that did not stay near chance, 0.1-0.5.)
 */
export const LEARNED = 0.9;

/**
 * The arms that did not learn the task at L_train: those trained with their own encoding below LEARNED there, and the
 * scalings applied at test time to a model that did not learn (r.repeats: the arm whose training they repeat). A
 * scaling of a model that did learn is not one of them, whatever its accuracy at L_train: that is the scaling's cost.
 * @returns {Map<string, number>}  name -> its own accuracy at L_train
 */
export function notLearned({ trainLength, runs }) {
  const out = new Map();
  const at = (r) => r.eval.find((e) => e.length === trainLength)?.accuracy;
  for (const r of runs) if (!r.retrained && at(r) !== undefined && at(r) < LEARNED) out.set(r.name, at(r));
  for (const r of runs) if (r.retrained && out.has(r.repeats) && at(r) !== undefined) out.set(r.name, at(r));
  return out;
}

/** @param {{experiment: {trainLength: number, runs: {name, eval: {length, accuracy, loss}[], retrained: boolean, repeats: string|null}[]}}} result */
export function render(element, result) {
  const { trainLength } = result.experiment;
  const runs = result.experiment.runs.filter((r) => r.eval.length);  // while they train: the arms whose test ended
  const theme = themeOf(element);
  const failed = notLearned(result.experiment);
  const nameOf = (r) => (failed.has(r.name) ? `${r.name} (did not learn: ${failed.get(r.name).toFixed(2)} at L_train)` : r.name);
  const note = document.createElement('p');
  note.className = 'note learned-note';
  if (failed.size) {
    note.textContent = `Drawn faint: ${[...failed.keys()].join(', ')}, below ${LEARNED} accuracy at L_train = ${trainLength}. ` +
      'They did not learn the task at the length they were trained on, so their fall beyond it says nothing about extrapolation.';
  }
  if (!runs.length) throw nothingYet();  // a partial result before any test ended: the figure before it stays
  element.replaceChildren(curveChart({
    theme, width: figureWidth(element), height: 320, dots: true,
    series: runs.map((r) => ({ name: nameOf(r), faded: failed.has(r.name),
      points: r.eval.map((e) => ({ x: e.length, y: e.accuracy, loss: e.loss })) })),
    x: { label: 'test length (tokens, log scale) →', type: 'log', ticks: runs[0].eval.map((e) => e.length), tickFormat: (d) => String(d) },
    y: { label: '↑ accuracy (share of answers right)', domain: [0, 1] },
    channels: { 'mean loss': 'loss' },
    marks: [Plot.ruleX([trainLength], { stroke: theme.accent, strokeDasharray: '5,4' }),
      Plot.text([`L_train = ${trainLength}`], { x: trainLength, frameAnchor: 'bottom', dx: 4, dy: -4, textAnchor: 'start', fill: theme.accent, fontSize: 11 })],
  }), note);
}

/** The CSV table: one row per encoding and test length. */
export function table(result) {
  const rows = result.experiment.runs.flatMap((r) => r.eval.map((e) => [r.name, e.length, e.accuracy, e.loss]));
  return { columns: ['encoding', 'test_length', 'accuracy', 'mean_loss'], rows: rows.length, row: (k) => rows[k] };
}
