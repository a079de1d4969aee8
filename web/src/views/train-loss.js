// Training loss curves: each encoding's cross-entropy per step while it learns the
// task at L_train (a running mean over 20 steps, each step one random sequence).
import { curveChart } from '../lib/curves.js';
import { figureWidth } from '../lib/size.js';
import { themeOf } from '../lib/theme.js';

export const id = 'train-loss';
export const title = 'Training loss per encoding';
export const caption = 'The cross-entropy of each step’s sequence (natural log; ln(vocab) is guessing), as a running mean over ' +
  '20 steps: how fast, and whether, each encoding’s model learns the task at its training length. (The RoPE scaling arms ' +
  'train the rope model again, step for step, so only rope is drawn.)';
export const needs = ['experiment'];

const WINDOW = 20;

/** The running mean of the loss over the last WINDOW steps, one point per step. */
function smoothed(loss) {
  const points = [];
  let sum = 0;
  for (let s = 0; s < loss.length; s++) {
    sum += loss[s];
    if (s >= WINDOW) sum -= loss[s - WINDOW];
    points.push({ x: s + 1, y: sum / Math.min(s + 1, WINDOW), raw: loss[s] });
  }
  return points;
}

/** @param {{experiment: {runs: {name, loss: Float32Array}[]}}} result */
export function render(element, result) {
  const runs = result.experiment.runs.filter((r) => !r.retrained);
  element.replaceChildren(curveChart({
    theme: themeOf(element), width: figureWidth(element), height: 300,
    series: runs.map((r) => ({ name: r.name, points: smoothed(r.loss) })),
    x: { label: 'training step →' },
    y: { label: '↑ loss (nats, running mean of 20 steps)' },
    channels: { 'this step': 'raw' },
  }));
}

/** The CSV table: one row per step, each encoding's loss. */
export function table(result) {
  const runs = result.experiment.runs.filter((r) => !r.retrained);
  return { columns: ['step', ...runs.map((r) => r.name)], rows: runs[0].loss.length, row: (s) => [s + 1, ...runs.map((r) => r.loss[s])] };
}
