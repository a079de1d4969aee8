// The experiment: train short, test long. For each trained encoding, one small
// attention model (train() in the core: one or two layers, Adam, float64) learns a
// task at train_length and is evaluated at 1, 2, 4 and 8 times that length.
export const label = 'train short, test long (experiment)';
export const formula = 'Each encoding trains its own small attention model on the task at L_train, then is tested on ' +
  'longer sequences without retraining: the question every positional encoding is asked (ALiBi’s “train short, test long”).';

// The families train() can train so far, in the core's order.
export const TRAINED = ['none', 'sinusoidal', 'learned', 'rope', 'alibi', 't5'];

export const parameters = [
  { name: 'task', view: true, kind: 'choice', default: 'copy', choices: ['copy', 'induction', 'first_marker'], label: 'task',
    choiceLabels: { copy: 'copy: the previous token', induction: 'induction: what followed this token last time',
      first_marker: 'first_marker: where the first marker (token 0) was' } },
  { name: 'layers', view: true, kind: 'int', default: 1, min: 1, max: 2, label: 'attention layers',
    help: 'Induction needs two: one layer to find the previous occurrence, one to read what followed it.' },
  { name: 'train_length', view: true, kind: 'int', default: 32, min: 2, max: 128, sliderMax: 128, label: 'training length L_train (tokens)' },
  { name: 'steps', view: true, kind: 'int', default: 400, min: 1, max: 4000, sliderMax: 2000, log: true, label: 'training steps (one sequence each)' },
  { name: 'd_model', view: true, kind: 'int', default: 32, min: 2, max: 64, sliderMax: 64, label: 'd_model' },
  { name: 'vocab', view: true, kind: 'int', default: 16, min: 2, max: 64, sliderMax: 64, label: 'vocabulary size' },
  { name: 'seed', view: true, kind: 'int', default: 0, min: 0, max: 1e9, sliderMax: 100, label: 'seed (data and initialisation)' },
  { name: 'rope_scalings', view: true, kind: 'bool', default: true, label: 'RoPE scalings at test time',
    help: 'The RoPE model again, tested with PI, NTK, YaRN and llama3 scaling by 8 = the longest test length / L_train, without retraining.' },
];

/**
 * The arms of the experiment: each trained family, and (rope_scalings) RoPE evaluated with a
 * context-extension scaling by 8 that it was not trained with.
 */
export function armsOf(params) {
  const L = params.train_length;
  const scalings = {
    'rope + PI': { rope_type: 'linear', factor: 8 },
    'rope + NTK': { rope_type: 'ntk', factor: 8 },
    'rope + YaRN': { rope_type: 'yarn', factor: 8, original_max_position_embeddings: L },
    'rope + llama3': { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: L },
  };
  return [
    ...TRAINED.map((type) => ({ name: type, encoding: { type } })),
    ...(params.rope_scalings ? Object.entries(scalings).map(([name, scaling]) => ({
      name, encoding: { type: 'rope' }, eval_encoding: { type: 'rope', rope_scaling: scaling } })) : []),
  ];
}

/**
 * The experiment's result fields (lazy getters).
 * experiment: {trainLength, runs: [{name, loss: Float32Array(steps), eval: [{length, accuracy, loss}]}]}, one per arm.
 */
export function fields(engine, params) {
  return {
    get experiment() {
      return { trainLength: params.train_length, runs: engine.experiment(params.task, params.layers, params.train_length, params.steps,
        params.d_model, params.vocab, params.seed, armsOf(params)) };
    },
  };
}

export const views = ['train-extrapolation', 'train-loss'];
