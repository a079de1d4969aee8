// Training loss curves: each encoding's cross-entropy per step while it learns the
// task at L_train (a running mean over 20 steps, each step one random sequence);
// DroPE's curve goes on past the last step, where its encoding is dropped.
import * as Plot from '@observablehq/plot';
import { curveChart } from '../lib/curves.js';
import { figureWidth } from '../lib/size.js';
import { themeOf } from '../lib/theme.js';
import { runningMean } from '../lib/running-mean.js';
import { nothingYet } from '../lib/partial.js';

export const id = 'train-loss';
export const title = 'Training loss per encoding';
export const caption = 'The cross-entropy of each step’s sequences (their mean, with a mini-batch; natural log; ln(vocab) is guessing), as a running mean over ' +
  '20 steps: how fast, and whether, each encoding’s model learns the task at its training length. (The RoPE scaling arms ' +
  'train the rope model again, step for step, so only rope is drawn.) DroPE trains the rope model too, then goes on past the ' +
  'dashed rule without its encoding: the jump there is what dropping RoPE costs, the rest of its curve how much recalibration wins back. ' +
  'While the arms train, each curve grows as its arm trains.';
export const needs = ['experiment'];

const WINDOW = 20;

/** @param {{experiment: {steps: number, runs: {name, loss: Float32Array, retrained: boolean, recalibrationSteps: number}[]}}} result */
export function render(element, result) {
  const { steps } = result.experiment;
  const runs = result.experiment.runs.filter((r) => !r.retrained && r.loss.length);
  if (!runs.length) throw nothingYet();
  const theme = themeOf(element);
  const recalibrated = runs.some((r) => r.recalibrationSteps > 0);
  element.replaceChildren(curveChart({
    theme, width: figureWidth(element), height: 300,
    series: runs.map((r) => ({ name: r.name, points: runningMean(r.loss, WINDOW) })),
    x: { label: 'training step →' },
    y: { label: '↑ loss (nats, running mean of 20 steps)' },
    channels: { 'this step': 'raw' },
    marks: recalibrated ? [Plot.ruleX([steps + 0.5], { stroke: theme.accent, strokeDasharray: '5,4' }),
      Plot.text(['DroPE: RoPE dropped'], { x: steps + 0.5, frameAnchor: 'top', dx: -4, dy: 4,
        textAnchor: 'end', fill: theme.accent, fontSize: 11 })] : [],
  }));
}

/** The CSV table: one row per step, each encoding's loss (blank after its last step). */
export function table(result) {
  const runs = result.experiment.runs.filter((r) => !r.retrained && r.loss.length);
  const rows = Math.max(...runs.map((r) => r.loss.length));
  return { columns: ['step', ...runs.map((r) => r.name)], rows, row: (s) => [s + 1, ...runs.map((r) => (s < r.loss.length ? r.loss[s] : ''))] };
}
