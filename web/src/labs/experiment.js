// The experiment: train short, test long. For each encoding, one small attention
// model (train() in the core: one or two layers, Adam, float64) learns a task at
// train_length and is evaluated at 1, 2, 4 and 8 times that length; the RoPE model
// also with a context-extension scaling it was not trained with, and with DroPE
// (its encoding dropped after training, then recalibrated without it). The training
// runs in the engine's worker a chunk of steps at a time (a job: progress, Cancel).
import { FAMILY_TYPES } from '../describe.js';
import { badParam } from '../errors.js';
import { dropeSteps } from './drope.js';
import { scheduleOf, stepsOf } from './schedule.js';
import { SCALING_ARMS, ropeScalings } from './rope-scalings.js';
import { mapJob } from '../lib/map-job.js';

export const formula = 'Each encoding trains its own small attention model on the task at L_train, then is tested on ' +
  'longer sequences without retraining: the question every positional encoding is asked (ALiBi’s “train short, test long”).';

// The families train() trains: every one, in the core's order.
export const TRAINED = FAMILY_TYPES;

/** The arm names of the RoPE scalings applied at test time, and of DroPE (armsOf). */
export { SCALING_ARMS };
export const DROPE_ARM = 'rope → DroPE';


export const parameters = [
  { name: 'task', view: true, kind: 'choice', default: 'copy', choices: ['copy', 'induction', 'first_marker'], label: 'task',
    choiceLabels: { copy: 'copy: the previous token', induction: 'induction: what followed this token last time',
      first_marker: 'first_marker: where the first marker (token 0) was' } },
  { name: 'layers', view: true, kind: 'int', default: 1, min: 1, max: 2, label: 'attention layers',
    help: 'Induction needs two: one layer to find the previous occurrence, one to read what followed it.' },
  { name: 'train_length', view: true, kind: 'int', default: 32, min: 2, max: 128, sliderMax: 128, label: 'training length L_train (tokens)' },
  { name: 'sequences', view: true, kind: 'int', default: 9600, min: 1, max: 256000, sliderMax: 64000, log: true,
    label: 'training budget (sequences)',
    help: 'How many training sequences each model sees: the steps are this divided by the sequences per step. The default ' +
      '(600 steps of 16) teaches induction to two layers with RoPE, learned or sinusoidal positions (accuracy ≥ 0.95 at L_train).' },
  { name: 'batch_size', view: true, kind: 'int', default: 16, min: 1, max: 64, sliderMax: 64, label: 'sequences per step (mini-batch)',
    help: 'Each step averages the gradient over this many fresh sequences. One sequence per step is too noisy a gradient ' +
      'for two layers to find the induction head.' },
  { name: 'lr', view: true, kind: 'number', default: 0.01, min: 1e-5, max: 1, sliderMin: 1e-4, sliderMax: 0.1, log: true,
    label: 'peak learning rate (Adam)',
    help: 'Reached after a linear warm-up over the first tenth of the steps (at most 20), then lowered along a half cosine ' +
      'to a tenth of it at the last step; each step’s gradient is clipped to norm 1.' },
  { name: 'd_model', view: true, kind: 'int', default: 32, min: 2, max: 64, sliderMax: 64, label: 'd_model' },
  { name: 'vocab', view: true, kind: 'int', default: 16, min: 2, max: 64, sliderMax: 64, label: 'vocabulary size' },
  { name: 'seed', view: true, kind: 'int', default: 0, min: 0, max: 1e9, sliderMax: 100, label: 'seed (data and initialisation)' },
  { name: 'rope_scalings', view: true, kind: 'bool', default: true, label: 'RoPE scalings at test time',
    help: 'The RoPE model again, tested with PI, NTK, YaRN and llama3 scaling by 8 = the longest test length / L_train, without retraining.' },
  { name: 'drope', view: true, kind: 'bool', default: true, label: 'DroPE: RoPE dropped, then recalibrated',
    help: 'The RoPE model again, then its encoding dropped and steps / 4 more steps of training without any (Gelberg et al. 2025, ' +
      '“Extending the Context of Pretrained LLMs by Dropping Their Positional Embeddings”); tested without an encoding.' },
  { name: 'map_arm', view: true, kind: 'choice', default: 'rope', choices: [...TRAINED, DROPE_ARM, ...SCALING_ARMS],
    label: 'trained attention of', help: 'The model whose attention weights the trained-attention view draws.' },
];

/**
 * The arms of the experiment: each trained family, (drope) the RoPE model recalibrated without its
 * encoding for dropeSteps(steps) more steps, and (rope_scalings) RoPE evaluated with a
 * context-extension scaling by 8 that it was not trained with.
 * @returns {{name: string, encoding: object, eval_encoding?: object, recalibration_steps?: number, repeats?: string}[]}
 *   repeats: the arm whose training a test-time scaling's arm repeats (the same seed trains the same model)
 */
export function armsOf(params) {
  const L = params.train_length;
  const scalings = ropeScalings(L);
  return [
    ...TRAINED.map((type) => ({ name: type, encoding: { type } })),
    ...(params.drope ? [{ name: DROPE_ARM, encoding: { type: 'rope' }, recalibration_steps: dropeSteps(stepsOf(params)) }] : []),
    ...(params.rope_scalings ? Object.entries(scalings).map(([name, scaling]) => ({
      name, encoding: { type: 'rope' }, eval_encoding: { type: 'rope', rope_scaling: scaling }, repeats: 'rope' })) : []),
  ];
}


/**
 * The experiment's result fields (lazy getters), each a job of the engine's (engine/lab-jobs.js experiment):
 * one training of every arm, shared by the views through the engine's cache.
 * experiment: {trainLength, steps, runs: [{name, loss: Float32Array(steps + recalibrationSteps), eval: [{length, accuracy,
 *   loss}], retrained: boolean, repeats: string|null, recalibrationSteps: number}]}, one per arm (while it trains, the job's partial values: the
 *   arms finished and those training, with running: true, their loss so far and no eval);
 * trainedMaps: {arm, trainLength, maps: [{length, tokens: Int32Array, targets: Int32Array, weights: Float32Array(length²)[]}]}:
 *   map_arm's trained attention weights, one per layer, at L_train and 4 x L_train (row-major [query i, key j]).
 */
export function fields(engine, params) {
  // Every parameter is read here, not in the jobs: the engine records what a field reads while its getter runs.
  const train = () => engine.experiment(params.task, params.layers, params.train_length, stepsOf(params), params.d_model, params.vocab,
    params.seed, params.batch_size, params.lr, armsOf(params), scheduleOf(stepsOf(params)));
  return {
    get experiment() {
      const trainLength = params.train_length;
      const steps = stepsOf(params);
      return mapJob(train(), (runs) => ({ trainLength, steps, runs: runs.map(({ maps, ...run }) => run) }));
    },
    get trainedMaps() {
      const arm = params.map_arm;
      const names = armsOf(params).map((a) => a.name);
      if (!names.includes(arm)) {
        const why = arm === DROPE_ARM ? ' (turn DroPE on)' : SCALING_ARMS.includes(arm) ? ' (turn the RoPE scalings on)' : '';
        throw badParam('map_arm', JSON.stringify(arm), `an arm of this experiment${why}: one of ${names.join(', ')}`);
      }
      const trainLength = params.train_length;
      return mapJob(train(), (runs) => ({ arm, trainLength, maps: runs.find((r) => r.name === arm).maps }), { partial: false });
    },
  };
}

export const views = ['train-extrapolation', 'train-loss', 'train-attention'];
