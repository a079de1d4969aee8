// The language models' training and validation loss against the step: the
// training loss of each step's 16 windows (a running mean over 20 steps) and the
// validation loss at L_train every few steps (dots: 8 fixed held-out windows).
import { curveChart } from '../lib/curves.js';
import { figureWidth } from '../lib/size.js';
import { themeOf } from '../lib/theme.js';
import { runningMean } from '../lib/running-mean.js';
import { nothingYet } from '../lib/partial.js';

export const id = 'lm-loss';
export const title = 'Training and validation loss per encoding';
export const caption = 'Solid: the training loss (cross-entropy of each step’s 16 windows of L_train characters, natural log, as ' +
  'a running mean over 20 steps). Dotted, with dots: the loss on 8 fixed held-out windows of L_train characters every ' +
  'few steps (a cheap sample; the perplexity plot reads 65,536 characters of it at each length). ' +
  'ln(vocabulary) is guessing; the two curves together show how fast each encoding learns and whether it overfits. ' +
  '(RoPE with a scaling at test time trains the rope model again: not drawn twice. With several seeds: the first seed’s ' +
  'model.) While the arms train, each curve grows as its arm trains.';
export const needs = ['languageModel'];

/** @param {{languageModel: {runs: {name, loss: Float32Array, validation: {step, loss}[], retrained: boolean}[]}}} result */
export function render(element, result) {
  const runs = result.languageModel.runs.filter((r) => !r.retrained && r.loss.length);
  if (!runs.length) throw nothingYet();
  const theme = themeOf(element);
  element.replaceChildren(curveChart({
    theme, width: figureWidth(element), height: 320,
    series: runs.flatMap((r) => [
      { name: r.name, points: runningMean(r.loss, 20) },
      { name: `${r.name} (validation)`, short: `${r.name} val`, like: r.name, dots: true,
        points: r.validation.map((v) => ({ x: v.step, y: v.loss })) },
    ]),
    x: { label: 'training step →' },
    y: { label: '↑ loss (nats per character)' },
    channels: { 'this step': 'raw' },
  }));
}

/** The CSV table: one row per step, each encoding's training loss and (at the steps it was measured) validation loss. */
export function table(result) {
  const runs = result.languageModel.runs.filter((r) => !r.retrained && r.loss.length);
  const rows = Math.max(...runs.map((r) => r.loss.length));
  const at = runs.map((r) => new Map(r.validation.map((v) => [v.step, v.loss])));
  return { columns: ['step', ...runs.flatMap((r) => [`${r.name} train`, `${r.name} validation`])], rows,
    row: (s) => [s + 1, ...runs.flatMap((r, k) => [s < r.loss.length ? r.loss[s] : '', at[k].get(s + 1) ?? ''])] };
}
