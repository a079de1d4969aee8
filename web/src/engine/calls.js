// The worker side of the engine: the only code that calls the wasm module.
// createCalls wraps the module's functions and remembers the last few results
// of each, so the views of one change share their work (five attention views,
// one attention call). createServer answers the page's requests (engine.js)
// in order, one at a time, yielding between them so a newer request for the
// same view can replace a queued older one; it runs in the worker
// (engine/worker.js), or on the page itself where no worker can start.
import { CORE_FAMILIES, COMPUTE_NAMES, computeOf, loadCompute, trainedNeeds } from '../families/compute.js';
import { TRAINED_TYPES, loadTrained, trainedOf } from '../families/trained.js';
import { createComparison } from '../families/comparison.js';
import { badParam } from '../errors.js';
import { seededRandom } from '../lib/random.js';
import { attachPreviews } from '../lib/box-average.js';
import { tracking } from '../lib/reads.js';
import { detach } from './detach.js';
import { needsFullModule } from './modules.js';

/** Bytes of the typed arrays and strings in value (each counted once; a string's characters at 2 bytes each). */
function bytesOf(value, seen = new Set()) {
  if (ArrayBuffer.isView(value)) return value.byteLength;
  if (typeof value === 'string') return 2 * value.length;
  if (value === null || typeof value !== 'object' || seen.has(value)) return 0;
  seen.add(value);
  let bytes = 0;
  for (const v of Object.values(value)) bytes += bytesOf(v, seen);
  return bytes;
}

/**
 * The results the calls remember, all calls together: each call keeps its last `size` values, and all of them
 * hold at most `maxBytes` of typed arrays and strings, their keys included (the arguments' JSON: a pasted config's
 * text, a sentence), the least recently used dropped first (the newest value is kept whatever its size: the views of
 * one change share it). Without the byte bound a long session kept the last four [4096, 4096] similarity matrices
 * (256 MiB) and twelve 2048-token attention heads after they were drawn, and the texts of the last four pasted
 * configs and eight sentences as keys.
 */
function resultStore(maxBytes) {
  const order = new Map();  // entry -> its bytes, least recently used first, over every call's cache
  let total = 0;
  const drop = (entry) => {
    total -= order.get(entry);
    order.delete(entry);
    entry.cache.delete(entry.key);
  };
  return {
    /** Bytes of typed arrays held now. */
    bytes: () => total,
    /** One call's cache: its last `size` values by key. */
    cache(size) {
      const cache = new Map();  // key -> {key, value, cache}, oldest first
      return {
        has: (key) => cache.has(key),
        get(key) {
          const entry = cache.get(key);
          cache.delete(key);
          cache.set(key, entry);
          const bytes = order.get(entry);
          order.delete(entry);
          order.set(entry, bytes);
          return entry.value;
        },
        set(key, value) {
          const entry = { key, value, cache };
          const bytes = bytesOf(value) + bytesOf(key);
          cache.set(key, entry);
          order.set(entry, bytes);
          total += bytes;
          if (cache.size > size) drop(cache.values().next().value);
          for (const oldest of order.keys()) {
            if (total <= maxBytes || oldest === entry) break;
            drop(oldest);
          }
        },
      };
    },
  };
}

/** fn with its last `size` values remembered by arguments (JSON), in `store` (resultStore). */
function memoizeStored(store, fn, size = 4) {
  const cache = store.cache(size);
  return (...args) => {
    const key = JSON.stringify(args);
    if (cache.has(key)) return cache.get(key);
    const value = fn(...args);  // a throw caches nothing
    cache.set(key, value);
    return value;
  };
}

/**
 * memoize for a job: a generator function that yields progress and returns its value (createServer
 * runs it a slice at a time). A remembered value returns at once, without yielding; a job stopped
 * before its end (the server calls return()) or failing remembers nothing.
 */
function memoizeJobStored(store, job, size = 4) {
  const cache = store.cache(size);
  return function* memoized(...args) {
    const key = JSON.stringify(args);
    if (cache.has(key)) return cache.get(key);
    const value = yield* job(...args);
    cache.set(key, value);
    return value;
  };
}

/** The seeds engine.trainedHead tries, in turn, for a head that learns its task. */
const HEAD_SEEDS = 4;

/** Whether two train requests train the same model (they may differ in what they evaluate). */
function sameTraining(a, b) {
  const trainingOf = (r) => JSON.stringify(Object.entries(r).filter(([k]) => !['eval_lengths', 'eval_examples', 'eval_characters',
    'samples', 'sample_length', 'validation_every', 'task', 'text', 'encoding'].includes(k)).sort(([x], [y]) => (x < y ? -1 : 1)));
  return trainingOf(a) === trainingOf(b);
}

/** Bytes of typed arrays and strings (keys included) all the memoised calls of one instance keep between requests (resultStore). */
export const CACHE_BYTES = 64 * 2 ** 20;

/** Steps of train() between two progress reports (and chances to stop): ~10 ms at the default sizes. */
const TRAIN_CHUNK = 25;

// The decay comparison's reference curves, one per family (families/comparison.js).
const COMPARISON = createComparison(CORE_FAMILIES);

/**
 * The wasm module's calls as the families use them, memoised.
 * @param {object} pe  the instantiated module (createPosenc())
 * @param {{corpus?: () => Promise<string>, spawnArm?: () => Worker}} [options]  the shipped corpus's text (the
 *   language-model lab; absent: that lab's views say so) and a new arm worker (engine/arm-worker.js; absent: arms
 *   train one after the other in this instance)
 */
export function createCalls(pe, { corpus = null, spawnArm = null } = {}) {
  const store = resultStore(CACHE_BYTES);
  const memoize = (fn, size) => memoizeStored(store, fn, size);
  const memoizeJob = (job, size) => memoizeJobStored(store, job, size);
  const rotary = memoize((spec, seqLen) => pe.ropeInvFreq(spec, seqLen));
  let corpusText = null;  // the shipped text, fetched once (a failed fetch is tried again next time)
  const loadCorpus = () => {
    corpusText ??= corpus().catch((error) => {
      corpusText = null;
      throw error;
    });
    return corpusText;
  };

  /**
   * pe.trainer(request), its work limits said as the experiment's controls: one step
   * (train_length) or the test at 1 to 8 x L_train (eval_lengths, no control of its own) above
   * the work of one call is named on the L_train control, with what to lower.
   */
  const explained = (error, request) => {
    if (error?.param !== 'eval_lengths' && error?.param !== 'train_length') return error;
    const what = error.param === 'eval_lengths' ? `testing at up to 8 × L_train = ${8 * request.train_length} tokens` : 'one training step';
    return badParam('train_length', request.train_length, `a training length whose work fits one call: with d_model ${request.d_model} ` +
      `and ${request.layers} layer${request.layers > 1 ? 's' : ''}, ${what} is too much (${error.message.replace(/^train \([a-z_]+\): /, '')}); ` +
      'lower L_train or d_model');
  };
  const trainerFor = (request) => {
    try {
      return pe.trainer(request);
    } catch (error) {
      throw explained(error, request);
    }
  };
  const calls = {
    /** The build's version string, e.g. "posenc 0.1.0 (wasm, SIMD on)". */
    version: () => pe.version(),

    /**
     * What the instance holds: its wasm memory and the typed arrays and strings its memoised calls keep (at most CACHE_BYTES,
     * and the newest value).
     * @returns {{wasmBytes: number, cachedBytes: number}}
     */
    memory: () => ({ wasmBytes: pe.HEAPU8.buffer.byteLength, cachedBytes: store.bytes() }),

    /**
     * The decay comparison with spec's curve in place of its family's reference (null: none of its own).
     * @returns {{comparison: {label, values: Float32Array, scale: number}[], currentLabel: string|null}}
     */
    comparison: (spec, maxDistance) => COMPARISON.comparison(calls, spec, maxDistance),

    /** Spec's decay curve as the comparison draws it, or null for a family without one. */
    curveOf: (spec, maxDistance) => COMPARISON.curveOf(calls, spec, maxDistance),

    /**
     * An absolute encoding's table and frequencies.
     * @param {object} spec  e.g. {type: 'sinusoidal', d_model, base, layout, timescales}
     * @param {number} n     positions 0..n-1
     * @returns {{spec, table: {data: Float32Array, rows, cols}, inv_freq: Float32Array,
     *   wavelength: Float32Array, sin_column: Int32Array, cos_column: Int32Array}}
     *   frequencies in radians per token, wavelengths in tokens, [d_model/2] each;
     *   sin_column[i] / cos_column[i] is the table column of pair i's sine / cosine
     * @throws {Error} the core's message naming the parameter, value and allowed range
     */
    absolute: memoize((spec, n) => ({ spec, table: pe.positionTable(spec, n), ...pe.positionFrequencies(spec) })),

    /**
     * A rotary spec's frequencies for a sequence of seqLen tokens (ropeInvFreq).
     * @returns {{inv_freq: Float32Array, attention_factor: number, logit_scale: number,
     *   head_dim: number, rotary_dim: number, first_column: Int32Array, second_column: Int32Array,
     *   ramp_low?: number, ramp_high?: number}}
     */
    rotary,

    /**
     * Llama 4's attention temperature (its NoPE layers, attn_temperature_tuning): the query at position p is scaled by
     * log1p(floor((p + 1) / floorScale)) * attnScale + 1 (attentionTemperature; the core's nope::attention_temperature).
     * @param {number} floorScale   tokens per step, in [1, 2^40] (Llama4TextConfig.floor_scale, 8192)
     * @param {number} attnScale    in [-1e6, 1e6] (attn_scale, 0.1)
     * @param {number} maxPosition  the last position drawn, an integer in [1, 2^40]
     * @returns {{positions: Float64Array, scale: Float32Array, sampled: boolean}} the step points: 0, each position
     *   where the scale steps up, maxPosition (at most 4096; sampled: more steps than that, some skipped)
     * @throws {RangeError} with .param 'floor_scale', 'attn_scale' or 'max_position'
     */
    temperature: memoize((floorScale, attnScale, maxPosition) => pe.attentionTemperature(floorScale, attnScale, maxPosition)),

    /**
     * M-RoPE: the position id that drives each rotary pair (mropePairAxes; Qwen2-VL sectioned, Qwen3-VL interleaved).
     * @param {number[]} sections    mrope_section [t, h, w], sum = head_dim / 2
     * @param {boolean} interleaved  mrope_interleaved (Qwen3-VL)
     * @returns {Int32Array} one per pair: 0 t, 1 h, 2 w
     * @throws {RangeError} with .param 'sections' or 'interleaved'
     */
    mropeAxes: memoize((sections, interleaved) => pe.mropePairAxes(sections, interleaved)),

    /**
     * M-RoPE's three position ids of textBefore text tokens, one gridH x gridW image and textAfter text tokens, as
     * Qwen2VLModel.get_rope_index (mropePositions).
     * @returns {{t: Int32Array, h: Int32Array, w: Int32Array, kind: Int32Array}} n = textBefore + gridH * gridW + textAfter
     *   each; kind 0 text, 1 image
     * @throws {RangeError} with .param 'textBefore', 'gridH', 'gridW' or 'textAfter'
     */
    mropePositions: memoize((textBefore, gridH, gridW, textAfter) => pe.mropePositions(textBefore, gridH, gridW, textAfter)),

    /**
     * The decay curves over distance 0..maxDistance (see the core's decay).
     * @returns {{distance: Float32Array, upper_bound: Float32Array, ones: Float32Array, random: Float32Array}}
     */
    decay: memoize((spec, maxDistance, seed = 0) => pe.decay(spec, maxDistance, seed), 16),

    /**
     * The first n rows of an absolute encoding's table (positionTable).
     * @returns {{data: Float32Array, rows: number, cols: number}}
     */
    table: memoize((spec, n) => pe.positionTable(spec, n)),

    /**
     * p_i . p_j or their cosine over positions 0..n-1 (positionSimilarity).
     * @param {'dot'|'cosine'} metric
     * @returns {{data: Float32Array, rows: number, cols: number}}
     */
    similarity: memoize((spec, n, metric) => ({ data: pe.positionSimilarity(spec, n, metric), rows: n, cols: n })),

    /**
     * A bias family's b(i, j) (attentionBias); -Infinity where masked.
     * @returns {{data: Float32Array, rows: number, cols: number}}
     */
    bias: memoize((spec, n) => ({ data: pe.attentionBias(spec, n), rows: n, cols: n })),

    /**
     * ALiBi's slope of every head (alibiSlopes).
     * @returns {Float32Array}
     */
    alibiSlopes: memoize((nHeads) => pe.alibiSlopes(nHeads)),

    /**
     * ALiBi's heads: every head's slope, and the [n, n] bias of the first `shown` heads.
     * @returns {{slopes: Float32Array, maps: Float32Array[]}}
     */
    alibiHeads: memoize((n, nHeads, causal, shown = nHeads) => ({
      slopes: calls.alibiSlopes(nHeads),
      maps: Array.from({ length: Math.min(shown, nHeads) }, (_, h) => pe.alibiBias(n, nHeads, h, causal)),
    })),

    /**
     * One attention head over a sentence (attention(request)).
     * @returns {{tokens: string[], n: number, d_head: number, logits: Float32Array, weights: Float32Array,
     *   output: Float32Array, terms: object}}
     */
    attention: memoize((request) => pe.attention(request), 12),

    /**
     * T5's bucket of every relative position in [-span, span] (t5Bucket).
     * @returns {{positions: Int32Array, buckets: Int32Array}}
     */
    t5Buckets: memoize((bidirectional, numBuckets, maxDistance, span) => {
      const positions = Int32Array.from({ length: 2 * span + 1 }, (_, k) => k - span);
      return { positions, buckets: pe.t5Bucket(positions, bidirectional, numBuckets, maxDistance) };
    }),

    /**
     * DeBERTa's bucket of every relative position i - j (query minus key) in [-span, span]
     * (debertaRelativePosition, one column and one row).
     * @returns {{positions: Int32Array, buckets: Int32Array}}
     */
    debertaBuckets: memoize((positionBuckets, maxRelativePositions, span) => {
      const after = pe.debertaRelativePosition(span + 1, 1, positionBuckets, maxRelativePositions);  // i - 0 = 0 .. span
      const before = pe.debertaRelativePosition(1, span + 1, positionBuckets, maxRelativePositions);  // 0 - j = 0 .. -span
      const positions = Int32Array.from({ length: 2 * span + 1 }, (_, k) => k - span);
      const buckets = Int32Array.from(positions, (r) => (r >= 0 ? after[r] : before[-r]));
      return { positions, buckets };
    }),

    /**
     * CoPE counting what its gates fire on, in the typed sentence (cope()): a one-dimensional
     * head whose gates are set by hand, q_i = 1 and k_j = +8 on a counted token (sentence ends
     * . ! ?, or `word`), -8 elsewhere, so g_ij is 0.9997 or 0.0003 and p_ij counts the counted
     * tokens from key j to query i; position embeddings e[target] = 4, 0 elsewhere, so the
     * CoPE term is 4 on the keys whose count back is `target`.
     * @returns {{tokens: string[], counted: boolean[], n, target, gates, positions, bias: Float32Array(n * n)}}
     * @throws {RangeError} target outside [0, npos_max - 1]
     */
    copeCount: memoize((text, word, nposMax, target) => {
      if (!Number.isInteger(target) || target < 0 || target > nposMax - 1) {
        throw badParam('target', target, `an integer in [0, ${nposMax - 1}] (npos_max − 1: the largest count)`);
      }
      const { tokens } = pe.embedTokens(text, 1, 0);
      const n = tokens.length;
      const counted = tokens.map((t) => (word === null ? /^[.!?]$/.test(t) : t === word.toLowerCase()));
      const posEmb = new Float32Array(nposMax);
      posEmb[target] = 4;
      const maps = pe.cope({ q: new Float32Array(n).fill(1), k: Float32Array.from(counted, (c) => (c ? 8 : -8)),
        n, d_head: 1, npos_max: nposMax, pos_emb: posEmb });
      return { tokens, counted, countWord: word, n, target, ...maps };
    }),

    /**
     * Train short, test long (trainer()): for each arm, a model trained on `task` at trainLength (steps of batchSize
     * sequences each, Adam at peak learning rate lr, schedule: the request's {warmup_steps, lr_decay, grad_clip}) with
     * arm.encoding (then arm.recalibration_steps more steps without it: DroPE) and evaluated at 1, 2, 4
     * and 8 times trainLength, with arm.eval_encoding when it has one (a RoPE scaling applied at test time:
     * the same seed trains the same model again). A job (memoizeJob): in arm workers up to the cores the browser
     * reports (engine/arms.js), or here TRAIN_CHUNK sequences at a time, yielding its progress between chunks (with
     * workers: {done, total, label}); stopped, it frees the trainers and workers it holds.
     * @param {{name: string, encoding: object, eval_encoding?: object, recalibration_steps?: number}[]} arms
     * @yields {{done: number, total: number, label: string, arm?: {name: string, index: number, count: number, done: number,
     *   total: number}, partial?: object[], partialNote?: string}}
     *   steps done of all arms' total, and (here) of the arm in training (index from 0), the same again between the arm's
     *   evaluation units; label: the arms in training, those done and the time left (arms.js timeLeft); now and then
     *   (arms.js partialGate), partial: the runs so far in the returned value's shape (those finished, and those training
     *   with their loss so far, eval and maps empty and running: true) and partialNote: "k of n arms finished"
     * @returns {{name: string, loss: Float32Array(steps + recalibration_steps), eval: {length, accuracy, loss}[],
     *   retrained: boolean, repeats: string|null, recalibrationSteps: number, maps: object[]}[]}
     *   retrained: an arm tested with another encoding, whose training repeats an earlier arm's (repeats: that arm's
     *   name, arm.repeats); maps: train()'s
     *   trained attention weights at trainLength and 4 x trainLength (the parameters are not kept)
     */
    experiment: memoizeJob(function* experiment(task, layers, trainLength, steps, dModel, vocab, seed, batchSize, lr, arms, schedule) {
      const requests = arms.map((arm) => ({ task, layers, train_length: trainLength, steps, d_model: dModel, vocab, seed,
        batch_size: batchSize, lr, ...schedule, encoding: arm.encoding, ...(arm.eval_encoding ? { eval_encoding: arm.eval_encoding } : {}),
        recalibration_steps: arm.recalibration_steps ?? 0, eval_lengths: [1, 2, 4, 8].map((f) => f * trainLength) }));
      const total = requests.reduce((sum, r) => sum + r.steps + r.recalibration_steps, 0);
      const runOf = (arm, index, result) => ({ name: arm.name, loss: result.loss, eval: result.eval, maps: result.maps,
        retrained: Boolean(arm.eval_encoding), repeats: arm.repeats ?? null, recalibrationSteps: requests[index].recalibration_steps });
      /** An arm in training, in the shape of runOf's, its loss so far (eval and maps empty). */
      const runningOf = (arm, index, loss) => ({ ...runOf(arm, index, { loss, eval: [], maps: [] }), running: true });
      const names = arms.map((a) => a.name);
      // The arm workers' driver (engine/arms.js), a module the labs' first request loads.
      const { trainInWorkers, workerCount, armsLabel, finishedOf, partialGate, timeLeft, timeLeftText } = yield { wait: import('./arms.js') };
      const count = spawnArm ? workerCount(arms.length) : 0;
      const gate = partialGate();
      /** The progress with, now and then (partialGate), the runs so far: those finished and those training (their loss so far). */
      const withPartial = (progress, finished, runsOf) => {
        if (!gate(finished)) return progress;
        const runs = runsOf();
        return runs.length ? { ...progress, partial: runs, partialNote: `${finished} of ${arms.length} arms finished` } : progress;
      };
      if (count > 0) {  // in arm workers, several at once; a bad request is refused here first, in the page's terms
        trainerFor(requests[0]).free();
        const progressOf = (states, { curves, outcomes }) => {
          const steps = (s, k) => (s.phase === 'train' ? s.done : s.phase === 'queued' ? 0 : requests[k].steps + requests[k].recalibration_steps);
          const runs = () => arms.flatMap((arm, k) => (outcomes[k] ? [runOf(arm, k, outcomes[k].result)]
            : curves[k].length ? [runningOf(arm, k, curves[k].read().loss)] : []));
          return withPartial({ done: states.reduce((sum, s, k) => sum + steps(s, k), 0), total, label: armsLabel(names, states, count) },
            finishedOf(states), runs);
        };
        let outcomes;
        try {
          outcomes = yield* trainInWorkers(spawnArm, requests, count, progressOf);
        } catch (error) {
          throw explained(error, requests[0]);
        }
        return outcomes.map(({ result }, index) => runOf(arms[index], index, result));
      }
      const runs = [];
      let before = 0;  // steps of the arms already trained
      const started = performance.now();
      for (const [index, arm] of arms.entries()) {
        const trainer = trainerFor(requests[index]);
        let result;
        try {
          // The progress after a chunk: the arm in training, and the time left at the ms per step of all arms so far.
          // (the arms here train one after the other: every step so far, evaluations included, at one measured rate)
          const progress = () => {
            const left = timeLeftText(timeLeft([{ phase: 'train', done: before + trainer.done, total, steps: total, units: 0,
              trainMs: performance.now() - started }], 1));
            return withPartial({ done: before + trainer.done, total, arm: { name: arm.name, index, count: arms.length, done: trainer.done,
              total: trainer.total }, label: `training ${arm.name}: ${trainer.done} / ${trainer.total} steps (arm ${index + 1} of ` +
              `${arms.length}${left ? `; ${left}` : ''})` }, index, () => [...runs, runningOf(arm, index, trainer.losses().loss)]);
          };
          while (trainer.done < trainer.total) {
            // About TRAIN_CHUNK sequences a slice, and never more steps than one call's budget holds.
            trainer.step(Math.min(trainer.stepsPerCall, Math.max(1, Math.round(TRAIN_CHUNK / (batchSize ?? 1)))));
            yield progress();
          }
          // The evaluation a unit at a time: each fits one call's budget (trainer() checked), together they may not.
          while (trainer.evaluated < trainer.evaluationTotal) {
            trainer.evaluate(1);
            yield progress();
          }
          result = trainer.finish();
        } finally {
          trainer.free();  // after finish(): nothing; stopped between chunks: the model's memory
        }
        before += trainer.total;
        runs.push(runOf(arm, index, result));
      }
      return runs;
    }, 2),

    /**
     * The language-model lab (labs/language-model.js): for each arm, a small transformer trained on the shipped corpus
     * (`base`: the train request's model, schedule and lengths; task 'text') with arm.encoding, evaluated at `base`'s
     * eval_lengths (with arm.eval_encoding when it has one: a RoPE scaling at test time), its validation loss every
     * validation_every steps and its samples; with seeds > 1, every arm again at seeds base.seed + 1 ... (every arm at
     * one seed, then every arm at the next). A job: the text is fetched once, then the models train in arm workers up
     * to the cores the browser reports (engine/arms.js), or one after the other here. Stopped, it frees what it holds.
     * @param {object} base  a TrainRequest without task, text and encoding
     * @param {{name: string, encoding: object, eval_encoding?: object}[]} arms
     * @param {number} [seeds]  models per arm (1 to 5), at seeds base.seed, base.seed + 1, ...
     * @yields {{done: number, total: number, label: string, partial?: object[], partialNote?: string}}  the models'
     *   progress in thousandths of a model; label: the models in training, those done and the time left (arms.js
     *   armsLabel); now and then (arms.js partialGate), partial: the runs so far in the returned value's shape (an arm
     *   whose first seed is training: its loss and validation so far, eval and samples empty, running: true; one not
     *   started: absent), and partialNote: "k of n arms finished"
     * @returns {{name: string, loss: Float32Array, validation: {step, loss}[],
     *   eval: {length, accuracy, loss, perplexity, loss_se, windows, characters}[], samples: {prompt, generated}[],
     *   msPerStep: number, retrained: boolean, heads: object[], reproduces: boolean|null,
     *   bySeed?: {seed, loss, validation, eval, msPerStep}[]}[]}
     *   per arm, its first seed's model; heads: layer 0's trained heads' encodings (the family's explicit keys); reproduces:
     *   whether head 0 is the trained set the family's views show, bit for bit (null: other settings, or a family without
     *   one); bySeed (seeds > 1): each seed's model that finished, in seed order
     */
    languageModel: memoizeJob(function* languageModel(base, arms, seeds = 1) {
      if (!corpus) throw badParam('corpus', 'none', 'the shipped text, which this build of the engine has no way to load');
      const count = arms.length * seeds;
      const text = yield { progress: { done: 0, total: 1000 * count, label: 'loading the text…' }, wait: loadCorpus() };
      // Whether an arm trained the set the family's views show (families/trained.js) again, bit for bit: its settings are
      // the set's, and head 0 of layer 0 holds the same float32 numbers (the set's learned table is the first rows).
      const types = arms.map((a) => a.encoding.type).filter((t) => TRAINED_TYPES.includes(t));
      yield { progress: { done: 0, total: 1000 * count, label: 'loading the shipped parameters…' }, wait: loadTrained(types) };
      const reproduces = (arm, head) => {
        const shipped = trainedOf(arm.encoding.type);
        if (!shipped || arm.eval_encoding || !sameTraining(shipped.provenance.request, base)) return null;
        return Object.entries(shipped.spec).every(([key, value]) => (Array.isArray(value)
          ? Array.isArray(head[key]) && value.every((x, i) => x === head[key][i])
          : key === 'max_position_embeddings' || key === 'seed' || head[key] === undefined || head[key] === value));
      };
      // Model k: arm k % arms.length at seed base.seed + floor(k / arms.length).
      const requests = Array.from({ length: count }, (_, k) => {
        const arm = arms[k % arms.length];
        return { ...base, seed: base.seed + Math.floor(k / arms.length), task: 'text', text, encoding: arm.encoding,
          ...(arm.eval_encoding ? { eval_encoding: arm.eval_encoding } : {}) };
      });
      const names = requests.map((r, k) => (seeds > 1 ? `${arms[k % arms.length].name} (seed ${r.seed})` : arms[k % arms.length].name));
      /** The runs, one per arm whose first seed finished or is training (see @yields). */
      const runsOf = (outcomes, curves, states) => arms.flatMap((arm, a) => {
        const first = outcomes[a];
        const retrained = Boolean(arm.eval_encoding);
        if (!first) {
          if (states[a].phase !== 'train' && states[a].phase !== 'evaluate') return [];
          return [{ name: arm.name, retrained, ...curves[a].read(), eval: [], samples: [], msPerStep: NaN, heads: [], reproduces: null,
            running: true }];
        }
        const { result, msPerStep } = first;
        const bySeed = seeds > 1 ? Array.from({ length: seeds }, (_, s) => [requests[a + s * arms.length].seed, outcomes[a + s * arms.length]])
          .filter(([, o]) => o).map(([seed, o]) => ({ seed, loss: o.result.loss, validation: o.result.validation, eval: o.result.eval,
            msPerStep: o.msPerStep })) : null;
        return [{ name: arm.name, retrained, loss: result.loss, validation: result.validation, eval: result.eval, samples: result.samples,
          msPerStep, heads: result.params.layers[0].heads.map((h) => h.encoding),
          reproduces: reproduces(arm, result.params.layers[0].heads[0].encoding), ...(bySeed ? { bySeed } : {}) }];
      });
      const { trainHere, trainInWorkers, workerCount, armsLabel, finishedOf, partialGate } = yield { wait: import('./arms.js') };  // on first use
      const workers = spawnArm ? workerCount(count) : 0;
      const gate = partialGate();
      const progressOf = (states, { curves, outcomes }) => {
        // A model's share of the bar: 70% its steps, 30% its test (65,536 held-out characters at each length, then
        // the samples), as a default arm's time splits (quick, 600 steps, in Node: about 14 s and 6 s for every encoding).
        const fraction = (s) => (s.phase === 'done' ? 1 : s.phase === 'train' ? 0.7 * s.done / s.total
          : s.phase === 'evaluate' ? 0.7 + 0.3 * s.done / s.total : 0);
        const finished = finishedOf(states);
        const progress = { done: Math.round(1000 * states.reduce((sum, s) => sum + fraction(s), 0)), total: 1000 * count,
          label: armsLabel(names, states, Math.max(1, workers)) };
        const started = curves.some((c) => c.length > 0) || finished > 0;
        if (!started || !gate(finished)) return progress;
        return { ...progress, partial: runsOf(outcomes, curves, states),
          partialNote: `${finished} of ${count} ${seeds > 1 ? 'models' : 'arms'} finished` };
      };
      const outcomes = workers > 0 ? yield* trainInWorkers(spawnArm, requests, workers, progressOf) : yield* trainHere(pe, requests, progressOf);
      return runsOf(outcomes, null, null);
    }, 2),

    /**
     * A trained head for the attention lab: a one-layer model with the family's spec (its width
     * set to 32) trained on `task` as the experiment's defaults train it (L_train 32, 400 steps,
     * d_model 32, vocabulary 16), sized for sentences up to 128 tokens. A head this small can stall in a poor optimum
     * at one seed (RoPE on copy: accuracy 0.56-0.59 at 3 of seeds 0-7, however long it trains, 1.00 at the others), so
     * seeds 0, 1, ... up to HEAD_SEEDS are tried in turn: the first head that reaches 0.9 at L_train (a stalled one stays
     * near 0.56; ALiBi's heads learn to 0.89-0.95), else the best. A head takes about 125 ms in Node.
     * @returns {{vocab: number, d_model: number, E: Float32Array, embeddingScale: number, layer: {Wq, Wk, Wv: Float32Array,
     *   encoding: object}, accuracy: number, seed: number}}  E [vocab, d_model] (the model reads embeddingScale E: the
     *   core's params.embedding_scale) and W [d_model, d_model] row-major; encoding the layer's
     *   spec with its trained parameters; accuracy at L_train; seed the one it trained at
     */
    trainedHead: memoize((spec, task) => {
      const vocab = 16;
      let best = null;
      for (let seed = 0; seed < HEAD_SEEDS && !(best?.accuracy >= 0.9); seed++) {
        const r = pe.train({ task, encoding: spec, layers: 1, d_model: 32, vocab, train_length: 32, steps: 400, seed,
          eval_lengths: [32, 128], eval_examples: 4 });
        if (!best || r.eval[0].accuracy > best.accuracy) {
          best = { vocab, d_model: 32, E: r.params.E, embeddingScale: r.params.embedding_scale, layer: r.params.layers[0].heads[0],
            accuracy: r.eval[0].accuracy, seed };
        }
      }
      return best;
    }, 4),

    /**
     * A pasted config.json read into its family's spec (config/model-config.js readConfigText), here rather than
     * on the page's thread: a 12 MB paste takes a few hundred ms to parse. The reader is loaded on the first paste.
     * @returns {Promise<{spec, sliding, notes, used, unmodelled, ignored, ignoredCount}>}
     * @throws {Error} .param 'config'
     */
    readConfig: async (text) => (await import('../config/model-config.js')).readConfigText(text),

    /**
     * A pasted config.json's per-layer profile (config/profile-text.js profileFromText): which layers rotate and how, their
     * windows, NoPE layers and their temperature, M-RoPE's sections. A job: the reader is loaded on first use.
     * @returns {{read, num_hidden_layers: ?number, kinds: {name, spec, window, temperature, layers: number[]}[],
     *   layers: number[], mrope: ?{mrope_section: number[], mrope_interleaved: boolean}, notes: string[], model: string}}
     * @throws {Error} .param 'config'
     */
    profile: memoizeJob(function* profile(text) {
      const reader = yield { progress: { done: 0, total: 1, label: 'loading the config reader…' }, wait: import('../config/profile-text.js') };
      return reader.profileFromText(text);
    }, 4),

    /**
     * A GGUF file's header read into a config.json-like object (config/gguf.js): only the header's bytes are read
     * (Blob.slice), never a multi-GB file whole. The reader is loaded on first use.
     * @param {Blob} file
     * @returns {Promise<{config: object, keysRead: {key, value, mappedTo}[], notes: string[], ropeType: ?string}>}
     * @throws {Error} .param 'gguf': not a GGUF file, truncated, lengths past the end, a header over the cap
     */
    readGguf: async (file) => {
      const gguf = await import('../config/gguf.js');
      const header = await gguf.readGgufHeader(file);
      return gguf.configFromGguf(header.metadata, { tensorNames: header.tensorNames });
    },

    /**
     * A rope spec as transformers, llama.cpp and vLLM compute it, and where they differ (the core's ropeStacks).
     * @returns {ReturnType<import('../../wasm/posenc.d.ts').Posenc['ropeStacks']>}
     */
    stacks: memoize((spec, seqLen) => pe.ropeStacks(spec, seqLen), 16),

    /** The attention head's tokens of a text (lower-cased words and punctuation, as attention() splits it). */
    tokens: memoize((text) => pe.embedTokens(text, 1, 0).tokens, 8),

    /** The trained head's reading of a sentence (tokenIds): {tokens: string[], ids: Int32Array}, each word's id among vocab. */
    tokenIds: memoize((text, vocab) => pe.tokenIds(text, vocab), 8),

    /**
     * One pair of a vector, (1, 0) in pair `pair` and 0 elsewhere, as the core
     * rotates it at positions start .. start + count - 1.
     * @returns {{positions: number[], a: Float32Array, b: Float32Array, inv_freq: number, attention_factor: number}}
     *   (a, b): the pair's two components at each position
     * @throws {RangeError} "pair = ... is invalid" when pair >= rotary_dim / 2
     */
    pairTrajectory: memoize((spec, pair, start, count) => {
      const f = rotary(spec, start + count);
      const half = f.rotary_dim / 2;
      if (!Number.isInteger(pair) || pair < 0 || pair >= half) {
        throw badParam('pair', pair, `an integer in [0, ${half - 1}] (rotary_dim / 2 = ${half} pairs)`);
      }
      const d = f.head_dim;
      const ca = f.first_column[pair], cb = f.second_column[pair];  // the columns the core pairs in the spec's layout
      const x = new Float32Array(count * d);
      for (let r = 0; r < count; r++) x[r * d + ca] = 1;
      const y = pe.applyRope(x, count, d, spec, start);
      return {
        positions: Array.from({ length: count }, (_, r) => start + r),
        a: Float32Array.from({ length: count }, (_, r) => y[r * d + ca]),
        b: Float32Array.from({ length: count }, (_, r) => y[r * d + cb]),
        inv_freq: f.inv_freq[pair],
        attention_factor: f.attention_factor,
        ramp_low: f.ramp_low,
        ramp_high: f.ramp_high,
      };
    }, 8),

    /**
     * A query [n, head_dim] of all ones or of seeded N(0, 1) entries, rotated
     * at positions 0..n-1.
     * @param {'ones'|'random'} input
     * @returns {{data: Float32Array, rows: number, cols: number, rotary: object}}
     */
    rotatedInput: memoize((spec, n, input) => {
      const f = rotary(spec, n);
      const d = f.head_dim;
      if (!Number.isInteger(n) || n < 1 || n * d > 1 << 22) {
        throw badParam('n', n, `an integer in [1, ${Math.floor((1 << 22) / d)}] for head_dim ${d}`);
      }
      const random = seededRandom(1);
      const x = Float32Array.from({ length: n * d }, (_, k) => (input === 'ones' ? 1 : random.normal()));
      if (input === 'random') for (let r = 1; r < n; r++) x.copyWithin(r * d, 0, d);  // one vector at every position
      return { data: pe.applyRope(x, n, d, spec, 0), rows: n, cols: d, rotary: f };
    }),
  };
  return calls;
}

/**
 * The fields `needs` of family `name` for params (and its formulaNeeds), and the parameters they read. A lab's fields
 * are loaded first (families/compute.js loadCompute; the server does).
 * @returns {{data: object, reads: Set<string>}} reads: the names read so far; a job among the fields (a lab's, which
 *   reads params as it runs) adds the names it reads to the same set, so read it once the jobs are done
 * @throws {Error} the core's or the family's message, with .reads
 */
export function computeFields(calls, name, params, needs) {
  const family = typeof name === 'string' ? computeOf(name) : null;
  if (!family) throw badParam('encoding', JSON.stringify(name), `one of ${COMPUTE_NAMES.join(', ')}`);
  const { proxy, reads } = tracking(params);
  try {
    const result = family.fields(calls, proxy);
    const data = {};
    // A family's formulaNeeds: what every view's formula shows of the core's (ALiBi's slopes).
    for (const field of [...needs, ...(family.formulaNeeds ?? [])]) data[field] = result[field];
    return { data, reads };
  } catch (error) {
    error.reads = [...reads];
    throw error;
  }
}

/** Adds the buffers of typed arrays in value that are not in transfer yet. */
function collectBuffers(value, transfer) {
  if (ArrayBuffer.isView(value)) {
    if (!transfer.includes(value.buffer)) transfer.push(value.buffer);
  } else if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) collectBuffers(v, transfer);
  }
}

function errorMessage(error) {
  return { name: error instanceof RangeError ? 'RangeError' : 'Error', message: String(error?.message ?? error), code: error?.code,
    param: error?.param, value: error?.value, allowed: error?.allowed, reads: error?.reads ?? [] };
}

/** Whether value is a job: a generator that yields progress and returns a field's value (memoizeJob). */
function isJob(value) {
  return typeof value?.next === 'function' && typeof value?.return === 'function' && typeof value?.[Symbol.iterator] === 'function';
}

/**
 * The request loop. Requests (from engine.js):
 *   {id, op: 'view', key, family, params, needs, previews?}  -> {id, started: true} when it starts, then
 *     {id, data, reads} or {id, error: {name, message, reads}}
 *     (previews: {rows, cols}: every larger matrix in data gets a block-averaged preview, lib/box-average.js)
 *   {id, op: 'call', method, args}                -> {id, value} or {id, error}
 *   {op: 'cancel', key}                           drops the queued requests of that key ({id, superseded: true})
 *                                                 and stops its running job ({id, cancelled: true})
 *   {op: 'priority', key, priority}               changes the priority of the queued requests of that key
 * A 'view' request replaces any queued request with the same key, in its place. Requests are
 * answered in order, the lower `priority` first (the page gives 0 to views in sight).
 *
 * Jobs: a field (or a call) whose value is a job (a generator: it yields progress and returns the
 * value, see memoizeJob) runs a slice of about `sliceMs` at a time. After each slice the server posts
 * {id, progress} (what the job yielded last; with {partial: {[field]: value so far}} when that progress carried a
 * partial value, which the page draws while the job runs) and yields to the event loop (setTimeout 0), so
 * messages arrive: a 'cancel' of the request's key, or a newer 'view' request with its key, stops
 * the job there (its generator's return(): a `finally` frees what it holds) and answers
 * {id, cancelled: true} or {id, superseded: true}.
 *
 * Memory: WebAssembly memory only grows, so after a large request (applyRope on 2^24 floats
 * takes 160 MiB) the instance would hold that memory for the life of the tab. When the module's
 * memory is above `memoryLimit` bytes after a request, the server drops the instance and its
 * caches and loads a fresh one (about 15 ms) before the next request; it posts
 * {op: 'restarted', memoryBytes} (the size it dropped) so the page can tell. The default
 * keeps the page's usual large views (attention on 2048 tokens: 123 MiB) on one instance. It does the
 * same after a request whose error may have left the instance in a bad state (a WebAssembly trap, or an
 * error with code 'internal'). The memoised calls keep at most CACHE_BYTES of results between requests.
 *
 * Two modules (CMakeLists.txt): the server starts on load('view') (posenc-view.wasm: what the views compute at their
 * first figure). A request that calls a function that module lacks (the JS API throws .code 'unavailable': the
 * trainer, the model lab's, the trained head's) makes it load load('full') (posenc.wasm, every function) in its
 * place, with fresh caches, post {op: 'module', module: 'full'}, and answer that request again, from the start
 * (a view request needsFullModule names is answered on posenc.wasm from the start); every later instance (a restart)
 * is a full one too. If posenc.wasm cannot load, that request is answered with
 * the error and the view module keeps serving.
 * @param {(module: 'view' | 'full') => Promise<object>} load  instantiates the wasm module of that name (createPosenc
 *   of web/generated/posenc-view.mjs or posenc.mjs); a load that always gives the full module is fine
 * @param {(message: object, transfer?: ArrayBuffer[]) => void} post
 * @param {{memoryLimit?: number, sliceMs?: number, corpus?: () => Promise<string>, spawnArm?: () => Worker,
 *   module?: 'view' | 'full' | 'auto'}} [options]
 *   bytes of wasm memory kept between requests (default 128 MiB); ms of a job between two progress messages (default 30;
 *   0: after every yield); createCalls's corpus and spawnArm; the module to start with (default 'view'; 'full' for a
 *   page whose first request needs posenc.wasm, see needsFullModule: one .wasm download, not two; 'auto': the first
 *   view request's or call's, loaded when it arrives: 'full' for a view request needsFullModule names, else 'view')
 * @returns {(message: object) => void} the function to hand each request to
 */
export function createServer(load, post, { memoryLimit = 128 * 2 ** 20, sliceMs = 30, corpus = null, spawnArm = null, module = 'view' } = {}) {
  const queue = [];
  let pe = null;
  let calls = null;
  let failure = null;
  let running = false;
  let current = null;  // the request being answered; between a job's slices, a message can stop it (current.stop)
  let kind = module === 'full' ? 'full' : 'view';  // the module instances come from: 'view' until a request needs posenc.wasm
  let lacked = false;  // whether the view module threw 'unavailable' during this request (however the caller wrapped it)
  /** The view module with its API functions watched for 'unavailable' (a family may wrap the error in its own). */
  const watched = (instance) => (kind !== 'view' ? instance : new Proxy(instance, {
    get(target, name) {
      const value = target[name];
      if (typeof value !== 'function') return value;
      return function call(...args) {
        try {
          return value.apply(target, args);
        } catch (error) {
          if (error?.code === 'unavailable') lacked = true;
          throw error;
        }
      };
    },
  }));
  const start = () => load(kind).then((module) => {
    pe = watched(module);
    calls = createCalls(pe, { corpus, spawnArm });
    post({ op: 'ready', version: pe.version(), module: kind });
  }, (error) => {
    failure = new Error(`${error?.message ?? error} (is the .wasm next to the scripts, served as application/wasm, with CORS from another origin?)`);
    post({ op: 'ready', error: errorMessage(failure) });
  });
  // module 'auto': no module until the first view request or call says which (choose, in the request handler below).
  let choose = null;
  let ready = module === 'auto' ? new Promise((resolve) => { choose = resolve; }).then(start) : start();

  let broken = null;  // the error of a request that may have left the instance in a bad state (a trap, an 'internal' error)

  /** A fresh instance in place of one whose memory grew past memoryLimit, or that a request may have broken. */
  function restartIfNeeded() {
    const memoryBytes = pe?.HEAPU8.buffer.byteLength ?? 0;
    if (memoryBytes <= memoryLimit && !broken) return;
    const reason = broken ? `after ${broken.message}` : `after a request used ${memoryBytes} bytes`;
    broken = null;
    pe = null;
    calls = null;
    ready = load(kind).then((module) => {
      pe = watched(module);
      calls = createCalls(pe, { corpus, spawnArm });
      post({ op: 'restarted', memoryBytes });
    }, (error) => {
      failure = new Error(`${error?.message ?? error} (reloading the engine ${reason})`);
    });
  }

  /**
   * A job's value, run a slice at a time with progress posted between slices; {stopped} if a message stopped it.
   * A job may yield {progress, wait: a promise} (arm workers, a text to fetch): its progress is posted, the promise
   * awaited and its value handed back to the job (a rejection stops the job and answers with its error).
   * A progress with a partial value (the field's value so far) is posted whatever the slice, as {id, progress, partial:
   * {[field]: value}} for a view's field (a call's keeps it in its progress).
   */
  async function drive(request, job, field = null) {
    const report = (progress) => {
      if (progress?.partial === undefined || field === null) post({ id: request.id, progress });
      else {
        const { partial, ...rest } = progress;
        post({ id: request.id, progress: rest, partial: { [field]: partial } });
      }
    };
    let slice = performance.now();
    let input;
    for (;;) {
      const { value, done } = job.next(input);
      input = undefined;
      if (done) return { value };
      if (typeof value?.wait?.then === 'function') {
        if (value.progress !== undefined) report(value.progress);
        try {
          input = await value.wait;
        } catch (error) {
          job.return();
          throw error;
        }
        slice = performance.now();
        if (request.stop) {
          job.return();
          return { stopped: request.stop };
        }
        continue;
      }
      if (performance.now() - slice < sliceMs && value?.partial === undefined) continue;
      report(value);
      await new Promise((resolve) => { setTimeout(resolve, 0); });
      slice = performance.now();
      if (request.stop) {
        job.return();
        return { stopped: request.stop };
      }
    }
  }

  /** Replaces the view module's instance by posenc.wasm's, with fresh caches; throws (the view module kept) if it cannot load. */
  async function loadFull() {
    let module;
    try {
      module = await load('full');
    } catch (error) {
      throw Object.assign(new Error(`posenc.wasm (the trainer and the model lab's functions) could not load: ${error?.message ?? error}`),
        { code: 'unavailable', param: 'posenc.wasm' });
    }
    kind = 'full';
    pe = module;
    calls = createCalls(pe, { corpus, spawnArm });
    post({ op: 'module', module: kind });
  }

  async function answer(request) {
    if (kind === 'view' && !failure && request.op === 'view' && needsFullModule(request.family, request.params, request.needs ?? [])) {
      try {
        await loadFull();
      } catch (error) {
        return { id: request.id, error: errorMessage(error) };
      }
    }
    lacked = false;
    const reply = await answerOnce(request);
    if (kind !== 'view' || !lacked) return reply;
    try {
      await loadFull();
    } catch (error) {
      return { id: request.id, error: errorMessage(error) };
    }
    return answerOnce(request);
  }

  /** Whether a request shows a set's start of training: its weights, or a compare mode line's "weights=initial". */
  function wantsInitial(params) {
    return params.weights === 'initial' || Object.values(params).some((v) => typeof v === 'string' && /\bweights\s*=\s*initial\b/.test(v));
  }

  async function answerOnce(request) {
    if (failure) return { id: request.id, error: { ...errorMessage(failure), message: `the WebAssembly engine failed to load: ${failure.message}` } };
    let reads = new Set();  // a view's: what its fields read, its jobs' reads included (they run below)
    try {
      if (request.op === 'view') {
        // A lab's fields and the trained parameters it computes with (a module each, loaded once).
        await loadCompute(request.family);
        await loadTrained(trainedNeeds(request.family, request.params ?? {}, request.needs ?? []),
          { initial: wantsInitial(request.params ?? {}) });
        const computed = computeFields(calls, request.family, request.params, request.needs);
        reads = computed.reads;
        const data = computed.data;
        for (const [field, value] of Object.entries(data)) {
          if (!isJob(value)) continue;
          const outcome = await drive(request, value, field);
          if (outcome.stopped) return { id: request.id, [outcome.stopped]: true };
          data[field] = outcome.value;
        }
        const { value, transfer } = detach(data);
        if (request.previews) {  // for views that paint matrices
          attachPreviews(value, request.previews);
          collectBuffers(value, transfer);
        }
        return [{ id: request.id, data: value, reads: [...reads] }, transfer];
      }
      let value = await calls[request.method](...request.args);
      if (isJob(value)) {
        const outcome = await drive(request, value);
        if (outcome.stopped) return { id: request.id, [outcome.stopped]: true };
        value = outcome.value;
      }
      const { value: out, transfer } = detach(value);
      return [{ id: request.id, value: out }, transfer];
    } catch (error) {
      if (error instanceof WebAssembly.RuntimeError || error?.code === 'internal') broken = error;
      if (error && typeof error === 'object') error.reads ??= [...reads];
      return { id: request.id, error: errorMessage(error) };
    }
  }

  async function pump() {
    if (running) return;
    running = true;
    await ready;
    while (queue.length) {
      // The first of the most urgent (views in sight are priority 0, the rest 1).
      let next = 0;
      for (let k = 1; k < queue.length; k++) if ((queue[k].priority ?? 0) < (queue[next].priority ?? 0)) next = k;
      const request = queue.splice(next, 1)[0];
      if (request.op === 'view') post({ id: request.id, started: true });
      const start = performance.now();
      current = request;
      const reply = await answer(request);
      current = null;
      const label = request.op === 'view' ? `${request.family} ${request.needs.join(',')}` : request.method;
      performance.measure(`posenc: compute ${label}`, { start, end: performance.now() });  // for the performance panel,
      performance.clearMeasures(`posenc: compute ${label}`);  // not kept in the timeline
      if (globalThis.POSENC_TRACE) console.debug(  // set POSENC_TRACE = true in the worker to log each computation
        `posenc: compute ${label}: ${(performance.now() - start).toFixed(1)} ms`);
      try {
        if (Array.isArray(reply)) post(reply[0], reply[1]);
        else post(reply);
      } catch (error) {  // a reply that cannot be copied to the page: its request is answered all the same
        post({ id: request.id, error: errorMessage(new Error(`the engine's answer could not be sent to the page (${error?.message ?? error})`)) });
      }
      restartIfNeeded();
      await ready;
      await new Promise((resolve) => setTimeout(resolve, 0));  // let newer requests in
    }
    running = false;
  }

  return (request) => {
    if (choose && (request.op === 'view' || request.op === 'call')) {
      kind = request.op === 'view' && needsFullModule(request.family, request.params, request.needs ?? []) ? 'full' : 'view';
      choose();
      choose = null;
    }
    if (request.op === 'priority') {
      for (const queued of queue) if (queued.key === request.key) queued.priority = request.priority;
      return;
    }
    if (request.op === 'cancel' || (request.op === 'view' && request.key)) {
      // A running job of the key stops at its next slice.
      if (current && current.key === request.key) current.stop ??= request.op === 'cancel' ? 'cancelled' : 'superseded';
      // A newer request takes the place of the one it replaces.
      const at = queue.findIndex((queued) => queued.key === request.key);
      for (let k = queue.length - 1; k >= 0; k--) {
        if (queue[k].key === request.key) post({ id: queue.splice(k, 1)[0].id, superseded: true });
      }
      if (request.op === 'cancel') return;
      if (at >= 0) {
        queue.splice(at, 0, request);
        pump();
        return;
      }
    }
    queue.push(request);
    pump();
  };
}
